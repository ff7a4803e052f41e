// Upgrade v2.
//
// | store / record                        | change   | how                                                                  |
// |---------------------------------------|----------|----------------------------------------------------------------------|
// | store `chaininfo`                     | added    | StoreUpgrades.added; module chaininfo (consensus version 1) is new    |
// | `chaininfo` 0x01                      | added    | chaininfo InitGenesis (run by runMigrations): u64be height v2 applied |
// | `chaininfo` 0x02 ‖ name               | added    | upgrade history: earlier upgrades' done records copied, then v2 at H  |
// | store `validators`                    | renamed  | StoreUpgrades.renamed → `valset` (same keys, O(1) rename)             |
// | `valset` 0x01 ‖ operator, 0x02 ‖ cons | kept     | validator records and consensus-address index, unchanged              |
// | `valset` 0x03                         | added    | validators migration 1 → 2: u64be total voting power of the set       |
// | module versions (upgrade store 0x02)  | migrated | validators 1 → 2, chaininfo 1 (new); others unchanged                 |
//
// Nothing is deleted. A chain started from a v2 genesis has the same layout (chaininfo 0x01 = genesis height):
// every module's InitGenesis is followed by its migrations. From v2 on, every upgrade is recorded in
// chaininfo's history by chaininfo's onEveryUpgrade hook.
import type { Upgrade } from '../types.ts';
import { CHAININFO, chainInfoModule, recordUpgrade, upgradeHistory } from './chaininfo.ts';
import { VALSET_STORE_KEY, writeTotalPower } from './validators-v2.ts';

export const V2 = 'v2';

export const v2: Upgrade = {
  name: V2,
  storeUpgrades: { added: [CHAININFO], renamed: [{ oldKey: 'validators', newKey: VALSET_STORE_KEY }] },
  modules: {
    chaininfo: {
      consensusVersion: 1n,
      create: chainInfoModule,
      onEveryUpgrade: (ctx, plan) => recordUpgrade(ctx, plan.name, ctx.height),
      history: upgradeHistory,
    },
    validators: { consensusVersion: 2n, storeKey: VALSET_STORE_KEY, migrate: (ctx, k) => writeTotalPower(ctx, k.validators) },
  },
};

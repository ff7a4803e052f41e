// Test support: upgrades for the "new binary" in upgrade tests. The real v2 lives in src/upgrades/v2.
import type { AppModule } from '@chaind/sdk/app';
import { utf8 } from '@chaind/sdk/store';
import type { Upgrade } from '../../src/upgrades/index.ts';

export const NEWMOD = 'newmod';

/** A module v2 introduces: its store must be added by the upgrade; InitGenesis leaves a marker. */
export function newModule(): AppModule {
  return {
    name: NEWMOD,
    storeKeys: [NEWMOD],
    consensusVersion: 1n,
    defaultGenesis: () => ({}),
    initGenesis(ctx) {
      ctx.kvStore(NEWMOD).set(utf8('initialised-at'), utf8(ctx.height.toString()));
    },
  };
}

export interface TestUpgradeOptions {
  /** Makes the handler throw (a buggy release). */
  readonly fail?: boolean;
  /** Counts handler runs, to prove it runs once. */
  readonly runs?: { count: number };
}

/** Upgrade "v2": adds the newmod module and its store (its InitGenesis runs in the upgrade block). */
export function upgradeV2(o: TestUpgradeOptions = {}): Upgrade {
  return {
    name: 'v2',
    storeUpgrades: { added: [NEWMOD] },
    modules: { [NEWMOD]: { consensusVersion: 1n, create: newModule } },
    afterMigrations: () => {
      if (o.runs) o.runs.count++;
      if (o.fail) throw new Error('migration bug: the v2 handler fails');
    },
  };
}

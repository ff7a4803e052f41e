// Upgrade N+1 on the real app over real LMDB: a throw-away v3 (defined here, not under src/upgrades)
// migrates an SDK module (bank 1 → 2) and a module an earlier upgrade added (chaininfo 1 → 2) and adds a
// module; a chain upgraded v1 → v2 → v3 and a chain started from v3's genesis end with the same layout.
import assert from 'node:assert/strict';
import { after, describe, test } from 'node:test';
import type { AppModule } from '@chaind/sdk/app';
import { concatBytes, toHex, u64be, utf8 } from '@chaind/sdk/store';
import { assertSameAsGenesis, newHome, queriedModuleVersions, removeTmpDirs, storeLayout, TestChain, upgradedThrough } from '@chaind/chaind/testing';
import { moduleVersions } from '../app.ts';
import { moduleSchedule, scheduledStoreKey, UpgradeListError } from './schedule.ts';
import type { Upgrade } from './types.ts';
import { recordUpgrade } from './v2/chaininfo.ts';
import { v2 } from './v2/index.ts';

after(removeTmpDirs);

const NOTES = 'notes';
/** bank 2: 0xf0 → u64be number of balance records (bank 1 has prefixes 0x00, 0x02, 0x04, 0x05). */
const BALANCE_COUNT_KEY = Uint8Array.of(0xf0);
/** chaininfo 2: the start height moves from 0x01 to 0x03. */
const STARTED_AT_V1 = Uint8Array.of(0x01);
const STARTED_AT_V2 = Uint8Array.of(0x03);

function notesModule(): AppModule {
  return {
    name: NOTES,
    storeKeys: [NOTES],
    consensusVersion: 1n,
    defaultGenesis: () => ({}),
    initGenesis(ctx) {
      ctx.kvStore(NOTES).set(Uint8Array.of(0x01), u64be(ctx.height));
    },
  };
}

const v3: Upgrade = {
  name: 'v3',
  storeUpgrades: { added: [NOTES] },
  modules: {
    bank: {
      consensusVersion: 2n,
      migrate(ctx) {
        let n = 0n;
        for (const _ of ctx.kvStore('bank').iterator(Uint8Array.of(0x02), Uint8Array.of(0x03))) n++;
        ctx.kvStore('bank').set(BALANCE_COUNT_KEY, u64be(n));
      },
    },
    chaininfo: {
      consensusVersion: 2n,
      migrate(ctx) {
        const s = ctx.kvStore('chaininfo');
        s.set(STARTED_AT_V2, s.get(STARTED_AT_V1) as Uint8Array);
        s.delete(STARTED_AT_V1);
      },
      // the history records keep their layout in chaininfo 2: the same hook
      onEveryUpgrade: (ctx, plan) => recordUpgrade(ctx, plan.name, ctx.height),
    },
    [NOTES]: { consensusVersion: 1n, create: notesModule },
  },
};

const V3_VERSIONS = { auth: '1', bank: '2', chaininfo: '2', gov: '1', notes: '1', upgrade: '1', validators: '2' };

describe('upgrade N+1 (a throw-away v3 after v2)', () => {
  test('v1 → v2 → v3 on real storage: bank 1 → 2, chaininfo 1 → 2, notes added, and v3 recorded in the history without v3 saying so', async () => {
    const { chain: c, heights } = await upgradedThrough([v2, v3]);
    const { v2: h2, v3: h3 } = heights;
    assert.deepEqual(queriedModuleVersions(c), V3_VERSIONS);
    assert.equal(c.raw('bank', BALANCE_COUNT_KEY) !== undefined, true, 'bank 2 record written by the migration');
    assert.equal(c.raw('chaininfo', STARTED_AT_V1), undefined, 'chaininfo 2 moved the start record');
    assert.equal(c.raw('chaininfo', STARTED_AT_V2), toHex(u64be(h2)));
    assert.equal(c.raw('chaininfo', concatBytes(Uint8Array.of(0x02), utf8('v2'))), toHex(u64be(h2)));
    assert.equal(c.raw('chaininfo', concatBytes(Uint8Array.of(0x02), utf8('v3'))), toHex(u64be(h3)), "v3 recorded by chaininfo's hook");
    assert.equal(c.raw(NOTES, Uint8Array.of(0x01)), toHex(u64be(h3)), 'notes InitGenesis ran at v3');
    // a chain started from v3's genesis: the same module versions and layout from its first block
    assert.deepEqual(storeLayout(c, [v2, v3]), { bank: ['00', '02', '05', 'f0'], chaininfo: ['03'], notes: ['01'], valset: ['01', '02', '03'] });
    await assertSameAsGenesis(c, [v2, v3]);
    await c.close();

    const g = TestChain.open(newHome(), { upgrades: [v2, v3] });
    assert.equal(g.raw('chaininfo', STARTED_AT_V2), toHex(u64be(1n)), 'the genesis chain started at its genesis height, in the chaininfo 2 layout');
    assert.equal(g.raw('bank', BALANCE_COUNT_KEY) !== undefined, true);
    assert.equal(g.raw('chaininfo', concatBytes(Uint8Array.of(0x02), utf8('v3'))), undefined, 'no upgrade was applied');
    await g.close();
  });

  test('the module versions are a function of the upgrade list', () => {
    assert.deepEqual(moduleVersions([v2, v3]), { auth: 1n, bank: 2n, chaininfo: 2n, gov: 1n, notes: 1n, upgrade: 1n, validators: 2n });
  });

  test('a declaration that cannot apply is refused when the app is wired, naming the upgrade and module', () => {
    const genesis = { auth: 1n, bank: 1n, gov: 1n, upgrade: 1n, validators: 1n };
    const refused = (upgrades: Upgrade[], message: string): void =>
      assert.throws(
        () => moduleSchedule(genesis, upgrades),
        (e: Error) => e instanceof UpgradeListError && e.message === message,
      );
    const noop = (): void => {};
    refused(
      [{ name: 'v3', storeUpgrades: {}, modules: { bank: { consensusVersion: 3n, migrate: noop } } }],
      'upgrade "v3", module "bank": consensus version 1 → 3: an upgrade keeps a module\'s version or raises it by one',
    );
    refused(
      [{ name: 'v3', storeUpgrades: {}, modules: { bank: { consensusVersion: 2n } } }],
      'upgrade "v3", module "bank": consensus version 1 → 2 needs migrate',
    );
    refused(
      [{ name: 'v3', storeUpgrades: {}, modules: { staking: { consensusVersion: 1n } } }],
      'upgrade "v3", module "staking": no such module before this upgrade; a module an upgrade adds needs create',
    );
    refused(
      [{ name: 'v3', storeUpgrades: {}, modules: { bank: { consensusVersion: 1n, create: notesModule } } }],
      'upgrade "v3", module "bank": the module already exists (since genesis)',
    );
    refused([v2, v2], 'upgrade "v2" is listed twice');
    refused(
      [{ name: 'v3', storeUpgrades: { renamed: [{ oldKey: 'bank', newKey: 'coins' }] }, modules: { bank: { consensusVersion: 1n, storeKey: 'coins' } } }],
      'upgrade "v3", module "bank": only the validators module\'s store key can be changed by an upgrade',
    );
    assert.equal(scheduledStoreKey([v2, v3], 'validators'), 'valset', 'v2 moved the validator set; v3 leaves it there');
    assert.equal(scheduledStoreKey([], 'validators'), undefined, 'its own store before any upgrade');
    // the hidden link of the old shape: a later chaininfo migration that forgets the per-upgrade hook
    const { onEveryUpgrade: _, ...forgetful } = (v3.modules ?? {}).chaininfo;
    refused(
      [v2, { ...v3, modules: { chaininfo: forgetful } }],
      'upgrade "v3", module "chaininfo": migrates the module to version 2 but does not restate its onEveryUpgrade hook (declared by "v2" for version 1): give the hook for the new layout',
    );
  });
});

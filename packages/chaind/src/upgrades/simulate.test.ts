// The upgrade simulation as chain developers call it from their tests: on a snapshot of a v1 chain's
// state from real blocks, it predicts what the v2 block then does (module versions, per-store counts,
// the app hash), stays on its snapshot while blocks commit, and reports a failing handler's error.
import assert from 'node:assert/strict';
import { cpSync } from 'node:fs';
import { join } from 'node:path';
import { after, describe, test } from 'node:test';
import { CommitMultiStore, toHex } from '@chaind/sdk/store';
import { UpgradeHaltError } from '@chaind/sdk/x/upgrade';
import { ALICE, BOB, newHome, queriedModuleVersions, removeTmpDirs, softwareUpgrade, stateDiff, TestChain } from '@chaind/chaind/testing';
import type { Upgrade } from './index.ts';
import { simulateUpgrade } from './simulate.ts';
import { v2 } from './v2/index.ts';

after(removeTmpDirs);

const CHAIN_ID = 'chain-test-1';

/** A v1 chain with some sends, the v2 plan at a height ahead, run to its halt. */
function haltedAtV2(genesisUpgrades: readonly Upgrade[] = []): { c: TestChain; h: bigint } {
  const c = TestChain.open(newHome(), { upgrades: genesisUpgrades });
  for (let i = 0; i < 3; i++) c.block([c.send(ALICE, BOB.address, '5stake')]);
  const h = c.height + 25n;
  c.pass([softwareUpgrade('v2', h)]);
  c.blocksUntil(h - 1n);
  assert.throws(
    () => c.block(),
    (e: Error) => e instanceof UpgradeHaltError && e.kind === 'upgrade-needed',
  );
  return { c, h };
}

const counts = (ds: readonly { name: string; keysAdded: number; keysChanged: number; keysDeleted: number }[]): string[] =>
  ds.filter((d) => d.keysAdded + d.keysChanged + d.keysDeleted > 0).map((d) => `${d.name} +${d.keysAdded} ~${d.keysChanged} -${d.keysDeleted}`);

describe('simulateUpgrade', () => {
  test('predicts the real upgrade block: the same module versions, per-store key counts and app hash of the block with no txs', async () => {
    const { c, h } = haltedAtV2();
    const snap = c.app.store.snapshot();
    const r = simulateUpgrade({ snapshot: snap, upgrade: v2, upgrades: [v2], height: h, time: { seconds: 1_800_000_000n, nanos: 0 }, chainId: CHAIN_ID });
    snap.release();
    assert.equal(r.passed, true, r.error);
    assert.equal(r.fromHeight, h - 1n);
    assert.ok(r.gasUsed > 0n, 'the handler charged gas');
    assert.ok(r.wallMs > 0 && r.peakRssBytes > 0);
    const home = c.home;
    await c.close();
    // the state the real block starts from, kept aside for the key-by-key comparison
    const before = newHome();
    cpSync(join(home, 'data'), join(before, 'data'), { recursive: true });

    const real = TestChain.open(home, { upgrades: [v2] });
    real.block();
    assert.equal(real.height, h);
    assert.equal(toHex(real.app.store.lastCommitInfo().appHash), r.appHash, 'the app hash the upgrade block committed');
    const versions = queriedModuleVersions(real);
    for (const [m, v] of Object.entries(r.toVM)) assert.equal(versions[m], v.toString(), `module ${m}`);
    assert.deepEqual(Object.keys(versions).sort(), Object.keys(r.toVM).sort());
    await real.close();

    const a = CommitMultiStore.open(join(before, 'data', 'application.db'));
    const b = CommitMultiStore.open(join(home, 'data', 'application.db'));
    const sa = a.snapshot();
    const sb = b.snapshot();
    const oracle = stateDiff(sa, sb, new Map([['valset', 'validators']]));
    sa.release();
    sb.release();
    await a.close();
    await b.close();
    assert.deepEqual(counts(r.stores), counts(oracle));
    assert.deepEqual(counts(r.stores), ['chaininfo +2 ~0 -0', 'upgrade +3 ~1 -1', 'valset +1 ~0 -0']);
    const valset = r.stores.find((s) => s.name === 'valset');
    assert.equal(valset?.renamedFrom, 'validators');
  });

  test('stays on its snapshot while the chain commits blocks that change state', async () => {
    const { c, h } = haltedAtV2();
    await c.close();
    // the node keeps running (a v1 binary that does not halt: the plan is not due for it yet)
    const running = TestChain.open(c.home, { skipUpgradeHeights: [h] });
    const snap = running.app.store.snapshot();
    const copy = newHome();
    cpSync(join(c.home, 'data'), join(copy, 'data'), { recursive: true });
    for (let i = 0; i < 4; i++) running.block([running.send(ALICE, BOB.address, '1stake', BigInt(i))]);
    assert.ok(running.height > snap.height);
    const later = simulateUpgrade({ snapshot: snap, upgrade: v2, upgrades: [v2], height: h, chainId: CHAIN_ID });
    snap.release();
    await running.close();
    const ms = CommitMultiStore.open(join(copy, 'data', 'application.db'));
    const s = ms.snapshot();
    const fresh = simulateUpgrade({ snapshot: s, upgrade: v2, upgrades: [v2], height: h, chainId: CHAIN_ID });
    s.release();
    await ms.close();
    assert.equal(later.passed, true, later.error);
    assert.equal(later.fromHeight, h - 1n);
    assert.equal(later.fromAppHash, fresh.fromAppHash);
    assert.equal(later.appHash, fresh.appHash);
    assert.deepEqual(later.stores, fresh.stores);
    assert.deepEqual(later.toVM, fresh.toVM);
  });

  test("a failing handler: passed false with the handler's error, nothing written", async () => {
    // a chain whose validators module is already at consensus version 3: v2 cannot migrate it backwards
    const bump = (name: string, v: bigint): Upgrade => ({ name, storeUpgrades: {}, modules: { validators: { consensusVersion: v, migrate: () => {} } } });
    const { c, h } = haltedAtV2([bump('v0a', 2n), bump('v0b', 3n)]);
    const hash = toHex(c.app.store.lastCommitInfo().appHash);
    const snap = c.app.store.snapshot();
    const r = simulateUpgrade({ snapshot: snap, upgrade: v2, upgrades: [v2], height: h, chainId: CHAIN_ID });
    snap.release();
    assert.equal(r.passed, false);
    assert.equal(r.error, 'module "validators" is at version 3 on chain but this binary has version 2: cannot migrate backwards');
    assert.equal(r.appHash, undefined);
    assert.deepEqual(r.stores, []);
    assert.deepEqual(r.toVM, r.fromVM);
    assert.equal(c.height, h - 1n);
    assert.equal(toHex(c.app.store.lastCommitInfo().appHash), hash);
    await c.close();
  });
});

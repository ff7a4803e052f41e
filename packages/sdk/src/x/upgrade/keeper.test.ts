import assert from 'node:assert/strict';
import { mkdtempSync, rmSync } from 'node:fs';
import { tmpdir } from 'node:os';
import { join } from 'node:path';
import { after, test } from 'node:test';
import { Context } from '../../app/index.ts';
import { moduleAddress } from '../../crypto/index.ts';
import type { Plan } from '../../gen/chain/upgrade/v1beta1/upgrade.ts';
import { CommitMultiStore, toHex, u64be, utf8 } from '../../store/index.ts';
import { UpgradeKeeper } from './keeper.ts';

const dirs: string[] = [];
after(() => dirs.forEach((d) => rmSync(d, { recursive: true, force: true })));

async function withKeeper(fn: (k: UpgradeKeeper, ctxAt: (h: bigint) => Context, ms: CommitMultiStore) => void): Promise<void> {
  const d = mkdtempSync(join(tmpdir(), 'chaind-upkeeper-'));
  dirs.push(d);
  const ms = CommitMultiStore.open(d);
  ms.mount(['upgrade']);
  ms.loadLatest();
  const k = new UpgradeKeeper({ authority: moduleAddress('gov') });
  const ctxAt = (height: bigint): Context => new Context({ store: ms, header: { chainId: 't', height, time: { seconds: 0n, nanos: 0 }, proposerAddress: new Uint8Array(0) }, mode: 'finalize' });
  try {
    fn(k, ctxAt, ms);
  } finally {
    await ms.close();
  }
}

const plan = (o: Partial<Plan>): Plan => ({ name: 'v2', height: 100n, info: '', time: undefined, upgradedClientState: undefined, ...o });

test('scheduleUpgrade checks in the SDK order and wording, first failure wins', () =>
  withKeeper((k, at) => {
    const ctx = at(10n);
    // time set and name empty: the time error comes first
    assert.throws(() => k.scheduleUpgrade(ctx, plan({ time: { seconds: 5n, nanos: 0 }, name: '' })), /^Error: time-based upgrades have been deprecated in the SDK: invalid request$|time-based upgrades have been deprecated in the SDK: invalid request/);
    assert.throws(() => k.scheduleUpgrade(ctx, plan({ upgradedClientState: { typeUrl: '/x', value: new Uint8Array(0) } })), /upgrade logic for IBC has been moved to the IBC module: invalid request/);
    assert.throws(() => k.scheduleUpgrade(ctx, plan({ name: '', height: 0n })), /name cannot be empty: invalid request/);
    assert.throws(() => k.scheduleUpgrade(ctx, plan({ height: 0n })), /height must be greater than 0: invalid request/);
    assert.throws(() => k.scheduleUpgrade(ctx, plan({ height: 10n })), /upgrade cannot be scheduled in the past: invalid request/);
    // the zero time counts as unset
    k.scheduleUpgrade(ctx, plan({ time: { seconds: 0n, nanos: 0 } }));
    assert.equal(k.getUpgradePlan(ctx)?.height, 100n);
    // a later schedule replaces it
    k.scheduleUpgrade(ctx, plan({ name: 'v3', height: 50n }));
    assert.equal(k.getUpgradePlan(ctx)?.name, 'v3');
    k.clearUpgradePlan(ctx);
    k.clearUpgradePlan(ctx); // no plan: still fine
    assert.equal(k.getUpgradePlan(ctx), undefined);
  }));

test('done heights, the last completed upgrade (ties: greatest name), the version map and the protocol version', () =>
  withKeeper((k, at) => {
    const ctx = at(7n);
    assert.equal(k.getDoneHeight(ctx, 'v2'), 0n);
    assert.equal(k.getLastCompletedUpgrade(ctx), undefined);
    assert.equal(k.getProtocolVersion(ctx), 0n);
    const noop = (_c: Context, _p: Plan, vm: Record<string, bigint>): Record<string, bigint> => ({ ...vm, bank: 2n });
    k.setUpgradeHandler('a', noop);
    k.setUpgradeHandler('b', noop);
    k.setModuleVersionMap(ctx, { bank: 1n, auth: 1n });
    k.applyUpgrade(at(7n), plan({ name: 'b', height: 7n }));
    k.applyUpgrade(at(7n), plan({ name: 'a', height: 7n }));
    assert.deepEqual(k.getLastCompletedUpgrade(ctx), { name: 'b', height: 7n });
    k.setUpgradeHandler('c', noop);
    k.applyUpgrade(at(9n), plan({ name: 'c', height: 9n }));
    assert.deepEqual(k.getLastCompletedUpgrade(ctx), { name: 'c', height: 9n });
    assert.equal(k.getProtocolVersion(ctx), 3n, 'one per applied upgrade');
    assert.deepEqual(k.getModuleVersionMap(ctx), { auth: 1n, bank: 2n });
    // an empty map writes nothing and a map without a module never deletes it
    k.setModuleVersionMap(ctx, {});
    k.setModuleVersionMap(ctx, { gov: 1n });
    assert.deepEqual(k.getModuleVersionMap(ctx), { auth: 1n, bank: 2n, gov: 1n });
    assert.equal(toHex(ctx.store.getStore('upgrade').get(Buffer.concat([Buffer.from([1]), utf8('c')])) as Uint8Array), toHex(u64be(9n)));
    assert.throws(() => k.applyUpgrade(ctx, plan({ name: 'unknown' })), /no upgrade handler registered for unknown: upgrade plan not found/);
  }));

import assert from 'node:assert/strict';
import { mkdtempSync, rmSync } from 'node:fs';
import { tmpdir } from 'node:os';
import { join } from 'node:path';
import { after, test } from 'node:test';
import { Context } from '../../app/index.ts';
import { moduleAddress } from '../../crypto/index.ts';
import { Plan as PlanCodec, type Plan } from '../../gen/chain/upgrade/v1beta1/upgrade.ts';
import { CommitMultiStore, toHex, u64be, utf8 } from '../../store/index.ts';
import { upgradeErrors, UpgradeHaltError } from './errors.ts';
import { UpgradeKeeper } from './keeper.ts';
import { validatePlanBasic } from './plan.ts';
import { errorMessage } from '@chaind/errors';

const dirs: string[] = [];
after(() => dirs.forEach((d) => rmSync(d, { recursive: true, force: true })));

async function withKeeper(fn: (k: UpgradeKeeper, ctxAt: (h: bigint) => Context, ms: CommitMultiStore) => void): Promise<void> {
  const d = mkdtempSync(join(tmpdir(), 'chaind-upkeeper-'));
  dirs.push(d);
  const ms = CommitMultiStore.open(d);
  ms.mount(['upgrade']);
  ms.loadLatest();
  const k = new UpgradeKeeper({ authority: moduleAddress('gov') });
  const ctxAt = (height: bigint): Context =>
    new Context({ store: ms, header: { chainId: 't', height, time: { seconds: 0n, nanos: 0 }, proposerAddress: new Uint8Array(0) }, mode: 'finalize' });
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
    assert.throws(
      () => k.scheduleUpgrade(ctx, plan({ time: { seconds: 5n, nanos: 0 }, name: '' })),
      /^Error: time-based upgrades have been deprecated in the SDK: invalid request$|time-based upgrades have been deprecated in the SDK: invalid request/,
    );
    assert.throws(
      () => k.scheduleUpgrade(ctx, plan({ upgradedClientState: { typeUrl: '/x', value: new Uint8Array(0) } })),
      /upgrade logic for IBC has been moved to the IBC module: invalid request/,
    );
    assert.throws(() => k.scheduleUpgrade(ctx, plan({ name: '', height: 0n })), /name cannot be empty: invalid request/);
    assert.throws(() => k.scheduleUpgrade(ctx, plan({ height: 0n })), /height must be greater than 0: invalid request/);
    assert.throws(() => k.scheduleUpgrade(ctx, plan({ height: 9n })), /upgrade cannot be scheduled in the past: invalid request/);
    // Go's zero time counts as unset
    k.scheduleUpgrade(ctx, plan({ time: { seconds: -62_135_596_800n, nanos: 0 } }));
    assert.equal(k.getUpgradePlan(ctx)?.height, 100n);
    // a later schedule replaces it
    k.scheduleUpgrade(ctx, plan({ name: 'v3', height: 50n }));
    assert.equal(k.getUpgradePlan(ctx)?.name, 'v3');
    k.clearUpgradePlan(ctx);
    k.clearUpgradePlan(ctx); // no plan: still fine
    assert.equal(k.getUpgradePlan(ctx), undefined);
  }));

test('done heights, the applied upgrades and the last one (ties: greatest name), the version map and the protocol version', () =>
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
    assert.deepEqual(
      k.getDoneUpgrades(ctx),
      [
        { name: 'a', height: 7n },
        { name: 'b', height: 7n },
        { name: 'c', height: 9n },
      ],
      'by height, then name',
    );
    assert.equal(k.getProtocolVersion(ctx), 3n, 'one per applied upgrade');
    assert.deepEqual(k.getModuleVersionMap(ctx), { auth: 1n, bank: 2n });
    // an empty map writes nothing and a map without a module never deletes it
    k.setModuleVersionMap(ctx, {});
    k.setModuleVersionMap(ctx, { gov: 1n });
    assert.deepEqual(k.getModuleVersionMap(ctx), { auth: 1n, bank: 2n, gov: 1n });
    assert.equal(toHex(ctx.store.getStore('upgrade').get(Buffer.concat([Buffer.from([1]), utf8('c')])) as Uint8Array), toHex(u64be(9n)));
    assert.throws(() => k.applyUpgrade(ctx, plan({ name: 'unknown' })), /no upgrade handler registered for unknown: upgrade plan not found/);
  }));

/** Protobuf base-128 varint of a signed 64-bit value (two's complement), for building the fixture by hand. */
function varint(v: bigint): number[] {
  let u = BigInt.asUintN(64, v);
  const out: number[] = [];
  while (u >= 0x80n) {
    out.push(Number(u & 0x7fn) | 0x80);
    u >>= 7n;
  }
  out.push(Number(u));
  return out;
}

test('Plan.time: Go zero time or absent is unset, any other time (the epoch included) is refused; plans are stored as gogoproto stores them', () =>
  withKeeper((k, at, ms) => {
    const ctx = at(10n);
    // Go's time.Time{} as a Timestamp: 0001-01-01T00:00:00Z = 719162 days before 1970-01-01
    const goZeroSeconds = -719_162n * 86_400n;
    assert.equal(goZeroSeconds, -62_135_596_800n);
    // gogoproto's Marshal of Plan{Name: "v2", Height: 100} (`time` non-nullable stdtime: field 2 always
    // written; Timestamp{Seconds: goZero} with nanos 0 omitted): fields in number order, tag = field << 3 | wire type
    const timestamp = [(1 << 3) | 0, ...varint(goZeroSeconds)];
    const byHand = [(1 << 3) | 2, 2, ...utf8('v2'), (2 << 3) | 2, timestamp.length, ...timestamp, (3 << 3) | 0, ...varint(100n)];
    const goBytes = Uint8Array.from([0x0a, 0x02, 0x76, 0x32, 0x12, 0x0b, 0x08, 0x80, 0x92, 0xb8, 0xc3, 0x98, 0xfe, 0xff, 0xff, 0xff, 0x01, 0x18, 0x64]);
    assert.equal(toHex(goBytes), toHex(Uint8Array.from(byHand)), 'the fixture is the gogoproto encoding');
    const stored = (): string => toHex(ms.getStore('upgrade').get(Uint8Array.of(0)) as Uint8Array);

    // the plan as Go tooling encodes it is accepted and stored byte for byte
    const goPlan = PlanCodec.decode(goBytes);
    k.scheduleUpgrade(ctx, goPlan);
    assert.equal(stored(), toHex(goBytes));
    // absent time: the same, so our own encoder's plans are stored as the SDK stores them
    k.clearUpgradePlan(ctx);
    k.scheduleUpgrade(ctx, plan({ name: 'v2', height: 100n, time: undefined }));
    assert.equal(stored(), toHex(goBytes));
    assert.deepEqual(k.getUpgradePlan(ctx)?.time, { seconds: -62_135_596_800n, nanos: 0 });
    // the plan JSON our CLI prints (and the SDK's gateway writes) reads back as unset too
    k.scheduleUpgrade(ctx, PlanCodec.fromJSON({ name: 'v2', time: '0001-01-01T00:00:00Z', height: '100', info: '', upgraded_client_state: null }));
    assert.equal(stored(), toHex(goBytes));

    // every other time is refused with the SDK's text, the epoch and Go zero plus a nanosecond included
    for (const time of [
      { seconds: 0n, nanos: 0 },
      { seconds: -62_135_596_800n, nanos: 1 },
      { seconds: 1n, nanos: 0 },
    ]) {
      assert.throws(
        () => k.scheduleUpgrade(ctx, plan({ name: 'v3', time })),
        /^.*time-based upgrades have been deprecated in the SDK: invalid request$/,
        JSON.stringify(time, (_k, v: unknown) => (typeof v === 'bigint' ? v.toString() : v)),
      );
      assert.throws(() => validatePlanBasic(plan({ name: 'v3', time })), /time-based upgrades have been deprecated in the SDK: invalid request/);
    }
    // a field 2 present but empty decodes as the epoch (Go: time.Unix(0, 0)), so it is refused as well
    assert.throws(
      () => k.scheduleUpgrade(ctx, PlanCodec.decode(Uint8Array.from([0x0a, 0x02, 0x76, 0x33, 0x12, 0x00, 0x18, 0x64]))),
      /time-based upgrades have been deprecated/,
    );
    assert.equal(stored(), toHex(goBytes), 'nothing refused was stored');
  }));

test('a plan at the current height is accepted (the SDK emergency path) and is due in the pre-block of the next block; below it is the past', () =>
  withKeeper((k, at) => {
    assert.throws(() => k.scheduleUpgrade(at(10n), plan({ height: 9n })), /^.*upgrade cannot be scheduled in the past: invalid request$/);
    assert.equal(k.getUpgradePlan(at(10n)), undefined);
    k.scheduleUpgrade(at(10n), plan({ name: 'v2', height: 10n }));
    assert.equal(k.getUpgradePlan(at(10n))?.height, 10n);
    // the old binary (no handler) halts at the next block
    assert.throws(
      () => k.preBlock(at(11n)),
      (e: unknown) => e instanceof UpgradeHaltError && e.kind === 'upgrade-needed' && e.message === 'UPGRADE "v2" NEEDED at height: 11: ',
    );
    // a binary with the handler applies it there, at 11
    k.setUpgradeHandler('v2', (_c, _p, vm) => vm);
    assert.deepEqual(k.preBlock(at(11n)), { consensusParamsChanged: true });
    assert.equal(k.getDoneHeight(at(11n), 'v2'), 11n);
    assert.equal(k.getUpgradePlan(at(11n)), undefined);
  }));

test('IBC upgrade state: stored as given under the SDK keys, not-found errors as the SDK, cleared with the plan it belongs to', () =>
  withKeeper((k, at, ms) => {
    const ctx = at(10n);
    const raw = (key: string): string | undefined => {
      const v = ms.getStore('upgrade').get(utf8(key));
      return v === undefined ? undefined : toHex(v);
    };
    const notFound = (e: unknown, err: typeof upgradeErrors.upgradedClientNotFound): boolean => err.is(e) && errorMessage(e) === err.message;
    // nothing stored: the SDK's bare errors, codespace upgrade 4 and 5
    assert.throws(
      () => k.getUpgradedClient(ctx, 100n),
      (e: unknown) => notFound(e, upgradeErrors.upgradedClientNotFound),
    );
    assert.throws(
      () => k.getUpgradedConsensusState(ctx, 100n),
      (e: unknown) => notFound(e, upgradeErrors.upgradedConsensusStateNotFound),
    );

    // the bytes are stored as given, under `upgradedIBCState/<decimal height>/…`
    const client = Uint8Array.of(0x0a, 0x01, 0x2f, 0x00, 0xff);
    const cons = Uint8Array.of(0x12, 0x03, 1, 2, 3);
    k.setUpgradedClient(ctx, 100n, client);
    k.setUpgradedConsensusState(ctx, 100n, cons);
    assert.equal(raw('upgradedIBCState/100/upgradedClient'), toHex(client));
    assert.equal(raw('upgradedIBCState/100/upgradedConsState'), toHex(cons));
    assert.equal(toHex(k.getUpgradedClient(ctx, 100n)), toHex(client));
    assert.equal(toHex(k.getUpgradedConsensusState(ctx, 100n)), toHex(cons));
    // an empty value that was set is stored, not "not found"
    k.setUpgradedConsensusState(ctx, 7n, new Uint8Array(0));
    assert.equal(k.getUpgradedConsensusState(ctx, 7n).length, 0);
    k.clearIBCState(ctx, 7n);
    assert.throws(
      () => k.getUpgradedConsensusState(ctx, 7n),
      (e: unknown) => notFound(e, upgradeErrors.upgradedConsensusStateNotFound),
    );
    // heights beyond 2^53 keep every digit
    k.setUpgradedClient(ctx, 9_007_199_254_740_993n, client);
    assert.equal(raw('upgradedIBCState/9007199254740993/upgradedClient'), toHex(client));

    // ClearUpgradePlan with no plan: nothing to clear
    k.clearUpgradePlan(ctx);
    assert.equal(raw('upgradedIBCState/100/upgradedClient'), toHex(client));

    // a plan at 100, then a new plan at 200: the SDK clears the state of the replaced plan's height (100), not the new one's
    k.setUpgradedClient(ctx, 200n, client);
    k.setUpgradedConsensusState(ctx, 200n, cons);
    k.scheduleUpgrade(ctx, plan({ name: 'v2', height: 100n }));
    assert.equal(raw('upgradedIBCState/100/upgradedClient'), toHex(client), 'scheduling with no previous plan clears nothing');
    k.scheduleUpgrade(ctx, plan({ name: 'v2', height: 200n }));
    assert.equal(raw('upgradedIBCState/100/upgradedClient'), undefined);
    assert.equal(raw('upgradedIBCState/100/upgradedConsState'), undefined);
    assert.equal(raw('upgradedIBCState/200/upgradedClient'), toHex(client));
    assert.equal(raw('upgradedIBCState/200/upgradedConsState'), toHex(cons));

    // ClearUpgradePlan (what MsgCancelUpgrade and a skipped plan do) clears the plan height's state
    k.clearUpgradePlan(ctx);
    assert.equal(raw('upgradedIBCState/200/upgradedClient'), undefined);
    assert.equal(raw('upgradedIBCState/200/upgradedConsState'), undefined);
    assert.equal(raw('upgradedIBCState/9007199254740993/upgradedClient'), toHex(client), 'other heights are left alone');

    // ApplyUpgrade clears the applied plan's state
    k.scheduleUpgrade(ctx, plan({ name: 'v3', height: 12n }));
    k.setUpgradedClient(ctx, 12n, client);
    k.setUpgradedConsensusState(ctx, 12n, cons);
    k.setUpgradeHandler('v3', (_c, _p, vm) => vm);
    k.applyUpgrade(at(12n), plan({ name: 'v3', height: 12n }));
    assert.equal(raw('upgradedIBCState/12/upgradedClient'), undefined);
    assert.equal(raw('upgradedIBCState/12/upgradedConsState'), undefined);
  }));

import assert from 'node:assert/strict';
import { mkdtempSync, rmSync } from 'node:fs';
import { tmpdir } from 'node:os';
import { join } from 'node:path';
import { after, describe, test } from 'node:test';
import { Context, MemoryLogger } from '../../app/index.ts';
import { moduleAddress } from '../../crypto/index.ts';
import { ReadinessAttestation, SimulateResult } from '../../gen/chain/upgrade/v1beta1/readiness.ts';
import type { Plan } from '../../gen/chain/upgrade/v1beta1/upgrade.ts';
import { CommitMultiStore } from '../../store/index.ts';
import { UpgradeKeeper } from './keeper.ts';
import { UpgradeHaltError } from './errors.ts';
import { EVENT_UPGRADE_DELAYED } from './gate.ts';
import { DEFAULT_PARAMS, paramsFromJSON } from './params.ts';
import { parseGenesis } from './genesis.ts';
import {
  decFraction,
  encodeAttestation,
  getReadinessRecords,
  MAX_ATTESTATION_BYTES,
  parseAttestation,
  readinessVoteExtensions,
  recordAttestations,
  setVoteExtensionsHeight,
  type ReadinessValidator,
} from './readiness.ts';

const dirs: string[] = [];
after(() => dirs.forEach((d) => rmSync(d, { recursive: true, force: true })));

const plan = (o: Partial<Plan> = {}): Plan => ({ name: 'v2', height: 100n, info: '{"binaries":{}}', time: undefined, upgradedClientState: undefined, ...o });
const addr = (i: number): Uint8Array => new Uint8Array(20).fill(i);
const VALIDATORS: ReadinessValidator[] = [1, 2, 3, 4].map((i) => ({ operatorAddress: `op${i}`, moniker: `val-${i}`, consensusAddress: addr(i), power: 10n }));
const READY = { releaseChecksum: `sha256:${'ab'.repeat(32)}`, simulate: SimulateResult.SIMULATE_RESULT_PASSED };
const NOT_READY = { releaseChecksum: '', simulate: SimulateResult.SIMULATE_RESULT_UNSPECIFIED };

async function withChain(fn: (k: UpgradeKeeper, at: (h: bigint) => Context) => void, withHandlers: { logger?: MemoryLogger } = {}): Promise<void> {
  const d = mkdtempSync(join(tmpdir(), 'chaind-readiness-'));
  dirs.push(d);
  const ms = CommitMultiStore.open(d);
  ms.mount(['upgrade']);
  ms.loadLatest();
  const k = new UpgradeKeeper({ authority: moduleAddress('gov'), validators: () => VALIDATORS, ...withHandlers });
  const at = (height: bigint): Context =>
    new Context({ store: ms, header: { chainId: 't', height, time: { seconds: 0n, nanos: 0 }, proposerAddress: new Uint8Array(0) }, mode: 'finalize' });
  try {
    fn(k, at);
  } finally {
    await ms.close();
  }
}

const vote = (i: number, extension: Uint8Array) => ({ validatorAddress: addr(i), power: 10n, extension });

describe('readiness attestations', () => {
  test('VerifyVoteExtension: empty or a canonical, well-formed attestation within the cap; anything else refused', () => {
    const good = encodeAttestation(plan(), READY);
    assert.equal(parseAttestation(new Uint8Array(0)), undefined);
    assert.equal((parseAttestation(good) as ReadinessAttestation).planName, 'v2');
    assert.match(parseAttestation(new Uint8Array(MAX_ATTESTATION_BYTES + 1)) as string, /at most 512/);
    assert.match(parseAttestation(Uint8Array.of(0xff, 0xff)) as string, /not a ReadinessAttestation/);
    assert.match(parseAttestation(Uint8Array.from([...good, 0x30, 0x01])) as string, /canonical/, 'an unknown field appended');
    const bad = (o: Partial<ReadinessAttestation>): string =>
      parseAttestation(ReadinessAttestation.encode({ ...(parseAttestation(good) as ReadinessAttestation), ...o }).finish()) as string;
    assert.match(bad({ planName: '' }), /plan name is empty/);
    assert.match(bad({ planHeight: 0n }), /height must be positive/);
    assert.match(bad({ planInfoSha256: new Uint8Array(31) }), /32 bytes/);
    assert.match(bad({ releaseChecksum: 'md5' }), /algo:hex/);
    assert.match(bad({ simulate: 7 as SimulateResult }), /simulate result is unknown/);
    const h = readinessVoteExtensions({ plan: () => plan(), consensusKey: () => undefined });
    assert.equal(h.verifyVoteExtension(undefined as never, good), true);
    assert.equal(h.verifyVoteExtension(undefined as never, Uint8Array.of(1)), false);
  });

  test('ExtendVote: nothing without a plan; the plan and what the node says of its release with one; a reader that throws attests "not ready"', () =>
    withChain((k, at) => {
      const ctx = at(10n);
      const h = readinessVoteExtensions({ plan: (c) => k.getUpgradePlan(c), local: () => READY, consensusKey: () => undefined });
      assert.equal(h.extendVote(ctx, 10n).length, 0);
      k.scheduleUpgrade(ctx, plan());
      const a = parseAttestation(h.extendVote(ctx, 10n)) as ReadinessAttestation;
      assert.equal(a.releaseChecksum, READY.releaseChecksum);
      assert.equal(a.planHeight, 100n);
      const broken = readinessVoteExtensions({
        plan: (c) => k.getUpgradePlan(c),
        local: () => {
          throw new Error('EACCES');
        },
        consensusKey: () => undefined,
      });
      assert.equal((parseAttestation(broken.extendVote(ctx, 10n)) as ReadinessAttestation).releaseChecksum, '');
    }));

  test('records: 0 → 75 → 100 % as validators attest; the latest attestation counts; a failed simulation is not ready', () =>
    withChain((k, at) => {
      k.scheduleUpgrade(at(10n), plan());
      assert.deepEqual([k.readiness(at(10n)).readyPower, k.readiness(at(10n)).readyFraction], [0n, '0.000000000000000000']);
      const p = k.getUpgradePlan(at(11n));
      recordAttestations(at(11n), p, [
        vote(1, encodeAttestation(plan(), READY)),
        vote(2, encodeAttestation(plan(), READY)),
        vote(3, encodeAttestation(plan(), READY)),
        vote(4, encodeAttestation(plan(), NOT_READY)),
      ]);
      const r = k.readiness(at(11n));
      assert.equal(r.totalPower, 40n);
      assert.equal(r.readyPower, 30n);
      assert.equal(r.readyFraction, '0.750000000000000000');
      assert.deepEqual(
        r.validators.map((v) => [v.moniker, v.ready, v.attestedHeight]),
        [
          ['val-1', true, 11n],
          ['val-2', true, 11n],
          ['val-3', true, 11n],
          ['val-4', false, 11n],
        ],
      );
      recordAttestations(at(12n), p, [
        vote(4, encodeAttestation(plan(), READY)),
        vote(1, encodeAttestation(plan(), { ...READY, simulate: SimulateResult.SIMULATE_RESULT_FAILED })),
      ]);
      const r2 = k.readiness(at(12n));
      assert.equal(r2.readyFraction, '0.750000000000000000');
      assert.equal(r2.validators.find((v) => v.moniker === 'val-1')?.simulate, SimulateResult.SIMULATE_RESULT_FAILED);
      assert.equal(r2.validators.find((v) => v.moniker === 'val-4')?.attestedHeight, 12n);
    }));

  test('an attestation of another plan is not recorded; re-scheduling or cancelling drops the records', () =>
    withChain((k, at) => {
      k.scheduleUpgrade(at(10n), plan());
      const p = k.getUpgradePlan(at(11n));
      recordAttestations(at(11n), p, [
        vote(1, encodeAttestation(plan({ info: 'other' }), READY)),
        vote(2, encodeAttestation(plan(), READY)),
        vote(3, new Uint8Array(0)),
      ]);
      assert.deepEqual([...getReadinessRecords(at(11n)).keys()], ['02'.repeat(20)]);
      // the same plan scheduled again keeps them; another info drops them
      k.scheduleUpgrade(at(12n), plan());
      assert.equal(getReadinessRecords(at(12n)).size, 1);
      k.scheduleUpgrade(at(12n), plan({ info: 'v2 at another release' }));
      assert.equal(getReadinessRecords(at(12n)).size, 0);
      assert.equal(k.readiness(at(12n)).readyPower, 0n);
      recordAttestations(at(13n), k.getUpgradePlan(at(13n)), [vote(2, encodeAttestation(plan({ info: 'v2 at another release' }), READY))]);
      assert.equal(k.readiness(at(13n)).readyPower, 10n);
      k.clearUpgradePlan(at(14n));
      assert.equal(getReadinessRecords(at(14n)).size, 0);
      assert.equal(k.readiness(at(14n)).plan, undefined);
    }));

  test('the fraction is the SDK Dec text, truncated to 18 digits', () => {
    assert.equal(decFraction(2n, 3n), '0.666666666666666666');
    assert.equal(decFraction(3n, 3n), '1.000000000000000000');
    assert.equal(decFraction(0n, 0n), '0.000000000000000000');
  });
});

describe('the readiness gate (opt-in: readiness_threshold > 0)', () => {
  const H = 100n;
  const GATE = { readinessThreshold: '0.67', readinessDelay: 10n, readinessMaxDelays: 2 };
  /** A chain with vote extensions on, the plan at H and `ready` of the four validators ready by H. */
  const setUp = (k: UpgradeKeeper, at: (h: bigint) => Context, ready: number, params = GATE): void => {
    setVoteExtensionsHeight(at(1n), 1n);
    k.setParams(at(2n), params);
    k.scheduleUpgrade(at(10n), plan());
    recordAttestations(
      at(11n),
      k.attestedPlan(at(11n)),
      [1, 2, 3, 4].map((i) => vote(i, encodeAttestation(plan(), i <= ready ? READY : NOT_READY))),
    );
  };
  const halts = (k: UpgradeKeeper, ctx: Context): string => {
    try {
      k.preBlock(ctx);
    } catch (e) {
      if (e instanceof UpgradeHaltError) return e.message;
      throw e;
    }
    return 'went on';
  };

  test('off by default: two of four ready at H halts at H, as the spec', () =>
    withChain((k, at) => {
      setUp(k, at, 2, DEFAULT_PARAMS);
      assert.equal(k.readiness(at(H)).readyFraction, '0.500000000000000000');
      assert.match(halts(k, at(H)), /UPGRADE "v2" NEEDED at height: 100/);
    }));

  test('two of four ready at H: the plan moves to H + delay with an event and a log line; attestations still name H; the third ready: it halts there', () => {
    const logger = new MemoryLogger();
    return withChain(
      (k, at) => {
        setUp(k, at, 2);
        k.setUpgradedClient(at(12n), H, Uint8Array.of(7));
        const ctx = at(H);
        assert.equal(halts(k, ctx), 'went on');
        assert.equal(k.getUpgradePlan(ctx)?.height, H + 10n);
        assert.equal(k.attestedPlan(ctx)?.height, H, 'attestations and records keep naming the plan as governance scheduled it');
        assert.deepEqual([...k.getUpgradedClient(ctx, H + 10n)], [7], 'the IBC upgrade state moves with the plan');
        const ev = ctx.events.events().find((e) => e.type === EVENT_UPGRADE_DELAYED);
        assert.deepEqual(Object.fromEntries(ev?.attributes.map((a) => [a.key, a.value]) ?? []), {
          name: 'v2',
          height: '100',
          new_height: '110',
          scheduled_height: '100',
          ready_power: '20',
          total_power: '40',
          readiness_threshold: '0.670000000000000000',
          delays: '1',
        });
        assert.match(
          logger.lines.map((l) => l.msg).join('\n'),
          /UPGRADE "v2" DELAYED at height 100 to 110: 50% of the voting power ready \(20 of 40\), threshold 67% \(delay 1 of 2\)/,
        );
        const r = k.readiness(at(H + 1n));
        assert.deepEqual([r.plan?.height, r.scheduledHeight, r.delays, r.readyPower], [H + 10n, H, 1, 20n]);
        // the blocks in between go on; the third validator gets ready
        assert.equal(halts(k, at(H + 5n)), 'went on');
        recordAttestations(at(H + 6n), k.attestedPlan(at(H + 6n)), [vote(3, encodeAttestation(plan(), READY))]);
        assert.match(halts(k, at(H + 10n)), /UPGRADE "v2" NEEDED at height: 110/);
      },
      { logger },
    );
  });

  test('never past readiness_max_delays: then it halts as the spec', () =>
    withChain((k, at) => {
      setUp(k, at, 2);
      assert.equal(halts(k, at(H)), 'went on');
      assert.equal(halts(k, at(H + 10n)), 'went on');
      assert.equal(k.getUpgradePlan(at(H + 10n))?.height, H + 20n);
      assert.match(halts(k, at(H + 20n)), /NEEDED at height: 120/);
    }));

  test('the binary with the handler decides alike: it moves the plan at H, and applies it once ready', () =>
    withChain((k, at) => {
      k.setUpgradeHandler('v2', (_ctx, _p, vm) => vm);
      setUp(k, at, 2);
      assert.deepEqual(k.preBlock(at(H)), { consensusParamsChanged: false });
      recordAttestations(at(H + 1n), k.attestedPlan(at(H + 1n)), [vote(3, encodeAttestation(plan(), READY))]);
      assert.deepEqual(k.preBlock(at(H + 10n)), { consensusParamsChanged: true });
      assert.equal(k.getDoneHeight(at(H + 10n), 'v2'), H + 10n);
    }));

  test('vote extensions off: readiness is unknown, so the gate stays out of the way', () =>
    withChain((k, at) => {
      k.setParams(at(2n), GATE);
      k.scheduleUpgrade(at(10n), plan());
      assert.match(halts(k, at(H)), /NEEDED at height: 100/);
    }));

  test('governance re-scheduling or cancelling a moved plan forgets the moves', () =>
    withChain((k, at) => {
      setUp(k, at, 2);
      assert.equal(halts(k, at(H)), 'went on');
      k.scheduleUpgrade(at(H + 1n), plan({ height: 200n }));
      assert.deepEqual([k.readiness(at(H + 1n)).scheduledHeight, k.readiness(at(H + 1n)).delays], [200n, 0]);
      k.clearUpgradePlan(at(H + 2n));
      assert.equal(k.readiness(at(H + 2n)).delays, 0);
    }));

  test('params: a threshold from 0 to 1 with at most 18 decimals, a delay of at least one block, genesis as JSON', () => {
    const bad = (o: object): string => {
      try {
        paramsFromJSON({ readiness_threshold: '0.5', readiness_delay: '10', readiness_max_delays: 1, ...o });
      } catch (e) {
        return (e as Error).message;
      }
      return 'accepted';
    };
    assert.equal(bad({}), 'accepted');
    assert.match(bad({ readiness_threshold: '1.5' }), /from 0 to 1/);
    assert.match(bad({ readiness_threshold: '0.1234567890123456789' }), /at most 18 digits/);
    assert.match(bad({ readiness_threshold: 0.5 }), /decimal string/);
    assert.match(bad({ readiness_delay: '0' }), /from 1 to 604800 blocks/);
    assert.match(bad({ readiness_max_delays: 101 }), /from 0 to 100/);
    assert.match(bad({ readiness_gate: true }), /unknown field "readiness_gate"/);
    assert.deepEqual(parseGenesis({}), {});
    assert.match(
      ((): string => {
        try {
          parseGenesis({ plan: {} });
          return 'accepted';
        } catch (e) {
          return (e as Error).message;
        }
      })(),
      /unknown field "plan"/,
    );
  });
});

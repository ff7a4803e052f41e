import assert from 'node:assert/strict';
import { mkdtempSync, rmSync } from 'node:fs';
import { tmpdir } from 'node:os';
import { join } from 'node:path';
import { after, describe, test } from 'node:test';
import { Context } from '../../app/index.ts';
import { moduleAddress } from '../../crypto/index.ts';
import { ReadinessAttestation, SimulateResult } from '../../gen/chain/upgrade/v1beta1/readiness.ts';
import type { Plan } from '../../gen/chain/upgrade/v1beta1/upgrade.ts';
import { CommitMultiStore } from '../../store/index.ts';
import { UpgradeKeeper } from './keeper.ts';
import {
  decFraction,
  encodeAttestation,
  getReadinessRecords,
  MAX_ATTESTATION_BYTES,
  parseAttestation,
  readinessVoteExtensions,
  recordAttestations,
  type ReadinessValidator,
} from './readiness.ts';

const dirs: string[] = [];
after(() => dirs.forEach((d) => rmSync(d, { recursive: true, force: true })));

const plan = (o: Partial<Plan> = {}): Plan => ({ name: 'v2', height: 100n, info: '{"binaries":{}}', time: undefined, upgradedClientState: undefined, ...o });
const addr = (i: number): Uint8Array => new Uint8Array(20).fill(i);
const VALIDATORS: ReadinessValidator[] = [1, 2, 3, 4].map((i) => ({ operatorAddress: `op${i}`, moniker: `val-${i}`, consensusAddress: addr(i), power: 10n }));
const READY = { releaseChecksum: `sha256:${'ab'.repeat(32)}`, simulate: SimulateResult.SIMULATE_RESULT_PASSED };
const NOT_READY = { releaseChecksum: '', simulate: SimulateResult.SIMULATE_RESULT_UNSPECIFIED };

async function withChain(fn: (k: UpgradeKeeper, at: (h: bigint) => Context) => void): Promise<void> {
  const d = mkdtempSync(join(tmpdir(), 'chaind-readiness-'));
  dirs.push(d);
  const ms = CommitMultiStore.open(d);
  ms.mount(['upgrade']);
  ms.loadLatest();
  const k = new UpgradeKeeper({ authority: moduleAddress('gov'), validators: () => VALIDATORS });
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

// Readiness attestations, chaind's extension beyond the spec (docs/upgrade-module.md, "Readiness"): while a plan
// is scheduled each validator's vote extension says whether the plan's release is prepared; the verified
// extensions of the block before are recorded per validator, for the plan as it stands now only.
import { Buffer } from 'node:buffer';
import { sha256 } from '@noble/hashes/sha2.js';
import { MAX_NAME_BYTES } from '@chaind/upgrade-plan';
import { errorMessage } from '@chaind/errors';
import type { Context, Logger, VerifiedExtension, VoteExtensionHandler } from '../../app/index.ts';

import {
  ReadinessAttestation,
  ReadinessRecord,
  SimulateResult,
  type QueryReadinessResponse,
  type ValidatorReadiness,
} from '../../gen/chain/upgrade/v1beta1/readiness.ts';
import type { Plan } from '../../gen/chain/upgrade/v1beta1/upgrade.ts';
import { prefixEnd, readU64be, u64be } from '../../store/index.ts';
import { READINESS_PREFIX, readinessKey, STORE_KEY, VOTE_EXTENSIONS_HEIGHT_KEY } from './keys.ts';

/**
 * The largest vote extension VerifyVoteExtension accepts. A consensus rule (every validator must accept the
 * same extensions), so a constant, not a node setting: an attestation with a 128-byte name is under 300 bytes.
 */
export const MAX_ATTESTATION_BYTES = 512;
const CHECKSUM = /^[a-z0-9]{1,16}:[0-9a-f]{32,128}$/;

/** What the node knows from its own files about the release of the scheduled plan. */
export interface LocalReadiness {
  /** chainvisor's checksum of the release it prepared for this plan (`algo:hex`); empty: nothing prepared. */
  readonly releaseChecksum: string;
  readonly simulate: SimulateResult;
}

export function planInfoHash(plan: Plan): Uint8Array {
  return sha256(Buffer.from(plan.info, 'utf8'));
}

/** A validator's vote extension for `plan`. */
export function encodeAttestation(plan: Plan, local: LocalReadiness): Uint8Array {
  return ReadinessAttestation.encode({
    planName: plan.name,
    planHeight: plan.height,
    planInfoSha256: planInfoHash(plan),
    releaseChecksum: local.releaseChecksum,
    simulate: local.simulate,
  }).finish();
}

/**
 * A vote extension read as an attestation: undefined for an empty one (no plan scheduled), an error text for
 * anything else that is not a well-formed attestation in its canonical encoding.
 */
export function parseAttestation(ext: Uint8Array): ReadinessAttestation | undefined | string {
  if (ext.length === 0) return undefined;
  if (ext.length > MAX_ATTESTATION_BYTES) return `vote extension of ${ext.length} bytes: at most ${MAX_ATTESTATION_BYTES}`;
  let a: ReadinessAttestation;
  try {
    a = ReadinessAttestation.decode(ext);
  } catch {
    return 'vote extension is not a ReadinessAttestation';
  }
  // one encoding per attestation: no unknown fields, no trailing bytes, no re-ordering
  if (!Buffer.from(ReadinessAttestation.encode(a).finish()).equals(Buffer.from(ext))) return 'vote extension is not in canonical encoding';
  if (a.planName === '' || Buffer.byteLength(a.planName, 'utf8') > MAX_NAME_BYTES) return 'attestation plan name is empty or too long';
  if (a.planHeight <= 0n) return 'attestation plan height must be positive';
  if (a.planInfoSha256.length !== 32) return 'attestation plan info hash must be 32 bytes';
  if (a.releaseChecksum !== '' && !CHECKSUM.test(a.releaseChecksum)) return 'attestation release checksum is not algo:hex';
  if (
    a.simulate !== SimulateResult.SIMULATE_RESULT_UNSPECIFIED &&
    a.simulate !== SimulateResult.SIMULATE_RESULT_PASSED &&
    a.simulate !== SimulateResult.SIMULATE_RESULT_FAILED
  )
    return 'attestation simulate result is unknown';
  return a;
}

/** `infoHash`: the plan's, hashed once by callers that check many attestations (every block's, every query's). */
export function attestsPlan(a: ReadinessAttestation, plan: Plan, infoHash: Uint8Array = planInfoHash(plan)): boolean {
  return a.planName === plan.name && a.planHeight === plan.height && Buffer.from(a.planInfoSha256).equals(Buffer.from(infoHash));
}

/** Ready: the release is prepared and its simulation did not fail. */
export function isReady(a: ReadinessAttestation): boolean {
  return a.releaseChecksum !== '' && a.simulate !== SimulateResult.SIMULATE_RESULT_FAILED;
}

/** `abci.vote_extensions_enable_height` from genesis (0: vote extensions off), kept at 0x5. */
export function getVoteExtensionsHeight(ctx: Context): bigint {
  const b = ctx.kvStore(STORE_KEY).get(VOTE_EXTENSIONS_HEIGHT_KEY);
  return b === undefined ? 0n : readU64be(b);
}

export function setVoteExtensionsHeight(ctx: Context, height: bigint): void {
  if (height > 0n) ctx.kvStore(STORE_KEY).set(VOTE_EXTENSIONS_HEIGHT_KEY, u64be(height));
}

/** Whether the proposal at `height` carries the extended commit of the block before (CometBFT extends votes from E on). */
export function extensionsOnAt(ctx: Context, height: bigint): boolean {
  const e = getVoteExtensionsHeight(ctx);
  return e > 0n && height > e;
}

/** Records each verified attestation for `plan` as its validator's latest; others (empty, other plans) are not kept. */
export function recordAttestations(ctx: Context, plan: Plan | undefined, votes: readonly VerifiedExtension[]): void {
  if (plan === undefined) return;
  const st = ctx.kvStore(STORE_KEY);
  const infoHash = planInfoHash(plan);
  for (const v of votes) {
    const a = parseAttestation(v.extension);
    if (a === undefined || typeof a === 'string' || !attestsPlan(a, plan, infoHash)) continue;
    st.set(readinessKey(v.validatorAddress), ReadinessRecord.encode({ attestation: a, height: ctx.height }).finish());
  }
}

/** Drops every record not for `plan` (all of them when none is scheduled): a cancelled or re-scheduled plan's. */
export function dropStaleRecords(ctx: Context, plan: Plan | undefined): void {
  const st = ctx.kvStore(STORE_KEY);
  const stale: Uint8Array[] = [];
  const infoHash = plan === undefined ? undefined : planInfoHash(plan);
  for (const e of st.iterator(READINESS_PREFIX, prefixEnd(READINESS_PREFIX))) {
    const a = ReadinessRecord.decode(e.value).attestation;
    if (plan === undefined || infoHash === undefined || a === undefined || !attestsPlan(a, plan, infoHash)) stale.push(e.key);
  }
  for (const k of stale) st.delete(k);
}

/** The records, by consensus address (upper-case hex). */
export function getReadinessRecords(ctx: Context): Map<string, ReadinessRecord> {
  const out = new Map<string, ReadinessRecord>();
  for (const e of ctx.kvStore(STORE_KEY).iterator(READINESS_PREFIX, prefixEnd(READINESS_PREFIX))) {
    out.set(Buffer.from(e.key.subarray(READINESS_PREFIX.length)).toString('hex').toUpperCase(), ReadinessRecord.decode(e.value));
  }
  return out;
}

/** A validator as the readiness query lists it. */
export interface ReadinessValidator {
  readonly operatorAddress: string;
  readonly moniker: string;
  readonly consensusAddress: Uint8Array;
  readonly power: bigint;
}

const DEC_DIGITS = 18n;

/** `num/den` as the SDK's Dec text: 18 digits after the point, truncated. */
export function decFraction(num: bigint, den: bigint): string {
  if (den <= 0n) return `0.${'0'.repeat(Number(DEC_DIGITS))}`;
  const scaled = (num * 10n ** DEC_DIGITS) / den;
  const s = scaled.toString().padStart(Number(DEC_DIGITS) + 1, '0');
  return `${s.slice(0, -Number(DEC_DIGITS))}.${s.slice(-Number(DEC_DIGITS))}`;
}

/** The tally of the Readiness query: power ready for `plan` as attestations name it, per validator (by power, then address). */
export type ReadinessTally = Omit<QueryReadinessResponse, 'scheduledHeight' | 'delays' | 'threshold'>;

export function readiness(ctx: Context, plan: Plan | undefined, validators: readonly ReadinessValidator[]): ReadinessTally {
  const enabled = extensionsOnAt(ctx, ctx.height + 1n);
  const records = plan === undefined ? new Map<string, ReadinessRecord>() : getReadinessRecords(ctx);
  const infoHash = plan === undefined ? undefined : planInfoHash(plan);
  let total = 0n;
  let ready = 0n;
  const lines: ValidatorReadiness[] = validators.map((v) => {
    const addr = Buffer.from(v.consensusAddress).toString('hex').toUpperCase();
    const r = records.get(addr);
    const a = r?.attestation !== undefined && plan !== undefined && attestsPlan(r.attestation, plan, infoHash) ? r.attestation : undefined;
    const ok = a !== undefined && isReady(a);
    total += v.power;
    if (ok) ready += v.power;
    return {
      operatorAddress: v.operatorAddress,
      moniker: v.moniker,
      consensusAddress: addr,
      power: v.power,
      ready: ok,
      releaseChecksum: a?.releaseChecksum ?? '',
      simulate: a?.simulate ?? SimulateResult.SIMULATE_RESULT_UNSPECIFIED,
      attestedHeight: a === undefined ? 0n : (r?.height ?? 0n),
    };
  });
  lines.sort((x, y) =>
    x.power !== y.power ? (x.power > y.power ? -1 : 1) : x.consensusAddress < y.consensusAddress ? -1 : x.consensusAddress > y.consensusAddress ? 1 : 0,
  );
  return { plan, enabled, totalPower: total, readyPower: ready, readyFraction: decFraction(ready, total), validators: lines };
}

const NOT_PREPARED: LocalReadiness = { releaseChecksum: '', simulate: SimulateResult.SIMULATE_RESULT_UNSPECIFIED };

export interface ReadinessHandlerOptions {
  readonly plan: (ctx: Context) => Plan | undefined;
  /** This node's own view of the plan's release (chainvisor's and simulate's files); none or a throw: not prepared. */
  readonly local?: (plan: Plan) => LocalReadiness;
  readonly consensusKey: (ctx: Context, address: Uint8Array) => Uint8Array | undefined;
  readonly logger?: Logger;
}

/** The upgrade module's vote extensions: an attestation while a plan is scheduled, nothing otherwise. */
export function readinessVoteExtensions(o: ReadinessHandlerOptions): VoteExtensionHandler {
  const local = (plan: Plan): LocalReadiness => {
    try {
      return o.local?.(plan) ?? NOT_PREPARED;
    } catch (e) {
      o.logger?.error('cannot read this node\'s readiness: attesting "not ready"', { error: errorMessage(e) });
      return NOT_PREPARED;
    }
  };
  return {
    initChain: setVoteExtensionsHeight,
    onAt: extensionsOnAt,
    extendVote(ctx) {
      const plan = o.plan(ctx);
      return plan === undefined ? new Uint8Array(0) : encodeAttestation(plan, local(plan));
    },
    verifyVoteExtension: (_ctx, ext) => typeof parseAttestation(ext) !== 'string',
    consensusKey: o.consensusKey,
    finalize: (ctx, votes) => recordAttestations(ctx, o.plan(ctx), votes),
  };
}

// The upgrade module's parameters (chaind's extension beyond the spec): the readiness gate of
// docs/upgrade-module.md, "The readiness gate". Absent from state they are the defaults, and the gate is off.
import { DEC_ONE, decToString, parseDec } from '../../types/coins.ts';
import { Params } from '../../gen/chain/upgrade/v1beta1/readiness.ts';
import type { Context } from '../../app/index.ts';
import { PARAMS_KEY, STORE_KEY } from './keys.ts';

/** Off, as the spec; the delay and count are what a chain gets when governance turns the threshold on alone. */
export const DEFAULT_PARAMS: Params = {
  readinessThreshold: decToString(0n),
  // an hour of 6 s blocks, six times: a day's quarter for operators to wake up
  readinessDelay: 600n,
  readinessMaxDelays: 6,
};

/** Consensus limits of the params, so no vote can move a plan out of reach: a week of 1 s blocks, 100 moves. */
export const MAX_READINESS_DELAY = 604_800n;
export const MAX_READINESS_DELAYS = 100;

/** The threshold's numerator over 10^18; throws a message for params no chain may hold. */
export function validateParams(p: Params): bigint {
  let t: bigint;
  try {
    t = parseDec(p.readinessThreshold);
  } catch {
    throw new Error(`readiness_threshold ${JSON.stringify(p.readinessThreshold)} is not a decimal with at most 18 digits after the point`);
  }
  if (t < 0n || t > DEC_ONE) throw new Error(`readiness_threshold ${p.readinessThreshold} must be from 0 to 1`);
  if (p.readinessDelay < 1n || p.readinessDelay > MAX_READINESS_DELAY)
    throw new Error(`readiness_delay ${p.readinessDelay} must be from 1 to ${MAX_READINESS_DELAY} blocks`);
  if (p.readinessMaxDelays < 0 || p.readinessMaxDelays > MAX_READINESS_DELAYS)
    throw new Error(`readiness_max_delays ${p.readinessMaxDelays} must be from 0 to ${MAX_READINESS_DELAYS}`);
  return t;
}

export function getParams(ctx: Context): Params {
  const b = ctx.kvStore(STORE_KEY).get(PARAMS_KEY);
  return b === undefined ? DEFAULT_PARAMS : Params.decode(b);
}

/** Stores `p` with its threshold in the SDK's Dec text (18 digits), so one value has one encoding. */
export function setParams(ctx: Context, p: Params): void {
  const t = validateParams(p);
  ctx.kvStore(STORE_KEY).set(PARAMS_KEY, Params.encode({ ...p, readinessThreshold: decToString(t) }).finish());
}

export function paramsEqual(a: Params, b: Params): boolean {
  return (
    parseDec(a.readinessThreshold) === parseDec(b.readinessThreshold) && a.readinessDelay === b.readinessDelay && a.readinessMaxDelays === b.readinessMaxDelays
  );
}

/** The params in genesis JSON, as the proto's JSON names them (uint64 as a string). */
export interface ParamsJSON {
  readonly readiness_threshold: string;
  readonly readiness_delay: string;
  readonly readiness_max_delays: number;
}

const JSON_KEYS = ['readiness_threshold', 'readiness_delay', 'readiness_max_delays'];

export function paramsToJSON(p: Params): ParamsJSON {
  return { readiness_threshold: p.readinessThreshold, readiness_delay: p.readinessDelay.toString(), readiness_max_delays: p.readinessMaxDelays };
}

/** Genesis params: every field present, nothing else; throws a message saying which is wrong. */
export function paramsFromJSON(v: unknown): Params {
  if (typeof v !== 'object' || v === null || Array.isArray(v)) throw new Error('params must be a JSON object');
  const o = v as Record<string, unknown>;
  const extra = Object.keys(o).find((k) => !JSON_KEYS.includes(k));
  if (extra !== undefined) throw new Error(`params: unknown field ${JSON.stringify(extra)}; expected ${JSON_KEYS.join(', ')}`);
  const { readiness_threshold: t, readiness_delay: d, readiness_max_delays: m } = o;
  if (typeof t !== 'string') throw new Error('params.readiness_threshold must be a decimal string, e.g. "0.67"');
  if (typeof d !== 'string' || !/^[0-9]{1,20}$/.test(d)) throw new Error('params.readiness_delay must be a count of blocks as a string, e.g. "600"');
  if (typeof m !== 'number' || !Number.isSafeInteger(m) || m < 0) throw new Error('params.readiness_max_delays must be a whole number, e.g. 6');
  const p: Params = { readinessThreshold: t, readinessDelay: BigInt(d), readinessMaxDelays: m };
  validateParams(p);
  return p;
}

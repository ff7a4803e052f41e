// A positive Go duration given on the command line (`--gov-period 20s`, `--block-time 500ms`): the one
// rule for every flag that takes one (dev, init, testnet init), and the form genesis holds it in.
import { durationToJSON } from '@chaind/sdk/x/gov';
import { parseGoDuration } from '@chaind/upgrade-plan';
import { UserError } from './common.ts';

export interface DurationFlag {
  readonly ns: bigint;
  /** protobuf JSON ("90s"), as genesis holds durations; Go's form ("1m30s") is what the flag takes */
  readonly json: string;
}

/** `value` of `--<flag>` as a positive Go duration; a UserError naming the flag otherwise. */
export function positiveDurationFlag(flag: string, value: string): DurationFlag {
  const d = parseGoDuration(value);
  if (!d.ok || d.ns <= 0n) throw new UserError(`invalid --${flag} ${JSON.stringify(value)}: expected a positive duration such as 20s or 1m30s`);
  return { ns: d.ns, json: durationToJSON({ seconds: d.ns / 1_000_000_000n, nanos: Number(d.ns % 1_000_000_000n) }) };
}

/** --gov-period: the max deposit period and the voting period of the genesis a command writes. */
export const GOV_PERIOD_FLAG = '--gov-period <duration>';
export const govPeriodOf = (value: string): string => positiveDurationFlag('gov-period', value).json;

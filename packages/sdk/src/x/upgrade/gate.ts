// The readiness gate, chaind's extension beyond the spec (docs/upgrade-module.md, "The readiness gate"): when a
// plan's height is reached with less of the voting power ready than governance's readiness_threshold, the plan
// moves forward by readiness_delay blocks instead of halting, at most readiness_max_delays times. Every validator
// decides from the same state (params, records, validator set), so all still halt at the same height.
import type { Context, Logger } from '../../app/index.ts';
import { ReadinessDelay } from '../../gen/chain/upgrade/v1beta1/readiness.ts';
import { Plan } from '../../gen/chain/upgrade/v1beta1/upgrade.ts';
import { DEC_ONE, parseDec } from '../../types/coins.ts';
import { PLAN_KEY, READINESS_DELAY_KEY, STORE_KEY, upgradedClientKey, upgradedConsStateKey } from './keys.ts';
import { getParams } from './params.ts';
import { extensionsOnAt, readiness, type ReadinessValidator } from './readiness.ts';

/** The event a moved plan emits, with its attributes. */
export const EVENT_UPGRADE_DELAYED = 'upgrade_delayed';

export function getReadinessDelay(ctx: Context): ReadinessDelay | undefined {
  const b = ctx.kvStore(STORE_KEY).get(READINESS_DELAY_KEY);
  return b === undefined ? undefined : ReadinessDelay.decode(b);
}

export function clearReadinessDelay(ctx: Context): void {
  ctx.kvStore(STORE_KEY).delete(READINESS_DELAY_KEY);
}

/** The plan as governance scheduled it, the one attestations name: its height before any move of the gate. */
export function asScheduled(plan: Plan, delay: ReadinessDelay | undefined): Plan {
  return delay === undefined ? plan : { ...plan, height: delay.scheduledHeight };
}

export function scheduledPlan(ctx: Context, plan: Plan): Plan {
  return asScheduled(plan, getReadinessDelay(ctx));
}

const percent = (num: bigint, den: bigint): string => (den === 0n ? '0' : ((num * 10000n) / den / 100n).toString());

/**
 * At the height of `plan` (due, not skipped): moves it and returns true when the gate holds it back, false to
 * go on as the spec (halt or apply). Off when the threshold is 0, when vote extensions are off (readiness is then
 * unknown, not "not ready"), and once the plan was moved readiness_max_delays times.
 */
export function holdForReadiness(ctx: Context, plan: Plan, validators: readonly ReadinessValidator[], logger: Logger): boolean {
  const params = getParams(ctx);
  const threshold = parseDec(params.readinessThreshold);
  if (threshold === 0n || !extensionsOnAt(ctx, ctx.height)) return false;
  const delay = getReadinessDelay(ctx);
  const delays = delay?.delays ?? 0;
  const scheduled = delay?.scheduledHeight ?? plan.height;
  const r = readiness(ctx, asScheduled(plan, delay), validators);
  if (r.totalPower === 0n || r.readyPower * DEC_ONE >= threshold * r.totalPower) return false;
  const why = `${percent(r.readyPower, r.totalPower)}% of the voting power ready (${r.readyPower} of ${r.totalPower}), threshold ${percent(threshold, DEC_ONE)}%`;
  if (delays >= params.readinessMaxDelays) {
    logger.info(`UPGRADE "${plan.name}" not delayed again at ${ctx.height}: ${why}, moved ${delays} of ${params.readinessMaxDelays} times already`);
    return false;
  }
  const to = ctx.height + params.readinessDelay;
  const st = ctx.kvStore(STORE_KEY);
  st.set(PLAN_KEY, Plan.encode({ ...plan, height: to }).finish());
  st.set(READINESS_DELAY_KEY, ReadinessDelay.encode({ scheduledHeight: scheduled, delays: delays + 1 }).finish());
  // the IBC upgrade state is kept under the last height before the upgrade: it moves with the plan
  for (const key of [upgradedClientKey, upgradedConsStateKey]) {
    const v = st.get(key(plan.height));
    if (v === undefined) continue;
    st.delete(key(plan.height));
    st.set(key(to), v);
  }
  ctx.events.emit(EVENT_UPGRADE_DELAYED, [
    ['name', plan.name],
    ['height', plan.height.toString()],
    ['new_height', to.toString()],
    ['scheduled_height', scheduled.toString()],
    ['ready_power', r.readyPower.toString()],
    ['total_power', r.totalPower.toString()],
    ['readiness_threshold', params.readinessThreshold],
    ['delays', String(delays + 1)],
  ]);
  logger.info(`UPGRADE "${plan.name}" DELAYED at height ${ctx.height} to ${to}: ${why} (delay ${delays + 1} of ${params.readinessMaxDelays})`);
  return true;
}

import { writeUpgradeInfo } from '@chaind/upgrade-plan';
import { InfiniteGasMeter, type Context, type Logger, type VersionMap, errors, nopLogger, sortedEntries } from '../../app/index.ts';
import { Plan } from '../../gen/chain/upgrade/v1beta1/upgrade.ts';
import { prefixEnd, readU64be, u64be, type KVStore } from '../../store/index.ts';
import { binaryTooEarlyMessage, upgradeErrors, UpgradeHaltError } from './errors.ts';
import {
  DONE_PREFIX,
  doneKey,
  PLAN_KEY,
  PROTOCOL_VERSION_KEY,
  STORE_KEY,
  upgradedClientKey,
  upgradedConsStateKey,
  VERSION_MAP_PREFIX,
  versionKey,
} from './keys.ts';
import { GO_ZERO_TIME, validatePlanBasic } from './plan.ts';
import { dropStaleRecords, readiness, type ReadinessValidator } from './readiness.ts';
import type { Params, QueryReadinessResponse } from '../../gen/chain/upgrade/v1beta1/readiness.ts';
import { asScheduled, clearReadinessDelay, getReadinessDelay, holdForReadiness, scheduledPlan } from './gate.ts';
import { getParams, setParams } from './params.ts';
import { errorMessage } from '@chaind/errors';

/** The spec's UpgradeHandler: (Context, Plan, VersionMap) → VersionMap; throwing is its error. */
export type UpgradeHandler = (ctx: Context, plan: Plan, fromVM: VersionMap) => VersionMap;

export interface UpgradeKeeperOptions {
  /** Address allowed to schedule and cancel (the gov module account by default). */
  readonly authority: string;
  /** Where the old binary writes upgrade-info.json (`<home>/data/upgrade-info.json`); none: not written. */
  readonly upgradeInfoPath?: string;
  /** `--unsafe-skip-upgrades`: due plans at these heights are skipped, not applied. */
  readonly skipHeights?: ReadonlySet<bigint>;
  /** The app's module versions at genesis (stored by InitChain so the first upgrade does not re-init every module). */
  readonly versionMap?: () => VersionMap;
  /** Receives the new protocol version after an upgrade (the app reports it as its app version). */
  readonly onProtocolVersion?: (v: bigint) => void;
  readonly logger?: Logger;
  /** The validator set, for the Readiness query (the validators module's, wired by the app); none: an empty list. */
  readonly validators?: (ctx: Context) => readonly ReadinessValidator[];
}

/** Orders applied upgrades by height, then name: the order every history of them is shown in. */
export function compareCompletedUpgrades(a: CompletedUpgrade, b: CompletedUpgrade): number {
  if (a.height !== b.height) return a.height < b.height ? -1 : 1;
  return a.name < b.name ? -1 : a.name > b.name ? 1 : 0;
}

export interface CompletedUpgrade {
  readonly name: string;
  readonly height: bigint;
}

/** The upgrade keeper: the spec's operations over the `upgrade` store. */
export class UpgradeKeeper {
  readonly authority: string;
  private readonly handlers = new Map<string, UpgradeHandler>();
  private readonly skipHeights: ReadonlySet<bigint>;
  private readonly opts: UpgradeKeeperOptions;
  private readonly logger: Logger;
  /** The plan as of the last committed block, so the pre-blocker reads the store once, not every block. */
  private cached: { plan: Plan | undefined } | null = null;
  private downgradeVerified = false;

  constructor(opts: UpgradeKeeperOptions) {
    this.opts = opts;
    this.authority = opts.authority;
    this.skipHeights = opts.skipHeights ?? new Set();
    this.logger = opts.logger ?? nopLogger;
  }

  private store(ctx: Context): KVStore {
    return ctx.kvStore(STORE_KEY);
  }

  /** Keeper#SetUpgradeHandler; a later registration of the same name replaces the earlier one. */
  setUpgradeHandler(name: string, handler: UpgradeHandler): void {
    this.handlers.set(name, handler);
  }

  hasHandler(name: string): boolean {
    return this.handlers.has(name);
  }

  isSkipHeight(height: bigint): boolean {
    return this.skipHeights.has(height);
  }

  /** Schedules `plan`, replacing any scheduled plan (how a later proposal re-heights an upgrade). */
  scheduleUpgrade(ctx: Context, plan: Plan): void {
    validatePlanBasic(plan);
    // the current height is allowed, as in the SDK: an emergency plan then runs in the next block's pre-block
    if (plan.height < ctx.height) throw errors.invalidRequest.wrap('upgrade cannot be scheduled in the past');
    if (this.getDoneHeight(ctx, plan.name) !== 0n) {
      throw errors.invalidRequest.wrap(`upgrade with name ${plan.name} has already been completed`);
    }
    // the SDK drops the IBC state stored for the plan being replaced (under its height, not the new one's)
    const old = this.getUpgradePlan(ctx);
    if (old !== undefined) this.clearIBCState(ctx, old.height);
    this.cached = null;
    // the SDK's bytes: gogoproto always writes the non-nullable time, as Go's zero time when unset
    this.store(ctx).set(PLAN_KEY, Plan.encode({ ...plan, time: GO_ZERO_TIME }).finish());
    clearReadinessDelay(ctx);
    dropStaleRecords(ctx, plan);
  }

  /** Removes the scheduled plan and the IBC state stored under its height; a no-op when there is none. */
  clearUpgradePlan(ctx: Context): void {
    const old = this.getUpgradePlan(ctx);
    if (old !== undefined) this.clearIBCState(ctx, old.height);
    this.cached = null;
    this.store(ctx).delete(PLAN_KEY);
    clearReadinessDelay(ctx);
    dropStaleRecords(ctx, undefined);
  }

  /** Readiness of the network for the scheduled plan (chaind's extension): tallied for the plan as scheduled, shown with its height now. */
  readiness(ctx: Context): QueryReadinessResponse {
    const plan = this.getUpgradePlan(ctx);
    const delay = getReadinessDelay(ctx);
    const r = readiness(ctx, plan === undefined ? undefined : asScheduled(plan, delay), this.opts.validators?.(ctx) ?? []);
    return {
      ...r,
      plan,
      scheduledHeight: delay?.scheduledHeight ?? plan?.height ?? 0n,
      delays: delay?.delays ?? 0,
      threshold: getParams(ctx).readinessThreshold,
    };
  }

  /** The scheduled plan as attestations name it: with the height governance gave it, before any move of the readiness gate. */
  attestedPlan(ctx: Context): Plan | undefined {
    const plan = this.getUpgradePlan(ctx);
    return plan === undefined ? undefined : scheduledPlan(ctx, plan);
  }

  getParams(ctx: Context): Params {
    return getParams(ctx);
  }

  /** MsgUpdateParams; throws on params no chain may hold. */
  setParams(ctx: Context, p: Params): void {
    setParams(ctx, p);
  }

  getUpgradePlan(ctx: Context): Plan | undefined {
    const b = this.store(ctx).get(PLAN_KEY);
    return b === undefined ? undefined : Plan.decode(b);
  }

  /** The plan for the pre-blocker: cached; any write to the plan (even one later discarded) drops the cache. */
  private planForBlock(ctx: Context): Plan | undefined {
    if (this.cached === null) this.cached = { plan: this.getUpgradePlan(ctx) };
    return this.cached.plan;
  }

  /**
   * SetUpgradedClient: the client state (bytes as given, e.g. an encoded Any) an IBC counterparty
   * should upgrade to, stored under the plan's height, the last height this chain commits.
   */
  setUpgradedClient(ctx: Context, planHeight: bigint, bz: Uint8Array): void {
    this.store(ctx).set(upgradedClientKey(planHeight), bz);
  }

  /** GetUpgradedClient: the stored bytes; throws the SDK's bare `upgraded client not found` (upgrade 4) when none. */
  getUpgradedClient(ctx: Context, height: bigint): Uint8Array {
    const bz = this.store(ctx).get(upgradedClientKey(height));
    if (bz === undefined) throw upgradeErrors.upgradedClientNotFound.withText(upgradeErrors.upgradedClientNotFound.message);
    return bz;
  }

  /** SetUpgradedConsensusState: as setUpgradedClient, for the consensus state. */
  setUpgradedConsensusState(ctx: Context, planHeight: bigint, bz: Uint8Array): void {
    this.store(ctx).set(upgradedConsStateKey(planHeight), bz);
  }

  /** GetUpgradedConsensusState: the stored bytes; throws the SDK's bare `upgraded consensus state not found` (upgrade 5) when none. */
  getUpgradedConsensusState(ctx: Context, lastHeight: bigint): Uint8Array {
    const bz = this.store(ctx).get(upgradedConsStateKey(lastHeight));
    if (bz === undefined) throw upgradeErrors.upgradedConsensusStateNotFound.withText(upgradeErrors.upgradedConsensusStateNotFound.message);
    return bz;
  }

  /** ClearIBCState: deletes the upgraded client and consensus state stored under `lastHeight`. */
  clearIBCState(ctx: Context, lastHeight: bigint): void {
    const st = this.store(ctx);
    st.delete(upgradedClientKey(lastHeight));
    st.delete(upgradedConsStateKey(lastHeight));
  }

  /** Height at which `name` was applied; 0 when it never was. */
  getDoneHeight(ctx: Context, name: string): bigint {
    const b = this.store(ctx).get(doneKey(name));
    return b === undefined ? 0n : readU64be(b);
  }

  private setDone(ctx: Context, name: string, height: bigint): void {
    this.store(ctx).set(doneKey(name), u64be(height));
  }

  /** Every applied upgrade, by height (ties: by name): the upgrade module's own history. */
  getDoneUpgrades(ctx: Context): CompletedUpgrade[] {
    const out: CompletedUpgrade[] = [];
    for (const e of this.store(ctx).iterator(DONE_PREFIX, prefixEnd(DONE_PREFIX))) {
      out.push({ name: Buffer.from(e.key.subarray(DONE_PREFIX.length)).toString('utf8'), height: readU64be(e.value) });
    }
    return out.sort(compareCompletedUpgrades);
  }

  /** The applied upgrade with the highest height (ties: the greatest name); undefined when none. */
  getLastCompletedUpgrade(ctx: Context): CompletedUpgrade | undefined {
    return this.getDoneUpgrades(ctx).at(-1);
  }

  getModuleVersionMap(ctx: Context): VersionMap {
    const vm: VersionMap = {};
    for (const e of this.store(ctx).iterator(VERSION_MAP_PREFIX, prefixEnd(VERSION_MAP_PREFIX))) {
      vm[Buffer.from(e.key.subarray(1)).toString('utf8')] = readU64be(e.value);
    }
    return vm;
  }

  /** Writes each entry (in name order); never deletes modules missing from `vm`, as the SDK. */
  setModuleVersionMap(ctx: Context, vm: VersionMap): void {
    const st = this.store(ctx);
    for (const [name, v] of sortedEntries(vm)) st.set(versionKey(name), u64be(v));
  }

  getProtocolVersion(ctx: Context): bigint {
    const b = this.store(ctx).get(PROTOCOL_VERSION_KEY);
    return b === undefined ? 0n : readU64be(b);
  }

  /** ApplyUpgrade, in the SDK's order: handler, version map, protocol version + 1, clear IBC state and plan, mark done. */
  applyUpgrade(ctx: Context, plan: Plan): void {
    const handler = this.handlers.get(plan.name);
    if (handler === undefined) throw upgradeErrors.planNotFound.wrap(`no upgrade handler registered for ${plan.name}`);
    const toVM = handler(ctx, plan, this.getModuleVersionMap(ctx));
    this.setModuleVersionMap(ctx, toVM);
    const pv = this.getProtocolVersion(ctx) + 1n;
    this.store(ctx).set(PROTOCOL_VERSION_KEY, u64be(pv));
    this.opts.onProtocolVersion?.(pv);
    this.clearIBCState(ctx, plan.height);
    this.clearUpgradePlan(ctx);
    this.setDone(ctx, plan.name, ctx.height);
  }

  /** InitChain: store the app's module versions, so the first upgrade migrates rather than re-initialises. */
  initGenesis(ctx: Context): void {
    const vm = this.opts.versionMap?.();
    if (vm !== undefined) this.setModuleVersionMap(ctx, vm);
  }

  /**
   * The pre-block hook (spec §1.2, reference §2): halts every node at exactly the plan's height when
   * this binary cannot run it, applies it when it can, and refuses a binary that is too new or too old.
   */
  preBlock(ctx: Context): { consensusParamsChanged: boolean } {
    const plan = this.planForBlock(ctx);
    const due = plan !== undefined && plan.height > 0n && plan.height <= ctx.height;
    if (!this.downgradeVerified) {
      this.downgradeVerified = true;
      if (!due || this.isSkipHeight(ctx.height)) this.verifyNotDowngraded(ctx);
    }
    if (plan === undefined) return { consensusParamsChanged: false };
    if (due) {
      if (this.isSkipHeight(ctx.height)) {
        this.logger.info(`UPGRADE "${plan.name}" SKIPPED at ${ctx.height}: ${plan.info}`);
        this.clearUpgradePlan(ctx);
        return { consensusParamsChanged: false };
      }
      if (holdForReadiness(ctx, plan, this.opts.validators?.(ctx) ?? [], this.logger)) {
        this.cached = null;
        return { consensusParamsChanged: false };
      }
      if (!this.handlers.has(plan.name)) {
        const msg = `UPGRADE "${plan.name}" NEEDED at height: ${ctx.height}: ${plan.info}`;
        if (this.opts.upgradeInfoPath !== undefined) {
          writeUpgradeInfo(this.opts.upgradeInfoPath, { name: plan.name, height: ctx.height, info: plan.info });
        }
        this.logger.error(msg);
        throw new UpgradeHaltError('upgrade-needed', msg);
      }
      this.logger.info(`applying upgrade "${plan.name}" at height: ${ctx.height}`);
      try {
        this.applyUpgrade(ctx.with({ gasMeter: new InfiniteGasMeter() }), plan);
      } catch (e) {
        this.cached = null;
        throw new UpgradeHaltError('handler-failed', `upgrade "${plan.name}" at height ${ctx.height} failed: ${errorMessage(e)}`, { cause: e });
      }
      return { consensusParamsChanged: true };
    }
    if (this.handlers.has(plan.name)) {
      throw new UpgradeHaltError('binary-too-early', binaryTooEarlyMessage(plan.name));
    }
    return { consensusParamsChanged: false };
  }

  /** Each binary must keep the handler of the last applied upgrade; a binary without it is an older one. */
  private verifyNotDowngraded(ctx: Context): void {
    const last = this.getLastCompletedUpgrade(ctx);
    if (last !== undefined && !this.handlers.has(last.name)) {
      throw new UpgradeHaltError('downgrade', `wrong app version ${this.getProtocolVersion(ctx)}, upgrade handler is missing for ${last.name} upgrade plan`);
    }
  }
}

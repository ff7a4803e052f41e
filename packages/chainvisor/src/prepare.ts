import { lstatSync } from 'node:fs';
import { parseUpgradeInfo } from '@chaind/upgrade-plan';
import { credentials, Client, status as GrpcStatus, type ServiceError } from '@grpc/grpc-js';
import { BinaryReader } from '@bufbuild/protobuf/wire';
import { ChainvisorError, EXIT } from './exit-codes.ts';
import { binaryIn, upgradeDir, upgradeFolderName } from './layout.ts';
import { ms } from './log.ts';
import { pause } from './pause.ts';
import { readPlanRecord, staleRelease } from '@chaind/upgrade-plan';
import type { Installer, UpgradeContext } from './upgrade.ts';
import { errorMessage } from '@chaind/errors';

/** chain.upgrade.v1beta1.Plan, the fields chainvisor needs. */
export interface Plan {
  readonly name: string;
  readonly info: string;
  readonly height: bigint;
}

/** A plan's identity: a plan re-proposed under the same name with another height or info is another plan. */
export const planKey = (p: Plan): string => JSON.stringify([p.name, p.height.toString(), p.info]);

const CURRENT_PLAN = '/chain.upgrade.v1beta1.Query/CurrentPlan';

/**
 * How long DAEMON_PREPARE_UPGRADE lets the node's gRPC stay unreachable before it says so: a node that is
 * starting (gRPC comes up after CometBFT's handshake) or stopping is expected not to answer.
 */
export const UNREACHABLE_QUIET_MS = 60_000;

/** grpc-js's failure text without its "Resolution note: " tail when that note is empty, and without the doubled "Error: ". */
export function grpcFailureText(details: string): string {
  return details
    .replace(/\.?\s*Resolution note:\s*$/, '')
    .replace(/Last error: Error: /, 'Last error: ')
    .trim();
}

/** Decodes QueryCurrentPlanResponse {plan = 1}; undefined when no plan is scheduled. */
export function decodeCurrentPlan(bytes: Uint8Array): Plan | undefined {
  const r = new BinaryReader(bytes);
  let plan: Plan | undefined;
  while (r.pos < r.len) {
    const [field, wire] = r.tag();
    if (field === 1 && wire === 2) plan = decodePlan(r.bytes());
    else r.skip(wire);
  }
  return plan;
}

/** Plan {name=1, time=2, height=3 int64, info=4, upgraded_client_state=5} (Cosmos x/upgrade's field numbers). */
function decodePlan(bytes: Uint8Array): Plan {
  const r = new BinaryReader(bytes);
  let name = '';
  let info = '';
  let height = 0n;
  while (r.pos < r.len) {
    const [field, wire] = r.tag();
    if (field === 1 && wire === 2) name = r.string();
    else if (field === 3 && wire === 0) height = BigInt(r.int64());
    else if (field === 4 && wire === 2) info = r.string();
    else r.skip(wire);
  }
  return { name, info, height };
}

/** Asks the node's gRPC for the scheduled plan (a generic client: raw bytes in and out, no generated code). */
export function queryCurrentPlan(address: string, timeoutMs = 5000): Promise<Plan | undefined> {
  const target = address.replace(/^https?:\/\//, '');
  const client = new Client(target, credentials.createInsecure());
  return new Promise<Plan | undefined>((resolve, reject) => {
    client.makeUnaryRequest(
      CURRENT_PLAN,
      (b: Buffer) => b,
      (b: Buffer) => b,
      Buffer.alloc(0),
      { deadline: Date.now() + timeoutMs },
      (err: ServiceError | null, res?: Buffer) => {
        client.close();
        if (err) {
          const code = err.code === GrpcStatus.UNAVAILABLE || err.code === GrpcStatus.DEADLINE_EXCEEDED ? EXIT.NODE_UNREACHABLE : EXIT.UPGRADE_FAILED;
          reject(new ChainvisorError(code, `CurrentPlan query to ${target} failed: ${grpcFailureText(err.details || err.message)}`));
        } else {
          try {
            const p = decodeCurrentPlan(res ?? Buffer.alloc(0));
            resolve(p && p.name !== '' ? p : undefined);
          } catch (e) {
            reject(new ChainvisorError(EXIT.UPGRADE_FAILED, `CurrentPlan answer from ${target} is not a valid response: ${errorMessage(e)}`));
          }
        }
      },
    );
  });
}

export type PrepareResult = 'none' | 'present' | 'installed';

/**
 * `prepare-upgrade`: the scheduled plan's release fetched, verified and installed into upgrades/<name> ahead of the
 * halt, so only the restart remains at the height. Skipped when that binary is already there.
 */
export async function prepareUpgrade(ctx: UpgradeContext & { readonly install: Installer }, queried?: Plan | null): Promise<PrepareResult> {
  const { cfg, l, log } = ctx;
  const plan = queried === undefined ? await queryCurrentPlan(cfg.grpcAddress) : (queried ?? undefined);
  if (!plan) {
    log.info('No active upgrade plan found');
    return 'none';
  }
  const folder = upgradeFolderName(plan.name, cfg.disableRecase, l.upgradesDir);
  const dir = upgradeDir(l, folder);
  const bin = binaryIn(dir, l.daemonName);
  let installed = false;
  try {
    installed = lstatSync(bin).isFile();
  } catch {
    // not installed yet
  }
  if (installed) {
    const stale = staleRelease(dir, plan.info);
    if (stale === null) {
      log.info(`release ${plan.name} ready (already installed at ${bin})`);
      ctx.metrics?.prepared(plan.name);
      ctx.metrics?.state('prepared', { ...plan, checksum: readPlanRecord(dir)?.checksum ?? null });
      return 'present';
    }
    log.warn(`the release in ${dir} is not the one of plan ${plan.name}: ${stale}: replacing it`);
  }
  if (plan.info === '') throw new ChainvisorError(EXIT.UPGRADE_FAILED, `plan ${plan.name} at height ${plan.height} has no info naming a release to download`);
  const info = parseUpgradeInfo(JSON.stringify({ name: plan.name, height: plan.height.toString(), info: plan.info }));
  if (info.state !== 'ok') throw new ChainvisorError(EXIT.UPGRADE_INFO_INVALID, `plan ${plan.name}: ${info.why}`);
  log.info(`preparing upgrade ${plan.name} (height ${plan.height})`);
  ctx.metrics?.state('downloading', plan);
  try {
    await ctx.install(info.info, dir);
  } catch (e) {
    ctx.metrics?.state('running');
    if (e instanceof ChainvisorError) throw e;
    // a host that cannot be reached, a bad checksum, a refused archive: expected failures, one line each
    throw new ChainvisorError(EXIT.UPGRADE_FAILED, `plan ${plan.name}: ${errorMessage(e)}; nothing installed`);
  }
  log.info(`release ${plan.name} ready`);
  ctx.metrics?.prepared(plan.name);
  ctx.metrics?.state('prepared', { ...plan, checksum: readPlanRecord(dir)?.checksum ?? null });
  return 'installed';
}

/**
 * DAEMON_PREPARE_UPGRADE: polls CurrentPlan while the node runs and prepares each scheduled plan once; a plan
 * re-proposed under the same name with other info is prepared again (its release replaces the stale one).
 * An unreachable node is said once it has not answered for `quietMs` in a row, never while it starts or stops.
 */
export async function autoPrepare(
  ctx: UpgradeContext & { readonly install: Installer },
  signal: AbortSignal,
  everyMs = 3000,
  quietMs = UNREACHABLE_QUIET_MS,
): Promise<void> {
  let done = '';
  let unreachableSince: number | undefined;
  let unreachableSaid = false;
  while (!signal.aborted) {
    let key = '';
    try {
      const plan = (await queryCurrentPlan(ctx.cfg.grpcAddress)) ?? null;
      if (unreachableSaid) ctx.log.info(`prepare-upgrade: the node's gRPC at ${ctx.cfg.grpcAddress} answers again`);
      unreachableSince = undefined;
      unreachableSaid = false;
      key = plan ? planKey(plan) : '';
      if (plan && key !== done) {
        await prepareUpgrade(ctx, plan);
        done = key;
      }
    } catch (e) {
      const m = errorMessage(e);
      if (!(e instanceof ChainvisorError && e.code === EXIT.NODE_UNREACHABLE)) {
        // a bad release would fail the same way on every poll: say it once per plan; the halt retries and fails clearly
        ctx.log.warn(`prepare-upgrade failed, not retried before the halt: ${m}`);
        done = key;
      } else if (!signal.aborted) {
        // each launch, the node's gRPC is refused until it listens, and again as it stops: expected, not
        // warned about; a node that stays away (a wrong DAEMON_GRPC_ADDRESS, gRPC disabled) is said once
        unreachableSince ??= performance.now();
        const away = performance.now() - unreachableSince;
        if (!unreachableSaid && away >= quietMs) {
          ctx.log.warn(
            `prepare-upgrade: the node's gRPC has not answered for ${ms(away)} (${m}): no release is prepared ahead of the halt until it does; check DAEMON_GRPC_ADDRESS against app.toml [grpc] address`,
          );
          unreachableSaid = true;
        }
      }
    }
    await pause(everyMs, signal);
  }
}

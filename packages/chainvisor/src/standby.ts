// DAEMON_WARM_START: the scheduled release's binary is started before the halt as `<daemon> standby -- <args>`,
// loads its code while the old release still runs, and waits. At the halt chainvisor runs the pre-upgrade in
// that process and then has it become the node, so the downtime pays for no process start and no module loading.
// The protocol is one JSON object a line on the child's fd 3 (docs/chainvisor.md "Warm start"):
//   standby → {"ready":true}             loaded, waiting
//   chainvisor → {"preUpgrade":[args…]}   run `<daemon> pre-upgrade <args…>` in the standby; it answers {"exit":code}
//   chainvisor → {"start":true}           run `<daemon> <args…>`: the standby is the node from then on
// The end of the pipe before "start" (chainvisor gone or cold) ends a standby. A binary without the command
// exits at once (an unknown command); the upgrade then starts it cold, as cosmovisor does.
import { spawn } from 'node:child_process';
import { lstatSync, statSync } from 'node:fs';
import type { Socket } from 'node:net';
import { createInterface } from 'node:readline';
import { binaryIn, upgradeDir, upgradeFolderName } from './layout.ts';
import { pause } from './pause.ts';
import { staleRelease } from '@chaind/upgrade-plan';
import { queryCurrentPlan, type Plan } from './prepare.ts';

/**
 * The same plan's release: its name and info. Not its height, which chaind's readiness gate may move forward
 * (docs/upgrade-module.md, "The readiness gate"): the standby loaded for it stays, and serves the later halt.
 */
function samePlanRelease(a: { readonly name: string; readonly info: string }, b: { readonly name: string; readonly info: string }): boolean {
  return a.name === b.name && a.info === b.info;
}

const releaseKey = (p: Plan): string => JSON.stringify([p.name, p.info]);
import { adopt, type Daemon } from './process.ts';
import { latestHeight } from './rpc.ts';
import { isPending, type LoadedRelease, type UpgradeContext } from './upgrade.ts';

export interface Standby extends LoadedRelease {
  readonly binary: string;
  readonly plan: Plan;
  /** true once it said it is loaded; false when it exited or misbehaved first */
  readonly ready: Promise<boolean>;
  /** Has it run the node's command: the Daemon from then on; undefined when it is gone. */
  start(): Daemon | undefined;
}

/** Identifies a file's content as installed: a release replaced or re-installed since gets another identity. */
function fileIdentity(path: string): string {
  try {
    const s = statSync(path);
    return `${s.dev}:${s.ino}:${s.size}:${s.mtimeMs}`;
  } catch {
    return '';
  }
}

export function spawnStandby(binary: string, args: readonly string[], plan: Plan): Standby {
  const identity = fileIdentity(binary);
  const child = spawn(binary, ['standby', '--', ...args], { stdio: ['inherit', 'inherit', 'inherit', 'pipe'] });
  const pipe = child.stdio[3] as Socket;
  let state: 'loading' | 'ready' | 'busy' | 'started' | 'gone' = 'loading';
  let answer: ((code: number | undefined) => void) | undefined;
  let onReady: (ok: boolean) => void = () => {};
  const ready = new Promise<boolean>((r) => (onReady = r));
  const gone = (): void => {
    if (state === 'started' || state === 'gone') return;
    state = 'gone';
    onReady(false);
    answer?.(undefined);
    answer = undefined;
    if (child.exitCode === null && child.signalCode === null) child.kill('SIGTERM');
  };
  child.once('exit', gone);
  child.once('error', gone);
  pipe.on('error', gone);
  pipe.on('close', gone);
  createInterface({ input: pipe }).on('line', (line) => {
    let m: { ready?: unknown; exit?: unknown };
    try {
      m = JSON.parse(line) as typeof m;
    } catch {
      return gone(); // not our protocol: never trusted to become the node
    }
    if (m.ready === true && state === 'loading') {
      state = 'ready';
      onReady(true);
    } else if (typeof m.exit === 'number' && Number.isInteger(m.exit) && state === 'busy' && answer) {
      state = 'ready';
      const a = answer;
      answer = undefined;
      a(m.exit);
    } else gone();
  });
  const send = (m: object): void => void pipe.write(JSON.stringify(m) + '\n');
  return {
    pid: child.pid,
    binary,
    plan,
    ready,
    unfitFor(info, bin) {
      if (state !== 'ready') return state === 'loading' ? 'it has not finished loading' : 'it has exited';
      if (!samePlanRelease(info, plan)) return `it was started for the plan ${plan.name} at height ${plan.height}`;
      if (bin !== binary) return `it runs ${binary}, the upgrade ${bin}`;
      if (fileIdentity(binary) !== identity) return `${binary} was replaced since it started`;
      return null;
    },
    preUpgrade(a) {
      if (state !== 'ready') return Promise.resolve(undefined);
      state = 'busy';
      const p = new Promise<number | undefined>((r) => (answer = r));
      send({ preUpgrade: a });
      return p;
    },
    start() {
      if (state !== 'ready') return undefined;
      state = 'started';
      send({ start: true });
      pipe.end();
      return adopt(child);
    },
    cancel() {
      if (state === 'started') return;
      gone();
    },
  };
}

/**
 * While the node runs (until `signal`): once a plan is scheduled, its release is installed as the plan says and the
 * chain is within DAEMON_WARM_START_BLOCKS of its height, starts one standby for it (once per plan), kept in
 * `slot`; a plan cancelled or changed ends its standby. An unreachable node is the next poll's business.
 */
export async function keepStandby(ctx: UpgradeContext, args: readonly string[], slot: { current?: Standby }, signal: AbortSignal): Promise<void> {
  const { cfg, log } = ctx;
  const everyMs = Math.max(cfg.pollIntervalMs, 1000);
  let tried = '';
  while (!signal.aborted) {
    try {
      const plan = await queryCurrentPlan(cfg.grpcAddress, 2000);
      if (signal.aborted) return;
      const cur = slot.current;
      if (cur !== undefined && (plan === undefined || !samePlanRelease(plan, cur.plan))) {
        log.info(
          `warm start: the plan ${cur.plan.name} at height ${cur.plan.height} is no longer scheduled as it was: its standby (pid ${cur.pid ?? '?'}) stopped`,
        );
        cur.cancel();
        slot.current = undefined;
      }
      if (plan !== undefined && slot.current === undefined && releaseKey(plan) !== tried) {
        const h = await latestHeight(cfg.rpcAddress, 1000);
        const bin = h !== undefined && h >= plan.height - BigInt(cfg.warmStartBlocks) ? installedFor(ctx, plan) : undefined;
        if (bin !== undefined && !signal.aborted) {
          tried = releaseKey(plan);
          const s = spawnStandby(bin, args, plan);
          slot.current = s;
          log.info(`warm start: ${bin} started in standby for the upgrade ${plan.name} at height ${plan.height} (pid ${s.pid ?? '?'})`);
          void s.ready.then((ok) => {
            if (ok) log.info(`warm start: the standby of ${plan.name} is loaded and waits for the halt`);
            else log.warn(`warm start: ${bin} did not stay in standby (it has no \`standby\` command, or it failed): the upgrade will start it cold`);
          });
        }
      }
    } catch {
      // the node's gRPC is away while it starts or stops: asked again at the next poll
    }
    await pause(everyMs, signal);
  }
}

/** The installed binary of `plan` when it is the plan's release and an upgrade from `current`; else undefined. */
function installedFor(ctx: UpgradeContext, plan: Plan): string | undefined {
  let folder: string;
  try {
    folder = upgradeFolderName(plan.name, ctx.cfg.disableRecase, ctx.l.upgradesDir);
  } catch {
    return undefined;
  }
  if (!isPending(ctx, plan)) return undefined;
  const dir = upgradeDir(ctx.l, folder);
  const bin = binaryIn(dir, ctx.l.daemonName);
  try {
    if (!lstatSync(bin).isFile()) return undefined; // a symlink or folder: refused at the halt, as ensureBinary does
  } catch {
    return undefined;
  }
  return staleRelease(dir, plan.info) === null ? bin : undefined;
}

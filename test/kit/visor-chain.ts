// Test support (not used by production code): a real `chaind dev` chain (v1, 6 s gov periods) created by
// chaind and run under a real `chainvisor run dev`, each chainvisor in its own process group so the node it
// starts goes with it; the chaind CLI against it; a governance upgrade proposed and passed (the chaind kit's steps).
import assert from 'node:assert/strict';
import type { ChildProcess } from 'node:child_process';
import { chmodSync, mkdirSync, mkdtempSync, rmSync, symlinkSync, writeFileSync } from 'node:fs';
import { tmpdir } from 'node:os';
import { join, resolve } from 'node:path';
import { fileURLToPath } from 'node:url';
import { freePort } from '@chaind/sdk/testing';
import {
  chaind,
  cometHeight,
  eventually,
  GroupChild,
  submitUpgradeProposal,
  voteAndWaitForPlan,
  type GovUpgradeOptions,
  type Run,
} from '@chaind/chaind/testing';

const ROOT = resolve(fileURLToPath(new URL('../..', import.meta.url)));
export const CHAIND = join(ROOT, 'packages/chaind/bin/chaind.js');
export const CHAINVISOR = join(ROOT, 'packages/chainvisor/bin/chainvisor.js');

export type CliRun = Run;

/** Runs the chaind CLI (as release v1) as a child process in its own process group; its exit code and output. */
export const cli = (args: readonly string[]): Promise<CliRun> => chaind(args, { env: { CHAIND_RELEASE: 'v1' } });

/** A shell script running chaind from source as `release` (from source it is otherwise the newest release). */
export function chaindScript(release: string): string {
  return `#!/bin/sh\nCHAIND_RELEASE=${release} exec "${process.execPath}" "${CHAIND}" "$@"\n`;
}

/** Polls `probe` (the chaind kit's `eventually`, arguments in this kit's order). */
export const until = <T>(what: string, ms: number, probe: () => Promise<T | undefined>): Promise<T> => eventually(what, probe, ms);

/** One `chainvisor run dev` over the chain's home. */
export interface Visor {
  readonly child: ChildProcess;
  readonly exit: Promise<{ code: number | null; output: string }>;
  output(): string;
}

export interface VisorChain {
  readonly home: string;
  readonly cv: string;
  readonly rpc: string;
  /** the node's gRPC host:port (DAEMON_GRPC_ADDRESS) */
  readonly grpc: string;
  /** the node's REST server, http://host:port */
  readonly rest: string;
  /** Starts chainvisor with the chain's addresses, `extra` appended to the daemon's arguments. */
  run(extra?: readonly string[]): Visor;
  /** runs the chaind CLI against this chain's home and node */
  tx(args: readonly string[]): Promise<CliRun>;
  height(): Promise<number>;
}

const work: string[] = [];
const visors: GroupChild[] = [];

/** Kills every chainvisor started (with its node) and removes the chains' folders. */
export function cleanupVisorChains(): void {
  for (const v of visors.splice(0)) void v.killGroup();
  for (const d of work.splice(0)) rmSync(d, { recursive: true, force: true });
}

/** A v1 dev chain (6 s gov periods) in a new home with chainvisor's layout: genesis = v1, nothing else installed. */
export async function createVisorChain(env: Readonly<Record<string, string>> = {}): Promise<VisorChain> {
  const root = mkdtempSync(join(tmpdir(), 'chaind-visor-chain-'));
  work.push(root);
  const home = join(root, 'node');
  const cv = join(home, 'cosmovisor');
  mkdirSync(join(cv, 'genesis', 'bin'), { recursive: true });
  mkdirSync(join(cv, 'upgrades'), { recursive: true });
  const genesis = join(cv, 'genesis', 'bin', 'chaind');
  // from source, chaind is the newest release, which has v2's handler; the genesis binary must be v1's
  writeFileSync(genesis, chaindScript('v1'));
  chmodSync(genesis, 0o755);
  symlinkSync('genesis', join(cv, 'current'));
  const [rpcPort, restPort, grpcPort] = [await freePort(), await freePort(), await freePort()];
  const rpc = `http://127.0.0.1:${rpcPort}`;
  const addr = ['--rpc.laddr', `tcp://127.0.0.1:${rpcPort}`, '--api.address', `tcp://127.0.0.1:${restPort}`, '--grpc.address', `127.0.0.1:${grpcPort}`];
  const made = await cli(['dev', '--home', home, '--gov-period', '10s', '--halt-height', '1', ...addr]);
  assert.equal(made.code, 0, made.stderr);
  const visorEnv = {
    PATH: process.env.PATH ?? '',
    DAEMON_HOME: home,
    DAEMON_NAME: 'chaind',
    DAEMON_POLL_INTERVAL: '100ms',
    DAEMON_RPC_ADDRESS: rpc,
    DAEMON_GRPC_ADDRESS: `127.0.0.1:${grpcPort}`,
    COSMOVISOR_COLOR_LOGS: 'false',
    COSMOVISOR_TIMEFORMAT_LOGS: 'none',
    ...env,
  };
  const height = async (): Promise<number> => Number((await cometHeight(rpc)) ?? assert.fail(`${rpc} does not answer`));
  const run = (extra: readonly string[] = []): Visor => {
    const proc = GroupChild.spawn([CHAINVISOR, 'run', 'dev', '--home', home, ...addr, ...extra], visorEnv, `chainvisor run dev over ${home}`);
    visors.push(proc);
    const exit = proc.exited.then(({ code }) => ({ code, output: proc.log() }));
    return { child: proc.child, exit, output: () => proc.log() };
  };
  const flags = [
    '--home',
    home,
    '--keyring-backend',
    'test',
    '--node',
    rpc,
    '-y',
    '--broadcast-mode',
    'commit',
    '--gas',
    'auto',
    '--gas-adjustment',
    '1.5',
    '--fees',
    '5000stake',
  ];
  return { home, cv, rpc, grpc: `127.0.0.1:${grpcPort}`, rest: `http://127.0.0.1:${restPort}`, run, height, tx: (args) => cli([...args, ...flags]) };
}

/** Waits until the node under `v` has committed height `h` (fails with chainvisor's output if it exits first). */
export async function waitForHeight(c: VisorChain, v: Visor, h: number, ms = 60_000): Promise<void> {
  const exited = v.exit.then(({ code }) => {
    throw new Error(`chainvisor exited (${code})`);
  });
  exited.catch(() => {});
  await Promise.race([exited, until(`height ${h}`, ms, async () => ((await c.height()) >= h ? true : undefined))]).catch((e: Error) => {
    throw new Error(`${e.message}; chainvisor and the node printed:\n${v.output().slice(-3000)}`);
  });
}

/** The v2 upgrade at height `h` as proposal 1 (alice proposes, with the deposit), through the chaind kit's governance steps. */
const v2Upgrade = (c: VisorChain, h: number, info: string): GovUpgradeOptions => ({
  cli,
  node: c.rpc,
  home: c.home,
  name: 'v2',
  height: h,
  proposal: 1,
  info,
  from: 'alice',
  summary: 's',
  txFlags: ['--gas-adjustment', '1.5', '--fees', '5000stake'],
});

/** Proposes upgrade "v2" at height `h` with `info` (alice, with the deposit); the CLI's run, for the test to judge. */
export const proposeV2 = (c: VisorChain, h: number, info: string, extra: readonly string[] = []): Promise<CliRun> =>
  submitUpgradeProposal(v2Upgrade(c, h, info), extra);

/** Votes yes on proposal 1 and waits until its plan is scheduled (before its height). */
export async function passAndWait(c: VisorChain, h: number): Promise<void> {
  await voteAndWaitForPlan(v2Upgrade(c, h, ''));
  assert.ok((await c.height()) < h - 1, 'the plan passed before its height');
}

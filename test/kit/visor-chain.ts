// Test support (not used by production code): a real `chaind dev` chain (v1, 6 s gov periods) created by
// chaind and run under a real `chainvisor run dev`, each chainvisor in its own process group so the node it
// starts goes with it; the chaind CLI against it; a governance upgrade proposed and passed.
import assert from 'node:assert/strict';
import { spawn, type ChildProcess } from 'node:child_process';
import { chmodSync, mkdirSync, mkdtempSync, rmSync, symlinkSync, writeFileSync } from 'node:fs';
import { tmpdir } from 'node:os';
import { join, resolve } from 'node:path';
import { fileURLToPath } from 'node:url';
import { freePort } from '@chaind/sdk/testing';

const ROOT = resolve(fileURLToPath(new URL('../..', import.meta.url)));
export const CHAIND = join(ROOT, 'packages/chaind/bin/chaind.js');
export const CHAINVISOR = join(ROOT, 'packages/chainvisor/bin/chainvisor.js');

export interface CliRun {
  readonly code: number | null;
  readonly stdout: string;
  readonly stderr: string;
}

/** Runs the chaind CLI (as release v1) as a child process; its exit code and output. */
export function cli(args: readonly string[]): Promise<CliRun> {
  return new Promise((res, rej) => {
    const c = spawn(process.execPath, [CHAIND, ...args], {
      env: { ...process.env, CHAIND_RELEASE: 'v1' },
      stdio: ['ignore', 'pipe', 'pipe'],
      timeout: 120_000,
    });
    let stdout = '';
    let stderr = '';
    c.stdout.on('data', (d: Buffer) => (stdout += d.toString()));
    c.stderr.on('data', (d: Buffer) => (stderr += d.toString()));
    c.on('error', rej);
    c.on('close', (code) => res({ code, stdout, stderr }));
  });
}

/** A shell script running chaind from source as `release` (from source it is otherwise the newest release). */
export function chaindScript(release: string): string {
  return `#!/bin/sh\nCHAIND_RELEASE=${release} exec "${process.execPath}" "${CHAIND}" "$@"\n`;
}

export async function until<T>(what: string, ms: number, probe: () => Promise<T | undefined>): Promise<T> {
  const end = Date.now() + ms;
  for (;;) {
    const v = await probe().catch(() => undefined);
    if (v !== undefined) return v;
    if (Date.now() > end) throw new Error(`timed out after ${ms} ms waiting for ${what}`);
    await new Promise((r) => setTimeout(r, 200));
  }
}

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
const visors: ChildProcess[] = [];

/** Kills every chainvisor started (with its node) and removes the chains' folders. */
export function cleanupVisorChains(): void {
  for (const v of visors.splice(0)) {
    try {
      if (v.pid !== undefined) process.kill(-v.pid, 'SIGKILL');
    } catch {
      // gone already
    }
  }
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
  const height = async (): Promise<number> => {
    const r = await fetch(rpc, {
      method: 'POST',
      headers: { 'content-type': 'application/json' },
      body: JSON.stringify({ jsonrpc: '2.0', id: 1, method: 'status', params: {} }),
    });
    return Number(((await r.json()) as { result: { sync_info: { latest_block_height: string } } }).result.sync_info.latest_block_height);
  };
  const run = (extra: readonly string[] = []): Visor => {
    const child = spawn(process.execPath, [CHAINVISOR, 'run', 'dev', '--home', home, ...addr, ...extra], {
      env: visorEnv,
      stdio: ['ignore', 'pipe', 'pipe'],
      detached: true,
    });
    visors.push(child);
    let out = '';
    child.stdout?.on('data', (d: Buffer) => (out += d.toString()));
    child.stderr?.on('data', (d: Buffer) => (out += d.toString()));
    const exit = new Promise<{ code: number | null; output: string }>((r) => child.on('close', (code) => r({ code, output: out })));
    return { child, exit, output: () => out };
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

/** Proposes upgrade "v2" at height `h` with `info` (alice, with the deposit). */
export const proposeV2 = (c: VisorChain, h: number, info: string, extra: readonly string[] = []): Promise<CliRun> =>
  c.tx([
    'tx',
    'upgrade',
    'software-upgrade',
    'v2',
    '--title',
    'v2',
    '--summary',
    's',
    '--deposit',
    '10000000stake',
    '--upgrade-height',
    String(h),
    '--upgrade-info',
    info,
    '--allow-loopback-http',
    '--from',
    'alice',
    ...extra,
  ]);

/** Votes yes on proposal 1 and waits until its plan is scheduled (before its height). */
export async function passAndWait(c: VisorChain, h: number): Promise<void> {
  const voted = await c.tx(['tx', 'gov', 'vote', '1', 'yes', '--from', 'validator']);
  assert.equal(voted.code, 0, voted.stderr);
  assert.equal((JSON.parse(voted.stdout) as { code: number }).code, 0, voted.stdout);
  await until('the plan to pass', 60_000, async () => {
    const r = await cli(['query', 'upgrade', 'plan', '-o', 'json', '--node', c.rpc]);
    return r.code === 0 && r.stdout.includes('"v2"') ? true : undefined;
  });
  assert.ok((await c.height()) < h - 1, 'the plan passed before its height');
}

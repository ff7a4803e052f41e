// Shared by chainvisor's tests: a home with the cosmovisor layout, daemon scripts, the CLI as a child process.
import { spawn, type ChildProcess } from 'node:child_process';
import { chmodSync, existsSync, mkdirSync, mkdtempSync, readdirSync, readFileSync, readlinkSync, rmSync, symlinkSync, writeFileSync } from 'node:fs';
import { createServer, type Server } from 'node:http';
import type { AddressInfo } from 'node:net';
import { tmpdir } from 'node:os';
import { dirname, join } from 'node:path';
import { fileURLToPath } from 'node:url';
import { QueryCurrentPlanResponse } from 'cosmjs-types/cosmos/upgrade/v1beta1/query';
import { Plan } from 'cosmjs-types/cosmos/upgrade/v1beta1/upgrade';
import { Server as GrpcServer, ServerCredentials, type sendUnaryData, type ServerUnaryCall } from '@grpc/grpc-js';

export const BIN = join(dirname(fileURLToPath(import.meta.url)), '..', 'bin', 'chainvisor.js');

export interface Home {
  readonly root: string;
  readonly home: string;
  readonly cv: string;
  readonly data: string;
  /** the lines every daemon script appends: `<who> <args…>` */
  launches(): string[];
  cleanup(): void;
}

export function makeHome(): Home {
  const root = mkdtempSync(join(tmpdir(), 'chainvisor-'));
  const home = join(root, 'home');
  const cv = join(home, 'cosmovisor');
  mkdirSync(join(cv, 'genesis', 'bin'), { recursive: true });
  mkdirSync(join(cv, 'upgrades'), { recursive: true });
  mkdirSync(join(home, 'data'), { recursive: true });
  symlinkSync('genesis', join(cv, 'current'));
  return {
    root,
    home,
    cv,
    data: join(home, 'data'),
    launches: () => {
      try {
        return readFileSync(join(home, 'launches.log'), 'utf8').split('\n').filter(Boolean);
      } catch {
        return [];
      }
    },
    cleanup: () => rmSync(root, { recursive: true, force: true }),
  };
}

/**
 * Writes an executable node script. Its body runs with `home` (DAEMON_HOME), `args`, `log(line)` (appends to
 * launches.log), `writeInfo(obj)` (atomic data/upgrade-info.json) and `fs`, `path` in scope.
 */
export function writeDaemon(path: string, who: string, body: string): string {
  mkdirSync(dirname(path), { recursive: true });
  writeFileSync(
    path,
    `#!${process.execPath}
const fs = require('node:fs'); const path = require('node:path');
const home = process.env.DAEMON_HOME; const args = process.argv.slice(2);
const log = (l) => fs.appendFileSync(path.join(home, 'launches.log'), l + '\\n');
const writeInfo = (o) => { const f = path.join(home, 'data', 'upgrade-info.json'); fs.writeFileSync(f + '.tmp', JSON.stringify(o)); fs.renameSync(f + '.tmp', f); };
log(${JSON.stringify(who)} + ' ' + args.join(' '));
${body}
`,
  );
  chmodSync(path, 0o755);
  return path;
}

export interface Run {
  readonly child: ChildProcess;
  readonly exit: Promise<{ code: number | null; stdout: string; stderr: string }>;
  /** resolves when stderr has a line matching `re` */
  waitFor(re: RegExp): Promise<string>;
  stderr(): string;
}

/** The process groups of every chainvisor started: kept after chainvisor exits, since its daemons may outlive it. */
const groups = new Set<number>();

/** Kills every chainvisor a test started, with its daemons (own process group), so a failed test never hangs the runner. */
export function killAll(): void {
  for (const pgid of groups) {
    try {
      process.kill(-pgid, 'SIGKILL');
    } catch {
      // already gone
    }
  }
  groups.clear();
}

export interface RunLimits {
  /** `ulimit -f` in KiB: writes past it fail with EFBIG (Node ignores SIGXFSZ), a disk that fills up */
  readonly fileSizeKiB?: number;
}

export function chainvisor(args: readonly string[], env: Record<string, string>, cwd?: string, limits: RunLimits = {}): Run {
  const [cmd, argv] =
    limits.fileSizeKiB === undefined
      ? [process.execPath, [BIN, ...args]]
      : ['bash', ['-c', `ulimit -f ${limits.fileSizeKiB} && exec "$0" "$@"`, process.execPath, BIN, ...args]];
  const child = spawn(cmd, argv, { env: { PATH: process.env.PATH ?? '', ...env }, stdio: ['ignore', 'pipe', 'pipe'], detached: true, ...(cwd ? { cwd } : {}) });
  if (child.pid !== undefined) groups.add(child.pid);
  let out = '';
  let err = '';
  const waiters: { re: RegExp; resolve: (l: string) => void }[] = [];
  child.stdout!.on('data', (d: Buffer) => (out += d.toString()));
  child.stderr!.on('data', (d: Buffer) => {
    err += d.toString();
    for (const w of [...waiters]) {
      const line = err.split('\n').find((l) => w.re.test(l));
      if (line !== undefined) {
        waiters.splice(waiters.indexOf(w), 1);
        w.resolve(line);
      }
    }
  });
  const exit = new Promise<{ code: number | null; stdout: string; stderr: string }>((resolve) =>
    child.on('close', (code) => resolve({ code, stdout: out, stderr: err })),
  );
  return {
    child,
    exit,
    stderr: () => err,
    waitFor: (re) => {
      const line = err.split('\n').find((l) => re.test(l));
      if (line !== undefined) return Promise.resolve(line);
      return new Promise((resolve, reject) => {
        waiters.push({ re, resolve });
        void exit.then(() => reject(new Error(`chainvisor exited before a line matching ${re}:\n${err}`)));
      });
    },
  };
}

/** A CometBFT-like JSON-RPC `status` answering latest_block_height from `<home>/data/height` (0 when absent), or never while `<home>/data/rpc-silent` exists. */
export async function statusServer(home: string): Promise<{ url: string; server: Server }> {
  const server = createServer((req, res) => {
    req.resume();
    req.on('end', () => {
      // a busy node: the request is taken and never answered
      if (existsSync(join(home, 'data', 'rpc-silent'))) return;
      let h = '0';
      try {
        h = readFileSync(join(home, 'data', 'height'), 'utf8').trim();
      } catch {
        // no block yet
      }
      res.setHeader('content-type', 'application/json');
      res.end(JSON.stringify({ jsonrpc: '2.0', id: 1, result: { sync_info: { latest_block_height: h } } }));
    });
  });
  await new Promise<void>((r) => server.listen(0, '127.0.0.1', r));
  return { url: `http://127.0.0.1:${(server.address() as AddressInfo).port}`, server };
}

/** The bytes a node answers: Cosmos x/upgrade's QueryCurrentPlanResponse, encoded by cosmjs-types (the wire format chaind is compatible with). */
export function planResponse(plan?: { name: string; info: string; height: bigint }): Uint8Array {
  return QueryCurrentPlanResponse.encode({ plan: plan && Plan.fromPartial(plan) }).finish();
}

/** A real gRPC server answering /chain.upgrade.v1beta1.Query/CurrentPlan with raw bytes. */
export async function planServer(get: () => Uint8Array): Promise<{ address: string; server: GrpcServer }> {
  const server = new GrpcServer();
  server.register(
    '/chain.upgrade.v1beta1.Query/CurrentPlan',
    (_call: ServerUnaryCall<Buffer, Buffer>, cb: sendUnaryData<Buffer>) => cb(null, Buffer.from(get())),
    (b: Buffer) => b,
    (b: Buffer) => b,
    'unary',
  );
  const port = await new Promise<number>((res, rej) => server.bindAsync('127.0.0.1:0', ServerCredentials.createInsecure(), (e, p) => (e ? rej(e) : res(p))));
  return { address: `127.0.0.1:${port}`, server };
}

/** The env chainvisor runs with in tests: quick polling, no colours or timestamps, an RPC nobody answers. */
export function baseEnv(h: Home, extra: Record<string, string> = {}): Record<string, string> {
  return {
    DAEMON_HOME: h.home,
    DAEMON_NAME: 'chaind',
    DAEMON_POLL_INTERVAL: '50ms',
    COSMOVISOR_COLOR_LOGS: 'false',
    COSMOVISOR_TIMEFORMAT_LOGS: 'none',
    DAEMON_RPC_ADDRESS: 'http://127.0.0.1:9',
    DAEMON_GRPC_ADDRESS: '127.0.0.1:9',
    // the tests' mirrors are loopback http servers
    DAEMON_ALLOW_LOOPBACK_HTTP: 'true',
    ...extra,
  };
}

/** Every file (with its content, base64), folder and symlink under `dir`, by relative path: two trees compare equal when the same. */
export function snapshot(dir: string): Record<string, string> {
  const out: Record<string, string> = {};
  for (const e of readdirSync(dir, { recursive: true, withFileTypes: true })) {
    const p = join(e.parentPath, e.name);
    out[p.slice(dir.length + 1)] = e.isDirectory() ? '<dir>' : e.isSymbolicLink() ? `-> ${readlinkSync(p)}` : readFileSync(p).toString('base64');
  }
  return out;
}

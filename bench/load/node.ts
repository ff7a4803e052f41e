// The node under load: a real chaind child process on loopback (`chaind dev`, solo, or `chaind start`, with
// CometBFT as its child), under the Node flags chaind's launcher sets (and --cpu-prof when asked), leading a
// process group of its own that stopNode always kills. Its log tells when each block was committed (the
// line's arrival here) and which txs the mempool evicted and why; /proc tells its RSS; JSON-RPC its mempool size.
import { spawn, type ChildProcess } from 'node:child_process';
import { createHash } from 'node:crypto';
import { createServer } from 'node:net';
import { chaindNodeFlags } from '../lib.ts';
import { CHAIND } from './home.ts';
import { nowMs } from './protocol.ts';
import { memoryOf } from '../soak/proc.ts';

export interface Eviction {
  readonly hash: string;
  readonly code: number;
  readonly reason: string;
}

export interface RunningNode {
  readonly child: ChildProcess;
  /** CometBFT's pid under `chaind start` (from chaind's `started CometBFT` line). */
  readonly cometPid: () => number | undefined;
  readonly rpc: string;
  readonly rest: string;
  readonly grpc: string;
  /** Height → when its "committed block" line arrived (nowMs). */
  readonly committedAt: Map<number, number>;
  readonly txsAt: Map<number, number>;
  readonly evictions: Eviction[];
  /** The node's warning and error lines (the first 20). */
  readonly problems: string[];
  /** The node's stderr, last 64 kB (for errors). */
  tail(): string;
}

export function freePort(): Promise<number> {
  return new Promise((resolve, reject) => {
    const s = createServer();
    s.once('error', reject);
    s.listen(0, '127.0.0.1', () => {
      const a = s.address();
      s.close(() => (typeof a === 'object' && a !== null ? resolve(a.port) : reject(new Error('no port'))));
    });
  });
}

/** VmRSS of `pid` in MiB (Linux), or NaN. */
/** The node's resident memory in MiB: all of it (VmRSS, with LMDB's mapped pages), and its own (RssAnon: the heap and other private memory). */
export function memoryMiB(pid: number): { readonly rss: number; readonly anon: number } {
  const m = memoryOf(pid);
  return { rss: (m?.rssKiB ?? NaN) / 1024, anon: (m?.anonKiB ?? NaN) / 1024 };
}

export async function rpcCall<T>(rpc: string, method: string, params: Record<string, unknown> = {}): Promise<T> {
  const r = await fetch(rpc, {
    method: 'POST',
    headers: { 'content-type': 'application/json' },
    body: JSON.stringify({ jsonrpc: '2.0', id: 1, method, params }),
  });
  const j = (await r.json()) as { result?: T; error?: { message: string; data?: string } };
  if (j.result === undefined) throw new Error(`${method}: ${j.error?.data ?? j.error?.message ?? r.status}`);
  return j.result;
}

export interface BlockInfo {
  readonly height: number;
  readonly timeMs: number;
  readonly txs: number;
}

/** Every block from 1 to the latest: its header time, and each tx hash → its height (read after a run: it does not perturb it). */
export async function readBlocks(rpc: string): Promise<{ blocks: BlockInfo[]; heightOf: Map<string, number> }> {
  const status = await rpcCall<{ sync_info: { latest_block_height: string } }>(rpc, 'status');
  const latest = Number(status.sync_info.latest_block_height);
  const blocks: BlockInfo[] = [];
  const heightOf = new Map<string, number>();
  for (let h = 1; h <= latest; h++) {
    const b = await rpcCall<{ block: { header: { time: string }; data: { txs: string[] | null } } }>(rpc, 'block', { height: String(h) });
    const txs = b.block.data.txs ?? [];
    for (const t of txs) heightOf.set(createHash('sha256').update(Buffer.from(t, 'base64')).digest('hex').toUpperCase(), h);
    blocks.push({ height: h, timeMs: Date.parse(b.block.header.time), txs: txs.length });
  }
  return { blocks, heightOf };
}

const COMMITTED = /INF committed block height=(\d+) txs=(\d+)/;
const EVICTED = /INF evicted tx height=\d+ hash=([0-9A-F]{64}) code=(\d+) codespace=\S* reason=("(?:[^"\\]|\\.)*"|\S*)/;

/** Where a node started by `startNode` serves; `chaind start` takes them from the home (CometBFT reads config.toml). */
export interface NodeEndpoints {
  readonly rpc: string;
  readonly rest: string;
  readonly grpc: string;
}

export interface StartNodeOptions {
  /** `dev` (solo, the default) or `start` (CometBFT as chaind's child). */
  readonly command?: 'dev' | 'start';
  /** Fresh loopback ports when absent (`dev` only: CometBFT serves the home's [rpc] laddr). */
  readonly endpoints?: NodeEndpoints;
  readonly env?: NodeJS.ProcessEnv;
}

const COMET_STARTED = /started CometBFT .*pid=(\d+)/;
const live = new Set<ChildProcess>();
// a bench that throws or exits early leaves no node (nor its CometBFT) behind
process.on('exit', () => {
  for (const c of live) killGroup(c);
});

export async function startNode(home: string, profileDir: string | undefined, o: StartNodeOptions = {}): Promise<RunningNode> {
  const command = o.command ?? 'dev';
  if (command === 'start' && o.endpoints === undefined) throw new Error("chaind start serves the home's endpoints: pass them");
  const ends = o.endpoints ?? {
    rpc: `http://127.0.0.1:${await freePort()}`,
    rest: `http://127.0.0.1:${await freePort()}`,
    grpc: `127.0.0.1:${await freePort()}`,
  };
  const { rpc, rest, grpc } = ends;
  const prof = profileDir === undefined ? [] : ['--cpu-prof', '--cpu-prof-dir', profileDir];
  const flags = command === 'dev' ? ['--rpc.laddr', `tcp://${new URL(rpc).host}`, '--api.address', `tcp://${new URL(rest).host}`, '--grpc.address', grpc] : [];
  const args = [...chaindNodeFlags(), ...prof, CHAIND, command, '--home', home, ...flags];
  // a group of its own: stopNode kills chaind and its CometBFT together, whatever state they are in
  const child = spawn(process.execPath, args, { stdio: ['ignore', 'ignore', 'pipe'], detached: true, env: o.env ?? process.env });
  live.add(child);
  child.once('exit', () => live.delete(child));
  let cometPid: number | undefined;
  const committedAt = new Map<number, number>();
  const txsAt = new Map<number, number>();
  const evictions: Eviction[] = [];
  const problems: string[] = [];
  let tail = '';
  let partial = '';
  child.stderr?.setEncoding('utf8');
  child.stderr?.on('data', (d: string) => {
    const at = nowMs();
    tail = (tail + d).slice(-65536);
    const lines = (partial + d).split('\n');
    partial = lines.pop() ?? '';
    for (const line of lines) {
      cometPid ??= Number(COMET_STARTED.exec(line)?.[1] ?? NaN) || undefined;
      const c = COMMITTED.exec(line);
      if (c !== null) {
        committedAt.set(Number(c[1]), at);
        txsAt.set(Number(c[1]), Number(c[2]));
        continue;
      }
      if (/ (WRN|ERR) /.test(line) && problems.length < 20) problems.push(line);
      const e = EVICTED.exec(line);
      if (e !== null) evictions.push({ hash: e[1], code: Number(e[2]), reason: e[3].startsWith('"') ? (JSON.parse(e[3]) as string) : e[3] });
    }
  });
  const node: RunningNode = { child, cometPid: () => cometPid, rpc, rest, grpc, committedAt, txsAt, evictions, problems, tail: () => tail };
  const deadline = Date.now() + 60_000;
  for (;;) {
    if (child.exitCode !== null) {
      killGroup(child);
      throw new Error(`chaind ${command} exited (${child.exitCode}):\n${tail}`);
    }
    if (committedAt.size > 0) {
      try {
        await rpcCall(rpc, 'status');
        await fetch(`${rest}/cosmos/base/tendermint/v1beta1/node_info`);
        return node;
      } catch {
        // not serving yet
      }
    }
    if (Date.now() > deadline) {
      killGroup(child);
      throw new Error(`chaind ${command} not serving within 60 s:\n${tail}`);
    }
    await new Promise((r) => setTimeout(r, 100));
  }
}

/** SIGKILL to the node's whole process group (chaind and its CometBFT). */
function killGroup(child: ChildProcess): void {
  try {
    if (child.pid !== undefined) process.kill(-child.pid, 'SIGKILL');
  } catch {
    // the group is gone
  }
}

/** SIGTERM to chaind (it stops its CometBFT first), SIGKILL to the group after 30 s; the group is killed in any case. */
export async function stopNode(n: RunningNode): Promise<void> {
  if (n.child.exitCode === null && n.child.signalCode === null) {
    const exited = new Promise((res) => n.child.once('exit', res));
    n.child.kill('SIGTERM');
    const timer = setTimeout(() => killGroup(n.child), 30_000);
    await exited;
    clearTimeout(timer);
  }
  killGroup(n.child);
}

// The node under load: a real `chaind start` child process on loopback, under the Node flags chaind's
// launcher sets (and --cpu-prof when asked). Its log tells when each block was committed (the line's
// arrival here) and which txs the mempool evicted and why; /proc tells its RSS; JSON-RPC its mempool size.
import { spawn, type ChildProcess } from 'node:child_process';
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
  const r = await fetch(rpc, { method: 'POST', headers: { 'content-type': 'application/json' }, body: JSON.stringify({ jsonrpc: '2.0', id: 1, method, params }) });
  const j = (await r.json()) as { result?: T; error?: { message: string; data?: string } };
  if (j.result === undefined) throw new Error(`${method}: ${j.error?.data ?? j.error?.message ?? r.status}`);
  return j.result;
}

const COMMITTED = /INF committed block height=(\d+) txs=(\d+)/;
const EVICTED = /INF evicted tx height=\d+ hash=([0-9A-F]{64}) code=(\d+) codespace=\S* reason=("(?:[^"\\]|\\.)*"|\S*)/;

export async function startNode(home: string, profileDir: string | undefined): Promise<RunningNode> {
  const [rpcPort, restPort, grpcPort] = [await freePort(), await freePort(), await freePort()];
  const rpc = `http://127.0.0.1:${rpcPort}`;
  const rest = `http://127.0.0.1:${restPort}`;
  const grpc = `127.0.0.1:${grpcPort}`;
  const prof = profileDir === undefined ? [] : ['--cpu-prof', '--cpu-prof-dir', profileDir];
  const args = [...chaindNodeFlags(), ...prof, CHAIND, 'dev', '--home', home, '--rpc.laddr', `tcp://127.0.0.1:${rpcPort}`, '--api.address', `tcp://127.0.0.1:${restPort}`, '--grpc.address', grpc];
  const child = spawn(process.execPath, args, { stdio: ['ignore', 'ignore', 'pipe'] });
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
  const node: RunningNode = { child, rpc, rest, grpc, committedAt, txsAt, evictions, problems, tail: () => tail };
  const deadline = Date.now() + 60_000;
  for (;;) {
    if (child.exitCode !== null) throw new Error(`chaind start exited (${child.exitCode}):\n${tail}`);
    if (committedAt.size > 0) {
      try {
        await rpcCall(rpc, 'status');
        await fetch(`${rest}/cosmos/base/tendermint/v1beta1/node_info`);
        return node;
      } catch {
        // not serving yet
      }
    }
    if (Date.now() > deadline) throw new Error(`chaind start not serving within 60 s:\n${tail}`);
    await new Promise((r) => setTimeout(r, 100));
  }
}

export async function stopNode(n: RunningNode): Promise<void> {
  if (n.child.exitCode !== null || n.child.signalCode !== null) return;
  const exited = new Promise((res) => n.child.once('exit', res));
  n.child.kill('SIGTERM');
  const timer = setTimeout(() => n.child.kill('SIGKILL'), 30_000);
  await exited;
  clearTimeout(timer);
}

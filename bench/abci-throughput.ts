// Issue 17: what serving CometBFT over the ABCI socket costs. The same blocks of pre-signed bank sends
// through FinalizeBlock + Commit, and the same CheckTx requests, on four apps built alike on fresh homes
// from the same genesis:
//   - in process: app.finalizeBlock(req); app.commit() and app.checkTx(req) called here (the baseline);
//   - socket, two processes: chaind's ABCI server (AbciDriver) in a child process (support/abci-app.ts)
//     and an AbciClient in this one standing in for CometBFT, as CometBFT and chaind run (the headline);
//   - socket, one process: the same server in this process (AbciTestApp), sharing the client's event
//     loop: the protocol's cost alone, with no second process to wake;
//   - socket, two processes, the stand-in only framing the consensus answers and checking them byte for byte
//     against the baseline's: the app's side alone, without the JS stand-in's protobuf decoding (and its
//     garbage), which CometBFT does in Go.
// Blocks and CheckTx rounds go to the four apps in turn (the order rotating), so the machine's other
// load falls on all of them alike. Every app must answer every block with the baseline's app hash and no failed tx (the framing stand-in: the same bytes).
// Where the blocks' time goes: each process's main thread time on a core and waiting for one (Linux's
// schedstat, read around every block), and the block's messages encoded and decoded alone.
// It stays as a protocol micro-bench: its 0.9 goal (socket vs in process) is replaced by the real figures
// of comet-validator.ts (chaind start with CometBFT vs chaind dev, same home and load; bench/README.md).
import { spawn } from 'node:child_process';
import { createConnection, type Socket } from 'node:net';
import { createHash } from 'node:crypto';
import { readFileSync } from 'node:fs';
import { join } from 'node:path';
import { fileURLToPath } from 'node:url';
import {
  CheckTxType,
  Request,
  Response,
  type ExecTxResult,
  type RequestCheckTx,
  type RequestFinalizeBlock,
  type RequestInitChain,
  type ResponseFinalizeBlock,
} from 'cosmjs-types/tendermint/abci/types';
import { AbciClient, DEFAULT_MAX_MESSAGE_BYTES, encodeRequestFrame, encodeResponseFrame, FrameDecoder, parseAbciAddress } from '@chaind/abci';
import { createChainApp } from '@chaind/chaind/app';
import { AbciTestApp, AppConnections, CHAIN_ID, committedAccount, GENESIS_SECONDS, one, testGenesis } from '@chaind/chaind/testing';
import { MemoryLogger } from '@chaind/sdk/app';
import { addressFromPublicKey, publicKeyFromPrivate } from '@chaind/sdk/crypto';
import { toRequestInitChain } from '@chaind/sdk/genesis';
import { toHex } from '@chaind/sdk/store';
import { blockRequest, DENOM, sendMsg } from '@chaind/sdk/testing';
import { encodeTx } from '@chaind/sdk/tx';
import { upgradeInfoPath } from '@chaind/upgrade-plan';
import { chaindNodeFlags, cleanup, header, median, ms, row, runWithChaindNodeFlags, si, tempDir, timeMs } from './lib.ts';

// the node's code, timed in this process (the baseline) and in the child: under the Node flags chaind runs with
runWithChaindNodeFlags();

const SENDERS = 2000;
const BLOCK_TXS = 200;
const WARMUP_BLOCKS = 4;
const BLOCKS = 40;
const CHECK_TXS = 5000;
/** CheckTx rounds after a warm-up round; an empty block between rounds resets the check state. */
const CHECK_ROUNDS = 3;
const FEE = [{ denom: DENOM, amount: '200' }];
const GAS = 200_000n;
const CHILD_APP = fileURLToPath(new URL('./support/abci-app.ts', import.meta.url));

header(
  `ABCI throughput: ${BLOCKS} blocks of ${BLOCK_TXS} signed MsgSend through FinalizeBlock + Commit, and ${si(CHECK_TXS)} CheckTx, over the ABCI socket vs in process`,
  'FinalizeBlock + Commit over the socket ≥ 0.9x the in-process calls (txs/s); CheckTx over the mempool connection ≥ 0.8x in process',
);
console.log("   server: chaind's AbciDriver in a child process (two processes, as beside CometBFT: the headline) and in this process (the protocol alone);");
console.log(
  "   and in a child process again with a stand-in that only frames the consensus answers (checked byte for byte against the baseline's): the app side alone;",
);
console.log("   client: @chaind/abci's AbciClient in this process standing in for CometBFT: FinalizeBlock and Commit each followed by a Flush;");
console.log(
  `   CheckTx: the ${si(CHECK_TXS)} requests sent without waiting, then one Flush. ${SENDERS} senders funded at genesis, every tx signed before timing;`,
);
console.log(
  `   ${WARMUP_BLOCKS} warm-up blocks and a warm-up CheckTx round not counted; loopback TCP; Node flags: ${chaindNodeFlags().join(' ') || "Node's defaults"}`,
);

/** A process whose main thread works on an app's requests. */
interface Proc {
  readonly name: string;
  readonly pid: number;
}

type BlockAnswer = { readonly ms: number; readonly res: ResponseFinalizeBlock } | { readonly ms: number; readonly body: Uint8Array };

/** One app as the bench drives it. */
interface Target {
  readonly label: string;
  readonly procs: readonly Proc[];
  initChain(req: RequestInitChain): Promise<Uint8Array>;
  /**
   * FinalizeBlock + Commit of one block: the time taken, and FinalizeBlock's answer decoded (`res`) or, from
   * the framing stand-in, its Response bytes as they came (`body`), checked against the baseline's answer.
   */
  block(req: RequestFinalizeBlock): Promise<BlockAnswer>;
  /** CheckTx of every request, in order: the time taken, the first refusal's log ('' if none). */
  checkTxs(reqs: readonly RequestCheckTx[]): Promise<{ ms: number; refused: string }>;
  close(): Promise<void>;
}

const THIS: Proc = { name: 'this process', pid: process.pid };

/** The baseline: the app built as AbciTestApp builds it, called in this process. */
function inProcess(home: string): Target & { readonly app: ReturnType<typeof createChainApp>['app'] } {
  const chain = createChainApp({
    dbPath: join(home, 'data', 'application.db'),
    upgradeInfoPath: upgradeInfoPath(home),
    chainId: CHAIN_ID,
    logger: new MemoryLogger(),
    upgrades: [],
  });
  const app = chain.app;
  return {
    label: 'in process (baseline)',
    procs: [THIS],
    app,
    initChain: (req) => Promise.resolve(app.initChain(req).appHash),
    block(req) {
      const t = performance.now();
      const res = app.finalizeBlock(req);
      app.commit();
      return Promise.resolve({ ms: performance.now() - t, res });
    },
    checkTxs(reqs) {
      let refused = '';
      const t = performance.now();
      for (const req of reqs) {
        const res = app.checkTx(req);
        if (res.code !== 0 && refused === '') refused = res.log;
      }
      return Promise.resolve({ ms: performance.now() - t, refused });
    },
    close: () => chain.close(),
  };
}

/** The requests sent without waiting, then one Flush. */
async function overMempool(mempool: AbciClient, reqs: readonly RequestCheckTx[]): Promise<{ ms: number; refused: string }> {
  const t = performance.now();
  const answers = reqs.map((checkTx) => mempool.send({ checkTx }));
  await mempool.flush();
  const took = performance.now() - t;
  const refusal = (await Promise.all(answers)).find((r) => r.checkTx?.code !== 0);
  return { ms: took, refused: refusal === undefined ? '' : (refusal.checkTx?.log ?? 'not a CheckTx answer') };
}

/** An app behind its ABCI server at `address`, through the four connections CometBFT opens. */
async function overSocket(label: string, procs: readonly Proc[], address: string, stop: () => Promise<void>): Promise<Target> {
  const conns = await AppConnections.open(address);
  await conns.info();
  return {
    label,
    procs,
    initChain: async (req) => (await one(conns.consensus, { initChain: req }, 'initChain')).appHash,
    async block(req) {
      const t = performance.now();
      const res = await one(conns.consensus, { finalizeBlock: req }, 'finalizeBlock');
      await one(conns.consensus, { commit: {} }, 'commit');
      return { ms: performance.now() - t, res };
    },
    checkTxs: (reqs) => overMempool(conns.mempool, reqs),
    async close() {
      await conns.close();
      await stop();
    },
  };
}

interface Child {
  readonly address: string;
  readonly proc: Proc;
  stop(): Promise<void>;
}

/** support/abci-app.ts in a child process, under chaind's Node flags; resolves once it listens. */
async function spawnChild(home: string): Promise<Child> {
  const child = spawn(process.execPath, [...chaindNodeFlags(), '--import', 'tsx', CHILD_APP, home], { stdio: ['ignore', 'pipe', 'inherit'] });
  const address = await new Promise<string>((resolve, reject) => {
    let out = '';
    child.stdout.on('data', (d: Buffer) => {
      out += d.toString();
      const m = /^(\{.*\})$/m.exec(out);
      if (m !== null) resolve((JSON.parse(m[1]) as { address: string }).address);
    });
    child.once('exit', (code) => reject(new Error(`the ABCI app exited (${code}) before listening:\n${out}`)));
  });
  const stop = async (): Promise<void> => {
    if (child.exitCode !== null) return;
    const exited = new Promise((resolve) => child.once('exit', resolve));
    child.kill('SIGTERM');
    await exited;
  };
  return { address, proc: { name: 'server', pid: child.pid as number }, stop };
}

async function childApp(home: string): Promise<Target> {
  const c = await spawnChild(home);
  return overSocket('socket, server in a child process', [c.proc, { name: 'client', pid: process.pid }], c.address, c.stop);
}

/**
 * A consensus connection that only frames: requests are encoded before the clock starts, and the answers
 * are timed as they arrive and never decoded: FinalizeBlock's is checked byte for byte against the
 * baseline's answer encoded. CometBFT decodes its answers in Go; this stand-in's cosmjs-types decoding
 * (shown apart below), and the garbage it leaves for the collector on a 2-core machine, are not the app's cost.
 */
class FramingConsensus {
  readonly #decoder = new FrameDecoder(DEFAULT_MAX_MESSAGE_BYTES);
  #frames: Uint8Array[] = [];
  #want = 0;
  #done: ((frames: Uint8Array[]) => void) | undefined;

  private constructor(private readonly socket: Socket) {
    socket.setNoDelay(true);
    socket.on('data', (chunk: Buffer) => {
      this.#decoder.push(chunk, this.#frames);
      if (this.#done !== undefined && this.#frames.length >= this.#want) {
        const done = this.#done;
        this.#done = undefined;
        done(this.#frames.splice(0));
      }
    });
  }

  static async open(address: string): Promise<FramingConsensus> {
    const a = parseAbciAddress(address);
    if (a.kind !== 'tcp') throw new Error('tcp only');
    const socket = createConnection({ host: a.host, port: a.port });
    await new Promise<void>((resolve, reject) => socket.once('connect', resolve).once('error', reject));
    return new FramingConsensus(socket);
  }

  /** Writes `frames` (each request followed by a Flush) and resolves with the answers' frames, the Flushes' included. */
  roundTrip(frames: Uint8Array): Promise<Uint8Array[]> {
    const p = new Promise<Uint8Array[]>((resolve) => {
      this.#done = resolve;
    });
    this.#want = 2;
    this.socket.write(frames);
    return p;
  }

  close(): void {
    this.socket.destroy();
  }
}

const FLUSH = encodeRequestFrame({ flush: {} });
const withFlush = (req: Request): Uint8Array => Buffer.concat([encodeRequestFrame(req), FLUSH]);
const COMMIT = withFlush({ commit: {} });

/** The child-process server again, with the framing-only consensus connection. */
async function childAppFraming(home: string): Promise<Target> {
  const c = await spawnChild(home);
  // CometBFT's order: query, snapshot, mempool, consensus
  const query = await AbciClient.connect(c.address);
  const snapshot = await AbciClient.connect(c.address);
  const mempool = await AbciClient.connect(c.address);
  const consensus = await FramingConsensus.open(c.address);
  const answer = (frames: Uint8Array[]): Response => Response.decode(frames[0]);
  return {
    label: 'socket, child process; stand-in frames only',
    procs: [c.proc, { name: 'client', pid: process.pid }],
    async initChain(req) {
      const r = answer(await consensus.roundTrip(withFlush({ initChain: req }))).initChain;
      if (r === undefined) throw new Error('not an InitChain answer');
      return r.appHash;
    },
    async block(req) {
      const frames = withFlush({ finalizeBlock: req });
      const t0 = performance.now();
      const fin = await consensus.roundTrip(frames);
      await consensus.roundTrip(COMMIT);
      const took = performance.now() - t0;
      return { ms: took, body: fin[0] };
    },
    checkTxs: (reqs) => overMempool(mempool, reqs),
    async close() {
      consensus.close();
      await Promise.all([query.close(), snapshot.close(), mempool.close()]);
      await c.stop();
    },
  };
}

async function thisProcessApp(home: string): Promise<Target> {
  const t = await AbciTestApp.start({ home });
  return overSocket('socket, server in this process', [{ name: 'server+client', pid: process.pid }], t.address, () => t.stop());
}

/** Milliseconds the main thread of `pid` has run, and waited runnable for a core (Linux's schedstat; zeros elsewhere). */
function schedstat(pid: number): readonly [number, number] {
  try {
    const [run, wait] = readFileSync(`/proc/${pid}/task/${pid}/schedstat`, 'utf8').split(' ').map(Number);
    return [run / 1e6, wait / 1e6];
  } catch {
    return [0, 0];
  }
}

type Sched = readonly (readonly [number, number])[];

/** `fn` run for target `t`, and each of its processes' main thread's [ms run, ms waited] meanwhile. */
async function observed<R>(t: Target, fn: () => Promise<R>): Promise<{ r: R; sched: Sched }> {
  const before = t.procs.map((p) => schedstat(p.pid));
  const r = await fn();
  const after = t.procs.map((p) => schedstat(p.pid));
  return { r, sched: after.map((a, j) => [a[0] - before[j][0], a[1] - before[j][1]] as const) };
}

const keys = Array.from({ length: SENDERS }, (_, i) => {
  const privateKey = createHash('sha256').update(`abci-throughput/${i}`).digest();
  return { privateKey, address: addressFromPublicKey(publicKeyFromPrivate(privateKey)) };
});

const base = inProcess(tempDir('abci-direct'));
const targets: readonly Target[] = [
  base,
  await childApp(tempDir('abci-child')),
  await thisProcessApp(tempDir('abci-local')),
  await childAppFraming(tempDir('abci-framing')),
];

const firstFailure = (results: readonly ExecTxResult[]): string => results.find((r) => r.code !== 0)?.log ?? '';

interface BlockRun {
  readonly req: RequestFinalizeBlock;
  /** The baseline's answer. */
  readonly res: ResponseFinalizeBlock;
  /** Per target: ms taken, and its processes' main-thread [ms run, ms waited for a core]. */
  readonly ms: readonly number[];
  readonly sched: readonly Sched[];
}

/** A frame's message bytes (its length prefix dropped). */
const body = (frame: Uint8Array): Uint8Array => new FrameDecoder(frame.length).push(frame)[0];

let height = 0n;
/** Runs the next block on every app, the order rotated by height; every tx must succeed and the app hashes agree. */
async function block(txs: Uint8Array[]): Promise<BlockRun> {
  height++;
  const req = blockRequest(height, GENESIS_SECONDS + height, txs);
  const took: number[] = [];
  const sched: Sched[] = [];
  const answers: BlockAnswer[] = [];
  for (let k = 0; k < targets.length; k++) {
    const i = (k + Number(height)) % targets.length;
    const { r, sched: s } = await observed(targets[i], () => targets[i].block(req));
    took[i] = r.ms;
    sched[i] = s;
    answers[i] = r;
  }
  const first = answers[0];
  if (!('res' in first)) throw new Error('the baseline answers decoded');
  const failed = firstFailure(first.res.txResults);
  if (failed !== '') throw new Error(`a tx failed in block ${height}: ${failed}`);
  const expected = body(encodeResponseFrame({ finalizeBlock: first.res }));
  answers.forEach((a, i) => {
    const same = 'res' in a ? toHex(a.res.appHash) === toHex(first.res.appHash) && firstFailure(a.res.txResults) === '' : Buffer.from(a.body).equals(expected);
    if (!same) throw new Error(`${targets[i].label} answered block ${height} unlike the baseline (app hash, a failed tx, or its bytes)`);
  });
  return { req, res: first.res, ms: took, sched };
}

// genesis, then an empty block so that it is committed state (account numbers are read from it)
const initChain = toRequestInitChain(testGenesis(keys.map((k) => k.address)));
const initHashes = await Promise.all(targets.map((t) => t.initChain(initChain)));
if (new Set(initHashes.map(toHex)).size !== 1) throw new Error('the apps disagree on the InitChain app hash');
await block([]);
const accountNumbers = keys.map((k) => committedAccount(base.app, k.address).accountNumber);

/** Tx `n` of the run: senders take turns, each at its next sequence, sending 1 to another sender. */
function sign(n: number): Uint8Array {
  const i = n % SENDERS;
  const to = keys[(i + SENDERS / 2) % SENDERS].address;
  const signer = { privateKey: keys[i].privateKey, accountNumber: accountNumbers[i], sequence: BigInt(Math.floor(n / SENDERS)) };
  return encodeTx({ msgs: [sendMsg(keys[i].address, to, '1')], fee: { amount: FEE, gasLimit: GAS } }, [signer], CHAIN_ID);
}

const blockTxs = Array.from({ length: WARMUP_BLOCKS + BLOCKS }, (_, b) => Array.from({ length: BLOCK_TXS }, (_, j) => sign(b * BLOCK_TXS + j)));
const afterBlocks = (WARMUP_BLOCKS + BLOCKS) * BLOCK_TXS;
// CheckTx on the state after the blocks: each sender's txs follow its committed sequence
const checkReqs: RequestCheckTx[] = Array.from({ length: CHECK_TXS }, (_, n) => ({ tx: sign(afterBlocks + n), type: CheckTxType.NEW }));

for (const txs of blockTxs.slice(0, WARMUP_BLOCKS)) await block(txs);
const runs: BlockRun[] = [];
for (const txs of blockTxs.slice(WARMUP_BLOCKS)) runs.push(await block(txs));
const last = runs[runs.length - 1];

const checkRounds: number[][] = targets.map(() => []);
const checkSched: Sched[][] = targets.map(() => []);
for (let round = 0; round <= CHECK_ROUNDS; round++) {
  if (round > 0) await block([]);
  for (let k = 0; k < targets.length; k++) {
    const i = (k + round) % targets.length;
    const { r, sched } = await observed(targets[i], () => targets[i].checkTxs(checkReqs));
    if (r.refused !== '') throw new Error(`${targets[i].label}: CheckTx refused a tx in round ${round}: ${r.refused}`);
    if (round > 0) {
      checkRounds[i].push(r.ms);
      checkSched[i].push(sched);
    }
  }
}

/** Median ms of `fn` alone over 20 runs, after 10 not counted. */
function alone(fn: () => void): number {
  for (let i = 0; i < 10; i++) fn();
  return median(Array.from({ length: 20 }, () => timeMs(fn)));
}
const reqFrame = encodeRequestFrame({ finalizeBlock: last.req });
const resFrame = encodeResponseFrame({ finalizeBlock: last.res });
const reqBody = body(reqFrame);
const resBody = body(resFrame);
const coded = {
  reqEncode: alone(() => encodeRequestFrame({ finalizeBlock: last.req })),
  reqDecode: alone(() => Request.decode(reqBody)),
  resEncode: alone(() => encodeResponseFrame({ finalizeBlock: last.res })),
  resDecode: alone(() => Response.decode(resBody)),
};

const nBlockTxs = BLOCKS * BLOCK_TXS;
const blockTotal = targets.map((_, i) => runs.reduce((a, r) => a + r.ms[i], 0));
const checkMedian = checkRounds.map(median);
const rate = (n: number, t: number): string => `${si((n / t) * 1000)} txs/s`;
const ratio = (baseline: number, t: number): string => `${(baseline / t).toFixed(2)}x`;
const kB = (n: number): string => `${(n / 1000).toFixed(1)} kB`;

/** Per target and process: main-thread ms run and waited, the mean over the pieces measured (blocks, rounds). */
function schedRows(sched: readonly (readonly Sched[])[]): void {
  targets.forEach((t, i) =>
    t.procs.forEach((p, j) => {
      const mean = (k: 0 | 1): string => ms(sched[i].reduce((a, s) => a + s[j][k], 0) / sched[i].length);
      row(j === 0 ? `  ${t.label}` : '', p.name, `run ${mean(0)}`, `wait ${mean(1)}`);
    }),
  );
}

console.log(`   FinalizeBlock + Commit, ${si(nBlockTxs)} txs in ${BLOCKS} blocks (total, txs/s, median block):`);
targets.forEach((t, i) => row(`  ${t.label}`, ms(blockTotal[i]), rate(nBlockTxs, blockTotal[i]), ms(median(runs.map((r) => r.ms[i])))));
row('HEADLINE ratio, child process ÷ in process', ratio(blockTotal[0], blockTotal[1]));
row('ratio, server in this process ÷ in process', ratio(blockTotal[0], blockTotal[2]));
row('ratio, child process, stand-in frames only ÷ in process', ratio(blockTotal[0], blockTotal[3]));
console.log(`   app hash after block ${last.req.height}, equal on the four apps: ${toHex(last.res.appHash)}`);
console.log("   per block (mean), main threads (Linux schedstat): time on a core, time waiting for one (the host's other load)");
schedRows(targets.map((_, i) => runs.map((r) => r.sched[i])));
const txEvents = last.res.txResults[0].events;
console.log(
  `   block ${last.req.height}'s messages encoded and decoded alone (median of 20): the request by the client and then the server, the response the other way;`,
);
console.log(`   a tx's result carries ${txEvents.length} events, ${txEvents.reduce((a, e) => a + e.attributes.length, 0)} attributes`);
row(`  RequestFinalizeBlock (${kB(reqFrame.length)})`, `encode ${ms(coded.reqEncode)}`, `decode ${ms(coded.reqDecode)}`);
row(`  ResponseFinalizeBlock (${kB(resFrame.length)})`, `encode ${ms(coded.resEncode)}`, `decode ${ms(coded.resDecode)}`);

console.log(`   CheckTx NEW of ${si(CHECK_TXS)} txs on the state after the blocks (median of ${CHECK_ROUNDS} rounds, txs/s):`);
targets.forEach((t, i) => row(`  ${t.label}`, ms(checkMedian[i]), rate(CHECK_TXS, checkMedian[i])));
row('HEADLINE ratio, child process ÷ in process', ratio(checkMedian[0], checkMedian[1]));
row('ratio, server in this process ÷ in process', ratio(checkMedian[0], checkMedian[2]));
console.log('   per round (mean), main threads (Linux schedstat): time on a core, time waiting for one');
schedRows(checkSched);

for (const t of targets) await t.close();
cleanup();

// One load client, a child process of `npm run load` (and of bench/comet-validator.ts): its lanes (one funded
// account each) sign their bank sends before the timed window, then each lane broadcasts them one at a time
// (the next only once CheckTx answered, so sequences arrive in order), half the lanes over JSON-RPC
// broadcast_tx_sync and half over REST POST /cosmos/tx/v1beta1/txs (SYNC), or all over JSON-RPC (rpcOnly);
// as fast as answers come, or at an offered rate (a lane's tx waits for its slot). Writes what it sent to
// the result file and exits.
import { Buffer } from 'node:buffer';
import { readFileSync, writeFileSync } from 'node:fs';
import { Agent, request } from 'node:http';
import { signSend } from './sign.ts';
import { MEMPOOL_FULL, nowMs, type ClientResult, type ClientSpec, type Lane, type Sent } from './protocol.ts';

const spec = JSON.parse(readFileSync(process.argv[2] ?? '', 'utf8')) as ClientSpec;

interface Prepared {
  readonly body: string;
  readonly hash: string;
  readonly path: string;
}

/** The lane's txs, sequence 0 upwards, as the request bodies of its transport. */
function prepare(lane: Lane, count: number, rpc: boolean): Prepared[] {
  const out: Prepared[] = [];
  for (let s = 0; s < count; s++) {
    const { tx, hash } = signSend(lane, s, spec.chainId, spec.denom);
    const b64 = tx.toString('base64');
    out.push(
      rpc
        ? { path: '/', hash, body: JSON.stringify({ jsonrpc: '2.0', id: s, method: 'broadcast_tx_sync', params: { tx: b64 } }) }
        : { path: '/cosmos/tx/v1beta1/txs', hash, body: JSON.stringify({ tx_bytes: b64, mode: 'BROADCAST_MODE_SYNC' }) },
    );
  }
  return out;
}

const rpcUrl = new URL(spec.rpc);
const restUrl = new URL(spec.rest);
const agent = new Agent({ keepAlive: true, maxSockets: spec.lanes.length });

function post(url: URL, path: string, body: string): Promise<{ status: number; text: string }> {
  return new Promise((resolve, reject) => {
    const req = request(
      {
        host: url.hostname,
        port: url.port,
        path,
        method: 'POST',
        agent,
        headers: { 'content-type': 'application/json', 'content-length': Buffer.byteLength(body) },
      },
      (res) => {
        const chunks: Buffer[] = [];
        res.on('data', (c: Buffer) => chunks.push(c));
        res.on('end', () => resolve({ status: res.statusCode ?? 0, text: Buffer.concat(chunks).toString('utf8') }));
        res.on('error', reject);
      },
    );
    req.on('error', reject);
    req.end(body);
  });
}

/** CheckTx's code for one broadcast (the mempool's refusals included), or a transport error's text. */
async function broadcast(rpc: boolean, p: Prepared): Promise<{ code: number; log: string }> {
  const r = await post(rpc ? rpcUrl : restUrl, p.path, p.body);
  if (rpc) {
    const j = JSON.parse(r.text) as { result?: { code: number; log: string }; error?: { data?: string; message: string } };
    if (j.result !== undefined) return { code: j.result.code, log: j.result.log };
    const text = j.error?.data ?? j.error?.message ?? r.text;
    // JSON-RPC reports the mempool's own refusals as errors with CometBFT's texts
    return { code: /mempool is full/i.test(text) ? MEMPOOL_FULL : -1, log: text };
  }
  if (r.status !== 200) return { code: -1, log: `HTTP ${r.status}: ${r.text.slice(0, 200)}` };
  const j = JSON.parse(r.text) as { tx_response: { code: number; raw_log: string } };
  return { code: j.tx_response.code, log: j.tx_response.raw_log };
}

const perLane = spec.txsPerLane;
const t0 = nowMs();
const overRpc = (lane: number): boolean => spec.rpcOnly === true || lane % 2 === 0;
const prepared = spec.lanes.map((l, i) => prepare(l, perLane, overRpc(i)));
const signMs = nowMs() - t0;
process.send?.({ ready: true, signMs });

const sent: Sent[] = [];
const refusals: Record<string, number> = {};
const samples: Record<string, string> = {};
let retries = 0;
let exhausted = 0;
const refuse = (code: number, log: string): void => {
  refusals[code] = (refusals[code] ?? 0) + 1;
  samples[code] ??= log.slice(0, 300);
};

/** When a lane's tx `s` is due at the offered rate: the lanes take turns, slot s·lanes + lane. */
function slot(start: number, lane: number, s: number): number | undefined {
  const rate = spec.offeredTxPerSec;
  return rate === undefined ? undefined : start + ((s * spec.lanes.length + lane) * 1000) / rate;
}

async function runLane(i: number, start: number, until: number): Promise<void> {
  const rpc = overRpc(i);
  const txs = prepared[i];
  let s = 0;
  while (s < txs.length && nowMs() < until) {
    const due = slot(start, i, s);
    if (due !== undefined && due > nowMs()) await new Promise((res) => setTimeout(res, due - nowMs()));
    if (nowMs() >= until) break;
    const p = txs[s];
    const submit = nowMs();
    let r: { code: number; log: string };
    try {
      r = await broadcast(rpc, p);
    } catch (e) {
      r = { code: -1, log: String(e) };
    }
    const ack = nowMs();
    if (r.code === 0) {
      sent.push({ hash: p.hash, due: Math.min(due ?? submit, submit), submit, ack, rpc });
      s++;
    } else if (r.code === MEMPOOL_FULL) {
      // the same tx again after a pause: a full mempool asks the client to retry later
      refuse(r.code, r.log);
      retries++;
      await new Promise((res) => setTimeout(res, spec.retryMs));
    } else {
      refuse(r.code, r.log);
      // the lane's later sequences cannot pass after a refused tx
      return;
    }
  }
  if (s === txs.length) exhausted++;
}

process.once('message', (m: { start: number; until: number }) => {
  void (async () => {
    const wait = m.start - nowMs();
    if (wait > 0) await new Promise((res) => setTimeout(res, wait));
    await Promise.all(spec.lanes.map((_, i) => runLane(i, m.start, m.until)));
    agent.destroy();
    const result: ClientResult = { sent, refusals, refusalSamples: samples, retries, exhaustedLanes: exhausted, signMs, signed: perLane * spec.lanes.length };
    writeFileSync(spec.out, JSON.stringify(result));
    process.exit(0);
  })();
});

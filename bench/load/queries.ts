// The query client of `npm run load -- --mode query`, a child process: a fixed number of queries in flight,
// taking turns between REST (bank balances), gRPC (bank Balance) and JSON-RPC abci_query (bank Balance),
// on the accounts the send clients are using, until told to stop. Any answer that is not a success counts
// as an error, with a sample of its text.
import { Buffer } from 'node:buffer';
import { readFileSync, writeFileSync } from 'node:fs';
import { Agent, get, request } from 'node:http';
import { credentials, Client, type ServiceError } from '@grpc/grpc-js';
import { QueryBalanceRequest } from 'cosmjs-types/cosmos/bank/v1beta1/query';
import { nowMs, type QueryResult, type QuerySpec } from './protocol.ts';

const spec = JSON.parse(readFileSync(process.argv[2] ?? '', 'utf8')) as QuerySpec;
const BALANCE = '/cosmos.bank.v1beta1.Query/Balance';
const agent = new Agent({ keepAlive: true, maxSockets: spec.inFlight });
const grpc = new Client(spec.grpc, credentials.createInsecure());
const rest = new URL(spec.rest);
const rpc = new URL(spec.rpc);
const identity = (b: Buffer): Buffer => b;

type Kind = 'rest' | 'grpc' | 'abci_query';
const KINDS: readonly Kind[] = ['rest', 'grpc', 'abci_query'];
const latencies: Record<Kind, number[]> = { rest: [], grpc: [], abci_query: [] };
const errors: Record<Kind, number> = { rest: 0, grpc: 0, abci_query: 0 };
const samples: string[] = [];

function body(res: import('node:http').IncomingMessage): Promise<string> {
  return new Promise((resolve, reject) => {
    const chunks: Buffer[] = [];
    res.on('data', (c: Buffer) => chunks.push(c));
    res.on('end', () => resolve(Buffer.concat(chunks).toString('utf8')));
    res.on('error', reject);
  });
}

/** One query of `kind` on `address`: undefined on success, else what went wrong. */
function query(kind: Kind, address: string): Promise<string | undefined> {
  const req = Buffer.from(QueryBalanceRequest.encode({ address, denom: spec.denom }).finish());
  if (kind === 'grpc') {
    return new Promise((resolve) => {
      grpc.makeUnaryRequest(BALANCE, identity, identity, req, (e: ServiceError | null, v?: Buffer) => {
        resolve(e !== null ? `grpc: ${e.code} ${e.details}` : v === undefined || v.length === 0 ? 'grpc: empty answer' : undefined);
      });
    });
  }
  if (kind === 'rest') {
    return new Promise((resolve) => {
      get({ host: rest.hostname, port: rest.port, path: `/cosmos/bank/v1beta1/balances/${address}/by_denom?denom=${spec.denom}`, agent }, (res) => {
        void body(res).then(
          (t) => resolve(res.statusCode === 200 && t.includes('"balance"') ? undefined : `rest: HTTP ${res.statusCode} ${t.slice(0, 200)}`),
          (e: unknown) => resolve(`rest: ${String(e)}`),
        );
      }).on('error', (e) => resolve(`rest: ${String(e)}`));
    });
  }
  const payload = JSON.stringify({ jsonrpc: '2.0', id: 1, method: 'abci_query', params: { path: BALANCE, data: req.toString('hex') } });
  return new Promise((resolve) => {
    const r = request(
      {
        host: rpc.hostname,
        port: rpc.port,
        path: '/',
        method: 'POST',
        agent,
        headers: { 'content-type': 'application/json', 'content-length': Buffer.byteLength(payload) },
      },
      (res) => {
        void body(res).then(
          (t) => {
            const j = JSON.parse(t) as { result?: { response: { code: number; log: string } }; error?: unknown };
            resolve(j.result !== undefined && j.result.response.code === 0 ? undefined : `abci_query: ${t.slice(0, 200)}`);
          },
          (e: unknown) => resolve(`abci_query: ${String(e)}`),
        );
      },
    );
    r.on('error', (e) => resolve(`abci_query: ${String(e)}`));
    r.end(payload);
  });
}

let stopping = false;
let turn = 0;
async function loop(): Promise<void> {
  while (!stopping) {
    const n = turn++;
    const kind = KINDS[n % KINDS.length];
    const t = nowMs();
    const err = await query(kind, spec.addresses[n % spec.addresses.length]);
    if (err === undefined) latencies[kind].push(nowMs() - t);
    else {
      errors[kind]++;
      if (samples.length < 10) samples.push(err);
    }
  }
}

const pct = (xs: number[], p: number): number => {
  const s = [...xs].sort((a, b) => a - b);
  return s.length === 0 ? NaN : s[Math.min(s.length - 1, Math.floor(s.length * p))];
};

let loops: Promise<void>[] = [];
process.send?.({ ready: true });
process.on('message', (m: { readonly cmd: 'go' | 'stop' }) => {
  if (m.cmd === 'go') {
    loops = Array.from({ length: spec.inFlight }, loop);
    return;
  }
  stopping = true;
  void Promise.all(loops).then(() => {
    grpc.close();
    agent.destroy();
    const byKind: Record<string, QueryResult['byKind'][string]> = {};
    for (const k of KINDS) byKind[k] = { ok: latencies[k].length, errors: errors[k], p50Ms: pct(latencies[k], 0.5), p99Ms: pct(latencies[k], 0.99) };
    const result: QueryResult = { byKind, errorSamples: samples };
    writeFileSync(spec.out, JSON.stringify(result));
    process.exit(0);
  });
});

// Issue 5's query benchmarks, against a real `chaind dev` node process with an upgrade plan scheduled
// through governance (as operators and clients meet it):
//   - REST GET /chain/upgrade/v1beta1/current_plan vs a bare Fastify route answering the same JSON
//     body, requests/s and p99 (autocannon in its own process; goal ratio ≥ 0.8);
//   - gRPC CurrentPlan vs a bare grpc-js handler answering the same bytes (a grpc-js client with a
//     fixed number of calls in flight, in this process; goal ≥ 0.8);
//   - JSON-RPC abci_query of CurrentPlan (POST and the GET URI form), beside the same bare route;
//   - cold start to the first committed block: `chaind start` on a home that has state, and on a home
//     whose data/ is empty (InitChain + first block), from the sources through tsx, and from the packaged
//     release (esbuild bundle) on the home with state (goal < 1 s).
// The node and the baselines run in separate processes, alternately loaded; medians of the rounds.
import { spawnSync } from 'node:child_process';
import { existsSync, mkdirSync, readdirSync, rmSync } from 'node:fs';
import { createRequire } from 'node:module';
import { join } from 'node:path';
import { fileURLToPath } from 'node:url';
import { credentials, Client, type ServiceError } from '@grpc/grpc-js';
import { header, median, ms, row, si, spawnUntil, stop, tempDir } from './lib.ts';

const ROOT = fileURLToPath(new URL('..', import.meta.url));
const CHAIND = join(ROOT, 'packages/chaind/bin/chaind.js');
const AUTOCANNON = join(createRequire(import.meta.url).resolve('autocannon/package.json'), '..', 'autocannon.js');
const SECONDS = Number(process.env.BENCH_SECONDS ?? 6);
const ROUNDS = Number(process.env.BENCH_ROUNDS ?? 2);
const CONNECTIONS = 32;
const CURRENT_PLAN = '/chain.upgrade.v1beta1.Query/CurrentPlan';

function run(args: string[]): string {
  const r = spawnSync(process.execPath, [CHAIND, ...args], { encoding: 'utf8' });
  if (r.status !== 0) throw new Error(`chaind ${args.join(' ')} failed (${r.status}):\n${r.stderr}`);
  return r.stdout;
}

interface Load {
  readonly rps: number;
  readonly p99: number;
  readonly errors: number;
}

/** autocannon in its own process (so the load generator does not share this event loop). */
function autocannon(url: string, post?: string): Load {
  const args = [AUTOCANNON, '-j', '-c', String(CONNECTIONS), '-d', String(SECONDS)];
  if (post !== undefined) args.push('-m', 'POST', '-H', 'content-type=application/json', '-b', post);
  const r = spawnSync(process.execPath, [...args, url], { encoding: 'utf8', maxBuffer: 64 << 20 });
  if (r.status !== 0) throw new Error(`autocannon failed: ${r.stderr}`);
  const j = JSON.parse(r.stdout) as { requests: { average: number }; latency: { p99: number }; errors: number; non2xx: number };
  return { rps: j.requests.average, p99: j.latency.p99, errors: j.errors + j.non2xx };
}

/** A fixed number of unary calls in flight for SECONDS; requests/s and p99 in ms. */
async function grpcLoad(address: string): Promise<Load> {
  const client = new Client(address, credentials.createInsecure());
  const identity = (b: Buffer): Buffer => b;
  const empty = Buffer.alloc(0);
  const lat: number[] = [];
  let errors = 0;
  const end = performance.now() + SECONDS * 1000;
  const call = (): Promise<void> =>
    new Promise((res) => {
      const t = performance.now();
      client.makeUnaryRequest(CURRENT_PLAN, identity, identity, empty, (e: ServiceError | null) => {
        if (e) errors++;
        else lat.push(performance.now() - t);
        res();
      });
    });
  const loop = async (): Promise<void> => {
    while (performance.now() < end) await call();
  };
  const t0 = performance.now();
  await Promise.all(Array.from({ length: CONNECTIONS }, loop));
  const secs = (performance.now() - t0) / 1000;
  client.close();
  lat.sort((a, b) => a - b);
  return { rps: lat.length / secs, p99: lat[Math.floor(lat.length * 0.99)] ?? NaN, errors };
}

/** Rounds of (baseline, ours), alternating; medians. */
async function compare(label: string, bare: () => Promise<Load> | Load, ours: () => Promise<Load> | Load): Promise<void> {
  const b: Load[] = [];
  const o: Load[] = [];
  for (let i = 0; i < ROUNDS; i++) {
    b.push(await bare());
    o.push(await ours());
  }
  const bRps = median(b.map((x) => x.rps));
  const oRps = median(o.map((x) => x.rps));
  const errors = [...b, ...o].reduce((n, x) => n + x.errors, 0);
  row(`${label}: bare`, `${si(bRps)} req/s`, `p99 ${ms(median(b.map((x) => x.p99)))}`);
  row(`${label}: chaind`, `${si(oRps)} req/s`, `p99 ${ms(median(o.map((x) => x.p99)))}`);
  row(`${label}: ratio`, `${(oRps / bRps).toFixed(2)}x`, errors ? `${errors} ERRORS` : '0 errors');
}

header('chaind query serving (REST, gRPC, JSON-RPC) and cold start', 'REST and gRPC CurrentPlan ≥ 0.8x a bare route/handler; cold start to first block < 1 s');

const dir = tempDir('node-query');
const home = join(dir, 'home');
const addr = ['--rpc.laddr', 'tcp://127.0.0.1:0', '--api.address', 'tcp://127.0.0.1:0', '--grpc.address', '127.0.0.1:0'];
const boot = await spawnUntil(process.execPath, [CHAIND, 'dev', '--home', home, ...addr], 'stdout', /json-rpc\s+(\S+)\n\s+rest\s+(\S+)\n\s+grpc\s+(\S+)\n/);
let node = boot.child;
const [, rpc, rest, grpcAddr] = boot.m;

// a plan through governance: alice proposes, the validator votes, the dev chain's 20 s voting period ends
const common = [
  '--home',
  home,
  '--keyring-backend',
  'test',
  '--node',
  rpc,
  '-y',
  '--gas',
  'auto',
  '--gas-adjustment',
  '1.5',
  '--fees',
  '10000stake',
  '--broadcast-mode',
  'commit',
];
run([
  'tx',
  'upgrade',
  'software-upgrade',
  'bench-upgrade',
  '--title',
  'bench',
  '--summary',
  'bench',
  '--deposit',
  '10000000stake',
  '--upgrade-height',
  '1000000',
  '--upgrade-info',
  '{"binaries":{"linux/amd64":"https://example.com/chaind.tar.gz?checksum=sha256:' + 'ab'.repeat(32) + '"}}',
  '--no-validate',
  '--from',
  'alice',
  ...common,
]);
run(['tx', 'gov', 'vote', '1', 'yes', '--from', 'validator', ...common]);
const restPlan = `${rest}/chain/upgrade/v1beta1/current_plan`;
let body = '';
for (let i = 0; i < 60; i++) {
  body = await (await fetch(restPlan)).text();
  if (!body.includes('"plan":null')) break;
  await new Promise((r) => setTimeout(r, 1000));
}
if (body.includes('"plan":null')) throw new Error('the plan did not pass within 60 s');
const abciGet = `${rpc}/abci_query?path=%22${encodeURIComponent(CURRENT_PLAN)}%22`;
const grpcHex = (JSON.parse(await (await fetch(abciGet)).text()) as { result: { response: { value: string } } }).result.response.value;
console.log(`   node: chaind dev with plan "bench-upgrade" scheduled; ${CONNECTIONS} connections / calls in flight, ${SECONDS} s x ${ROUNDS} rounds each`);

const bare = await spawnUntil(
  process.execPath,
  ['--import', 'tsx', join(ROOT, 'bench/support/bare-servers.ts'), body, Buffer.from(grpcHex, 'base64').toString('hex')],
  'stdout',
  /(\{.*\})\n/,
);
const baseline = JSON.parse(bare.m[1]) as { rest: string; grpc: string };

try {
  await compare(
    'REST current_plan',
    () => autocannon(`${baseline.rest}/bare`),
    () => autocannon(restPlan),
  );
  await compare(
    'gRPC CurrentPlan',
    () => grpcLoad(baseline.grpc),
    () => grpcLoad(grpcAddr),
  );
  const post = JSON.stringify({ jsonrpc: '2.0', id: 1, method: 'abci_query', params: { path: CURRENT_PLAN, data: '' } });
  await compare(
    'JSON-RPC abci_query (POST)',
    () => autocannon(`${baseline.rest}/bare`),
    () => autocannon(rpc, post),
  );
  await compare(
    'JSON-RPC abci_query (GET URI)',
    () => autocannon(`${baseline.rest}/bare`),
    () => autocannon(abciGet),
  );
} finally {
  await stop(bare.child);
  await stop(node);
}

// cold start: spawn → the first "committed block" line
const firstBlock = /committed block height=/;
const restarts: number[] = [];
for (let i = 0; i < 3; i++) {
  const s = await spawnUntil(process.execPath, [CHAIND, 'dev', '--home', home, ...addr], 'stderr', firstBlock);
  restarts.push(s.ms);
  node = s.child;
  await stop(node);
}
const fresh: number[] = [];
for (let i = 0; i < 3; i++) {
  // an empty data/ (keys, config and genesis kept): InitChain, then the first block
  for (const f of ['application.db', 'solo-blocks.db', 'upgrade-info.json']) rmSync(join(home, 'data', f), { recursive: true, force: true });
  if (existsSync(join(home, 'data', 'application.db'))) throw new Error('data not cleared');
  const s = await spawnUntil(process.execPath, [CHAIND, 'dev', '--home', home, ...addr], 'stderr', firstBlock);
  fresh.push(s.ms);
  await stop(s.child);
}
// the same from the packaged release (esbuild bundle: no TypeScript compilation at start)
const releases = join(dir, 'releases');
spawnSync(process.execPath, [join(ROOT, 'scripts/release.mjs'), '--release', 'v2', '--out', releases], { stdio: ['ignore', 'ignore', 'inherit'] });
const bundleDir = join(dir, 'v2');
mkdirSync(bundleDir);
const archive = readdirSync(releases).find((f) => f.endsWith('.tar.gz'));
if (archive === undefined) throw new Error('no release archive built');
spawnSync('tar', ['-xzf', join(releases, archive), '-C', bundleDir]);
const bundled = join(bundleDir, 'bin', 'chaind');
const bundledRestarts: number[] = [];
for (let i = 0; i < 3; i++) {
  const s = await spawnUntil(bundled, ['dev', '--home', home, ...addr], 'stderr', firstBlock);
  bundledRestarts.push(s.ms);
  await stop(s.child);
}
const tsxOnly = [0, 1, 2].map(() => {
  const t = performance.now();
  spawnSync(process.execPath, [CHAIND, 'version']);
  return performance.now() - t;
});
row('cold start, existing state → first block', ms(median(restarts)), `min ${ms(Math.min(...restarts))}`);
row('cold start, empty data (InitChain) → first block', ms(median(fresh)), `min ${ms(Math.min(...fresh))}`);
row('  of which: `chaind version` (process + tsx)', ms(median(tsxOnly)));
row('cold start, packaged release, existing state', ms(median(bundledRestarts)), `min ${ms(Math.min(...bundledRestarts))}`);

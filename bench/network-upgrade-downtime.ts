// A network's downtime across a governance upgrade v1 → v2: four validators on one machine, each
// `chaind start` (CometBFT as its child) under its own chainvisor, on homes made by `chaind testnet init`.
// The downtime is what the chain saw, from block header times minus the block interval (BENCH_BLOCK_MS,
// CometBFT's timeout_commit). A header's time is when the block before it was decided (the median of its
// precommits), so H+1's time is H decided, before v1 halts executing H; the halt shows in H+2 − H+1, the
// figure held to the goal; H+1 − H is printed beside it. Each node's own view: chainvisor's `upgrade …
// done: downtime …` line (its phases), and from the node's log when chaind halted, when CometBFT finished
// its handshake with v2, and when v2 committed H and H+1. Goal: ≤ 2 s.
import { readFileSync, writeFileSync } from 'node:fs';
import { join } from 'node:path';
import { cometHeight, endpointsOf, eventually, GroupChild, ok, setTomlValue, startVisor, type ValidatorEndpoints } from '@chaind/chaind/testing';
import { header, ms, row, tempDir } from './lib.ts';
import { rpcCall } from './load/node.ts';
import { errorMessage } from '@chaind/errors';

const N = 4;
const BLOCK_MS = Number(process.env.BENCH_BLOCK_MS ?? 1000);
const CHAIN_ID = 'bench-net-1';
const GOV_PERIOD = '30s';
/** Blocks between the proposal and its plan height: the proposal, four votes through the CLI (seconds each on a busy host) and the voting period. */
const PLAN_MARGIN = BigInt(Math.ceil(90_000 / BLOCK_MS));

interface Node {
  readonly i: number;
  readonly home: string;
  readonly ends: ValidatorEndpoints;
  readonly visor: GroupChild;
}

const height = async (n: Node): Promise<bigint> => (await cometHeight(n.ends.rpc)) ?? -1n;
const allAt = (ns: readonly Node[], h: bigint, msMax: number): Promise<true> =>
  eventually(`every node at ${h}`, async () => ((await Promise.all(ns.map(height))).every((x) => x >= h) ? true : undefined), msMax);

async function headerTime(n: Node, h: bigint): Promise<number> {
  const b = await rpcCall<{ block: { header: { time: string } } }>(n.ends.rpc, 'block', { height: String(h) });
  // RFC 3339 with nanoseconds: Date.parse keeps milliseconds
  return Date.parse(b.block.header.time);
}

/** When the last line matching `re` was logged, from chaind's (ISO) or CometBFT's (I[YYYY-MM-DD|hh:mm:ss.mmm]) timestamp. */
function loggedAt(log: string, re: RegExp): number | undefined {
  for (const line of log.split('\n').reverse()) {
    if (!re.test(line)) continue;
    const iso = /(\d{4}-\d\d-\d\dT\d\d:\d\d:\d\d\.\d+Z)/.exec(line);
    if (iso !== null) return Date.parse(iso[1]);
    const comet = /I\[(\d{4}-\d\d-\d\d)\|(\d\d:\d\d:\d\d\.\d+)\]/.exec(line);
    // CometBFT logs local time; this host's runs are UTC (the bench says so if not)
    if (comet !== null) return Date.parse(`${comet[1]}T${comet[2]}Z`);
  }
  return undefined;
}

header(
  `network upgrade downtime: ${N} validators under chainvisor on one machine, v1 → v2 by governance, ${BLOCK_MS} ms blocks`,
  'header time(H+2) − header time(H+1) − block interval ≤ 2 s (H+1 − H beside it)',
);
if (new Date().getTimezoneOffset() !== 0) console.log('   (CometBFT logs local time: its per-node times below assume UTC and are off by the offset)');
const dir = tempDir('net-downtime');
const t0 = performance.now();
await ok([
  'testnet',
  'init',
  '--validators',
  String(N),
  '--output',
  join(dir, 'net'),
  '--chain-id',
  CHAIN_ID,
  '--gov-period',
  GOV_PERIOD,
  '--block-time',
  `${BLOCK_MS}ms`,
]);
row('testnet init', ms(performance.now() - t0));
const nodes: Node[] = [];
try {
  for (let i = 0; i < N; i++) {
    const home = join(dir, 'net', `node${i}`);
    const ends = await endpointsOf(home);
    // BENCH_COMET_LOG=info: CometBFT's consensus steps in each node's log (testnet homes log errors only)
    const level = process.env.BENCH_COMET_LOG;
    if (level !== undefined) {
      const file = join(home, 'config', 'config.toml');
      writeFileSync(file, setTomlValue(readFileSync(file, 'utf8'), '', 'log_level', level));
    }
    nodes.push({ i, home, ends, visor: startVisor(home, { DAEMON_RPC_ADDRESS: ends.rpc, DAEMON_GRPC_ADDRESS: ends.grpc }) });
  }
  await allAt(nodes, 3n, 120_000);
  const h = (await height(nodes[0])) + PLAN_MARGIN;
  const flags = (n: Node): string[] => [
    '--from',
    `validator${n.i}`,
    '--home',
    n.home,
    '--keyring-backend',
    'test',
    '--node',
    n.ends.rpc,
    '-y',
    '--fees',
    '5000stake',
    '--gas',
    '400000',
    '--chain-id',
    CHAIN_ID,
  ];
  const code = (stdout: string): number => (JSON.parse(stdout) as { code: number }).code;
  const proposed = await ok([
    'tx',
    'upgrade',
    'software-upgrade',
    'v2',
    '--title',
    'v2',
    '--summary',
    'bench',
    '--deposit',
    '10000000stake',
    '--upgrade-height',
    String(h),
    '--no-validate',
    ...flags(nodes[0]),
  ]);
  if (code(proposed.stdout) !== 0) throw new Error(`proposal refused: ${proposed.stdout}`);
  // the status reads PROPOSAL_STATUS_VOTING_PERIOD
  await eventually(
    'proposal 1',
    async () => (/voting_period/i.test((await ok(['query', 'gov', 'proposal', '1', '-o', 'json', '--node', nodes[0].ends.rpc])).stdout) ? true : undefined),
    120_000,
  );
  // at once: one CLI run takes seconds on a busy host, and votes after the voting period count for nothing
  await Promise.all(
    nodes.map(async (n) => {
      const voted = await ok(['tx', 'gov', 'vote', '1', 'yes', ...flags(n)]);
      if (code(voted.stdout) !== 0) throw new Error(`vote of validator${n.i} refused: ${voted.stdout}`);
    }),
  );
  try {
    await eventually(
      `plan v2 (H = ${h})`,
      async () => ((await ok(['query', 'upgrade', 'plan', '-o', 'json', '--node', nodes[0].ends.rpc])).stdout.includes('"v2"') ? true : undefined),
      120_000,
    );
  } catch (e) {
    // what the chain made of the proposal: its status and tally
    const p = await ok(['query', 'gov', 'proposal', '1', '-o', 'json', '--node', nodes[0].ends.rpc]).catch((x: Error) => ({ stdout: x.message }));
    throw new Error(`${errorMessage(e)}\nproposal 1 at height ${await height(nodes[0])}: ${p.stdout}`);
  }
  const at = await height(nodes[0]);
  if (at >= h) throw new Error(`the plan passed at ${at}, after its height ${h}: raise PLAN_MARGIN`);
  row('plan height H', `${h} (passed at ${at})`);
  await allAt(nodes, h + 3n, 300_000);

  const [tH, tH1, tH2] = [await headerTime(nodes[0], h), await headerTime(nodes[0], h + 1n), await headerTime(nodes[0], h + 2n)];
  const downtime = tH2 - tH1 - BLOCK_MS;
  row('header time H+1 − H (H decided, before the halt)', ms(tH1 - tH), `minus interval ${ms(tH1 - tH - BLOCK_MS)}`);
  row('header time H+2 − H+1 (across the halt)', ms(tH2 - tH1));
  row('downtime (H+2 − H+1 − block interval)', ms(downtime), downtime <= 2000 ? 'goal met' : 'goal NOT MET');
  // each node's view, relative to header time H: halt, v2's handshake, v2's commit of H and of H+1
  row('per node (from header time H)', 'halted', 'handshake', 'v2 commits H', 'commits H+1');
  for (const n of nodes) {
    const log = n.visor.log();
    const rel = (t: number | undefined): string => (t === undefined ? '?' : ms(t - tH));
    row(
      `node${n.i}`,
      rel(loggedAt(log, /UPGRADE "v2" NEEDED/)),
      rel(loggedAt(log, /Completed ABCI Handshake/)),
      rel(loggedAt(log, new RegExp(`INF committed block height=${h} `))),
      rel(loggedAt(log, new RegExp(`INF committed block height=${h + 1n} `))),
    );
    if (process.env.BENCH_KEEP === '1') writeFileSync(join(dir, `node${n.i}.log`), log);
    const line = /upgrade v2 at height \d+ done: downtime .*/.exec(log);
    console.log(`     chainvisor: ${line?.[0] ?? '(no done line)'}`);
  }
} finally {
  await GroupChild.killAllGroups();
}

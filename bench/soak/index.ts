// `npm run soak [-- --minutes N] [--rate R] [--out FILE]`: a real v1 dev chain under a real `chainvisor run`
// for N minutes (default 30) with a steady load of signed bank sends (one client, in turn over JSON-RPC and REST),
// a governance upgrade to v2 (a local release) scheduled for the middle of the run, and a sample every
// 10 s of the node's and chainvisor's RSS and open descriptors, chainvisor's heap after a full collection (it
// runs with visor-probe.mjs preloaded, which forces one every sample interval), the data folder's size on disk,
// the height and the txs. At the end: a summary table and the stated bounds (report.ts, BOUNDS); exit 1 if a bound
// is broken, the upgrade did not happen, a tx failed, or a tx CheckTx accepted was never committed.
// The load pauses a few blocks before the upgrade height until the new release makes blocks: the halt
// drops the mempool (as CometBFT's does), so a tx sent into it would be lost by design, not by a fault.
import { createHash } from 'node:crypto';
import { chmodSync, mkdirSync, readFileSync, rmSync, writeFileSync } from 'node:fs';
import { tmpdir } from 'node:os';
import { join } from 'node:path';
import { parseArgs } from 'node:util';
import { addressFromPublicKey, publicKeyFromPrivate } from '@chaind/sdk/crypto';
import { Keyring } from '@chaind/sdk/keyring';
import { encodeTx } from '@chaind/sdk/tx';
import { VoteOption } from 'cosmjs-types/cosmos/gov/v1/gov';
import { MsgVote } from 'cosmjs-types/cosmos/gov/v1/tx';
import {
  chaindScript,
  cleanupVisorChains,
  cli,
  createVisorChain,
  proposeV2,
  until,
  waitForHeight,
  type Visor,
  type VisorChain,
} from '../../test/kit/visor-chain.ts';
import { loadClient, txHash, type LoadClient } from './load.ts';
import { childrenOf, commandLineOf, diskUsage, fdCount, memoryOf } from './proc.ts';
import { BOUNDS, table, verdicts, type Sample, type Verdict } from './report.ts';
import { errorMessage } from '@chaind/errors';

const USAGE = 'usage: npm run soak -- [--minutes N] [--rate TXS_PER_S] [--sample-seconds S] [--out FILE]';
const DENOM = 'stake';

function options(): { minutes: number; rate: number; sampleS: number; out: string | undefined } {
  try {
    const { values } = parseArgs({
      options: {
        minutes: { type: 'string', default: '30' },
        rate: { type: 'string', default: '30' },
        'sample-seconds': { type: 'string', default: '10' },
        out: { type: 'string' },
      },
      allowPositionals: false,
    });
    const minutes = Number(values.minutes);
    const rate = Number(values.rate);
    const sampleS = Number(values['sample-seconds']);
    if (!(minutes >= 2)) throw new Error(`--minutes must be at least 2 (an upgrade in the middle needs the time), got ${values.minutes}`);
    if (!(rate > 0 && rate <= 500)) throw new Error(`--rate must be in (0, 500] txs/s, got ${values.rate}`);
    if (!(sampleS >= 1)) throw new Error(`--sample-seconds must be at least 1, got ${values['sample-seconds']}`);
    return { minutes, rate, sampleS, out: values.out };
  } catch (e) {
    console.error(`soak: ${errorMessage(e)}\n${USAGE}`);
    process.exit(2);
  }
}
const opts = options();
const durationS = opts.minutes * 60;
// a tenth of the run, at least a minute
// a node's memory settles some minutes after its start (its first full collections): 3 at least, per process
const warmupS = Math.max(180, durationS / 10);

const t0 = performance.now();
const elapsed = (): number => (performance.now() - t0) / 1000;
const say = (msg: string): void => console.log(`[soak +${elapsed().toFixed(0)}s] ${msg}`);
const sleep = (ms: number): Promise<void> => new Promise((r) => setTimeout(r, ms));

// chainvisor runs with visor-probe.mjs preloaded: a full collection every sample interval, the heap left after it here
const VISOR_PROBE = new URL('./visor-probe.mjs', import.meta.url).href;
const visorProbeFile = join(tmpdir(), `chaind-soak-visor-heap-${process.pid}.json`);

/** chainvisor's heap in use after its last forced full collection; undefined before the first. */
function visorHeapMiB(): number | undefined {
  try {
    return (JSON.parse(readFileSync(visorProbeFile, 'utf8')) as { heapUsed: number }).heapUsed / 1024 / 1024;
  } catch {
    return undefined;
  }
}

async function rpc<T>(url: string, method: string, params: Record<string, unknown> = {}): Promise<T> {
  const r = await fetch(url, {
    method: 'POST',
    headers: { 'content-type': 'application/json' },
    body: JSON.stringify({ jsonrpc: '2.0', id: 1, method, params }),
  });
  const j = (await r.json()) as { result?: T; error?: { message: string; data?: string } };
  if (j.result === undefined) throw new Error(`${method}: ${j.error?.message ?? 'no result'} ${j.error?.data ?? ''}`);
  return j.result;
}

/** The soak's txs seen in blocks, scanned height by height (block + block_results). */
class Ledger {
  scanned = 0;
  committed = 0;
  failed: { hash: string; code: number; log: string }[] = [];
  private readonly inBlocks = new Set<string>();
  constructor(
    private readonly c: VisorChain,
    private readonly clients: readonly LoadClient[],
  ) {}

  /** Scans every block up to the node's height; stops quietly while the node does not answer. */
  async scan(): Promise<void> {
    let height: number;
    try {
      height = await this.c.height();
    } catch {
      return;
    }
    const ours = (h: string): boolean => this.clients.some((cl) => cl.accepted.has(h));
    while (this.scanned < height) {
      const h = this.scanned + 1;
      try {
        const [block, results] = await Promise.all([
          rpc<{ block: { data: { txs: string[] | null } } }>(this.c.rpc, 'block', { height: String(h) }),
          rpc<{ txs_results: { code: number; log: string }[] | null }>(this.c.rpc, 'block_results', { height: String(h) }),
        ]);
        (block.block.data.txs ?? []).forEach((b64, i) => {
          const hash = txHash(Buffer.from(b64, 'base64'));
          const res = results.txs_results?.[i];
          if (!ours(hash) || this.inBlocks.has(hash)) return;
          this.inBlocks.add(hash);
          if (res?.code === 0) this.committed++;
          else this.failed.push({ hash, code: res?.code ?? -1, log: res?.log ?? 'no result' });
        });
      } catch {
        return;
      }
      this.scanned = h;
    }
  }

  /** Accepted txs not (yet) in a block. */
  missing(): string[] {
    return this.clients.flatMap((cl) => [...cl.accepted.keys()].filter((h) => !this.inBlocks.has(h)));
  }
}

/** Starts the clients once the node's REST server answers (it may come up after JSON-RPC). */
async function startLoad(clients: readonly LoadClient[]): Promise<void> {
  for (const cl of clients) await until('the REST server to answer the account query', 120_000, () => cl.start().then(() => true));
}

/** The validator's yes on proposal `id`, signed in this process and broadcast over JSON-RPC. */
async function voteYes(c: VisorChain, id: bigint): Promise<void> {
  const keyring = await Keyring.open(c.home, 'test');
  const privateKey = await keyring.privateKey('validator');
  const voter = addressFromPublicKey(publicKeyFromPrivate(privateKey));
  const chainId = (await rpc<{ node_info: { network: string } }>(c.rpc, 'status')).node_info.network;
  const r = await fetch(`${c.rest}/cosmos/auth/v1beta1/accounts/${voter}`);
  const account = ((await r.json()) as { account: { account_number: string; sequence: string } }).account;
  const tx = encodeTx(
    {
      msgs: [
        {
          typeUrl: '/cosmos.gov.v1.MsgVote',
          value: MsgVote.encode(MsgVote.fromPartial({ proposalId: id, voter, option: VoteOption.VOTE_OPTION_YES })).finish(),
        },
      ],
      fee: { amount: [{ denom: DENOM, amount: '5000' }], gasLimit: 200_000n },
    },
    [{ privateKey, accountNumber: BigInt(account.account_number), sequence: BigInt(account.sequence) }],
    chainId,
  );
  const res = await rpc<{ code: number; log: string }>(c.rpc, 'broadcast_tx_sync', { tx: Buffer.from(tx).toString('base64') });
  if (res.code !== 0) throw new Error(`the vote was refused: ${res.code} ${res.log}`);
}

interface Upgrade {
  height: number | undefined;
  proposedAt: number | undefined;
  pausedAt: number | undefined;
  doneAt: number | undefined;
  downtime: string | undefined;
  error: string | undefined;
}

/** Schedules v2 for about the middle of the run, pauses the load around the halt and resumes it after. */
async function upgradeInTheMiddle(c: VisorChain, v: Visor, clients: readonly LoadClient[], ledger: Ledger, up: Upgrade): Promise<void> {
  const leadS = 40;
  // the block interval as seen under load, over the stretch before the proposal
  const [h0, s0] = [await c.height(), elapsed()];
  await sleep(Math.max(0, (durationS / 2 - leadS - elapsed()) * 1000));
  const [h1, s1] = [await c.height(), elapsed()];
  const interval = h1 > h0 ? (s1 - s0) / (h1 - h0) : 1;
  const H = h1 + Math.max(20, Math.ceil(leadS / interval));
  up.height = H;
  up.proposedAt = elapsed();
  say(`proposing upgrade v2 at height ${H} (block interval so far ${(interval * 1000).toFixed(0)} ms)`);
  // no plan info: the v2 release is installed already (cosmovisor/upgrades/v2) and downloads are off
  const proposed = await proposeV2(c, H, '', ['--no-validate']);
  if (proposed.code !== 0) throw new Error(`the proposal failed: ${proposed.stderr || proposed.stdout}`);
  // the vote signed here, not by a CLI process: its start-up alone can outlast the 6 s voting period on a busy host
  await voteYes(c, 1n);
  await until('the plan to pass', 60_000, async () => {
    const r = await cli(['query', 'upgrade', 'plan', '-o', 'json', '--node', c.rpc]);
    return r.code === 0 && r.stdout.includes('"v2"') ? true : undefined;
  });
  if ((await c.height()) >= H - 4) throw new Error(`the plan passed at height ${await c.height()}, too close to its height ${H}`);
  say('plan scheduled (proposal 1 passed)');
  await until(`height ${H - 4}`, 600_000, async () => ((await c.height()) >= H - 4 ? true : undefined));
  up.pausedAt = elapsed();
  await Promise.all(clients.map((cl) => cl.pause()));
  say(`load paused at height ${await c.height()}, before the halt at ${H}`);
  // what is in the mempool now is committed before the halt
  await until('the mempool to drain before the halt', 60_000, async () => {
    await ledger.scan();
    return ledger.missing().length === 0 ? true : undefined;
  }).catch(() => say(`${ledger.missing().length} accepted txs still outside a block at the halt`));
  const done = new RegExp(`upgrade v2 at height ${H} done: downtime ([0-9.]+m?s)`);
  await until('chainvisor to switch to v2', 600_000, async () => (done.test(v.output()) ? true : undefined));
  await waitForHeight(c, v, H + 1, 120_000);
  up.doneAt = elapsed();
  up.downtime = done.exec(v.output())?.[1];
  say(`v2 running past height ${H} (downtime ${up.downtime ?? '?'}); load resumed`);
  await startLoad(clients);
}

async function main(): Promise<number> {
  say(`soak: ${opts.minutes} min, ${opts.rate} txs/s, a sample every ${opts.sampleS} s, warm-up ${warmupS.toFixed(0)} s; v1 → v2 in the middle`);
  const c = await createVisorChain({
    NODE_OPTIONS: `--import "${VISOR_PROBE}"`,
    SOAK_VISOR_PROBE_FILE: visorProbeFile,
    SOAK_VISOR_GC_MS: String(opts.sampleS * 1000),
  });
  // the v2 release, installed locally: chaind from source as v2
  const v2bin = join(c.cv, 'upgrades', 'v2', 'bin');
  mkdirSync(v2bin, { recursive: true });
  writeFileSync(join(v2bin, 'chaind'), chaindScript('v2'));
  chmodSync(join(v2bin, 'chaind'), 0o755);
  const v = c.run();
  await waitForHeight(c, v, 2);
  const visorPid = v.child.pid ?? NaN;
  const chainId = (await rpc<{ node_info: { network: string } }>(c.rpc, 'status')).node_info.network;
  say(`chain ${chainId} in ${c.home}, chainvisor pid ${visorPid}`);

  // one client sending from bob's account (a new account cannot send here: bank sends do not create the
  // recipient's auth account) to an address of its own
  const keyring = await Keyring.open(c.home, 'test');
  const recipient = addressFromPublicKey(publicKeyFromPrivate(createHash('sha256').update('chaind soak recipient').digest()));
  const clients = [
    loadClient({ privateKey: await keyring.privateKey('bob'), chainId, rpc: c.rpc, rest: c.rest, to: recipient, denom: DENOM, rate: opts.rate }),
  ];
  await startLoad(clients);
  say(`load started: bob (${clients[0].address}) → ${recipient}, ${opts.rate} txs/s, in turn over JSON-RPC broadcast_tx_sync and REST BROADCAST_MODE_SYNC`);

  const ledger = new Ledger(c, clients);
  const samples: Sample[] = [];
  const up: Upgrade = { height: undefined, proposedAt: undefined, pausedAt: undefined, doneAt: undefined, downtime: undefined, error: undefined };
  const upgrading = upgradeInTheMiddle(c, v, clients, ledger, up).catch((e: Error) => {
    up.error = e.message;
    say(`upgrade: ${e.message}`);
  });
  // chainvisor has other children besides the node (tsx's esbuild service): the node runs chaind.js
  const nodeOf = (): number | undefined => childrenOf(visorPid).find((p) => commandLineOf(p).some((a) => a.endsWith('/chaind.js')));
  const mib = (kib: number | undefined): number | undefined => (kib === undefined ? undefined : kib / 1024);
  const sample = async (end = false): Promise<Sample> => {
    await ledger.scan();
    const pid = nodeOf();
    const node = pid === undefined ? undefined : memoryOf(pid);
    const visor = memoryOf(visorPid);
    const disk = diskUsage(join(c.home, 'data'));
    const mempool = await rpc<{ total: string }>(c.rpc, 'num_unconfirmed_txs').then(
      (r) => Number(r.total),
      () => undefined,
    );
    const s: Sample = {
      t: Math.round(elapsed()),
      height: ledger.scanned,
      phase: end ? 'end' : up.doneAt !== undefined ? 'v2' : up.pausedAt !== undefined ? 'upgrading' : 'v1',
      nodePid: pid,
      nodeRssMiB: mib(node?.rssKiB),
      nodeAnonMiB: mib(node?.anonKiB),
      nodeFileMiB: mib(node?.fileKiB),
      nodeFds: pid === undefined ? undefined : fdCount(pid),
      visorRssMiB: mib(visor?.rssKiB),
      visorHeapMiB: visorHeapMiB(),
      visorFds: fdCount(visorPid),
      dataMiB: disk.allocated / 1024 / 1024,
      dataApparentMiB: disk.apparent / 1024 / 1024,
      committedTxs: ledger.committed,
      acceptedTxs: clients.reduce((a, cl) => a + cl.accepted.size, 0),
      txErrors: clients.reduce((a, cl) => a + cl.refusals.length, 0) + ledger.failed.length,
      mempool,
    };
    samples.push(s);
    const f = (n: number | undefined): string => (n === undefined ? '-' : n.toFixed(1));
    say(
      `${s.phase} h=${s.height} node pid ${s.nodePid ?? '-'} rss ${f(s.nodeRssMiB)} MiB (anon ${f(s.nodeAnonMiB)}) fds ${s.nodeFds ?? '-'} | chainvisor rss ${f(s.visorRssMiB)} MiB (heap after GC ${f(s.visorHeapMiB)}) fds ${s.visorFds ?? '-'} | data ${s.dataMiB.toFixed(2)} MiB | txs committed ${s.committedTxs} accepted ${s.acceptedTxs} errors ${s.txErrors} mempool ${s.mempool ?? '-'}`,
    );
    return s;
  };

  while (elapsed() < durationS) {
    await sample();
    await sleep(Math.max(0, Math.min(opts.sampleS * 1000, (durationS - elapsed()) * 1000)));
  }
  // the end: no more sends; every accepted tx must reach a block
  await Promise.all(clients.map((cl) => cl.pause()));
  await upgrading;
  await until('every accepted tx in a block', 60_000, async () => {
    await ledger.scan();
    return ledger.missing().length === 0 ? true : undefined;
  }).catch(() => undefined);
  const last = await sample(true);
  v.child.kill('SIGTERM');
  const exit = await Promise.race([v.exit, sleep(30_000).then(() => ({ code: null, output: '' }))]);

  // the verdict
  const accepted = clients.reduce((a, cl) => a + cl.accepted.size, 0);
  const refusals = clients.flatMap((cl) => cl.refusals);
  const lost = ledger.missing();
  // the node's process under load before and after the upgrade (not chainvisor's pre-upgrade call in between)
  const pids = [...new Set(samples.flatMap((s) => (s.nodePid === undefined || (s.phase !== 'v1' && s.phase !== 'v2') ? [] : [s.nodePid])))];
  const checks: Verdict[] = [
    {
      what: 'the upgrade to v2',
      ok:
        up.error === undefined && up.doneAt !== undefined && samples.some((x) => x.phase === 'v2') && pids.length >= 2 && last.height > (up.height ?? Infinity),
      detail:
        up.error ??
        (up.doneAt === undefined
          ? 'not done'
          : `at height ${up.height}, proposed at +${up.proposedAt?.toFixed(0)} s, v2 making blocks at +${up.doneAt.toFixed(0)} s, downtime ${up.downtime}; node pids ${pids.join(' → ')}`),
    },
    {
      what: 'accepted txs lost',
      ok: lost.length === 0,
      detail: `${lost.length} of ${accepted} accepted never reached a block${lost.length ? ` (first: ${lost.slice(0, 3).join(', ')})` : ''}`,
    },
    {
      what: 'tx errors',
      ok: refusals.length === 0 && ledger.failed.length === 0,
      detail: `${refusals.length} CheckTx refusals${refusals.length ? ` (first: ${refusals[0].code} ${refusals[0].log})` : ''}, ${ledger.failed.length} failed in blocks${ledger.failed.length ? ` (first: ${ledger.failed[0].code} ${ledger.failed[0].log})` : ''}, ${clients.reduce((a, cl) => a + cl.transportErrors, 0)} broadcasts unanswered`,
    },
    { what: 'chainvisor stopped cleanly', ok: exit.code === 0, detail: `exit ${exit.code}` },
    ...verdicts(samples, warmupS),
  ];

  console.log('');
  console.log("chainvisor's lines about the upgrade:");
  for (const l of v.output().split('\n')) if (/chainvisor|UPGRADE|applying upgrade|downtime/i.test(l) && !/committed block/.test(l)) console.log(`    | ${l}`);
  console.log('');
  console.log(
    `soak summary: ${opts.minutes} min, warm-up ${warmupS.toFixed(0)} s, ${samples.length} samples; ${last.committedTxs} txs committed (${(last.committedTxs / durationS).toFixed(1)} tx/s over the run), height ${last.height}; accepted over JSON-RPC ${clients.reduce((a, cl) => a + cl.acceptedBy.jsonrpc, 0)}, over REST ${clients.reduce((a, cl) => a + cl.acceptedBy.rest, 0)}`,
  );
  console.log(table(samples, warmupS));
  console.log('');
  console.log(`bounds (${JSON.stringify(BOUNDS)}):`);
  for (const ch of checks) console.log(`  ${ch.ok ? 'ok  ' : 'FAIL'} ${ch.what}: ${ch.detail}`);
  if (opts.out !== undefined) {
    writeFileSync(opts.out, `${JSON.stringify({ minutes: opts.minutes, rate: opts.rate, warmupS, upgrade: up, checks, samples }, null, 2)}\n`);
    console.log(`series written to ${opts.out}`);
  }
  const failed = checks.filter((ch) => !ch.ok);
  console.log(failed.length === 0 ? 'soak: OK' : `soak: FAILED (${failed.map((ch) => ch.what).join('; ')})`);
  return failed.length === 0 ? 0 : 1;
}

try {
  process.exitCode = await main();
} catch (e) {
  console.error(`soak: FAILED: ${(e as Error).stack}`);
  process.exitCode = 1;
} finally {
  cleanupVisorChains();
  rmSync(visorProbeFile, { force: true });
  rmSync(`${visorProbeFile}.tmp`, { force: true });
}

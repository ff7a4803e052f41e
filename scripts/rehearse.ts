// `npm run rehearse [-- --from <release> --to <release>]`: real upgrades, end to end, with the packaged
// releases and chainvisor; by default v1 → v2, the first upgrade.
//
//   1. builds the releases of the path (scripts/release.mjs) and serves them from a loopback HTTP server;
//   2. installs --from as chainvisor's genesis release and creates a dev chain with it (10 s gov periods);
//   3. runs the chain under `chainvisor run` with downloads allowed and automatic preparation;
//   4. for each later release up to --to, in turn (a hop): `tx upgrade software-upgrade <name>` whose
//      --upgrade-info points at the served archive with its sha256 (the CLI downloads and checks it), at
//      a height far enough for the chain's voting period; the proposal id from the submit tx's events;
//      the validator's vote; the plan, the halt at the height, chainvisor preparing, verifying and
//      switching, the new release applying its handler at that height and the chain continuing,
//      `query upgrade applied <name>` and `query upgrade module_versions`, then the upgrade's own checks
//      (src/upgrades/<name>/rehearsal.ts, `rehearsal: RehearsalChecks`) and the hop's downtime;
//   5. a summary: one line per hop with its height and downtime.
//
// Options: --from/--to (releases of RELEASES, --to after --from); --releases <dir> reuses built archives;
// --keep leaves the temp folder. Exit 0 only when every step was seen; the last line is "rehearsal: OK"
// (test/rehearsal.test.ts runs this); 2 for bad arguments, before anything is built.
import { execFileSync, spawn, spawnSync, type ChildProcess } from 'node:child_process';
import { createReadStream, existsSync, mkdirSync, mkdtempSync, readFileSync, readlinkSync, rmSync, statSync } from 'node:fs';
import { createServer, type Server } from 'node:http';
import { createServer as netServer, type AddressInfo } from 'node:net';
import { tmpdir } from 'node:os';
import { basename, join, resolve } from 'node:path';
import { fileURLToPath } from 'node:url';
import { parseArgs } from 'node:util';
import { RELEASES } from '@chaind/chaind/release';
import { rehearsalChecksOf, rehearsalPath, type RehearsedNode, type StoreRead } from '@chaind/chaind/rehearsal';
import { platformKey } from '@chaind/upgrade-plan';
import { errorMessage } from '@chaind/errors';

const ROOT = resolve(fileURLToPath(new URL('..', import.meta.url)));
const CHAINVISOR = join(ROOT, 'packages/chainvisor/bin/chainvisor.js');
/** Blocks left after the vote for the release's download and its warm start, on a loaded machine too. */
const PREPARE_BLOCKS = 15;
const USAGE = `usage: npm run rehearse -- [--from <release>] [--to <release>] [--releases <dir>] [--keep]   (releases: ${RELEASES.join(', ')})`;

function parseOptions(): { releases: string | undefined; keep: boolean; path: readonly string[] } {
  try {
    const { values } = parseArgs({
      options: {
        from: { type: 'string', default: RELEASES[0] },
        to: { type: 'string' },
        releases: { type: 'string' },
        keep: { type: 'boolean', default: false },
      },
      allowPositionals: false,
    });
    // by default the first upgrade after --from
    const path = rehearsalPath(values.from ?? RELEASES[0], values.to);
    return { releases: values.releases, keep: values.keep ?? false, path };
  } catch (e) {
    console.error(`rehearse: ${errorMessage(e)}\n${USAGE}`);
    process.exit(2);
  }
}
const opts = parseOptions();

const t0 = performance.now();
const say = (msg: string): void => console.log(`[rehearse +${((performance.now() - t0) / 1000).toFixed(1)}s] ${msg}`);
class RehearsalError extends Error {}
const fail = (msg: string): never => {
  throw new RehearsalError(msg);
};

const work = mkdtempSync(join(tmpdir(), 'chaind-rehearse-'));
const children: ChildProcess[] = [];
let server: Server | undefined;
let visorLog = '';

async function freePort(): Promise<number> {
  const s = netServer();
  await new Promise<void>((res) => s.listen(0, '127.0.0.1', res));
  const { port } = s.address() as AddressInfo;
  await new Promise((res) => s.close(res));
  return port;
}

function serve(dir: string): Promise<string> {
  server = createServer((req, res) => {
    const name = basename(decodeURIComponent((req.url ?? '/').split('?')[0]));
    const file = join(dir, name);
    if (!existsSync(file) || !statSync(file).isFile()) {
      res.writeHead(404).end('not found');
      return;
    }
    res.writeHead(200, { 'content-type': 'application/gzip', 'content-length': statSync(file).size });
    createReadStream(file).pipe(res);
  });
  return new Promise((res) => server?.listen(0, '127.0.0.1', () => res(`http://127.0.0.1:${(server?.address() as AddressInfo).port}`)));
}

/** Runs a release's chaind CLI (asynchronously: the mirror in this process must keep serving); returns stdout. */
function cli(bin: string, args: string[]): Promise<string> {
  return new Promise((res, rej) => {
    const child = spawn(bin, args, { stdio: ['ignore', 'pipe', 'pipe'], timeout: 120_000 });
    let stdout = '';
    let stderr = '';
    child.stdout.on('data', (d: Buffer) => (stdout += d.toString()));
    child.stderr.on('data', (d: Buffer) => (stderr += d.toString()));
    child.on('error', rej);
    child.on('close', (code, signal) => {
      if (code === 0) res(stdout);
      else
        rej(
          new RehearsalError(
            `${basename(bin)} ${args.slice(0, 3).join(' ')} … failed (${code === null ? `signal ${signal}` : `exit ${code}`}): ${stderr.trim() || stdout.trim()}`,
          ),
        );
    });
  });
}

async function rpc<T>(url: string, method: string, params: Record<string, unknown> = {}): Promise<T> {
  const r = await fetch(url, {
    method: 'POST',
    headers: { 'content-type': 'application/json' },
    body: JSON.stringify({ jsonrpc: '2.0', id: 1, method, params }),
  });
  if (!(r.headers.get('content-type') ?? '').includes('json')) fail(`${method}: HTTP ${r.status}: ${(await r.text()).slice(0, 200)}`);
  const j = (await r.json()) as { result?: T; error?: { message: string; data?: string } };
  if (j.result === undefined) fail(`${method}: ${j.error?.message ?? 'no result'} ${j.error?.data ?? ''}`);
  return j.result as T;
}

async function until<T>(what: string, ms: number, probe: () => Promise<T | undefined> | T | undefined): Promise<T> {
  const end = performance.now() + ms;
  let last = '';
  for (;;) {
    try {
      const v = await probe();
      if (v !== undefined) return v;
    } catch (e) {
      last = errorMessage(e); // not yet
    }
    if (performance.now() > end) return fail(`timed out after ${ms / 1000} s waiting for ${what}${last ? ` (last: ${last})` : ''}`);
    await new Promise((r) => setTimeout(r, 200));
  }
}

/** A proto JSON duration ("10s", "1.5s") in milliseconds. */
function durationMs(d: string): number {
  const m = /^(\d+(?:\.\d+)?)s$/.exec(d) ?? fail(`not a duration: ${JSON.stringify(d)}`);
  return Number(m[1]) * 1000;
}

async function main(): Promise<void> {
  const [from, ...hops] = opts.path;
  // 1. the releases
  // Go's names, as plan info keys (linux/amd64) and release archives (linux-amd64) use them
  const target = platformKey();
  const platform = target.replace('/', '-');
  let releases = opts.releases === undefined ? join(work, 'releases') : resolve(opts.releases);
  if (opts.releases === undefined) {
    say(`building the ${opts.path.join(', ')} releases (npm run release)`);
    execFileSync(process.execPath, [join(ROOT, 'scripts/release.mjs'), ...opts.path.flatMap((r) => ['--release', r]), '--out', releases], {
      stdio: ['ignore', 'ignore', 'inherit'],
    });
  }
  releases = resolve(releases);
  const sums = new Map(
    readFileSync(join(releases, 'SHA256SUMS'), 'utf8')
      .trim()
      .split('\n')
      .map((l) => l.split(/\s+\*?/))
      .map(([hash, name]) => [name, hash] as const),
  );
  const archiveOf = (release: string): string => `chaind-${release}-${platform}.tar.gz`;
  const sumOf = (release: string): string => sums.get(archiveOf(release)) ?? fail(`no ${archiveOf(release)} in ${releases}/SHA256SUMS`);
  for (const r of opts.path) sumOf(r);
  const mirror = await serve(releases);
  say(`serving ${releases} at ${mirror} (${hops.map((r) => `${archiveOf(r)} sha256 ${sumOf(r).slice(0, 16)}…`).join(', ')})`);

  // 2. chainvisor's home: `chainvisor init <archive of --from>` installs it as the genesis release; it creates a dev chain
  const home = join(work, 'node');
  mkdirSync(home, { recursive: true });
  const env = {
    ...process.env,
    DAEMON_HOME: home,
    DAEMON_NAME: 'chaind',
    DAEMON_ALLOW_DOWNLOAD_BINARIES: 'true',
    // the release mirror is a loopback http server
    DAEMON_ALLOW_LOOPBACK_HTTP: 'true',
    DAEMON_RESTART_AFTER_UPGRADE: 'true',
    DAEMON_PREPARE_UPGRADE: 'true',
    DAEMON_POLL_INTERVAL: '100ms',
    DAEMON_SHUTDOWN_GRACE: '10s',
    COSMOVISOR_COLOR_LOGS: 'false',
  };
  delete (env as Record<string, string | undefined>).CHAIND_RELEASE;
  const [rpcPort, restPort, grpcPort] = [await freePort(), await freePort(), await freePort()];
  const rpcUrl = `http://127.0.0.1:${rpcPort}`;
  Object.assign(env, { DAEMON_RPC_ADDRESS: rpcUrl, DAEMON_GRPC_ADDRESS: `127.0.0.1:${grpcPort}` });
  const addr = ['--rpc.laddr', `tcp://127.0.0.1:${rpcPort}`, '--api.address', `tcp://127.0.0.1:${restPort}`, '--grpc.address', `127.0.0.1:${grpcPort}`];
  const init = spawnSync(process.execPath, [CHAINVISOR, 'init', join(releases, archiveOf(from))], { env, encoding: 'utf8' });
  if (init.status !== 0) fail(`chainvisor init ${archiveOf(from)}: ${init.stderr}`);
  say(`chainvisor init ${archiveOf(from)}: installed as the genesis release`);
  const genesisBin = join(home, 'cosmovisor', 'genesis', 'bin', 'chaind');
  say(`${from}: \`chaind version\` prints ${(await cli(genesisBin, ['version'])).trim()}; creating a dev chain in ${home}`);
  await cli(genesisBin, ['dev', '--home', home, '--gov-period', '10s', '--halt-height', '1', ...addr]);

  // 3. the chain under chainvisor
  say('starting: chainvisor run dev --home … (downloads allowed, DAEMON_PREPARE_UPGRADE=true)');
  // its own process group: on failure the node chainvisor started goes too (it holds our pipes open)
  const visor = spawn(process.execPath, [CHAINVISOR, 'run', 'dev', '--home', home, ...addr], { env, stdio: ['ignore', 'pipe', 'pipe'], detached: true });
  children.push(visor);
  const visorLines: string[] = [];
  const onData = (d: Buffer): void => {
    visorLog += d.toString();
    for (const line of d.toString().split('\n'))
      if (/chainvisor|UPGRADE|applying upgrade|downtime/i.test(line) && !/committed block/.test(line)) visorLines.push(line);
  };
  visor.stdout?.on('data', onData);
  visor.stderr?.on('data', onData);
  const visorExit = new Promise<number | null>((res) => visor.once('exit', (c) => res(c)));
  const height = async (): Promise<number> =>
    Number((await rpc<{ sync_info: { latest_block_height: string } }>(rpcUrl, 'status')).sync_info.latest_block_height);
  await until(`the ${from} node`, 60_000, async () => ((await height()) >= 3 ? true : undefined));

  // what `cosmovisor/current` runs: the CLI of the release the chain is at
  const bin = (): string => join(home, 'cosmovisor', existsSync(join(home, 'cosmovisor', 'current')) ? 'current' : 'genesis', 'bin', 'chaind');
  const flags = [
    '--home',
    home,
    '--keyring-backend',
    'test',
    '--node',
    rpcUrl,
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
  /** The chain's shortest block interval among its last blocks (ms): the height must not come before the vote ends. */
  const blockInterval = async (): Promise<number> => {
    const h = await height();
    const timeAt = async (x: number): Promise<number> =>
      Date.parse((await rpc<{ block: { header: { time: string } } }>(rpcUrl, 'block', { height: String(x) })).block.header.time.replace(/(\.\d{3})\d*/, '$1'));
    const times = await Promise.all(Array.from({ length: Math.min(6, h) }, (_, i) => timeAt(h - i)));
    const gaps = times.slice(1).map((t, i) => times[i] - t);
    return Math.max(100, Math.min(...gaps));
  };
  const summary: string[] = [];
  let visorSeen = 0;

  for (const name of hops) {
    // 4. the proposal, its id from the submit tx's events, the vote; the height from the chain's voting period
    const cliNow = bin();
    const gov = JSON.parse(await cli(cliNow, ['query', 'gov', 'params', '-o', 'json', '--node', rpcUrl])) as {
      params?: { voting_period?: string };
      voting_params?: { voting_period?: string };
    };
    const voting = durationMs(gov.params?.voting_period ?? gov.voting_params?.voting_period ?? fail(`query gov params: no voting_period`));
    const interval = await blockInterval();
    // the vote must end before the height: the voting period twice over, and some blocks for the txs; then
    // PREPARE_BLOCKS for chainvisor to download the release once the plan passes and load it in standby
    // (DAEMON_WARM_START), as operators' plans leave time for
    const ahead = Math.ceil((2 * voting) / interval) + 5 + PREPARE_BLOCKS;
    const H = (await height()) + ahead;
    const info = JSON.stringify({ binaries: { [target]: `${mirror}/${archiveOf(name)}?checksum=sha256:${sumOf(name)}` } });
    say(`proposing upgrade ${name} at height ${H}; --upgrade-info ${info}`);
    const submitted = JSON.parse(
      await cli(cliNow, [
        'tx',
        'upgrade',
        'software-upgrade',
        name,
        '--title',
        name,
        '--summary',
        `upgrade ${name} (npm run rehearse)`,
        '--deposit',
        '10000000stake',
        '--upgrade-height',
        String(H),
        '--upgrade-info',
        info,
        '--allow-loopback-http',
        '--from',
        'alice',
        ...flags,
      ]),
    ) as { code: number; txhash: string };
    if (submitted.code !== 0) fail(`proposal rejected: ${JSON.stringify(submitted)}`);
    const txr = await until('the submit tx', 30_000, () =>
      rpc<{ tx_result: { events: { type: string; attributes: { key: string; value: string }[] }[] } }>(rpcUrl, 'tx', {
        hash: Buffer.from(submitted.txhash, 'hex').toString('base64'),
      }),
    );
    const id =
      txr.tx_result.events
        .filter((e) => e.type === 'submit_proposal')
        .flatMap((e) => e.attributes.filter((a) => a.key === 'proposal_id').map((a) => a.value))[0] ??
      fail(`no submit_proposal proposal_id in the events of tx ${submitted.txhash}`);
    const voted = JSON.parse(await cli(cliNow, ['tx', 'gov', 'vote', id, 'yes', '--from', 'validator', ...flags])) as { code: number };
    if (voted.code !== 0) fail(`vote rejected: ${JSON.stringify(voted)}`);
    say(`proposal ${id} submitted (${submitted.txhash.slice(0, 12)}…) and voted yes by the validator`);
    // the plan, unless the node has halted for it already (it answers no queries then)
    const halted = (): boolean => visorLog.includes(`UPGRADE "${name}" NEEDED`);
    const plan = await until('the plan to pass', voting + ahead * interval + 30_000, async () => {
      if (halted()) return '(the node halted for it already)';
      const p = (await cli(cliNow, ['query', 'upgrade', 'plan', '-o', 'json', '--node', rpcUrl])).trim();
      return p.includes(`"${name}"`) ? p : undefined;
    });
    say(`plan scheduled: ${plan}`);

    // 5. the halt, the switch, the new release
    const done = new RegExp(`upgrade ${name} at height ${H} done: downtime`);
    const waitHalt = ahead * interval * 3 + 180_000;
    await until(`the halt at ${H} and chainvisor's summary`, waitHalt, () =>
      done.test(visorLog) ? true : visor.exitCode !== null ? fail(`chainvisor exited (${visor.exitCode}):\n${visorLog.slice(-4000)}`) : undefined,
    );
    await until('a block after the upgrade', 30_000, async () => ((await height()) > H ? true : undefined));
    for (const l of visorLines.slice(visorSeen)) console.log(`    | ${l}`);
    visorSeen = visorLines.length;
    const need: [string, RegExp][] = [
      [`the ${opts.path[opts.path.indexOf(name) - 1]} node halting at the height`, new RegExp(`UPGRADE "${name}" NEEDED at height: ${H}`)],
      [`${name} applying its handler at the height`, new RegExp(`applying upgrade "${name}" at height: ${H}`)],
      ['the downtime', done],
    ];
    for (const [what, re] of need) if (!re.test(visorLog)) fail(`not seen: ${what}`);
    const current = readlinkSync(join(home, 'cosmovisor', 'current'));
    if (!current.endsWith(join('upgrades', name))) fail(`chainvisor did not switch: cosmovisor/current -> ${current}`);

    const newBin = bin();
    const version = (await cli(newBin, ['version'])).trim();
    const applied = (await cli(newBin, ['query', 'upgrade', 'applied', name, '--node', rpcUrl])).trim();
    const versions = (await cli(newBin, ['query', 'upgrade', 'module_versions', '--node', rpcUrl])).trim();
    const record = JSON.parse(applied) as { header: { height: string } };
    if (record.header.height !== String(H)) fail(`query upgrade applied ${name}: height ${record.header.height}, expected ${H}`);

    console.log('');
    say(`${name} running (\`chaind version\`: ${version}); chain at height ${await height()} (upgrade height ${H})`);
    console.log(`query upgrade applied ${name}:\n${applied}`);
    console.log(`query upgrade module_versions:\n${versions}`);
    // 6. the upgrade's own checks
    const checks = await rehearsalChecksOf(name);
    if (checks === undefined) say(`upgrade ${name} has no checks of its own (packages/chaind/src/upgrades/${name}/rehearsal.ts)`);
    else {
      const node: RehearsedNode = {
        upgrade: name,
        height: BigInt(H),
        query: (args) => cli(newBin, ['query', ...args, '--node', rpcUrl]),
        storeKey: async (store, key): Promise<StoreRead> => {
          const r = (
            await rpc<{ response: { code: number; value: string | null; log: string } }>(rpcUrl, 'abci_query', {
              path: `/store/${store}/key`,
              data: Buffer.from(key).toString('hex'),
            })
          ).response;
          return { code: r.code, value: r.value === null ? undefined : new Uint8Array(Buffer.from(r.value, 'base64')), log: r.log };
        },
        report: (line) => console.log(line),
      };
      try {
        await checks.after(node);
      } catch (e) {
        fail(`upgrade ${name}'s rehearsal checks: ${errorMessage(e)}`);
      }
    }
    const downtime = visorLines.filter((l) => done.test(l)).map((l) => l.trim());
    for (const l of downtime) console.log(l);
    summary.push(`${name} at height ${H} (proposal ${id}): ${/downtime ([0-9.]+m?s)/.exec(downtime[0] ?? '')?.[1] ?? 'unknown'} downtime`);
  }

  visor.kill('SIGTERM');
  const code = await visorExit;
  say(`chainvisor stopped (exit ${code})`);
  console.log(`upgrades rehearsed, ${opts.path.join(' → ')}:`);
  for (const l of summary) console.log(`  ${l}`);
  console.log('rehearsal: OK');
}

try {
  await main();
} catch (e) {
  console.error(`rehearsal: FAILED: ${e instanceof RehearsalError ? e.message : (e as Error).stack}`);
  if (visorLog) console.error(`the last lines chainvisor and the node printed:\n${visorLog.split('\n').slice(-40).join('\n')}`);
  process.exitCode = 1;
} finally {
  for (const c of children) {
    if (c.pid === undefined) continue;
    try {
      process.kill(-c.pid, 'SIGKILL');
    } catch {
      // the group is gone already
    }
  }
  server?.close();
  if (!opts.keep) rmSync(work, { recursive: true, force: true });
  else console.log(`kept ${work}`);
}

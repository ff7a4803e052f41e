// `npm run rehearse`: a real v1 → v2 upgrade, end to end, with the packaged releases and chainvisor.
//
//   1. builds both releases (scripts/release.mjs) and serves them from a loopback HTTP server;
//   2. installs v1 as chainvisor's genesis release and creates a dev chain with it (10 s gov periods);
//   3. runs the chain under `chainvisor run` with downloads allowed and automatic preparation;
//   4. `tx upgrade software-upgrade v2` whose --upgrade-info points at the served v2 archive with its
//      sha256 (the CLI downloads and checks it), the validator votes;
//   5. shows the halt at the height, chainvisor preparing/downloading, verifying and switching, v2
//      applying its handler at that height, the chain continuing, the new `chaininfo` store, the
//      `validators` store readable as `valset`, the validators migration (total power record, version 2),
//      `query upgrade applied v2` and `query upgrade module_versions`, and the measured downtime.
//
// Options: --releases <dir> reuses built archives; --keep leaves the temp folder. Exit 0 only when every
// step was seen; the last line is "rehearsal: OK" (test/rehearsal.test.ts runs this).
import { execFileSync, spawn, spawnSync, type ChildProcess } from 'node:child_process';
import { createReadStream, existsSync, mkdirSync, mkdtempSync, readFileSync, rmSync, statSync } from 'node:fs';
import { createServer, type Server } from 'node:http';
import { createServer as netServer, type AddressInfo } from 'node:net';
import { tmpdir } from 'node:os';
import { basename, join, resolve } from 'node:path';
import { fileURLToPath } from 'node:url';
import { parseArgs } from 'node:util';
import { platformKey } from '@chaind/upgrade-plan';

const ROOT = resolve(fileURLToPath(new URL('..', import.meta.url)));
const CHAINVISOR = join(ROOT, 'packages/chainvisor/bin/chainvisor.js');
const { values: opts } = parseArgs({ options: { releases: { type: 'string' }, keep: { type: 'boolean', default: false } } });

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
      else rej(new RehearsalError(`${basename(bin)} ${args.slice(0, 3).join(' ')} … failed (${code === null ? `signal ${signal}` : `exit ${code}`}): ${stderr.trim() || stdout.trim()}`));
    });
  });
}

async function rpc<T>(url: string, method: string, params: Record<string, unknown> = {}): Promise<T> {
  const r = await fetch(url, { method: 'POST', headers: { 'content-type': 'application/json' }, body: JSON.stringify({ jsonrpc: '2.0', id: 1, method, params }) });
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
      last = (e as Error).message; // not yet
    }
    if (performance.now() > end) return fail(`timed out after ${ms / 1000} s waiting for ${what}${last ? ` (last: ${last})` : ''}`);
    await new Promise((r) => setTimeout(r, 200));
  }
}

async function main(): Promise<void> {
  // 1. the releases
  // Go's names, as plan info keys (linux/amd64) and release archives (linux-amd64) use them
  const target = platformKey();
  const platform = target.replace('/', '-');
  let releases = opts.releases === undefined ? join(work, 'releases') : resolve(opts.releases);
  if (opts.releases === undefined) {
    say('building the v1 and v2 releases (npm run release)');
    execFileSync(process.execPath, [join(ROOT, 'scripts/release.mjs'), '--out', releases], { stdio: ['ignore', 'ignore', 'inherit'] });
  }
  releases = resolve(releases);
  const sums = new Map(
    readFileSync(join(releases, 'SHA256SUMS'), 'utf8')
      .trim()
      .split('\n')
      .map((l) => l.split(/\s+\*?/))
      .map(([hash, name]) => [name, hash] as const),
  );
  const v1Archive = `chaind-v1-${platform}.tar.gz`;
  const v2Archive = `chaind-v2-${platform}.tar.gz`;
  const v2Sum = sums.get(v2Archive) ?? fail(`no ${v2Archive} in ${releases}/SHA256SUMS`);
  const mirror = await serve(releases);
  say(`serving ${releases} at ${mirror} (${v2Archive} sha256 ${v2Sum.slice(0, 16)}…)`);

  // 2. chainvisor's home: `chainvisor init <v1 archive>` installs v1 as the genesis release; v1 creates a dev chain
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
  const init = spawnSync(process.execPath, [CHAINVISOR, 'init', join(releases, v1Archive)], { env, encoding: 'utf8' });
  if (init.status !== 0) fail(`chainvisor init ${v1Archive}: ${init.stderr}`);
  say(`chainvisor init ${v1Archive}: installed as the genesis release`);
  const v1 = join(home, 'cosmovisor', 'genesis', 'bin', 'chaind');
  say(`v1: ${(await cli(v1, ['version'])).trim()}; creating a dev chain in ${home}`);
  await cli(v1, ['dev', '--home', home, '--gov-period', '10s', '--halt-height', '1', ...addr]);

  // 3. the chain under chainvisor
  say('starting: chainvisor run dev --home … (downloads allowed, DAEMON_PREPARE_UPGRADE=true)');
  // its own process group: on failure the node chainvisor started goes too (it holds our pipes open)
  const visor = spawn(process.execPath, [CHAINVISOR, 'run', 'dev', '--home', home, ...addr], { env, stdio: ['ignore', 'pipe', 'pipe'], detached: true });
  children.push(visor);
  const visorLines: string[] = [];
  const onData = (d: Buffer): void => {
    visorLog += d.toString();
    for (const line of d.toString().split('\n')) if (/chainvisor|UPGRADE|applying upgrade|downtime/i.test(line) && !/committed block/.test(line)) visorLines.push(line);
  };
  visor.stdout?.on('data', onData);
  visor.stderr?.on('data', onData);
  const visorExit = new Promise<number | null>((res) => visor.once('exit', (c) => res(c)));
  const height = async (): Promise<number> => Number((await rpc<{ sync_info: { latest_block_height: string } }>(rpcUrl, 'status')).sync_info.latest_block_height);
  await until('the v1 node', 60_000, async () => ((await height()) >= 2 ? true : undefined));

  // 4. the proposal and the vote
  const H = (await height()) + 25;
  const info = JSON.stringify({ binaries: { [target]: `${mirror}/${v2Archive}?checksum=sha256:${v2Sum}` } });
  const flags = ['--home', home, '--keyring-backend', 'test', '--node', rpcUrl, '-y', '--broadcast-mode', 'commit', '--gas', 'auto', '--gas-adjustment', '1.5', '--fees', '5000stake'];
  say(`proposing upgrade v2 at height ${H}; --upgrade-info ${info}`);
  const submitted = JSON.parse(await cli(v1, ['tx', 'upgrade', 'software-upgrade', 'v2', '--title', 'v2', '--summary', 'chaininfo, valset, validators v2', '--deposit', '10000000stake', '--upgrade-height', String(H), '--upgrade-info', info, '--allow-loopback-http', '--from', 'alice', ...flags])) as { code: number; txhash: string };
  if (submitted.code !== 0) fail(`proposal rejected: ${JSON.stringify(submitted)}`);
  const voted = JSON.parse(await cli(v1, ['tx', 'gov', 'vote', '1', 'yes', '--from', 'validator', ...flags])) as { code: number };
  if (voted.code !== 0) fail(`vote rejected: ${JSON.stringify(voted)}`);
  say(`proposal 1 submitted (${submitted.txhash.slice(0, 12)}…) and voted yes by the validator`);
  const plan = await until('the plan to pass', 60_000, async () => (await cli(v1, ['query', 'upgrade', 'plan', '-o', 'json', '--node', rpcUrl])).trim());
  say(`plan scheduled: ${plan}`);

  // 5. the halt, the switch, v2
  await until(`the halt at ${H} and chainvisor's summary`, 180_000, () => (/downtime/i.test(visorLog) ? true : visor.exitCode !== null ? fail(`chainvisor exited (${visor.exitCode}):\n${visorLog.slice(-4000)}`) : undefined));
  const v2 = join(home, 'cosmovisor', 'current', 'bin', 'chaind');
  await until('a block after the upgrade', 30_000, async () => ((await height()) > H ? true : undefined));
  for (const l of visorLines) console.log(`    | ${l}`);
  const need: [string, RegExp][] = [
    ['the v1 node halting at the height', new RegExp(`UPGRADE "v2" NEEDED at height: ${H}`)],
    ['v2 applying its handler at the height', new RegExp(`applying upgrade "v2" at height: ${H}`)],
    ['the downtime', /downtime/i],
  ];
  for (const [what, re] of need) if (!re.test(visorLog)) fail(`not seen: ${what}`);

  const version = (await cli(v2, ['version'])).trim();
  const applied = (await cli(v2, ['query', 'upgrade', 'applied', 'v2', '--node', rpcUrl])).trim();
  const versions = (await cli(v2, ['query', 'upgrade', 'module_versions', '--node', rpcUrl])).trim();
  const record = JSON.parse(applied) as { header: { height: string } };
  if (record.header.height !== String(H)) fail(`query upgrade applied v2: height ${record.header.height}, expected ${H}`);
  const raw = async (store: string, keyHex: string): Promise<{ code: number; value: string | null; log: string }> => {
    const r = await rpc<{ response: { code: number; value: string | null; log: string } }>(rpcUrl, 'abci_query', { path: `/store/${store}/key`, data: keyHex });
    return r.response;
  };
  const chaininfoStart = await raw('chaininfo', '01');
  const totalPower = await raw('valset', '03');
  const oldStore = await raw('validators', '03');
  if (chaininfoStart.code !== 0 || chaininfoStart.value === null) fail(`the chaininfo store: ${JSON.stringify(chaininfoStart)}`);
  if (totalPower.code !== 0 || totalPower.value === null) fail(`valset total power: ${JSON.stringify(totalPower)}`);
  if (oldStore.code === 0) fail('the old "validators" store name still answers');
  if (!/chaininfo/.test(versions) || !/validators[\s\S]{0,40}"?2"?/.test(versions)) fail(`module versions: ${versions}`);
  const hexOf = (b64: string | null): string => Buffer.from(b64 ?? '', 'base64').toString('hex');

  console.log('');
  say(`v2 running: ${version}; chain at height ${await height()} (upgrade height ${H})`);
  console.log(`query upgrade applied v2:\n${applied}`);
  console.log(`query upgrade module_versions:\n${versions}`);
  console.log(`abci_query /store/chaininfo/key 0x01 (the height chaininfo started): ${hexOf(chaininfoStart.value)}`);
  console.log(`abci_query /store/valset/key 0x03 (validators v2: total power, migrated): ${hexOf(totalPower.value)}`);
  console.log(`abci_query /store/validators/key 0x03 (the old name): code ${oldStore.code}: ${oldStore.log}`);
  const downtime = visorLines.filter((l) => /downtime/i.test(l));
  for (const l of downtime) console.log(l.trim());

  visor.kill('SIGTERM');
  const code = await visorExit;
  say(`chainvisor stopped (exit ${code})`);
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

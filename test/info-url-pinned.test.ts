// Issue 18, finding 2, end to end: a real chaind dev chain under a real `chainvisor run`, a governance
// upgrade whose plan.info is a URL on a loopback mirror. The info document names the binaries' checksums,
// so the URL must pin the document itself (checksum=); a mirror that swaps the document after the vote,
// or a URL that pins nothing, must not choose the binary: chainvisor refuses at the halt, `current` stays.
import assert from 'node:assert/strict';
import { spawn, type ChildProcess } from 'node:child_process';
import { chmodSync, existsSync, mkdirSync, mkdtempSync, readdirSync, readlinkSync, rmSync, symlinkSync, writeFileSync } from 'node:fs';
import { tmpdir } from 'node:os';
import { join, resolve } from 'node:path';
import { afterEach, describe, test } from 'node:test';
import { fileURLToPath } from 'node:url';
import { freePort } from '@chaind/sdk/testing';
import { hex, serve, tgz, type RawEntry, type Served } from '@chaind/upgrade-plan/testing';

const ROOT = resolve(fileURLToPath(new URL('..', import.meta.url)));
const CHAIND = join(ROOT, 'packages/chaind/bin/chaind.js');
const CHAINVISOR = join(ROOT, 'packages/chainvisor/bin/chainvisor.js');
/** chainvisor's exit code for a failed upgrade (docs/chainvisor.md) */
const UPGRADE_FAILED = 3;

/** A release whose bin/chaind only says who it is: it must never be installed, let alone run. */
const release = (who: string): Buffer => {
  const entries: RawEntry[] = [{ path: 'bin/', type: 'Directory' }, { path: 'bin/chaind', body: `#!/bin/sh\necho ${who}\n`, mode: 0o755 }];
  return tgz(entries);
};
const sha256 = (b: Buffer | string): string => hex('sha256', Buffer.from(b));
const infoDoc = (url: string): string => JSON.stringify({ binaries: { any: url } });
const NO_CHECKSUM = 'no checksum given (add ?checksum=sha256:<hex> to the URL, or explicitly allow downloads without a checksum)';

/** Runs the chaind CLI as a child process; its exit code and output. */
function cli(args: readonly string[]): Promise<{ code: number | null; stdout: string; stderr: string }> {
  return new Promise((res, rej) => {
    const c = spawn(process.execPath, [CHAIND, ...args], { env: { ...process.env, CHAIND_RELEASE: 'v1' }, stdio: ['ignore', 'pipe', 'pipe'], timeout: 120_000 });
    let stdout = '';
    let stderr = '';
    c.stdout.on('data', (d: Buffer) => (stdout += d.toString()));
    c.stderr.on('data', (d: Buffer) => (stderr += d.toString()));
    c.on('error', rej);
    c.on('close', (code) => res({ code, stdout, stderr }));
  });
}

async function until<T>(what: string, ms: number, probe: () => Promise<T | undefined>): Promise<T> {
  const end = Date.now() + ms;
  for (;;) {
    const v = await probe().catch(() => undefined);
    if (v !== undefined) return v;
    if (Date.now() > end) throw new Error(`timed out after ${ms} ms waiting for ${what}`);
    await new Promise((r) => setTimeout(r, 200));
  }
}

interface Chain {
  readonly home: string;
  readonly cv: string;
  readonly rpc: string;
  readonly visor: ChildProcess;
  readonly exit: Promise<{ code: number | null; output: string }>;
  /** runs the chaind CLI against this chain's home and node */
  tx(args: readonly string[]): Promise<{ code: number | null; stdout: string; stderr: string }>;
  height(): Promise<number>;
}

const work: string[] = [];
const visors: ChildProcess[] = [];

/** A dev chain (6 s gov periods) created by chaind and run under `chainvisor run dev` with downloads allowed. */
async function startChain(): Promise<Chain> {
  const root = mkdtempSync(join(tmpdir(), 'chaind-info-url-'));
  work.push(root);
  const home = join(root, 'node');
  const cv = join(home, 'cosmovisor');
  mkdirSync(join(cv, 'genesis', 'bin'), { recursive: true });
  mkdirSync(join(cv, 'upgrades'), { recursive: true });
  const genesis = join(cv, 'genesis', 'bin', 'chaind');
  // from source, chaind is the newest release, which has v2's handler; the genesis binary must be v1's
  writeFileSync(genesis, `#!/bin/sh\nCHAIND_RELEASE=v1 exec "${process.execPath}" "${CHAIND}" "$@"\n`);
  chmodSync(genesis, 0o755);
  symlinkSync('genesis', join(cv, 'current'));
  const [rpcPort, restPort, grpcPort] = [await freePort(), await freePort(), await freePort()];
  const rpc = `http://127.0.0.1:${rpcPort}`;
  const addr = ['--rpc.laddr', `tcp://127.0.0.1:${rpcPort}`, '--api.address', `tcp://127.0.0.1:${restPort}`, '--grpc.address', `127.0.0.1:${grpcPort}`];
  const made = await cli(['dev', '--home', home, '--gov-period', '6s', '--halt-height', '1', ...addr]);
  assert.equal(made.code, 0, made.stderr);
  const env = {
    PATH: process.env.PATH ?? '',
    DAEMON_HOME: home,
    DAEMON_NAME: 'chaind',
    DAEMON_ALLOW_DOWNLOAD_BINARIES: 'true',
    // the mirror is on loopback, which plain http may reach only when allowed
    DAEMON_ALLOW_LOOPBACK_HTTP: 'true',
    DAEMON_POLL_INTERVAL: '100ms',
    DAEMON_RPC_ADDRESS: rpc,
    COSMOVISOR_COLOR_LOGS: 'false',
    COSMOVISOR_TIMEFORMAT_LOGS: 'none',
  };
  // its own process group: the node it starts goes with it when the test ends
  const visor = spawn(process.execPath, [CHAINVISOR, 'run', 'dev', '--home', home, ...addr], { env, stdio: ['ignore', 'pipe', 'pipe'], detached: true });
  visors.push(visor);
  let output = '';
  visor.stdout.on('data', (d: Buffer) => (output += d.toString()));
  visor.stderr.on('data', (d: Buffer) => (output += d.toString()));
  const exit = new Promise<{ code: number | null; output: string }>((r) => visor.on('close', (code) => r({ code, output })));
  const height = async (): Promise<number> => {
    const r = await fetch(rpc, { method: 'POST', headers: { 'content-type': 'application/json' }, body: JSON.stringify({ jsonrpc: '2.0', id: 1, method: 'status', params: {} }) });
    return Number(((await r.json()) as { result: { sync_info: { latest_block_height: string } } }).result.sync_info.latest_block_height);
  };
  const flags = ['--home', home, '--keyring-backend', 'test', '--node', rpc, '-y', '--broadcast-mode', 'commit', '--gas', 'auto', '--gas-adjustment', '1.5', '--fees', '5000stake'];
  const chain: Chain = { home, cv, rpc, visor, exit, height, tx: (args) => cli([...args, ...flags]) };
  const exited = exit.then(({ code }) => {
    throw new Error(`chainvisor exited (${code})`);
  });
  exited.catch(() => {});
  await Promise.race([exited, until('the node under chainvisor', 60_000, async () => ((await height()) >= 2 ? true : undefined))]).catch((e: Error) => {
    throw new Error(`${e.message}; chainvisor and the node printed:\n${output.slice(-3000)}`);
  });
  return chain;
}

const propose = (c: Chain, h: number, info: string, extra: readonly string[] = []): Promise<{ code: number | null; stdout: string; stderr: string }> =>
  c.tx(['tx', 'upgrade', 'software-upgrade', 'v2', '--title', 'v2', '--summary', 's', '--deposit', '10000000stake', '--upgrade-height', String(h), '--upgrade-info', info, '--allow-loopback-http', '--from', 'alice', ...extra]);

/** Votes yes on proposal 1 and waits until its plan is scheduled (before its height). */
async function passAndWait(c: Chain, h: number): Promise<void> {
  const voted = await c.tx(['tx', 'gov', 'vote', '1', 'yes', '--from', 'validator']);
  assert.equal(voted.code, 0, voted.stderr);
  assert.equal((JSON.parse(voted.stdout) as { code: number }).code, 0, voted.stdout);
  await until('the plan to pass', 60_000, async () => {
    const r = await cli(['query', 'upgrade', 'plan', '-o', 'json', '--node', c.rpc]);
    return r.code === 0 && r.stdout.includes('"v2"') ? true : undefined;
  });
  assert.ok((await c.height()) < h - 1, 'the plan passed before its height');
}

/** chainvisor's end: the upgrade refused with one ERR line, the node never replaced. */
async function assertRefused(c: Chain, h: number, why: string): Promise<void> {
  const { code, output } = await c.exit;
  assert.equal(code, UPGRADE_FAILED, output.slice(-4000));
  assert.match(output, new RegExp(`UPGRADE "v2" NEEDED at height: ${h}`));
  const errors = output.split('\n').filter((l) => l.startsWith('[chainvisor] ERR '));
  assert.deepEqual(errors, [`[chainvisor] ERR download of upgrade v2 failed: ${why}; current unchanged`]);
  assert.equal(readlinkSync(join(c.cv, 'current')), 'genesis');
  assert.deepEqual(readdirSync(join(c.cv, 'upgrades')), [], 'nothing installed');
}

describe('plan.info as a URL under a real chainvisor and node: the document must be pinned', () => {
  let srv: Served | undefined;
  afterEach(async () => {
    for (const v of visors.splice(0)) {
      try {
        if (v.pid !== undefined) process.kill(-v.pid, 'SIGKILL');
      } catch {
        // gone already
      }
    }
    await srv?.close();
    srv = undefined;
    for (const d of work.splice(0)) rmSync(d, { recursive: true, force: true });
  });

  test('the mirror swaps the pinned document after the vote: refused at the halt (checksum mismatch), B never fetched', { timeout: 240_000 }, async () => {
    const s = (srv = await serve());
    const [a, b] = [release('A'), release('B')];
    s.file('/a.tar.gz', a);
    s.file('/b.tar.gz', b);
    const docA = infoDoc(`${s.base}/a.tar.gz?checksum=sha256:${sha256(a)}`);
    const docB = infoDoc(`${s.base}/b.tar.gz?checksum=sha256:${sha256(b)}`);
    s.file('/info.json', Buffer.from(docA));
    const c = await startChain();
    const h = (await c.height()) + 25;
    const info = `${s.base}/info.json?checksum=sha256:${sha256(docA)}`;

    // the proposer's CLI fetches the pinned document and downloads A: it passes
    const submitted = await propose(c, h, info);
    assert.equal(submitted.code, 0, submitted.stderr);
    assert.equal((JSON.parse(submitted.stdout) as { code: number }).code, 0, submitted.stdout);
    await passAndWait(c, h);
    // after the vote, before the halt: whoever controls the mirror serves B, with B's own correct checksum
    s.file('/info.json', Buffer.from(docB));
    const before = s.hits.length;

    await assertRefused(c, h, `checksum mismatch for ${s.base}/info.json: expected sha256 ${sha256(docA)}, got ${sha256(docB)}`);
    assert.deepEqual(s.hits.slice(before), ['/info.json'], 'chainvisor fetched the document once (without the checksum parameter) and never B');
    assert.equal(existsSync(join(c.cv, 'upgrades', 'v2')), false);
  });

  test('an info URL without a checksum: the CLI refuses it; proposed anyway (--no-validate), chainvisor refuses it at the halt without fetching', { timeout: 240_000 }, async () => {
    const s = (srv = await serve());
    const a = release('A');
    s.file('/a.tar.gz', a);
    s.file('/info.json', Buffer.from(infoDoc(`${s.base}/a.tar.gz?checksum=sha256:${sha256(a)}`)));
    const c = await startChain();
    const h = (await c.height()) + 25;
    const info = `${s.base}/info.json`;

    const refused = await propose(c, h, info);
    assert.equal(refused.code, 1, refused.stdout);
    assert.equal(refused.stderr.trim(), `Error: invalid --upgrade-info: refusing to download ${s.base}/info.json: ${NO_CHECKSUM}`);
    assert.deepEqual(s.hits, [], 'the CLI refused before connecting');

    const submitted = await propose(c, h, info, ['--no-validate']);
    assert.equal(submitted.code, 0, submitted.stderr);
    await passAndWait(c, h);

    await assertRefused(c, h, `refusing to download ${s.base}/info.json: ${NO_CHECKSUM}`);
    assert.deepEqual(s.hits, [], 'nothing was fetched');
  });
});

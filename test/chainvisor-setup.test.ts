// Issue 31 §5: docs/chainvisor.md's setup, followed literally, failed at the first start: the home was made
// by the sources' `chaind init` (the newest release, whose genesis has v2's "chaininfo") and started by v1
// under chainvisor, which refused it. Here the "## Setup" block is read from the docs and run as written, in
// a shell, on a fresh copy of the repository (so `npm run release` builds the real archives there) with
// HOME in a temp folder (so `$HOME/.mychain` is too); only the node's ports are moved off the defaults
// before the last line (`chainvisor run start`), so that the test does not take a machine's 26657 or 9090.
import assert from 'node:assert/strict';
import { spawn } from 'node:child_process';
import { existsSync, mkdtempSync, readFileSync, rmSync, writeFileSync } from 'node:fs';
import { tmpdir } from 'node:os';
import { join } from 'node:path';
import { after, test } from 'node:test';
import { cometForTests, cometHeight, freePorts, setTomlValue } from '@chaind/chaind/testing';
import { cleanUp, copyOfRepository, ROOT } from './kit/repo.ts';

const groups: number[] = [];
const homes: string[] = [];
after(() => {
  for (const pid of groups) {
    try {
      process.kill(-pid, 'SIGKILL');
    } catch {
      // gone already
    }
  }
  for (const h of homes) rmSync(h, { recursive: true, force: true });
  cleanUp();
});

interface Shell {
  readonly exited: Promise<number | null>;
  output(): string;
}

/** `sh -ec <script>` in its own process group (killed by `after`), its output kept. */
function sh(script: string, cwd: string, env: NodeJS.ProcessEnv): Shell {
  const child = spawn('sh', ['-ec', script], { cwd, env, stdio: ['ignore', 'pipe', 'pipe'], detached: true });
  groups.push(child.pid as number);
  let out = '';
  child.stdout.on('data', (d: Buffer) => (out += d.toString()));
  child.stderr.on('data', (d: Buffer) => (out += d.toString()));
  return { exited: new Promise((res) => child.once('close', res)), output: () => out };
}

/** The first ```sh block after "## Setup" in docs/chainvisor.md. */
function setupBlock(): string[] {
  const doc = readFileSync(join(ROOT, 'docs/chainvisor.md'), 'utf8');
  const m = /^## Setup\n[\s\S]*?^```sh\n([\s\S]*?)^```$/m.exec(doc);
  assert.ok(m, 'docs/chainvisor.md has a "## Setup" section with a sh block');
  return m[1].trimEnd().split('\n');
}

const comet = cometForTests();

test(
  'docs/chainvisor.md "Setup", run as written on a fresh copy: the first start under chainvisor commits blocks',
  { skip: comet.skip, timeout: 420_000 },
  async () => {
    const lines = setupBlock();
    const last = lines.pop() ?? '';
    assert.match(last, /^npx chainvisor run start --home \$DAEMON_HOME\b/, 'the block ends by starting the node under chainvisor');
    const repo = copyOfRepository();
    const home = mkdtempSync(join(tmpdir(), 'chaind-setup-home-'));
    homes.push(home);
    // a child of the test runner must not report to it as a subtest
    const { NODE_TEST_CONTEXT: _, ...parent } = process.env;
    const env: NodeJS.ProcessEnv = { ...parent, HOME: home, COMETBFT_BIN: comet.bin ?? '' };
    for (const k of Object.keys(env)) if (k.startsWith('DAEMON_') || k.startsWith('COSMOVISOR_') || k.startsWith('CHAIND_')) delete env[k];

    const setup = sh(lines.join('\n'), repo, env);
    assert.equal(await setup.exited, 0, `the setup failed:\n${setup.output().slice(-6000)}`);
    const daemonHome = join(home, '.mychain');
    const genesis = JSON.parse(readFileSync(join(daemonHome, 'config', 'genesis.json'), 'utf8')) as { app_version?: string };
    assert.equal(genesis.app_version, 'v1', "the genesis is the genesis release's");
    assert.ok(existsSync(join(daemonHome, 'cosmovisor', 'upgrades', 'v2', 'bin', 'chaind')), 'the optional add-upgrade installed v2');

    // the node's ports, off the defaults
    const [rpc, p2p, api, grpc] = await freePorts(4);
    const configToml = join(daemonHome, 'config', 'config.toml');
    const appToml = join(daemonHome, 'config', 'app.toml');
    writeFileSync(
      configToml,
      setTomlValue(setTomlValue(readFileSync(configToml, 'utf8'), 'rpc', 'laddr', `tcp://127.0.0.1:${rpc}`), 'p2p', 'laddr', `tcp://127.0.0.1:${p2p}`),
    );
    writeFileSync(
      appToml,
      setTomlValue(setTomlValue(readFileSync(appToml, 'utf8'), 'api', 'address', `tcp://127.0.0.1:${api}`), 'grpc', 'address', `127.0.0.1:${grpc}`),
    );
    const rpcUrl = `http://127.0.0.1:${rpc}`;

    const exports = lines.filter((l) => l.startsWith('export '));
    const run = sh([...exports, last].join('\n'), repo, { ...env, DAEMON_RPC_ADDRESS: rpcUrl, DAEMON_GRPC_ADDRESS: `127.0.0.1:${grpc}` });
    const end = Date.now() + 120_000;
    let height: bigint | undefined;
    while ((height ?? 0n) < 2n) {
      const out = run.output();
      assert.doesNotMatch(out, /unknown module/, out.slice(-4000));
      if (Date.now() > end) assert.fail(`no block 2 within 120 s:\n${out.slice(-4000)}`);
      const exited = await Promise.race([run.exited.then(() => true), new Promise<false>((r) => setTimeout(() => r(false), 500))]);
      if (exited) assert.fail(`chainvisor exited before block 2:\n${run.output().slice(-4000)}`);
      height = await cometHeight(rpcUrl);
    }
    const out = run.output();
    assert.match(out, /\[chainvisor\] \S* ?INF starting \S+\/\.mychain\/cosmovisor\/genesis\/bin\/chaind start --home \S+\/\.mychain\n/);
    assert.doesNotMatch(out, /\[chainvisor\] .*ERR /);
  },
);

// Issue 31 §5: docs/chainvisor.md's setup, followed literally, failed at the first start: the home was made
// by the sources' `chaind init` (the newest release, whose genesis has v2's "chaininfo") and started by v1
// under chainvisor, which refused it. Here the "## Setup" block is read from the docs and run as written, in
// a shell, on a fresh copy of the repository (so `npm run release` builds the real archives there) with
// HOME in a temp folder (so `$HOME/.mychain` is too); only the node's ports are moved off the defaults
// before the last line (`chainvisor run start`), so that the test does not take a machine's 26657 or 9090.
import assert from 'node:assert/strict';
import { existsSync, mkdtempSync, readFileSync, rmSync, writeFileSync } from 'node:fs';
import { tmpdir } from 'node:os';
import { join } from 'node:path';
import { after, test } from 'node:test';
import { cometForTests, cometHeight, freePorts, GroupChild, setTomlValue } from '@chaind/chaind/testing';
import { cleanUp, copyOfRepository, ROOT } from './kit/repo.ts';

const homes: string[] = [];
after(async () => {
  await GroupChild.killAllGroups();
  for (const h of homes) rmSync(h, { recursive: true, force: true });
  cleanUp();
});

/** `sh -ec <script>` in `cwd`, in its own process group (killed by `after`), its output kept. */
const sh = (script: string, cwd: string, env: NodeJS.ProcessEnv): GroupChild =>
  GroupChild.spawnProgram('sh', ['-ec', script], env, `sh -ec ${script.split('\n')[0]}…`, cwd);

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
    assert.equal((await setup.exited).code, 0, `the setup failed:\n${setup.log().slice(-6000)}`);
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
      const out = run.log();
      assert.doesNotMatch(out, /unknown module/, out.slice(-4000));
      if (Date.now() > end) assert.fail(`no block 2 within 120 s:\n${out.slice(-4000)}`);
      const exited = await Promise.race([run.exited.then(() => true), new Promise<false>((r) => setTimeout(() => r(false), 500))]);
      if (exited) assert.fail(`chainvisor exited before block 2:\n${run.log().slice(-4000)}`);
      height = await cometHeight(rpcUrl);
    }
    const out = run.log();
    assert.match(out, /\[chainvisor\] \S* ?INF starting \S+\/\.mychain\/cosmovisor\/genesis\/bin\/chaind start --home \S+\/\.mychain\n/);
    assert.doesNotMatch(out, /\[chainvisor\] .*ERR /);
  },
);

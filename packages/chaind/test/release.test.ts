// Release selection, and `npm run release`: both archives built into a temp folder outside the repo,
// extracted elsewhere and run there — without the repository's node_modules.
import assert from 'node:assert/strict';
import { createHash } from 'node:crypto';
import { mkdirSync, mkdtempSync, readdirSync, readFileSync, rmSync, statSync } from 'node:fs';
import { tmpdir } from 'node:os';
import { join } from 'node:path';
import { after, before, describe, test } from 'node:test';
import { fileURLToPath } from 'node:url';
import { extract } from 'tar';
import { LATEST_RELEASE, RELEASES, releaseName } from '../src/release.ts';
import { runInGroup, startDevNode, type GroupRun } from '@chaind/chaind/testing';

const ROOT = fileURLToPath(new URL('../../../', import.meta.url));
const PLATFORM = `${process.platform === 'win32' ? 'windows' : process.platform}-${({ x64: 'amd64', ia32: '386' } as Record<string, string>)[process.arch] ?? process.arch}`;

/** Runs a command to its end (its process group with it); the environment has no CHAIND_* and no NODE_PATH, so nothing leads back to the repo. */
const run = (cmd: string, args: readonly string[], cwd: string, env: Record<string, string> = {}): Promise<GroupRun> =>
  runInGroup(cmd, args, { cwd, env: { ...cleanEnv(), ...env } });

function cleanEnv(): NodeJS.ProcessEnv {
  const env: NodeJS.ProcessEnv = {};
  for (const [k, v] of Object.entries(process.env)) if (!k.startsWith('CHAIND_') && k !== 'NODE_PATH' && k !== 'NODE_OPTIONS') env[k] = v;
  return env;
}

describe('release selection', () => {
  test('CHAIND_RELEASE names a release; unset means the latest; anything else is refused', () => {
    assert.equal(releaseName(undefined), LATEST_RELEASE);
    assert.equal(releaseName(''), LATEST_RELEASE);
    assert.equal(releaseName('v1'), 'v1');
    assert.throws(() => releaseName('v99'), { name: 'ReleaseError', message: `unknown release CHAIND_RELEASE="v99": expected one of ${RELEASES.join(', ')}` });
  });

  test('from source, CHAIND_RELEASE selects the upgrades: v1 knows none, v2 knows v2, the default (the latest) every upgrade', async () => {
    const upgrades = async (env: Record<string, string>): Promise<string> => {
      const code = "const m = await import('./packages/chaind/src/upgrades/index.ts'); console.log(JSON.stringify(m.UPGRADES.map((u) => u.name)))";
      const r = await run(process.execPath, ['--import', 'tsx', '--input-type=module', '-e', code], ROOT, env);
      assert.equal(r.code, 0, r.stderr);
      return r.stdout.trim();
    };
    assert.equal(await upgrades({ CHAIND_RELEASE: 'v1' }), '[]');
    assert.equal(await upgrades({}), JSON.stringify(RELEASES.slice(1)));
    assert.equal(await upgrades({ CHAIND_RELEASE: 'v2' }), '["v2"]');
    const bad = await run(process.execPath, [join(ROOT, 'packages/chaind/bin/chaind.js'), 'version'], ROOT, { CHAIND_RELEASE: 'v9' });
    assert.equal(bad.code, 1);
    assert.equal(bad.stderr, `Error: unknown release CHAIND_RELEASE="v9": expected one of ${RELEASES.join(', ')}\n`);
  });
});

describe('npm run release', { timeout: 600_000 }, () => {
  const tmp = mkdtempSync(join(tmpdir(), 'chaind-release-test-'));
  const out = join(tmp, 'out');
  const x = { v1: join(tmp, 'x-v1'), v2: join(tmp, 'x-v2') };
  after(() => rmSync(tmp, { recursive: true, force: true }));

  before(async () => {
    const r = await run(process.execPath, [join(ROOT, 'scripts/release.mjs'), '--out', out], ROOT);
    assert.equal(r.code, 0, r.stderr);
    for (const v of ['v1', 'v2'] as const) {
      mkdirSync(x[v]);
      await extract({ file: join(out, `chaind-${v}-${PLATFORM}.tar.gz`), cwd: x[v] });
    }
  });

  test('bad options are refused with usage', async () => {
    const r = await run(process.execPath, [join(ROOT, 'scripts/release.mjs'), '--release', 'v7', '--out', join(tmp, 'never')], ROOT);
    assert.equal(r.code, 2);
    assert.ok(r.stderr.startsWith(`release: unknown release "v7": expected one of ${RELEASES.join(', ')}\nusage: `), r.stderr);
  });

  test('one archive per release and a SHA256SUMS in sha256sum format', () => {
    const sums = readFileSync(join(out, 'SHA256SUMS'), 'utf8');
    const want = [...RELEASES]
      .map((v) => `chaind-${v}-${PLATFORM}.tar.gz`)
      .sort()
      .map(
        (f) =>
          `${createHash('sha256')
            .update(readFileSync(join(out, f)))
            .digest('hex')}  ${f}\n`,
      )
      .join('');
    assert.equal(sums, want);
  });

  test('bin/chaind is an executable launcher at the archive root; the v1 bundle has none of v2', () => {
    for (const v of ['v1', 'v2'] as const) {
      const launcher = join(x[v], 'bin/chaind');
      assert.ok(statSync(launcher).isFile());
      assert.equal(statSync(launcher).mode & 0o111, 0o111, 'executable');
      // the development launcher's shebang, with chaind's Node flags
      const shebang = readFileSync(join(ROOT, 'packages/chaind/bin/chaind.js'), 'utf8').split('\n')[0];
      assert.equal(shebang, '#!/usr/bin/env -S node --max-semi-space-size=64 --min-semi-space-size=64');
      assert.equal(readFileSync(launcher, 'utf8').split('\n')[0], shebang);
    }
    // the bundle and its chunks (what start and dev load lazily)
    const code = (dir: string): string =>
      readdirSync(join(dir, 'bin'))
        .filter((f) => f.endsWith('.mjs'))
        .map((f) => readFileSync(join(dir, 'bin', f), 'utf8'))
        .join('\n');
    const v1 = code(x.v1);
    const v2 = code(x.v2);
    for (const code of ['"chaininfo"', '"valset"', 'chaininfo genesis:']) {
      assert.ok(v2.includes(code), `v2 has ${code}`);
      assert.ok(!v1.includes(code), `v1 has no ${code}`);
    }
  });

  test("the signature worker runs from its own bundle beside the node's, on the release's secp256k1", async () => {
    // a batch of two triples (key length, key, signature, sign bytes' sha256): a signature over its own sign bytes, then over others
    const code = `
      import { createHash } from 'node:crypto';
      import { createRequire } from 'node:module';
      import { pathToFileURL } from 'node:url';
      import { Worker } from 'node:worker_threads';
      const bin = pathToFileURL(process.cwd() + '/bin/');
      const require = createRequire(new URL('chaind.mjs', bin));
      const secp256k1 = require.resolve('secp256k1/bindings');
      const secp = require(secp256k1);
      const key = createHash('sha256').update('release').digest();
      const pub = secp.publicKeyCreate(key, true);
      const doc = Buffer.from('sign doc');
      const sig = secp.ecdsaSign(createHash('sha256').update(doc).digest(), key).signature;
      const u32 = (n) => { const b = Buffer.alloc(4); b.writeUInt32LE(n); return b; };
      const triple = (d) => Buffer.concat([Buffer.from([pub.length]), pub, sig, createHash('sha256').update(d).digest()]);
      const batch = Buffer.concat([u32(2), triple(doc), triple(Buffer.from('other'))]);
      // execArgv: not this script's --input-type, which a worker's file entry refuses
      const w = new Worker(new URL('verify-worker.mjs', bin), { workerData: { secp256k1 }, execArgv: [] });
      w.on('error', (e) => { console.error(e); process.exit(1); });
      w.once('message', (a) => { console.log(JSON.stringify(Array.from(a))); void w.terminate(); });
      w.postMessage(batch.buffer.slice(batch.byteOffset, batch.byteOffset + batch.length));
    `;
    const r = await run(process.execPath, ['--input-type=module', '-e', code], x.v2);
    assert.equal(r.code, 0, r.stderr);
    assert.equal(r.stdout, '[1,0]\n');
  });

  test("both run `version --long` from their folder: the release's upgrades and the commit built in", async () => {
    for (const [v, upgrades] of [
      ['v1', []],
      ['v2', ['v2']],
    ] as const) {
      const r = await run(join(x[v], 'bin/chaind'), ['version', '--long', '-o', 'json'], x[v]);
      assert.equal(r.code, 0, r.stderr);
      const info = JSON.parse(r.stdout) as { version: string; package_version: string; commit: string; upgrades: string[] };
      // each release calls itself by its name; the package version is the same for both
      assert.equal(info.version, v);
      assert.match(info.package_version, /^\d+\.\d+\.\d+/);
      assert.match(info.commit, /^[0-9a-f]{40}$/);
      assert.deepEqual(info.upgrades, upgrades);
    }
  });

  test('the extracted v2: init, a genesis validator, start; first block, every server up, SIGTERM → clean exit', { timeout: 180_000 }, async () => {
    const bin = join(x.v2, 'bin/chaind');
    const home = join(tmp, 'home');
    const ok = async (args: string[]): Promise<void> => {
      const r = await run(bin, [...args, '--home', home], tmp);
      assert.equal(r.code, 0, `${args.join(' ')}: ${r.stderr}`);
    };
    await ok(['init', 'n1', '--chain-id', 'release-test-1']);
    await ok(['keys', 'add', 'validator', '--keyring-backend', 'test']);
    await ok(['genesis', 'add-account', 'validator', '1000000000stake', '--keyring-backend', 'test']);
    await ok(['genesis', 'add-validator', 'validator', '10', '--keyring-backend', 'test']);
    const node = await startDevNode(home, { servers: true, program: { path: bin, cwd: tmp, env: cleanEnv() } });
    let code: number | null;
    try {
      await node.proc.waitForLog(/committed block height=1 /);
      // the modules of release v2, read through the bundled REST gateway (descriptors found beside the bundle)
      const versions = (await (await fetch(`${node.rest}/chain/upgrade/v1beta1/module_versions`)).json()) as {
        module_versions: { name: string; version: string }[];
      };
      assert.deepEqual(
        versions.module_versions.map((m) => `${m.name}@${m.version}`),
        ['auth@1', 'bank@1', 'chaininfo@1', 'gov@1', 'upgrade@1', 'validators@2'],
      );
      // @fastify/swagger-ui's static files, shipped beside the bundle
      const ui = await fetch(`${node.rest}/swagger/static/swagger-ui.css`);
      assert.equal(ui.status, 200);
      await ui.arrayBuffer();
    } finally {
      code = await node.stop();
    }
    assert.equal(code, 0, node.proc.log());
    assert.match(node.proc.log(), /node stopped/);
  });
});

// `chaind version` as an operator (or chainvisor) runs it: the release name, as a Cosmos binary prints
// its tag, not the package version every release shares; --long keeps the rest; and the command's module
// loads nothing heavy unless --long asks for the upgrades table.
import assert from 'node:assert/strict';
import { readFileSync } from 'node:fs';
import { fileURLToPath } from 'node:url';
import { describe, test } from 'node:test';
import { RELEASES } from '../../src/release.ts';
import { CHAIND_PACKAGE_VERSION } from '../../src/version.ts';
import { ok, runInGroup } from '@chaind/chaind/testing';

const PACKAGE_VERSION = (JSON.parse(readFileSync(new URL('../../package.json', import.meta.url), 'utf8')) as { version: string }).version;

describe('chaind version', () => {
  test('prints the release name (v1, v2, …), also as JSON and as --version', async () => {
    for (const release of RELEASES) {
      const env = { CHAIND_RELEASE: release };
      assert.equal((await ok(['version'], { env })).stdout, `${release}\n`);
      assert.equal((await ok(['version', '-o', 'json'], { env })).stdout, `${JSON.stringify({ version: release })}\n`);
      assert.equal((await ok(['--version'], { env })).stdout, `${release}\n`);
    }
    // from the sources without CHAIND_RELEASE: the newest release
    assert.equal((await ok(['version'])).stdout, `${RELEASES[RELEASES.length - 1]}\n`);
  });

  test('--long: the release name as version, the package version, commit, runtime and the upgrades', async () => {
    const r = await ok(['version', '--long', '-o', 'json'], { env: { CHAIND_RELEASE: 'v1' } });
    const info = JSON.parse(r.stdout) as Record<string, unknown>;
    assert.equal(info.version, 'v1');
    assert.equal(info.package_version, PACKAGE_VERSION);
    assert.match(info.commit as string, /^([0-9a-f]{40})?$/);
    assert.deepEqual(info.upgrades, []);
    const text = (await ok(['version', '--long'], { env: { CHAIND_RELEASE: 'v2' } })).stdout;
    assert.match(text, /^name: chaind$/m);
    assert.match(text, /^version: v2$/m);
    assert.match(text, new RegExp(`^package_version: "?${PACKAGE_VERSION.replaceAll('.', '\\.')}"?$`, 'm'));
    assert.match(text, /^upgrades:\n- v2$/m);
  });

  test("the package version in version.ts is package.json's", () => {
    assert.equal(CHAIND_PACKAGE_VERSION, PACKAGE_VERSION);
  });

  // Loads src/cli/version.ts alone (main.ts's imports are not this module's business) with a resolve hook
  // that reports every module loaded, runs `version` and `version --long`, and prints what was loaded.
  const loaded = async (args: readonly string[]): Promise<{ stdout: string; modules: string[] }> => {
    const hook = `let port; export function initialize(d) { port = d.port; }
      export async function resolve(s, c, next) { const r = await next(s, c); port.postMessage(r.url); return r; }`;
    const script = `
      import { register } from 'node:module';
      import { MessageChannel } from 'node:worker_threads';
      const { port1, port2 } = new MessageChannel();
      const seen = new Set();
      port1.on('message', (u) => seen.add(u));
      register('data:text/javascript,' + encodeURIComponent(${JSON.stringify(hook)}), { data: { port: port2 }, transferList: [port2] });
      const { register: tsx } = await import('tsx/esm/api');
      tsx();
      const { Command } = await import('commander');
      const { registerVersionCommand } = await import(${JSON.stringify(fileURLToPath(new URL('../../src/cli/version.ts', import.meta.url)))});
      const program = new Command('chaind');
      registerVersionCommand(program);
      await program.parseAsync(${JSON.stringify(['node', 'chaind', ...args])});
      await new Promise((r) => setTimeout(r, 200));
      port1.close();
      process.stderr.write(JSON.stringify([...seen]));
    `;
    const r = await runInGroup(process.execPath, ['--input-type=module', '-e', script], { cwd: fileURLToPath(new URL('../..', import.meta.url)) });
    if (r.code !== 0) throw new Error(`exit ${r.code}: ${r.stderr}`);
    const modules = (JSON.parse(r.stderr.slice(r.stderr.lastIndexOf('\n') + 1)) as string[]).filter((u) => u.startsWith('file:'));
    return { stdout: r.stdout, modules };
  };
  const heavy = /\/src\/upgrades\/|\/src\/app\.ts$|\/packages\/sdk\/|\/packages\/upgrade-plan\/|\/src\/cli\/common\.ts$/;

  test('version (without --long) loads nothing heavy: not the upgrades table, the app, the sdk, upgrade-plan or common.ts', async () => {
    const short = await loaded(['version']);
    assert.match(short.stdout, /^v\d+\n$/);
    assert.ok(
      short.modules.some((u) => u.endsWith('/src/cli/version.ts')),
      'the hook saw the modules',
    );
    assert.deepEqual(
      short.modules.filter((u) => heavy.test(u)),
      [],
    );
    // --long does load the upgrades table: the hook would have seen it
    const long = await loaded(['version', '--long', '-o', 'json']);
    assert.ok(
      long.modules.some((u) => u.includes('/src/upgrades/index.ts')),
      long.modules.join('\n'),
    );
    assert.ok(Array.isArray((JSON.parse(long.stdout) as { upgrades: unknown }).upgrades));
  });
});

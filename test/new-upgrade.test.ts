// `npm run new-upgrade -- v3` on a temporary full copy of the repository (its tracked and new files, and
// node_modules hard-linked), then what docs/upgrade-guide.md's walkthrough runs right after it: lint (tsc
// and eslint on the whole copy), the generated test, and the v3 release
// (its archive and `bin/chaind version --long`). The repository itself keeps its releases.
import assert from 'node:assert/strict';
import { execFileSync } from 'node:child_process';
import { mkdirSync, readdirSync, readFileSync, writeFileSync } from 'node:fs';
import { join } from 'node:path';
import { after, describe, test } from 'node:test';
import { removeTmpDirs } from '@chaind/chaind/testing';
import { cleanUp, copyOfRepository, runNode, type Run } from './kit/repo.ts';

after(() => {
  cleanUp();
  removeTmpDirs();
});

/** `node <args>` in `cwd`, as the latest release from source, in its own process group. */
const node = (cwd: string, args: readonly string[], timeoutMs = 180_000): Promise<Run> => runNode(args, { cwd, timeoutMs, env: { CHAIND_RELEASE: '' } });

const snapshot = (dir: string): string => ['packages/chaind/src/release.ts', 'packages/chaind/src/upgrades/index.ts'].map((f) => readFileSync(join(dir, f), 'utf8')).join('\0') + readdirSync(join(dir, 'packages/chaind/src/upgrades')).join(',');
const NEW_UPGRADE = 'scripts/new-upgrade.mjs';
const BIN = (dir: string, tool: string): string => join(dir, 'node_modules', tool);

/** The walkthrough's added module: one store, a record written by its InitGenesis. */
const NOTES_MODULE = `import type { AppModule } from '@chaind/sdk/app';
import { u64be } from '@chaind/sdk/store';

export function notesModule(): AppModule {
  return {
    name: 'notes',
    storeKeys: ['notes'],
    consensusVersion: 1n,
    defaultGenesis: () => ({}),
    initGenesis: (ctx) => ctx.kvStore('notes').set(Uint8Array.of(0x01), u64be(ctx.height)),
  };
}
`;

/** The walkthrough's v3: bank 1 → 2 (a record counting the balances) and the notes module, with `storeUpgrades`. */
const filledV3 = (storeUpgrades: string): string => `import { u64be } from '@chaind/sdk/store';
import type { Upgrade } from '../types.ts';
import { notesModule } from './notes.ts';

export const v3: Upgrade = {
  name: 'v3',
  storeUpgrades: ${storeUpgrades},
  modules: {
    bank: {
      consensusVersion: 2n,
      migrate(ctx) {
        let n = 0n;
        for (const _ of ctx.kvStore('bank').iterator(Uint8Array.of(0x02), Uint8Array.of(0x03))) n++;
        ctx.kvStore('bank').set(Uint8Array.of(0xf0), u64be(n));
      },
    },
    notes: { consensusVersion: 1n, create: notesModule },
  },
};
`;

describe('npm run new-upgrade', () => {
  test('v3 on a copy of the repository: lint, its test and the rehearsal from v2 pass with the empty upgrade, its release with a filled one; bad names change nothing', { timeout: 900_000 }, async () => {
    const repo = copyOfRepository();
    const before = snapshot(repo);
    for (const [name, error] of [
      ['V3', 'new-upgrade: bad name "V3": an upgrade name is a lower-case letter'],
      ['../x', 'new-upgrade: bad name "../x"'],
      ['class', 'new-upgrade: bad name "class": a reserved word or device name cannot name an upgrade'],
      ['v2', 'new-upgrade: release "v2" already exists (RELEASES: v1, v2): choose the next name'],
    ]) {
      const r = await node(repo, [NEW_UPGRADE, name]);
      assert.equal(r.code, 2, r.out);
      assert.ok(r.out.startsWith(error), r.out);
      assert.equal(snapshot(repo), before, `nothing written for ${name}`);
    }

    const made = await node(repo, [NEW_UPGRADE, 'v3']);
    assert.equal(made.code, 0, made.out);
    assert.match(made.out, /^new-upgrade: upgrade and release v3 after v2\n/);
    assert.match(made.out, /created {2}packages\/chaind\/src\/upgrades\/v3\/index\.ts\n/);
    assert.match(made.out, /created {2}packages\/chaind\/src\/upgrades\/v3\/v3\.test\.ts\n/);
    assert.match(made.out, /created {2}packages\/chaind\/src\/upgrades\/v3\/rehearsal\.ts\n/);
    assert.match(made.out, /npm run rehearse -- --from v2 --to v3/);
    assert.match(readFileSync(join(repo, 'packages/chaind/src/release.ts'), 'utf8'), /^export const RELEASES = \['v1', 'v2', 'v3'\] as const;$/m);
    const index = readFileSync(join(repo, 'packages/chaind/src/upgrades/index.ts'), 'utf8');
    assert.match(index, /^import \{ v2 \} from '\.\/v2\/index\.ts';\nimport \{ v3 \} from '\.\/v3\/index\.ts';$/m);
    assert.match(index, /= \{ v2, v3 \};$/m);
    const again = await node(repo, [NEW_UPGRADE, 'v3']);
    assert.equal(again.code, 2, again.out);
    assert.match(again.out, /^new-upgrade: release "v3" already exists/);

    // npm run lint (tsc -p tsconfig.json && eslint .) on the copy
    const tsc = await node(repo, [BIN(repo, 'typescript/bin/tsc'), '-p', 'tsconfig.json']);
    assert.equal(tsc.code, 0, tsc.out);
    const eslint = await node(repo, [BIN(repo, 'eslint/bin/eslint.js'), '.']);
    assert.equal(eslint.code, 0, eslint.out);

    // the generated test: v1 → v2 → v3 by governance, and the same layout as from v3's genesis
    const t = await node(repo, ['scripts/test.mjs', 'upgrades/v3/']);
    assert.equal(t.code, 0, t.out);
    assert.match(t.out, /^# pass 1$/m);
    assert.match(t.out, /^# fail 0$/m);

    // npm run rehearse -- --from v2 --to v3: the packaged v2 and the empty v3 under chainvisor, a governance
    // upgrade, the halt, the switch, v3 applying, and v3's scaffolded checks
    const rehearsed = await node(repo, ['--import', 'tsx', 'scripts/rehearse.ts', '--from', 'v2', '--to', 'v3'], 300_000);
    assert.equal(rehearsed.code, 0, rehearsed.out);
    assert.match(rehearsed.out, /v3: module versions after the upgrade at \d+/);
    assert.match(rehearsed.out, /^rehearsal: OK$/m);

    // step 3 of the walkthrough: bank 1 → 2 and a new module; the generated test, unchanged, checks it
    // and catches the most common mistake (the new module's store not in storeUpgrades.added)
    const v3Dir = join(repo, 'packages/chaind/src/upgrades/v3');
    writeFileSync(join(v3Dir, 'notes.ts'), NOTES_MODULE);
    writeFileSync(join(v3Dir, 'index.ts'), filledV3("{ added: ['notes'] }"));
    const filled = await node(repo, ['scripts/test.mjs', 'upgrades/v3/']);
    assert.equal(filled.code, 0, filled.out);
    writeFileSync(join(v3Dir, 'index.ts'), filledV3('{}'));
    const forgot = await node(repo, ['scripts/test.mjs', 'upgrades/v3/']);
    assert.equal(forgot.code, 1, forgot.out);
    assert.match(forgot.out, /store "notes" is mounted by the application but does not exist/);
    writeFileSync(join(v3Dir, 'index.ts'), filledV3("{ added: ['notes'] }"));

    // npm run release -- --release v3
    const out = join(repo, 'dist/releases');
    const rel = await node(repo, ['scripts/release.mjs', '--release', 'v3', '--out', out]);
    assert.equal(rel.code, 0, rel.out);
    const archive = readdirSync(out).find((f) => /^chaind-v3-[a-z0-9]+-[a-z0-9]+\.tar\.gz$/.test(f));
    assert.ok(archive, rel.out);
    const unpacked = join(repo, 'unpacked');
    mkdirSync(unpacked);
    execFileSync('tar', ['xzf', join(out, archive), '-C', unpacked]);
    const version = await node(unpacked, [join(unpacked, 'bin/chaind'), 'version', '--long', '-o', 'json']);
    assert.equal(version.code, 0, version.out);
    assert.deepEqual((JSON.parse(version.out) as { upgrades: string[] }).upgrades, ['v2', 'v3']);
  });
});

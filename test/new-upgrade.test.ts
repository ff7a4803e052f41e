// `npm run new-upgrade -- v3` on a temporary full copy of the repository (its tracked and new files, and
// node_modules hard-linked), then what docs/upgrade-guide.md's walkthrough runs right after it: lint (tsc
// and eslint on the whole copy), the generated test, and the v3 release
// (its archive and `bin/chaind version --long`). The repository itself keeps its releases.
import assert from 'node:assert/strict';
import { execFileSync } from 'node:child_process';
import { mkdirSync, readdirSync, readFileSync, writeFileSync } from 'node:fs';
import { join } from 'node:path';
import { after, describe, test } from 'node:test';
import { moduleVersions, upgradesOf } from '@chaind/chaind/app';
import { LATEST_RELEASE, RELEASES } from '@chaind/chaind/release';
import { removeTmpDirs } from '@chaind/chaind/testing';
import { cleanUp, copyOfRepository, runNode, type Run } from './kit/repo.ts';

after(() => {
  cleanUp();
  removeTmpDirs();
});

/** `node <args>` in `cwd`, as the latest release from source, in its own process group. */
const node = (cwd: string, args: readonly string[], timeoutMs = 180_000): Promise<Run> => runNode(args, { cwd, timeoutMs, env: { CHAIND_RELEASE: '' } });

const snapshot = (dir: string): string =>
  ['packages/chaind/src/release.ts', 'packages/chaind/src/upgrades/index.ts'].map((f) => readFileSync(join(dir, f), 'utf8')).join('\0') +
  readdirSync(join(dir, 'packages/chaind/src/upgrades')).join(',');
const NEW_UPGRADE = 'scripts/new-upgrade.mjs';
// the upgrade scaffolded here: v3 while the repository is at v2, and so on once a chain developer adds v3
const PREV = LATEST_RELEASE;
const NEXT = `v${RELEASES.length + 1}`;
const NOTES = `notes_${NEXT}`;
const NEXT_BANK = moduleVersions(upgradesOf(PREV)).bank + 1n;
const BIN = (dir: string, tool: string): string => join(dir, 'node_modules', tool);

/** The walkthrough's added module: one store, a record written by its InitGenesis. */
const NOTES_MODULE = `import type { AppModule } from '@chaind/sdk/app';
import { u64be } from '@chaind/sdk/store';

export function notesModule(): AppModule {
  return {
    name: '${NOTES}',
    storeKeys: ['${NOTES}'],
    consensusVersion: 1n,
    defaultGenesis: () => ({}),
    initGenesis: (ctx) => ctx.kvStore('${NOTES}').set(Uint8Array.of(0x01), u64be(ctx.height)),
  };
}
`;

/** The walkthrough's v3: bank 1 → 2 (a record counting the balances) and the notes module, with `storeUpgrades`. */
const filledNext = (storeUpgrades: string): string => `import { u64be } from '@chaind/sdk/store';
import type { Upgrade } from '../types.ts';
import { notesModule } from './notes.ts';

export const ${NEXT}: Upgrade = {
  name: '${NEXT}',
  storeUpgrades: ${storeUpgrades},
  modules: {
    bank: {
      consensusVersion: ${NEXT_BANK}n,
      migrate(ctx) {
        let n = 0n;
        for (const _ of ctx.kvStore('bank').iterator(Uint8Array.of(0x02), Uint8Array.of(0x03))) n++;
        ctx.kvStore('bank').set(Uint8Array.of(0xf0), u64be(n));
      },
    },
    ${NOTES}: { consensusVersion: 1n, create: notesModule },
  },
};
`;

describe('npm run new-upgrade', () => {
  test(
    `${NEXT} on a copy of the repository: lint, its test and the rehearsal from ${PREV} pass with the empty upgrade, its release with a filled one; bad names change nothing`,
    { timeout: 900_000 },
    async () => {
      const repo = copyOfRepository();
      const before = snapshot(repo);
      for (const [name, error] of [
        ['V3', 'new-upgrade: bad name "V3": an upgrade name is a lower-case letter'],
        ['../x', 'new-upgrade: bad name "../x"'],
        ['class', 'new-upgrade: bad name "class": a reserved word or device name cannot name an upgrade'],
        [PREV, `new-upgrade: release "${PREV}" already exists (RELEASES: ${RELEASES.join(', ')}): choose the next name`],
      ]) {
        const r = await node(repo, [NEW_UPGRADE, name]);
        assert.equal(r.code, 2, r.out);
        assert.ok(r.out.startsWith(error), r.out);
        assert.equal(snapshot(repo), before, `nothing written for ${name}`);
      }

      const made = await node(repo, [NEW_UPGRADE, NEXT]);
      assert.equal(made.code, 0, made.out);
      const dir = `packages/chaind/src/upgrades/${NEXT}`;
      assert.ok(made.out.startsWith(`new-upgrade: upgrade and release ${NEXT} after ${PREV}\n`), made.out);
      for (const f of [`${dir}/index.ts`, `${dir}/${NEXT}.test.ts`, `${dir}/rehearsal.ts`])
        assert.ok(made.out.includes(`created  ${f}\n`), `${f} in\n${made.out}`);
      assert.ok(made.out.includes(`npm run rehearse -- --from ${PREV} --to ${NEXT}`), made.out);
      const releases = [...RELEASES, NEXT].map((r) => `'${r}'`).join(', ');
      assert.ok(readFileSync(join(repo, 'packages/chaind/src/release.ts'), 'utf8').includes(`export const RELEASES = [${releases}] as const;\n`));
      const index = readFileSync(join(repo, 'packages/chaind/src/upgrades/index.ts'), 'utf8');
      assert.ok(index.includes(`import { ${PREV} } from './${PREV}/index.ts';\nimport { ${NEXT} } from './${NEXT}/index.ts';\n`), index);
      assert.ok(index.includes(`${PREV}, ${NEXT} };\n`), index);
      const again = await node(repo, [NEW_UPGRADE, NEXT]);
      assert.equal(again.code, 2, again.out);
      assert.ok(again.out.startsWith(`new-upgrade: release "${NEXT}" already exists`), again.out);

      // npm run lint (tsc -p tsconfig.json && eslint . && prettier --check .) on the copy and the generated test,
      // at once: they only read the copy's sources. The copy is the repository plus what new-upgrade wrote, so
      // this is also the suite's check that the repository itself passes lint (test/workspace.test.ts has none)
      const [tsc, eslint, prettier, t] = await Promise.all([
        node(repo, [BIN(repo, 'typescript/bin/tsc'), '-p', 'tsconfig.json'], 300_000),
        node(repo, [BIN(repo, 'eslint/bin/eslint.js'), '.'], 300_000),
        node(repo, [BIN(repo, 'prettier/bin/prettier.cjs'), '--check', '.']),
        // the generated test: every upgrade up to the new one by governance, and the same layout as from its genesis
        node(repo, ['scripts/test.mjs', `upgrades/${NEXT}/`], 300_000),
      ]);
      assert.equal(tsc.code, 0, tsc.out);
      assert.equal(eslint.code, 0, eslint.out);
      assert.equal(prettier.code, 0, prettier.out);
      assert.equal(t.code, 0, t.out);
      assert.match(t.out, /^# pass 1$/m);
      assert.match(t.out, /^# fail 0$/m);

      // npm run rehearse -- --from v2 --to v3: the packaged v2 and the empty v3 under chainvisor, a governance
      // upgrade, the halt, the switch, v3 applying, and v3's scaffolded checks. Alone: beside lint its CLI
      // steps took so long under load that the vote came after the 10 s voting period
      const rehearsed = await node(repo, ['--import', 'tsx', 'scripts/rehearse.ts', '--from', PREV, '--to', NEXT], 300_000);
      assert.equal(rehearsed.code, 0, rehearsed.out);
      assert.match(rehearsed.out, new RegExp(`${NEXT}: module versions after the upgrade at \\d+`));
      assert.match(rehearsed.out, /^rehearsal: OK$/m);

      // step 3 of the walkthrough: bank 1 → 2 and a new module; the generated test, unchanged, checks it
      // and catches the most common mistake (the new module's store not in storeUpgrades.added)
      const nextDir = join(repo, dir);
      writeFileSync(join(nextDir, 'notes.ts'), NOTES_MODULE);
      writeFileSync(join(nextDir, 'index.ts'), filledNext(`{ added: ['${NOTES}'] }`));
      const filled = await node(repo, ['scripts/test.mjs', `upgrades/${NEXT}/`]);
      assert.equal(filled.code, 0, filled.out);
      writeFileSync(join(nextDir, 'index.ts'), filledNext('{}'));
      const forgot = await node(repo, ['scripts/test.mjs', `upgrades/${NEXT}/`]);
      assert.equal(forgot.code, 1, forgot.out);
      assert.ok(forgot.out.includes(`store "${NOTES}" is mounted by the application but does not exist`), forgot.out);
      writeFileSync(join(nextDir, 'index.ts'), filledNext(`{ added: ['${NOTES}'] }`));

      // npm run release -- --release v3
      const out = join(repo, 'dist/releases');
      const rel = await node(repo, ['scripts/release.mjs', '--release', NEXT, '--out', out]);
      assert.equal(rel.code, 0, rel.out);
      const archive = readdirSync(out).find((f) => new RegExp(`^chaind-${NEXT}-[a-z0-9]+-[a-z0-9]+\\.tar\\.gz$`).test(f));
      assert.ok(archive, rel.out);
      const unpacked = join(repo, 'unpacked');
      mkdirSync(unpacked);
      execFileSync('tar', ['xzf', join(out, archive), '-C', unpacked]);
      const version = await node(unpacked, [join(unpacked, 'bin/chaind'), 'version', '--long', '-o', 'json']);
      assert.equal(version.code, 0, version.out);
      assert.deepEqual((JSON.parse(version.out) as { upgrades: string[] }).upgrades, [...RELEASES.slice(1), NEXT]);
    },
  );
});

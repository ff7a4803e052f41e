// Scaffolds the next upgrade: `npm run new-upgrade -- <name>` (docs/upgrade-guide.md, "Adding the next
// upgrade, step by step").
//
//   packages/chaind/src/upgrades/<name>/index.ts          the Upgrade (empty: no store or module changes)
//                                                         with its empty schema table to fill in
//   packages/chaind/src/upgrades/<name>/<name>.test.ts    a chain upgraded through every release up to
//                                                         <name>, and the same layout as from its genesis
//   packages/chaind/src/upgrades/index.ts                 + its import and BY_NAME entry
//   packages/chaind/src/release.ts                        + '<name>' at the end of RELEASES
//
// The name is the release's, the upgrade folder's, its exported binding's and the governance plan's. Every
// check runs before anything is written: a bad name, an existing folder or release changes nothing.
import { existsSync, mkdirSync, readFileSync, rmSync, writeFileSync } from 'node:fs';
import { dirname, join, resolve } from 'node:path';
import { fileURLToPath } from 'node:url';
import { format, resolveConfig } from 'prettier';
import { register } from 'tsx/esm/api';

register();
// the one list of releases, oldest first
const { RELEASES } = await import('@chaind/chaind/release');
const { ChaindError } = await import('@chaind/errors');

const ROOT = resolve(dirname(fileURLToPath(import.meta.url)), '..');
const SRC = join(ROOT, 'packages/chaind/src');
const RELEASE_TS = join(SRC, 'release.ts');
const INDEX_TS = join(SRC, 'upgrades/index.ts');

/** Lower case, a JavaScript identifier and a folder name on every platform: v3, v3_1, gaia_v2. */
const NAME = /^[a-z][a-z0-9_]{0,63}$/;
const RESERVED = new Set(
  'break case catch class const continue debugger default delete do else enum export extends false finally for function if import in instanceof let new null return static super switch this throw true try typeof var void while with yield await implements interface package private protected public arguments eval undefined'.split(
    ' ',
  ),
);
/** Names Windows refuses for a folder. */
const DEVICE = /^(con|prn|aux|nul|com[0-9]|lpt[0-9])$/;

/** A refusal: the name or the tree is not one the scaffold can add an upgrade to; nothing was written. */
class ScaffoldError extends ChaindError {
  name = 'ScaffoldError';
  constructor(message) {
    super('new-upgrade', message);
  }
}
const refuse = (msg) => {
  throw new ScaffoldError(msg);
};

/** `text` with `re` (exactly one match) replaced; refuses when the file's layout is not the expected one. */
function editOnce(file, text, re, to) {
  const matches = text.match(new RegExp(re.source, `${re.flags.replace('g', '')}g`)) ?? [];
  if (matches.length !== 1)
    refuse(
      `${file.slice(ROOT.length + 1)} does not have the expected layout (${matches.length} matches of ${re}): add the upgrade by hand (docs/upgrade-guide.md)`,
    );
  return text.replace(re, to);
}

function checkName(name) {
  if (name === undefined || name === '') refuse('usage: npm run new-upgrade -- <name>   (e.g. v3)');
  if (!NAME.test(name))
    refuse(
      `bad name ${JSON.stringify(name)}: an upgrade name is a lower-case letter, then lower-case letters, digits or _ (at most 64), e.g. v3 — it is the release's, the folder's, the exported binding's and the governance plan's name`,
    );
  if (RESERVED.has(name) || DEVICE.test(name)) refuse(`bad name ${JSON.stringify(name)}: a reserved word or device name cannot name an upgrade`);
  if (RELEASES.includes(name)) refuse(`release ${JSON.stringify(name)} already exists (RELEASES: ${RELEASES.join(', ')}): choose the next name`);
  if (existsSync(join(SRC, 'upgrades', name))) refuse(`packages/chaind/src/upgrades/${name}/ already exists: remove it or choose another name`);
}

function entryFile(name) {
  return `// Upgrade ${name}.
//
// | store / record | change | how |
// |----------------|--------|-----|
//
// Fill in one row per store and record this upgrade adds, renames, deletes or migrates, and the module
// versions it changes (see ../v2/index.ts and docs/upgrade-guide.md, "Adding the next upgrade, step by step").
// A chain started from ${name}'s genesis must reach the same layout (the test beside this file checks it).
import type { Upgrade } from '../types.ts';

export const ${name}: Upgrade = {
  // the governance plan's name, the release's and this folder's
  name: '${name}',
  // stores this upgrade adds (a new module's), renames or deletes: { added: [], renamed: [{ oldKey, newKey }], deleted: [] }
  storeUpgrades: {},
  // per module name, what this upgrade changes (the framework's handler runs runMigrations with these):
  //   an SDK module migrated:  bank: { consensusVersion: 2n, migrate: (ctx, k) => { /* bank 1 → 2 */ } },
  //   a module added:          notes: { consensusVersion: 1n, create: (k) => notesModule(k) },  (its store in storeUpgrades.added)
  //   a module migrated that has an onEveryUpgrade hook (chaininfo) restates the hook for its new layout
  modules: {},
  // work that belongs to no module's migration, after every migration; throw to fail the upgrade:
  // afterMigrations: (ctx, plan, k) => {},
};
`;
}

function testFile(name) {
  return `// Upgrade ${name} on the real app over real LMDB: a chain upgraded through every release up to ${name}
// applies it at the plan's height, and has the module versions and store layout of a chain started from
// ${name}'s genesis. Add assertions on the records ${name} writes (the rows of the table in index.ts).
import assert from 'node:assert/strict';
import { after, describe, test } from 'node:test';
import { assertSameAsGenesis, removeTmpDirs, upgradedThrough } from '@chaind/chaind/testing';
import { upgradesOf } from '../index.ts';

after(removeTmpDirs);

describe('upgrade ${name}', () => {
  test('a chain upgraded through every release up to ${name} applies it and has the layout of a chain started from ${name}\\'s genesis', async () => {
    const upgrades = upgradesOf('${name}');
    const { chain, heights } = await upgradedThrough(upgrades);
    assert.equal(chain.height, heights.${name});
    assert.ok(chain.logger.lines.some((l) => l.msg === \`applying upgrade "${name}" at height: \${heights.${name}}\`));
    await assertSameAsGenesis(chain, upgrades);
    await chain.close();
  });
});
`;
}

function rehearsalFile(name) {
  return `// What \`npm run rehearse\` checks after upgrade ${name}, on the upgraded node as an operator sees it
// (see ../rehearsal.ts and ../v2/rehearsal.ts): one check per row of the table in ./index.ts.
import { RehearsalCheckError, type RehearsalChecks } from '../rehearsal.ts';

export const rehearsal: RehearsalChecks = {
  async after(node) {
    const versions = (await node.query(['upgrade', 'module_versions'])).trim();
    if (versions === '') throw new RehearsalCheckError('no module versions');
    node.report(\`${name}: module versions after the upgrade at \${node.height}: \${versions.split('\\n').length} lines\`);
  },
};
`;
}

async function main() {
  const args = process.argv.slice(2);
  if (args.length !== 1) refuse('usage: npm run new-upgrade -- <name>   (e.g. v3)');
  const name = args[0];
  checkName(name);
  const previous = RELEASES[RELEASES.length - 1];
  // every edit is computed before anything is written
  const release = editOnce(
    RELEASE_TS,
    readFileSync(RELEASE_TS, 'utf8'),
    /export const RELEASES = \[([^\]]*)\] as const;/,
    (_m, list) => `export const RELEASES = [${list.trim()}, '${name}'] as const;`,
  );
  let index = readFileSync(INDEX_TS, 'utf8');
  if (new RegExp(`\\b${name}\\b`).test(index.replace(/\/\/.*$/gm, '')))
    refuse(`the name ${JSON.stringify(name)} is already used in packages/chaind/src/upgrades/index.ts: choose another`);
  const imports = [...index.matchAll(/^import \{ ([a-z][a-z0-9_]*) \} from '\.\/\1\/index\.ts';$/gm)];
  const importLine = `import { ${name} } from './${name}/index.ts';`;
  if (imports.length > 0) {
    const last = imports[imports.length - 1];
    const at = (last.index ?? 0) + last[0].length;
    index = `${index.slice(0, at)}\n${importLine}${index.slice(at)}`;
  } else {
    index = editOnce(INDEX_TS, index, /^import type \{ Upgrade \} from '\.\/types\.ts';$/m, (m) => `${m}\n${importLine}`);
  }
  index = editOnce(
    INDEX_TS,
    index,
    /(const BY_NAME: [^=]+= \{)([^}]*)(\};)/,
    (_m, head, list, tail) =>
      `${head} ${[
        ...list
          .split(',')
          .map((s) => s.trim())
          .filter((s) => s !== ''),
        name,
      ].join(', ')} ${tail}`,
  );

  const dir = join(SRC, 'upgrades', name);
  // in the repository's format (npm run lint checks it)
  const formatted = async (f, text) => format(text, { ...(await resolveConfig(f)), filepath: f });
  const files = await Promise.all(
    [
      [join(dir, 'index.ts'), entryFile(name)],
      [join(dir, `${name}.test.ts`), testFile(name)],
      [join(dir, 'rehearsal.ts'), rehearsalFile(name)],
      [INDEX_TS, index],
      [RELEASE_TS, release],
    ].map(async ([f, text]) => [f, await formatted(f, text)]),
  );
  const before = new Map([INDEX_TS, RELEASE_TS].map((f) => [f, readFileSync(f, 'utf8')]));
  try {
    mkdirSync(dir);
    for (const [f, text] of files) writeFileSync(f, text);
  } catch (e) {
    // leave the tree as it was
    rmSync(dir, { recursive: true, force: true });
    for (const [f, text] of before) writeFileSync(f, text);
    throw e;
  }
  const rel = (f) => f.slice(ROOT.length + 1);
  console.log(`new-upgrade: upgrade and release ${name} after ${previous}
  created  ${rel(join(dir, 'index.ts'))}
  created  ${rel(join(dir, `${name}.test.ts`))}
  created  ${rel(join(dir, 'rehearsal.ts'))}
  edited   ${rel(INDEX_TS)}  (import and BY_NAME entry)
  edited   ${rel(RELEASE_TS)}  ('${name}' at the end of RELEASES)

Checklist (docs/upgrade-guide.md, "Adding the next upgrade, step by step"):
  1. ${rel(join(dir, 'index.ts'))}: storeUpgrades (added / renamed / deleted stores), modules (per module:
     consensusVersion and migrate, or create for a new module), afterMigrations; fill in the table at the top.
  2. ${rel(join(dir, `${name}.test.ts`))}: assert the records ${name} writes; keep assertSameAsGenesis.
  3. npm run lint && npm test -- upgrades/${name}
  4. npm run release -- --release ${name}          (dist/releases/chaind-${name}-<os>-<arch>.tar.gz)
  5. dry run on a copy of a node's data:  chaind pre-upgrade --home <copy> --upgrade-name ${name} --upgrade-height <H>
  6. npm run rehearse -- --from ${previous} --to ${name}, and extend ${rel(join(dir, 'rehearsal.ts'))} with what ${name} changes
  7. docs: the upgrade's table in docs/upgrade-guide.md if operators need to know; the release notes`);
}

try {
  await main();
} catch (e) {
  if (!(e instanceof ScaffoldError)) throw e;
  console.error(`new-upgrade: ${e.message}`);
  process.exit(2);
}

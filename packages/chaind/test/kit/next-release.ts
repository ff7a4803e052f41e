// Test support: chaind's sources with one more release, in a temporary copy. A test of the upgrade
// after the latest gets a real binary for it without any such release being committed.
import { cpSync, readFileSync, symlinkSync, writeFileSync, mkdirSync } from 'node:fs';
import { join } from 'node:path';
import { fileURLToPath } from 'node:url';
import { tmpDir } from '@chaind/sdk/testing';
import { LATEST_RELEASE } from '../../src/release.ts';

const ROOT = fileURLToPath(new URL('../../../../', import.meta.url));

export interface NextRelease {
  /** The release's name (a release and its upgrade share it). */
  readonly name: string;
  /** The store its upgrade adds (StoreUpgrades.added), owned by a new module of the same name. */
  readonly store: string;
  /** The copy's development launcher: run it with CHAIND_RELEASE set to any of its releases. */
  readonly bin: string;
}

/** Replaces `from` in a file of the copy, failing loudly when the layout it relies on has changed. */
function edit(file: string, from: RegExp, to: (m: string) => string): void {
  const text = readFileSync(file, 'utf8');
  if (!from.test(text)) throw new Error(`next-release: ${file} no longer matches ${from}`);
  writeFileSync(file, text.replace(from, to));
}

/**
 * A copy of packages/chaind with release `name` after LATEST_RELEASE: an upgrade adding store `store`
 * (a module with consensus version 1), listed as a release is (RELEASES, src/upgrades/index.ts). The copy
 * uses the repository's node_modules and other packages; it is removed by `removeTmpDirs`.
 */
export function sourcesWithNextRelease(name: string, store = `${name}store`): NextRelease {
  const dir = tmpDir('chaind-next-release-');
  const pkg = join(dir, 'packages/chaind');
  for (const part of ['bin', 'src', 'package.json']) cpSync(join(ROOT, 'packages/chaind', part), join(pkg, part), { recursive: true });
  cpSync(join(ROOT, 'package.json'), join(dir, 'package.json'));
  cpSync(join(ROOT, 'tsconfig.json'), join(dir, 'tsconfig.json'));
  symlinkSync(join(ROOT, 'node_modules'), join(dir, 'node_modules'));
  const src = join(pkg, 'src');
  edit(join(src, 'release.ts'), /export const RELEASES = \[[^\]]*/, (m) => `${m}, '${name}'`);
  edit(join(src, 'upgrades/index.ts'), new RegExp(`import \\{ ${LATEST_RELEASE} \\} from '\\./${LATEST_RELEASE}/index\\.ts';`), (m) => `${m}\nimport { ${name} } from './${name}/index.ts';`);
  edit(join(src, 'upgrades/index.ts'), /const BY_NAME: [^=]+= \{ [^}]*/, (m) => `${m.trimEnd()}, ${name} `);
  mkdirSync(join(src, 'upgrades', name));
  writeFileSync(
    join(src, 'upgrades', name, 'index.ts'),
    `import type { Upgrade } from '../types.ts';

export const ${name}: Upgrade = {
  name: '${name}',
  storeUpgrades: { added: ['${store}'] },
  modules: () => [{ name: '${store}', storeKeys: ['${store}'], consensusVersion: 1n, defaultGenesis: () => ({}), initGenesis: () => {} }],
  handler:
    ({ modules }) =>
    (ctx, _plan, fromVM) =>
      modules.runMigrations(ctx, fromVM),
};
`,
  );
  return { name, store, bin: join(pkg, 'bin/chaind.js') };
}

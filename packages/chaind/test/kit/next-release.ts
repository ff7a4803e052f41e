// Test support: chaind's sources with one more release, in a temporary copy. A test of the upgrade
// after the latest gets a real binary for it without any such release being committed.
import { execFileSync } from 'node:child_process';
import { cpSync, symlinkSync, writeFileSync } from 'node:fs';
import { join } from 'node:path';
import { fileURLToPath } from 'node:url';
import { tmpDir } from '@chaind/sdk/testing';

const ROOT = fileURLToPath(new URL('../../../../', import.meta.url));

export interface NextRelease {
  /** The release's name (a release and its upgrade share it). */
  readonly name: string;
  /** The store its upgrade adds (StoreUpgrades.added), owned by a new module of the same name. */
  readonly store: string;
  /** The copy's development launcher: run it with CHAIND_RELEASE set to any of its releases. */
  readonly bin: string;
}

/**
 * A copy of packages/chaind with release `name` after LATEST_RELEASE, made by the scaffold
 * (`npm run new-upgrade -- <name>`, scripts/new-upgrade.mjs), whose upgrade then adds store `store`,
 * owned by a new module of the same name (consensus version 1); or, given `index`, the release's
 * src/upgrades/<name>/index.ts is that text (e.g. an upgrade with a migration of the test's own). The copy
 * uses the repository's node_modules and other packages; it is removed by `removeTmpDirs`.
 */
export function sourcesWithNextRelease(name: string, store = `${name}store`, index?: string): NextRelease {
  const dir = tmpDir('chaind-next-release-');
  const pkg = join(dir, 'packages/chaind');
  for (const part of ['bin', 'src', 'package.json']) cpSync(join(ROOT, 'packages/chaind', part), join(pkg, part), { recursive: true });
  for (const part of ['package.json', 'tsconfig.json', 'scripts/new-upgrade.mjs', 'scripts/launch.mjs']) cpSync(join(ROOT, part), join(dir, part));
  symlinkSync(join(ROOT, 'node_modules'), join(dir, 'node_modules'));
  const { CHAIND_RELEASE: _, NODE_TEST_CONTEXT: __, ...env } = process.env;
  execFileSync(process.execPath, [join(dir, 'scripts/new-upgrade.mjs'), name], { cwd: dir, env, stdio: ['ignore', 'ignore', 'pipe'] });
  writeFileSync(
    join(pkg, 'src/upgrades', name, 'index.ts'),
    index ??
      `import type { Upgrade } from '../types.ts';

export const ${name}: Upgrade = {
  name: '${name}',
  storeUpgrades: { added: ['${store}'] },
  modules: {
    '${store}': {
      consensusVersion: 1n,
      create: () => ({ name: '${store}', storeKeys: ['${store}'], consensusVersion: 1n, defaultGenesis: () => ({}), initGenesis: () => {} }),
    },
  },
};
`,
  );
  return { name, store, bin: join(pkg, 'bin/chaind.js') };
}

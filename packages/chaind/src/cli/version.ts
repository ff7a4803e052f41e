// `chaind version [--long] [-o text|json]`, as Cosmos binaries print it: the version (the release name,
// v1, v2, …) alone, or with --long the name, version, package version, commit, runtime, build target and
// the upgrades this release can apply.
// Its top-level imports stay light (no app, no sdk, no common.ts): a plain `chaind version` answers fast;
// what --long needs (the upgrades table, the platform key, the output formatter) is imported when asked.
import { existsSync, readFileSync } from 'node:fs';
import { join } from 'node:path';
import { fileURLToPath } from 'node:url';
import { Option, type Command } from 'commander';
import { CHAIND_PACKAGE_VERSION, CHAIND_VERSION } from '../version.ts';

/** Set by a release build (esbuild `define`); absent when running from the source tree. */
declare const __CHAIND_COMMIT__: string | undefined;

/** The git commit: the release build's, else HEAD of the checkout this source runs from, else "". */
export function commitOf(): string {
  if (typeof __CHAIND_COMMIT__ === 'string') return __CHAIND_COMMIT__;
  try {
    let dir = fileURLToPath(new URL('.', import.meta.url));
    for (let i = 0; i < 8 && !existsSync(join(dir, '.git')); i++) dir = join(dir, '..');
    const git = join(dir, '.git');
    const head = readFileSync(join(git, 'HEAD'), 'utf8').trim();
    const ref = /^ref: (.+)$/.exec(head)?.[1];
    if (ref === undefined) return /^[0-9a-f]{40}$/.test(head) ? head : '';
    if (existsSync(join(git, ref))) return readFileSync(join(git, ref), 'utf8').trim();
    const packed = readFileSync(join(git, 'packed-refs'), 'utf8');
    return new RegExp(`^([0-9a-f]{40}) ${ref.replace(/[.*+?^${}()|[\]\\]/g, '\\$&')}$`, 'm').exec(packed)?.[1] ?? '';
  } catch {
    // not a checkout (an installed package): the commit is unknown
    return '';
  }
}

export interface VersionInfo {
  name: string;
  server_name: string;
  /** the release name (v1, v2, …), what `chaind version` prints */
  version: string;
  /** packages/chaind/package.json's version, the same for every release */
  package_version: string;
  commit: string;
  build_target: string;
  node: string;
  upgrades: string[];
}

export async function versionInfo(): Promise<VersionInfo> {
  const [{ platformKey }, { UPGRADES }] = await Promise.all([import('@chaind/upgrade-plan'), import('../upgrades/index.ts')]);
  return {
    name: 'chaind',
    server_name: 'chaind',
    version: CHAIND_VERSION,
    package_version: CHAIND_PACKAGE_VERSION,
    commit: commitOf(),
    build_target: platformKey(),
    node: `${process.version} ${platformKey()}`,
    upgrades: UPGRADES.map((u) => u.name),
  };
}

export function registerVersionCommand(program: Command): void {
  program
    .command('version')
    .description('print the version: the release name (with --long: package version, commit, runtime, build target and upgrade handlers)')
    .option('--long', 'print the long version information')
    .addOption(new Option('-o, --output <format>', 'output format').choices(['text', 'json']).default('text'))
    .action(async (o: { output: string; long?: boolean }) => {
      if (o.long === true) {
        const { printOutput } = await import('./query/format.ts');
        printOutput(await versionInfo(), o.output);
      } else process.stdout.write(`${o.output === 'json' ? JSON.stringify({ version: CHAIND_VERSION }) : CHAIND_VERSION}\n`);
    });
}

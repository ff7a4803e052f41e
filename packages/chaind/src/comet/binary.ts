// Which `cometbft` binary `chaind start` runs: COMETBFT_BIN, then app.toml [abci] cometbft-binary, then the
// project cache that `npm run cometbft:install` fills, then PATH. The first one found must answer
// `cometbft version` with the pinned version: a wrong one is refused, never skipped for the next.
import { spawnSync } from 'node:child_process';
import { accessSync, constants } from 'node:fs';
import { delimiter, isAbsolute, join, resolve } from 'node:path';
import { ChaindError } from '@chaind/errors';
import { checkoutRoot } from '../checkout.ts';
import { COMETBFT_GO_PACKAGE, COMETBFT_VERSION } from './version.ts';

export type CometBinarySource = 'COMETBFT_BIN' | 'app.toml' | 'cache' | 'PATH';

export interface CometBinary {
  readonly path: string;
  readonly source: CometBinarySource;
}

export class CometBinaryError extends ChaindError<'cometbft-binary'> {
  override readonly name = 'CometBinaryError';
  constructor(message: string) {
    super('cometbft-binary', message);
  }
}

/** `.cache/cometbft/<version>/cometbft` under a repository root. */
export function cometCachePath(root: string, version: string = COMETBFT_VERSION): string {
  return join(root, '.cache', 'cometbft', version, 'cometbft');
}

const HOW_TO_GET = `npm run cometbft:install (go install ${COMETBFT_GO_PACKAGE}@${COMETBFT_VERSION}), or set COMETBFT_BIN`;

function executable(path: string): boolean {
  try {
    accessSync(path, constants.X_OK);
    return true;
  } catch {
    return false;
  }
}

/** What `cometbft version` prints ("0.38.25"), or why it could not be asked. */
export function cometVersionOf(path: string): { ok: true; version: string } | { ok: false; error: string } {
  const r = spawnSync(path, ['version'], { encoding: 'utf8', timeout: 10_000 });
  if (r.error !== undefined) return { ok: false, error: r.error.message };
  if (r.status !== 0) return { ok: false, error: `exit ${r.status}: ${r.stderr.trim().split('\n').pop() ?? ''}` };
  return { ok: true, version: r.stdout.trim() };
}

/** True when `printed` (cometbft version's output) is the pinned version. */
export function isPinnedVersion(printed: string, version: string = COMETBFT_VERSION): boolean {
  return printed.replace(/^v/, '') === version.replace(/^v/, '');
}

/** Checks the binary answers with the pinned version; a CometBinaryError names both otherwise. */
export function checkCometBinary(b: CometBinary): CometBinary {
  const v = cometVersionOf(b.path);
  if (!v.ok)
    throw new CometBinaryError(
      `cometbft binary ${b.path} (from ${b.source}) does not run: ${v.error}; chaind needs CometBFT ${COMETBFT_VERSION}: ${HOW_TO_GET}`,
    );
  if (!isPinnedVersion(v.version)) {
    throw new CometBinaryError(
      `cometbft binary ${b.path} (from ${b.source}) is version ${v.version}; chaind runs only CometBFT ${COMETBFT_VERSION}: ${HOW_TO_GET}`,
    );
  }
  return b;
}

export interface FindCometOptions {
  /** app.toml [abci] cometbft-binary ('' = not set). */
  readonly configured?: string;
  /** The node's home: a relative app.toml path is read from it. */
  readonly home?: string;
  readonly env?: NodeJS.ProcessEnv;
  /** Where the project cache is looked for (default: this repository). */
  readonly repoRoot?: string;
}

/** The first binary named by COMETBFT_BIN, app.toml, the cache or PATH, unchecked; undefined when none is. */
export function locateCometBinary(o: FindCometOptions = {}): CometBinary | undefined {
  const env = o.env ?? process.env;
  const fromEnv = env.COMETBFT_BIN ?? '';
  if (fromEnv !== '') return { path: resolve(fromEnv), source: 'COMETBFT_BIN' };
  const configured = o.configured ?? '';
  if (configured !== '')
    return { path: isAbsolute(configured) || o.home === undefined ? resolve(configured) : resolve(o.home, configured), source: 'app.toml' };
  // a release runs from no checkout: it has no cache
  const root = o.repoRoot ?? checkoutRoot();
  const cached = root === undefined ? undefined : cometCachePath(root);
  if (cached !== undefined && executable(cached)) return { path: cached, source: 'cache' };
  for (const dir of (env.PATH ?? '').split(delimiter)) {
    if (dir === '') continue;
    const p = join(dir, 'cometbft');
    if (executable(p)) return { path: p, source: 'PATH' };
  }
  return undefined;
}

/** The binary `chaind start` runs, checked; a CometBinaryError says how to get one. */
export function findCometBinary(o: FindCometOptions = {}): CometBinary {
  const b = locateCometBinary(o);
  if (b === undefined)
    throw new CometBinaryError(
      `no cometbft binary found (COMETBFT_BIN, app.toml [abci] cometbft-binary, the project cache, PATH); chaind needs CometBFT ${COMETBFT_VERSION}: ${HOW_TO_GET}`,
    );
  return checkCometBinary(b);
}

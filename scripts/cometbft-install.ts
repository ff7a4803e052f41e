// `npm run cometbft:install`: installs the pinned CometBFT the way its docs say (`go install
// github.com/cometbft/cometbft/cmd/cometbft@<version>`) into .cache/cometbft/<version>/ and prints the
// binary's path. A no-op when the cached binary already answers `cometbft version` with the pinned version.
// Go is looked for on PATH, then in /usr/local/go/bin. Exit 0 installed or cached; 2 no Go; 1 the install failed.
import { spawnSync } from 'node:child_process';
import { existsSync, mkdirSync, renameSync, rmSync } from 'node:fs';
import { delimiter, dirname, join, resolve } from 'node:path';
import { fileURLToPath } from 'node:url';
import { cometCachePath, cometVersionOf, COMETBFT_GO_PACKAGE, COMETBFT_VERSION, isPinnedVersion } from '@chaind/chaind/comet';

const ROOT = resolve(fileURLToPath(new URL('..', import.meta.url)));
const target = cometCachePath(ROOT);

function findGo(): string | undefined {
  const dirs = [...(process.env.PATH ?? '').split(delimiter), '/usr/local/go/bin'];
  return dirs.map((dir) => join(dir, 'go')).find((p) => existsSync(p));
}

const cached = existsSync(target) ? cometVersionOf(target) : undefined;
if (cached?.ok === true && isPinnedVersion(cached.version)) {
  console.log(target);
  process.exit(0);
}
const go = findGo();
if (go === undefined) {
  console.error(
    `cometbft:install: no Go toolchain (not on PATH, not in /usr/local/go/bin): install Go, then run npm run cometbft:install (go install ${COMETBFT_GO_PACKAGE}@${COMETBFT_VERSION})`,
  );
  process.exit(2);
}
const tmp = `${dirname(target)}.tmp-${process.pid}`;
rmSync(tmp, { recursive: true, force: true });
mkdirSync(tmp, { recursive: true });
console.error(`cometbft:install: ${go} install ${COMETBFT_GO_PACKAGE}@${COMETBFT_VERSION} (into ${dirname(target)})`);
const r = spawnSync(go, ['install', `${COMETBFT_GO_PACKAGE}@${COMETBFT_VERSION}`], {
  stdio: ['ignore', 'inherit', 'inherit'],
  // GOBIN is where `go install` puts the binary; the go command itself on PATH for its own subprocesses
  env: { ...process.env, GOBIN: tmp, PATH: `${dirname(go)}${delimiter}${process.env.PATH ?? ''}` },
});
const built = join(tmp, 'cometbft');
const v = r.status === 0 && existsSync(built) ? cometVersionOf(built) : undefined;
if (v === undefined || !v.ok || !isPinnedVersion(v.version)) {
  rmSync(tmp, { recursive: true, force: true });
  console.error(`cometbft:install: go install failed (exit ${r.status ?? r.signal})${v?.ok === true ? `: built version ${v.version}` : ''}`);
  process.exit(1);
}
mkdirSync(dirname(dirname(target)), { recursive: true });
rmSync(dirname(target), { recursive: true, force: true });
renameSync(tmp, dirname(target));
console.log(target);

// Where `chaind testnet` finds what it installs and runs: this repository's release archives (built by
// scripts/release.mjs when missing) and chainvisor, both from the sources `chaind testnet` runs from.
import { execFileSync } from 'node:child_process';
import { existsSync } from 'node:fs';
import { createServer, type AddressInfo } from 'node:net';
import { join } from 'node:path';
import { platformKey } from '@chaind/upgrade-plan';
import { RELEASES } from '../../release.ts';
import { UserError } from '../common.ts';
import { checkoutRoot } from '../../checkout.ts';

/** The checkout `chaind testnet` runs from: it installs that checkout's releases and chainvisor. */
function repo(): string {
  const root = checkoutRoot();
  if (root === undefined)
    throw new UserError('chaind testnet runs from a checkout of the chaind repository (its releases and chainvisor): this chaind runs from none');
  return root;
}

/** The checkout's chainvisor launcher. */
export function chainvisorBin(): string {
  return join(repo(), 'packages', 'chainvisor', 'bin', 'chainvisor.js');
}

/** The archive of `release` for this machine, as scripts/release.mjs names it. */
export function releaseArchive(dir: string, release: string): string {
  return join(dir, `chaind-${release}-${platformKey().replace('/', '-')}.tar.gz`);
}

/** The release archives, oldest first, built into dist/releases when `dir` is that default and any is missing. */
export function releaseArchives(dir: string | undefined, log: (line: string) => void): { release: string; archive: string }[] {
  const REPO = dir === undefined ? repo() : '';
  const from = dir ?? join(REPO, 'dist', 'releases');
  const want = RELEASES.map((release) => ({ release, archive: releaseArchive(from, release) }));
  if (want.every((w) => existsSync(w.archive))) return want;
  if (dir !== undefined)
    throw new UserError(
      `--releases ${dir} lacks ${want
        .filter((w) => !existsSync(w.archive))
        .map((w) => w.archive)
        .join(', ')}`,
    );
  const script = join(REPO, 'scripts', 'release.mjs');
  if (!existsSync(script)) throw new UserError(`no release archives in ${from} and no scripts/release.mjs to build them: give --releases <dir>`);
  log(`building the releases (${RELEASES.join(', ')}) into ${from}`);
  execFileSync(process.execPath, [script], { cwd: REPO, stdio: ['ignore', 'ignore', 'inherit'] });
  return want;
}

/** `n` distinct free loopback ports (all held open together while they are chosen). */
export async function freeLoopbackPorts(n: number): Promise<number[]> {
  const servers = Array.from({ length: n }, () => createServer());
  await Promise.all(servers.map((s) => new Promise<void>((res, rej) => s.once('error', rej).listen(0, '127.0.0.1', res))));
  const ports = servers.map((s) => (s.address() as AddressInfo).port);
  await Promise.all(servers.map((s) => new Promise((res) => s.close(res))));
  return ports;
}

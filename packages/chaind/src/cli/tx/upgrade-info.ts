// The client-side check of `tx upgrade software-upgrade --upgrade-info` (reference §7; the SDK's
// plan.ParseInfo + Info.ValidateFull), with chainvisor's own rules (@chaind/upgrade-plan): the info is
// non-blank; a URL is fetched and its content taken as the info; the info is JSON {"binaries": {"any" |
// "os/arch": url}}; every URL passes the scheme and checksum policy, is downloaded to a temp dir, matches
// its checksum, unpacks safely and holds the daemon binary (`bin/<daemon>` or `<daemon>` at the root of a
// tar(.gz) archive, or is the binary itself). A plan that passes is one chainvisor can install on every
// platform it lists, before governance votes on it.
import { mkdir, mkdtemp, rm } from 'node:fs/promises';
import { tmpdir } from 'node:os';
import { join } from 'node:path';
import {
  DEFAULT_EXTRACT_LIMITS,
  DEFAULT_STALL_TIMEOUT_MS,
  downloadRelease,
  FetchError,
  locateDaemon,
  planBinaries,
  prepareDownload,
  unpackRelease,
  type DownloadPolicy,
  type ReleaseSource,
} from '@chaind/upgrade-plan';
import { UserError } from '../common.ts';

/** The largest binary archive downloaded (a Node.js release with its dependencies fits easily). */
export const MAX_BINARY_BYTES = 1024 * 1024 * 1024;

export interface InfoCheckOptions {
  /** The executable the archives must hold (bin/<daemon> or <daemon>). */
  readonly daemonName: string;
  readonly checksumRequired: boolean;
  /** --allow-loopback-http: the same opt-in as chainvisor's DAEMON_ALLOW_LOOPBACK_HTTP */
  readonly allowLoopbackHttp?: boolean;
  readonly maxBinaryBytes?: number;
}

const invalid = (detail: string): UserError => new UserError(`invalid --upgrade-info: ${detail}`);

/** A refusal of the rules becomes the command's error; anything else is a bug and goes up as is. */
function refused(e: unknown, where = ''): never {
  if (e instanceof FetchError) throw invalid(`${where}${e.message}`);
  throw e;
}

/** Downloads one release into `work` and checks it as chainvisor would install it. */
async function tryRelease(src: ReleaseSource, work: string, policy: DownloadPolicy, daemonName: string): Promise<void> {
  const p = prepareDownload(src, policy);
  const name = p.fileName || src.platform;
  const file = join(work, 'download');
  const out = join(work, 'out');
  await mkdir(out, { recursive: true });
  await downloadRelease(p, file, policy);
  await unpackRelease(file, p, out, daemonName, name, policy.extract);
  await locateDaemon(out, daemonName, name);
}

/** The full check (the SDK's ParseInfo + ValidateFull): fetches and downloads; a UserError naming what failed. */
export async function checkUpgradeInfo(info: string, o: InfoCheckOptions): Promise<void> {
  if (o.daemonName === '' || /[/\\]/.test(o.daemonName)) throw new UserError(`invalid --daemon-name ${JSON.stringify(o.daemonName)}: expected a file name`);
  const policy: DownloadPolicy = {
    mustHaveChecksum: o.checksumRequired,
    allowInsecureHttp: false,
    allowLoopbackHttp: o.allowLoopbackHttp === true,
    loopbackSetting: '--allow-loopback-http',
    maxBytes: o.maxBinaryBytes ?? MAX_BINARY_BYTES,
    stallTimeoutMs: DEFAULT_STALL_TIMEOUT_MS,
    // chainvisor's defaults: a plan that passes here unpacks under a node with default settings
    extract: DEFAULT_EXTRACT_LIMITS,
  };
  let sources: ReleaseSource[];
  try {
    sources = await planBinaries(info, policy);
  } catch (e) {
    refused(e);
  }
  const dir = await mkdtemp(join(tmpdir(), 'chaind-upgrade-info-'));
  try {
    for (const [i, src] of sources.entries()) {
      const work = join(dir, `binary-${i}`);
      try {
        await tryRelease(src, work, policy, o.daemonName);
      } catch (e) {
        refused(e, `the binary for ${src.platform}: `);
      } finally {
        await rm(work, { recursive: true, force: true });
      }
    }
  } finally {
    await rm(dir, { recursive: true, force: true });
  }
}

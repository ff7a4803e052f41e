// One timed operation of bench/release-install.ts, in a process of its own, on the code of one checkout:
//   node --import tsx bench/support/release-install-child.ts <checkout root> extract|install <archive> <work dir>
// extract: extractTar(archive) into <work dir>/out (the extraction and its checks, as unpackRelease runs them);
// install: installLocalRelease(archive) as <work dir>/upgrades/v2 (what `chainvisor add-upgrade` and the tests'
// homes do: extraction, checks, the binary placed, every file flushed, the rename).
// Prints one JSON line: the operation's CPU (user + system, the thread pool's included), its wall time and the
// longest the event loop waited meanwhile.
import { mkdirSync } from 'node:fs';
import { createRequire } from 'node:module';
import { join } from 'node:path';
import { monitorEventLoopDelay } from 'node:perf_hooks';
import { pathToFileURL } from 'node:url';

const [root, op, archive, work] = process.argv.slice(2);
if (root === undefined || (op !== 'extract' && op !== 'install') || archive === undefined || work === undefined) {
  console.error('usage: release-install-child.ts <checkout root> extract|install <archive> <work dir>');
  process.exit(2);
}
// the checkout's own packages, through their exports, as resolved from its root
const resolveIn = createRequire(join(root, 'package.json')).resolve;
const load = (spec: string): Promise<Record<string, unknown>> => import(pathToFileURL(resolveIn(spec)).href) as Promise<Record<string, unknown>>;
type Extract = (archive: string, dir: string, name: string) => Promise<void>;
type Install = (src: string, form: 'archive', o: { destDir: string; daemonName: string }) => Promise<string>;
const extractTar = (await load('@chaind/upgrade-plan')).extractTar as Extract;
const installLocalRelease = (await load('@chaind/chainvisor/fetch')).installLocalRelease as Install;

const out = join(work, 'out');
mkdirSync(out, { recursive: true });
const loop = monitorEventLoopDelay({ resolution: 1 });
loop.enable();
const c0 = process.cpuUsage();
const t0 = performance.now();
if (op === 'extract') await extractTar(archive, out, 'chaind-v2.tar.gz');
else await installLocalRelease(archive, 'archive', { destDir: join(work, 'upgrades', 'v2'), daemonName: 'chaind' });
const wallMs = performance.now() - t0;
const c = process.cpuUsage(c0);
loop.disable();
console.log(JSON.stringify({ cpuMs: (c.user + c.system) / 1000, userMs: c.user / 1000, sysMs: c.system / 1000, wallMs, maxStallMs: loop.max / 1e6 }));

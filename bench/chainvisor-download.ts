// chainvisor's release download: installRelease's download + sha256 verify (hashed while streaming) of a
// 100 MB tar.gz served over loopback, vs `curl -s -o file` followed by `sha256sum file` of the same file.
// The server runs in its own process so neither side shares an event loop with it.
import { spawn, spawnSync } from 'node:child_process';
import { createHash, randomBytes } from 'node:crypto';
import { readFileSync, rmSync, writeFileSync, mkdirSync } from 'node:fs';
import { join } from 'node:path';
import { create as tarCreate } from 'tar';
import { installRelease } from '@chaind/chainvisor/fetch';
import { cleanup, header, median, ms, row, tempDir } from './lib.ts';

const SIZE = 100 * 1000 * 1000;
const ROUNDS = 5;

header(
  `chainvisor download: installRelease download + sha256 verify of a ${SIZE / 1e6} MB tar.gz over loopback http vs curl -o + sha256sum, ${ROUNDS} rounds interleaved, medians`,
  'throughput ratio (curl + sha256sum time / installRelease download+verify time) >= 0.8',
);

const curlOk = spawnSync('curl', ['--version']).status === 0;
const shaOk = spawnSync('sha256sum', ['--version']).status === 0;
if (!curlOk || !shaOk) console.log(`   NOTE: ${!curlOk ? 'curl' : 'sha256sum'} is missing on this machine: only installRelease is measured`);

// the archive: a small bin/chaind plus an incompressible 100 MB blob, gzip level 1
const dir = tempDir('download');
const src = join(dir, 'src');
mkdirSync(join(src, 'bin'), { recursive: true });
mkdirSync(join(src, 'lib'));
writeFileSync(join(src, 'bin', 'chaind'), '#!/bin/sh\necho chaind\n', { mode: 0o755 });
writeFileSync(join(src, 'lib', 'blob'), randomBytes(SIZE));
const archive = join(dir, 'chaind-v2.tar.gz');
await tarCreate({ gzip: { level: 1 }, file: archive, cwd: src, portable: true }, ['bin', 'lib']);
rmSync(src, { recursive: true });
const body = readFileSync(archive);
const sha = createHash('sha256').update(body).digest('hex');
row('(archive size)', `${(body.length / 1e6).toFixed(1)} MB`);

const serverJs = `
  const http = require('node:http'); const fs = require('node:fs');
  const size = fs.statSync(${JSON.stringify(archive)}).size;
  const s = http.createServer((req, res) => {
    res.writeHead(200, { 'content-length': size, 'content-type': 'application/gzip' });
    fs.createReadStream(${JSON.stringify(archive)}, { highWaterMark: 1 << 20 }).pipe(res);
  });
  s.listen(0, '127.0.0.1', () => console.log(s.address().port));`;
const server = spawn(process.execPath, ['-e', serverJs], { stdio: ['ignore', 'pipe', 'inherit'] });
const port = await new Promise<number>((resolve) => server.stdout.once('data', (d: Buffer) => resolve(Number(String(d).trim()))));
const url = `http://127.0.0.1:${port}/chaind-v2.tar.gz`;

const ours: number[] = [];
const oursVerify: number[] = [];
const oursExtract: number[] = [];
const oursTotal: number[] = [];
const curl: number[] = [];
const shaT: number[] = [];
for (let r = 0; r < ROUNDS; r++) {
  const dest = join(dir, `home${r}`, 'cosmovisor', 'upgrades', 'v2');
  const t0 = performance.now();
  const res = await installRelease(
    { url, platform: 'any', checksum: { algo: 'sha256', hex: sha } },
    {
      mustHaveChecksum: true,
      allowInsecureHttp: false,
      allowLoopbackHttp: true,
      maxBytes: 2 ** 31,
      stallTimeoutMs: 60_000,
      progress: 'none',
      log: () => {},
      destDir: dest,
      daemonName: 'chaind',
    },
  );
  oursTotal.push(performance.now() - t0);
  ours.push(res.downloadMs);
  oursVerify.push(res.verifyMs);
  oursExtract.push(res.extractMs);
  rmSync(join(dir, `home${r}`), { recursive: true, force: true });

  if (curlOk && shaOk) {
    const file = join(dir, `curl-${r}.tar.gz`);
    const c0 = performance.now();
    const c = spawnSync('curl', ['-s', '-o', file, url]);
    const c1 = performance.now();
    const s = spawnSync('sha256sum', [file], { encoding: 'utf8' });
    const c2 = performance.now();
    if (c.status !== 0 || !s.stdout.startsWith(sha)) throw new Error(`curl/sha256sum failed: ${c.stderr} ${s.stderr}`);
    curl.push(c1 - c0);
    shaT.push(c2 - c1);
    rmSync(file);
  }
}
server.kill();

const mbps = (t: number): string => `${(body.length / 1e6 / (t / 1000)).toFixed(0)} MB/s`;
row('installRelease download + verify (streamed)', ms(median(ours)), mbps(median(ours)));
row('  of which hashing (sha256, inside the above)', ms(median(oursVerify)));
row('  then extract + checks (not compared)', ms(median(oursExtract)));
row('  whole installRelease (incl. rename, cleanup)', ms(median(oursTotal)));
if (curl.length) {
  const base = median(curl.map((c, i) => c + shaT[i]));
  row('curl -s -o file', ms(median(curl)), mbps(median(curl)));
  row('sha256sum file', ms(median(shaT)));
  row('curl + sha256sum', ms(base), mbps(base));
  row('ratio (curl + sha256sum) / installRelease', `${(base / median(ours)).toFixed(2)}x`, base / median(ours) >= 0.8 ? 'goal met' : 'BELOW GOAL');
}
cleanup();

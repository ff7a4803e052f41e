// SIGKILL of chainvisor (its whole process group: chainvisor, the node, pre-upgrade) at each phase of an upgrade:
// download, extraction, backup, pre-upgrade (the release's and the custom script), and the `current` switch. After
// each kill: `current` names a complete release whose binary runs, no partial release folder was ever run, the
// backup of data/ is a complete copy or absent (no partial copy left anywhere), and a rerun of `chainvisor run`
// completes the upgrade and starts the new binary. docs/reliability.md ("Faults in the upgrade") lists the figures.
import assert from 'node:assert/strict';
import { execFileSync } from 'node:child_process';
import { existsSync, mkdirSync, readdirSync, readFileSync, readlinkSync, rmSync, statSync, writeFileSync } from 'node:fs';
import { join } from 'node:path';
import { afterEach, beforeEach, describe, test } from 'node:test';
import { EXIT } from '../src/exit-codes.ts';
import { hex, seededRandom, serve, tgz, type RawEntry, type Served } from '@chaind/upgrade-plan/testing';
import { baseEnv, chainvisor, killAll, makeHome, snapshot, writeDaemon, type Home, type Run } from '@chaind/chainvisor/testing';

/** Kills around the `current` switch (FAULT_KILLS for more); FAULT_SEED picks other moments (a failure names its seed). */
const SWITCH_KILLS = Number(process.env.FAULT_KILLS ?? 20);
const SEED = Number(process.env.FAULT_SEED ?? 22);

/**
 * The new release's binary. `version` prints v2. `pre-upgrade` prints a marker on stderr (chainvisor's stderr) and,
 * while <home>/block-pre exists, blocks until killed. `start` records its path, "commits" height 20, runs until SIGTERM.
 */
const NEW_BINARY = `#!${process.execPath}
const fs = require('node:fs'); const path = require('node:path');
const home = process.env.DAEMON_HOME; const args = process.argv.slice(2);
const log = (l) => fs.appendFileSync(path.join(home, 'launches.log'), l + '\\n');
if (args[0] === 'version') { console.log('v2'); process.exit(0); }
log('new ' + __filename + ' ' + args.join(' '));
if (args[0] === 'pre-upgrade') {
  process.stderr.write('PRE-UPGRADE running\\n');
  if (fs.existsSync(path.join(home, 'block-pre'))) setInterval(() => {}, 1000);
  else { process.stderr.write('PRE-UPGRADE exiting\\n'); process.exit(0); }
} else {
  process.on('SIGTERM', () => process.exit(0));
  fs.writeFileSync(path.join(home, 'data', 'height'), '20');
  setInterval(() => {}, 1000);
}
`;

const PLAN_NAME = 'v2';
const HEIGHT = 20;

const sleep = (n: number): Promise<void> => new Promise((r) => setTimeout(r, n));

/** Kills chainvisor's process group (chainvisor, the node, pre-upgrade, the custom script) and waits for chainvisor's end. */
async function killGroup(r: Run): Promise<void> {
  process.kill(-r.child.pid!, 'SIGKILL');
  const { code } = await r.exit;
  assert.equal(code, null, 'chainvisor was killed, not done');
}

/** Polls `cond` every few ms (a kill must land while the phase lasts). */
async function until(cond: () => boolean, what: string, limitMs = 30_000): Promise<void> {
  const end = Date.now() + limitMs;
  while (!cond()) {
    if (Date.now() > end) throw new Error(`timed out waiting for ${what}`);
    await sleep(2);
  }
}

describe('chainvisor killed (SIGKILL) during the upgrade', () => {
  let h: Home;
  let srv: Served | undefined;
  let dataAtHalt: Record<string, string>;
  beforeEach(() => {
    h = makeHome();
    writeDaemon(
      join(h.cv, 'genesis', 'bin', 'chaind'),
      'old',
      `if (args[0] === 'version') { console.log('v1'); process.exit(0); } writeInfo(${JSON.stringify(plan(''))}); process.exit(10);`,
    );
  });
  afterEach(async () => {
    killAll();
    await srv?.close();
    srv = undefined;
    h.cleanup();
  });

  function plan(info: string): { name: string; height: number; info: string } {
    return { name: PLAN_NAME, height: HEIGHT, info };
  }

  /** The old binary halts with a plan whose info is `info` (a download), as chaind does: upgrade-info.json, exit 10. */
  function halting(info: string): void {
    writeDaemon(
      join(h.cv, 'genesis', 'bin', 'chaind'),
      'old',
      `if (args[0] === 'version') { console.log('v1'); process.exit(0); } writeInfo(${JSON.stringify(plan(info))}); process.exit(10);`,
    );
  }

  /** Node state: an LMDB-like file and `files` small files in nested folders (a bigger copy takes longer to back up). */
  function seedData(files: number, info: string): void {
    mkdirSync(join(h.data, 'application.db'));
    writeFileSync(join(h.data, 'application.db', 'data.mdb'), Buffer.from(Array.from({ length: 1 << 16 }, (_, i) => (i * 31) % 256)));
    writeFileSync(join(h.data, 'priv_validator_state.json'), '{"height":"19","round":0,"step":3}');
    for (let i = 0; i < files; i++) {
      const d = join(h.data, 'blockstore', String(i % 64));
      if (i < 64) mkdirSync(d, { recursive: true });
      writeFileSync(join(d, `${i}.blk`), `block ${i} `.repeat(200));
    }
    // what data/ holds once the node halted: the seeded state and the plan
    dataAtHalt = { ...snapshot(h.data), 'upgrade-info.json': Buffer.from(JSON.stringify(plan(info))).toString('base64') };
  }

  function installLocally(): void {
    mkdirSync(join(h.cv, 'upgrades', PLAN_NAME, 'bin'), { recursive: true });
    writeFileSync(join(h.cv, 'upgrades', PLAN_NAME, 'bin', 'chaind'), NEW_BINARY, { mode: 0o755 });
  }

  const current = (): string => readlinkSync(join(h.cv, 'current'));
  const backup = (): string => join(h.home, `data-backup-${PLAN_NAME}-${HEIGHT}`);
  const partials = (): string[] => readdirSync(join(h.cv, 'upgrades')).filter((n) => n.startsWith(`.${PLAN_NAME}.partial-`));

  /** What must hold at any moment, killed or not. */
  function invariants(when: string): void {
    const cur = current();
    assert.ok(cur === 'genesis' || cur === `upgrades/${PLAN_NAME}`, `${when}: current -> ${cur}`);
    const version = execFileSync(join(h.cv, 'current', 'bin', 'chaind'), ['version'], { env: { DAEMON_HOME: h.home }, encoding: 'utf8' }).trim();
    assert.equal(version, cur === 'genesis' ? 'v1' : 'v2', `${when}: the binary of current runs`);
    // a release folder under its final name is always complete
    const release = join(h.cv, 'upgrades', PLAN_NAME, 'bin', 'chaind');
    if (existsSync(join(h.cv, 'upgrades', PLAN_NAME))) assert.equal(readFileSync(release, 'utf8'), NEW_BINARY, `${when}: upgrades/${PLAN_NAME} is complete`);
    // only the release's final folder was ever run, never a partial one
    for (const l of h.launches().filter((x) => x.startsWith('new '))) assert.ok(l.startsWith(`new ${release} `), `${when}: ran ${l}`);
    // the backup of data/ is a complete copy or absent, and no partial copy lies beside it
    if (existsSync(backup())) assert.deepEqual(snapshot(backup()), dataAtHalt, `${when}: the backup is a complete copy of data/ at the halt`);
    const status = join(h.cv, 'status.json');
    if (existsSync(status)) assert.doesNotThrow(() => JSON.parse(readFileSync(status, 'utf8')), `${when}: status.json is whole`);
  }

  /** No partial copy of data/ (or of a release) is left anywhere once an upgrade has completed. */
  function nothingPartialLeft(): void {
    assert.deepEqual(
      readdirSync(h.home).filter((n) => n.startsWith('data-backup-')),
      [`data-backup-${PLAN_NAME}-${HEIGHT}`],
      'one backup, no partial copy of data/ left beside it',
    );
    assert.deepEqual(readdirSync(join(h.cv, 'upgrades')), [PLAN_NAME], 'no partial release left');
    assert.deepEqual(
      readdirSync(h.cv)
        .filter((n) => n !== 'check.js')
        .sort(),
      ['current', 'genesis', 'status.json', 'upgrades'],
      'no half-made link or file left',
    );
    assert.deepEqual(
      readdirSync(join(h.cv, 'upgrades', PLAN_NAME)).sort(),
      [
        'bin',
        'upgrade-info.json',
        ...(existsSync(join(h.cv, 'upgrades', PLAN_NAME, 'share')) ? ['share'] : []),
        ...(existsSync(join(h.cv, 'upgrades', PLAN_NAME, 'chainvisor-plan.json')) ? ['chainvisor-plan.json'] : []),
      ].sort(),
      'no half-written plan copy left',
    );
  }

  /** The rerun: completes the upgrade and starts the new binary (the chain goes on); stopped with SIGTERM. */
  async function rerunCompletes(env: Record<string, string> = {}): Promise<void> {
    rmSync(join(h.home, 'block-pre'), { force: true });
    const r = chainvisor(['run', 'start'], baseEnv(h, env));
    await r.waitFor(/INF starting .*upgrades\/v2\/bin\/chaind start$/);
    await until(() => existsSync(join(h.data, 'height')), 'the new binary to commit');
    r.child.kill('SIGTERM');
    const { code, stderr } = await r.exit;
    assert.equal(code, EXIT.OK, stderr);
    assert.equal(current(), `upgrades/${PLAN_NAME}`);
    assert.equal(h.launches().at(-1), `new ${join(h.cv, 'upgrades', PLAN_NAME, 'bin', 'chaind')} start`);
    assert.equal(h.launches().filter((l) => l === 'old start').length, 1, 'the old binary never ran again');
    invariants('after the rerun');
    assert.ok(existsSync(backup()), 'the backup exists after the upgrade');
    nothingPartialLeft();
  }

  async function mirror(body: Buffer, firstStalls: boolean): Promise<string> {
    srv = await serve();
    let n = 0;
    srv.route('/chaind-v2.tar.gz', (_req, res) => {
      res.writeHead(200, { 'content-length': body.length });
      // the first request sends a quarter of the archive, then stalls (a slow mirror); later ones are whole
      if (++n === 1 && firstStalls) res.write(body.subarray(0, body.length >> 2));
      else res.end(body);
    });
    return JSON.stringify({ binaries: { any: `${srv.base}/chaind-v2.tar.gz?checksum=sha256:${hex('sha256', body)}` } });
  }

  const downloadEnv = { DAEMON_ALLOW_DOWNLOAD_BINARIES: 'true', DAEMON_DOWNLOAD_STALL_TIMEOUT: '60s' };
  const release = (extra: RawEntry[] = []): Buffer =>
    tgz([{ path: 'bin/', type: 'Directory' }, { path: 'bin/chaind', body: NEW_BINARY, mode: 0o755 }, ...extra]);

  test('during the download: the partial download is dropped, the rerun downloads again and completes', async () => {
    // 4 MiB that gzip cannot shrink: the quarter sent before the stall is past the downloader's write batch
    const next = seededRandom(SEED);
    const filler = Buffer.alloc(4 << 20);
    for (let i = 0; i < filler.length; i += 4) filler.writeUInt32LE(Math.floor(next() * 2 ** 32), i);
    const info = await mirror(
      release([
        { path: 'share/', type: 'Directory' },
        { path: 'share/filler', body: filler },
      ]),
      true,
    );
    halting(info);
    seedData(100, info);
    const r = chainvisor(['run', 'start'], baseEnv(h, downloadEnv));
    await r.waitFor(/INF downloading http/);
    await until(
      () => partials().some((d) => existsSync(join(h.cv, 'upgrades', d, 'download')) && statSync(join(h.cv, 'upgrades', d, 'download')).size > 0),
      'bytes on disk',
    );
    await killGroup(r);
    assert.equal(current(), 'genesis');
    assert.equal(existsSync(join(h.cv, 'upgrades', PLAN_NAME)), false, 'no release folder under its final name');
    invariants('killed mid-download');
    await rerunCompletes(downloadEnv);
  });

  test('during the extraction: the half-extracted release is never used, the rerun extracts again and completes', async () => {
    // thousands of entries: the extraction lasts long enough for the kill to land in it
    const many: RawEntry[] = [{ path: 'share/', type: 'Directory' }];
    for (let i = 0; i < 2500; i++) many.push({ path: `share/f${i}`, body: `file ${i} `.repeat(100) });
    const body = release(many);
    const info = await mirror(body, false);
    halting(info);
    seedData(100, info);
    const r = chainvisor(['run', 'start'], baseEnv(h, downloadEnv));
    await r.waitFor(/INF downloaded \d+ bytes/);
    await until(
      () => partials().some((d) => existsSync(join(h.cv, 'upgrades', d, 'out', 'share')) && readdirSync(join(h.cv, 'upgrades', d, 'out', 'share')).length > 50),
      'files extracted',
    );
    await killGroup(r);
    assert.equal(existsSync(join(h.cv, 'upgrades', PLAN_NAME)), false, 'killed mid-extraction: no release under its final name');
    assert.equal(current(), 'genesis');
    invariants('killed mid-extraction');
    await rerunCompletes(downloadEnv);
    assert.equal(readdirSync(join(h.cv, 'upgrades', PLAN_NAME, 'share')).length, 2500, 'the release is whole');
  });

  test('during the backup: no partial copy of data/ is kept or taken for a backup, the rerun backs up again and completes', async () => {
    installLocally();
    seedData(3000, '');
    const r = chainvisor(['run', 'start'], baseEnv(h));
    await r.waitFor(/INF upgrade v2 at height 20: starting/);
    const copying = (): boolean => readdirSync(h.home).some((n) => n.startsWith(`data-backup-${PLAN_NAME}-${HEIGHT}.tmp-`));
    await until(copying, 'the backup copy to start', 10_000);
    await killGroup(r);
    assert.equal(existsSync(backup()), false, 'killed mid-backup: no backup under its final name');
    assert.equal(current(), 'genesis');
    invariants('killed mid-backup');
    await rerunCompletes();
  });

  for (const which of ['release', 'custom'] as const) {
    const what = which === 'release' ? "the new binary's pre-upgrade" : 'COSMOVISOR_CUSTOM_PREUPGRADE';
    test(`during ${what}: current stays on the old release, the rerun runs it again and completes`, async () => {
      installLocally();
      seedData(100, '');
      const env: Record<string, string> = {};
      if (which === 'custom') {
        writeDaemon(
          join(h.cv, 'check.js'),
          'script',
          "process.stderr.write('CUSTOM running\\n'); if (fs.existsSync(path.join(home, 'block-pre'))) setInterval(() => {}, 1000); else process.exit(0);",
        );
        env.COSMOVISOR_CUSTOM_PREUPGRADE = 'check.js';
      }
      writeFileSync(join(h.home, 'block-pre'), '');
      const r = chainvisor(['run', 'start'], baseEnv(h, env));
      await r.waitFor(which === 'release' ? /PRE-UPGRADE running/ : /CUSTOM running/);
      await killGroup(r);
      assert.equal(current(), 'genesis');
      invariants(`killed during ${what}`);
      await rerunCompletes(env);
      const runs = h.launches().filter((l) => (which === 'release' ? l.endsWith(' pre-upgrade --home ' + h.home) : l.startsWith('script '))).length;
      assert.equal(runs, 2, `${what} ran again on the rerun`);
    });
  }

  test(
    `around the switch of current, at ${SWITCH_KILLS} seeded moments: current always names a complete release, the rerun completes`,
    { timeout: Math.max(180_000, SWITCH_KILLS * 10_000) },
    async (t) => {
      const next = seededRandom(SEED);
      const outcomes = { before: 0, after: 0 };
      for (let i = 0; i < SWITCH_KILLS; i++) {
        if (i > 0) {
          h.cleanup();
          h = makeHome();
          halting('');
        }
        installLocally();
        seedData(20, '');
        // from the moment pre-upgrade says it exits: its exit, the plan copied beside the binary, the switch, the relaunch
        const delayMs = next() * 30;
        const r = chainvisor(['run', 'start'], baseEnv(h));
        await r.waitFor(/PRE-UPGRADE exiting/);
        const end = performance.now() + delayMs;
        while (performance.now() < end) {
          // busy wait: a timer's resolution is too coarse for the switch
        }
        await killGroup(r);
        const when = `seed ${SEED}, kill ${i}, ${delayMs.toFixed(2)} ms after pre-upgrade`;
        invariants(when);
        if (current() === 'genesis') outcomes.before++;
        else outcomes.after++;
        await rerunCompletes();
      }
      t.diagnostic(`seed ${SEED}: ${outcomes.before} kills left current on genesis, ${outcomes.after} after the switch`);
    },
  );
});

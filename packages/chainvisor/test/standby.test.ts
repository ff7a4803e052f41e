// DAEMON_WARM_START with daemon scripts that speak (or do not speak) the standby protocol; the real chaind's
// standby is exercised by the rehearsal and the CometBFT network tests.
import assert from 'node:assert/strict';
import type { Server } from 'node:http';
import { readlinkSync, writeFileSync } from 'node:fs';
import { join } from 'node:path';
import { afterEach, beforeEach, describe, test } from 'node:test';
import type { Server as GrpcServer } from '@grpc/grpc-js';
import { EXIT } from '../src/exit-codes.ts';
import { baseEnv, chainvisor, killAll, makeHome, planResponse, planServer, statusServer, writeDaemon, type Home, type Run } from '@chaind/chainvisor/testing';

/** The old release: runs until <home>/halt appears, then writes the plan (at the height the file names, else 20) and exits 10, as chaind at its halt. */
const OLD = `process.on('SIGTERM', () => process.exit(0));
setInterval(() => { const f = path.join(home, 'halt'); if (fs.existsSync(f)) { writeInfo({ name: 'v2', height: Number(fs.readFileSync(f, 'utf8')) || 20 }); process.exit(10); } }, 20);`;

/** The new release, speaking the standby protocol on fd 3; `preUpgradeExit` is what its pre-upgrade answers. */
const standbyRelease = (preUpgradeExit = 0): string => `process.on('SIGTERM', () => { log('v2 SIGTERM pid=' + process.pid); process.exit(0); });
if (args[0] === 'pre-upgrade') process.exit(0);
if (args[0] === 'standby') {
  log('v2 standby pid=' + process.pid);
  const pipe = new (require('node:net').Socket)({ fd: 3, readable: true, writable: true });
  pipe.write(JSON.stringify({ ready: true }) + '\\n');
  let buf = '';
  let started = false;
  pipe.on('data', (d) => {
    buf += d;
    for (let i; (i = buf.indexOf('\\n')) >= 0; buf = buf.slice(i + 1)) {
      const m = JSON.parse(buf.slice(0, i));
      if (m.preUpgrade) { log('v2 standby pre-upgrade ' + m.preUpgrade.join(' ')); pipe.write(JSON.stringify({ exit: ${preUpgradeExit} }) + '\\n'); }
      if (m.start) { started = true; log('v2 node pid=' + process.pid); pipe.destroy(); }
    }
  });
  pipe.on('end', () => { if (!started) { log('v2 standby ended pid=' + process.pid); process.exit(0); } });
}
setInterval(() => {}, 1000);`;

/** A release of another daemon: no `standby` command (an unknown command exits 1, as a Cosmos SDK binary's does). */
const COLD_RELEASE = `if (args[0] === 'standby') process.exit(1);
if (args[0] === 'pre-upgrade') process.exit(0);
process.on('SIGTERM', () => process.exit(0));
setInterval(() => {}, 1000);`;

const alive = (pid: number): boolean => {
  try {
    process.kill(pid, 0);
    return true;
  } catch {
    return false;
  }
};

async function until<T>(what: string, f: () => T | undefined, ms = 15_000): Promise<T> {
  for (const end = performance.now() + ms; performance.now() < end; await new Promise((r) => setTimeout(r, 25))) {
    const v = f();
    if (v !== undefined) return v;
  }
  throw new Error(`timed out waiting for ${what}`);
}

describe('chainvisor run: warm start (DAEMON_WARM_START)', { timeout: 120_000 }, () => {
  let h: Home;
  let status: { url: string; server: Server };
  let grpc: { address: string; server: GrpcServer };
  let plan: Uint8Array;
  beforeEach(async () => {
    h = makeHome();
    writeDaemon(join(h.cv, 'genesis', 'bin', 'chaind'), 'v1', OLD);
    writeFileSync(join(h.data, 'height'), '15');
    plan = planResponse({ name: 'v2', height: 20n, info: '' });
    status = await statusServer(h.home);
    grpc = await planServer(() => plan);
  });
  afterEach(() => {
    killAll();
    status.server.close();
    grpc.server.forceShutdown();
    h.cleanup();
  });
  const run = (extra: Record<string, string> = {}): Run =>
    chainvisor(['run', 'start', '--home', h.home], baseEnv(h, { DAEMON_RPC_ADDRESS: status.url, DAEMON_GRPC_ADDRESS: grpc.address, ...extra }));
  const pidOf = (re: RegExp): number => Number(re.exec(h.launches().join('\n'))?.[1]);
  const halt = (): void => writeFileSync(join(h.home, 'halt'), '');

  test('within DAEMON_WARM_START_BLOCKS of the height, the release waits in standby; at the halt it runs pre-upgrade and becomes the node, in the same process', async () => {
    writeDaemon(join(h.cv, 'upgrades', 'v2', 'bin', 'chaind'), 'v2', standbyRelease());
    const r = run();
    await r.waitFor(/INF warm start: the standby of v2 is loaded and waits for the halt/);
    assert.ok(h.launches().includes(`v2 standby -- start --home ${h.home}`), h.launches().join('\n'));
    const standbyPid = pidOf(/v2 standby pid=(\d+)/);
    halt();
    await r.waitFor(/: the standby \(pid \d+\) runs it$/);
    const node = await until('v2 as the node', () => (h.launches().some((l) => l.startsWith('v2 node')) ? pidOf(/v2 node pid=(\d+)/) : undefined));
    assert.equal(node, standbyPid, 'the node is the standby process');
    assert.ok(h.launches().includes(`v2 standby pre-upgrade --home ${h.home}`));
    // nothing of v2 ran cold: no `pre-upgrade` process, no second launch
    assert.deepEqual(
      h.launches().filter((l) => l.startsWith('v2 ') && !l.startsWith('v2 standby') && !l.startsWith('v2 node')),
      [],
    );
    assert.match(r.stderr(), /pre-upgrade \(in the standby\): ok/);
    assert.equal(readlinkSync(join(h.cv, 'current')), 'upgrades/v2');
    // signals reach the standby that became the node
    r.child.kill('SIGTERM');
    assert.equal((await r.exit).code, EXIT.OK);
    assert.ok(h.launches().includes(`v2 SIGTERM pid=${standbyPid}`));
  });

  test('a release without the standby command is started cold: pre-upgrade and start as their own processes', async () => {
    writeDaemon(join(h.cv, 'upgrades', 'v2', 'bin', 'chaind'), 'v2', COLD_RELEASE);
    const r = run();
    await r.waitFor(/WRN warm start: .* did not stay in standby .*: the upgrade will start it cold/);
    halt();
    await r.waitFor(/INF starting .*upgrades\/v2\/bin\/chaind start --home \S+$|INF starting .*current\/bin\/chaind start --home \S+$/);
    await until('v2 started', () => (h.launches().includes(`v2 start --home ${h.home}`) ? true : undefined));
    assert.deepEqual(
      h.launches().filter((l) => l.startsWith('v2')),
      [`v2 standby -- start --home ${h.home}`, `v2 pre-upgrade --home ${h.home}`, `v2 start --home ${h.home}`],
    );
  });

  test("a plan chaind's readiness gate moved (same name and info, a later height) keeps its standby, which serves the halt there", async () => {
    writeDaemon(join(h.cv, 'upgrades', 'v2', 'bin', 'chaind'), 'v2', standbyRelease());
    const r = run();
    await r.waitFor(/the standby of v2 is loaded/);
    const standbyPid = pidOf(/v2 standby pid=(\d+)/);
    plan = planResponse({ name: 'v2', height: 60n, info: '' });
    await new Promise((res) => setTimeout(res, 2500)); // two of the standby's 1 s polls
    assert.doesNotMatch(r.stderr(), /no longer scheduled as it was/);
    assert.ok(alive(standbyPid), 'the standby still runs');
    writeFileSync(join(h.home, 'halt'), '60');
    await r.waitFor(/: the standby \(pid \d+\) runs it$/);
    const node = await until('v2 as the node', () => (h.launches().some((l) => l.startsWith('v2 node')) ? pidOf(/v2 node pid=(\d+)/) : undefined));
    assert.equal(node, standbyPid, 'the node is the standby started for the plan before it moved');
    assert.equal(h.launches().filter((l) => l.startsWith('v2 standby --')).length, 1, 'one standby only');
    r.child.kill('SIGTERM');
    assert.equal((await r.exit).code, EXIT.OK);
  });

  test('a plan cancelled before its height ends its standby; DAEMON_WARM_START=false starts none', async () => {
    writeDaemon(join(h.cv, 'upgrades', 'v2', 'bin', 'chaind'), 'v2', standbyRelease());
    const r = run();
    await r.waitFor(/the standby of v2 is loaded/);
    const pid = pidOf(/v2 standby pid=(\d+)/);
    plan = planResponse();
    await r.waitFor(/INF warm start: the plan v2 at height 20 is no longer scheduled as it was: its standby \(pid \d+\) stopped/);
    await until('the standby gone', () => (alive(pid) ? undefined : true));
    r.child.kill('SIGTERM');
    await r.exit;

    const off = run({ DAEMON_WARM_START: 'false' });
    plan = planResponse({ name: 'v2', height: 20n, info: '' });
    await off.waitFor(/INF starting .* start --home/);
    await new Promise((res) => setTimeout(res, 2500)); // two of the standby's 1 s polls
    assert.equal(h.launches().filter((l) => l.startsWith('v2 standby --')).length, 1, 'only the first run started one');
    off.child.kill('SIGTERM');
    await off.exit;
  });

  test('a standby whose chainvisor is killed ends by itself: the pipe closes', async () => {
    writeDaemon(join(h.cv, 'upgrades', 'v2', 'bin', 'chaind'), 'v2', standbyRelease());
    const r = run();
    await r.waitFor(/the standby of v2 is loaded/);
    const pid = pidOf(/v2 standby pid=(\d+)/);
    process.kill(r.child.pid!, 'SIGKILL'); // chainvisor alone, not its group
    await until('the standby gone', () => (alive(pid) ? undefined : true));
    assert.ok(h.launches().includes(`v2 standby ended pid=${pid}`));
  });

  test('a release replaced after its standby started is not run from the standby: it is ended and the new binary started cold', async () => {
    const bin = join(h.cv, 'upgrades', 'v2', 'bin', 'chaind');
    writeDaemon(bin, 'v2', standbyRelease());
    const r = run();
    await r.waitFor(/the standby of v2 is loaded/);
    const pid = pidOf(/v2 standby pid=(\d+)/);
    writeDaemon(bin, 'v2-new', COLD_RELEASE);
    halt();
    await r.waitFor(/INF warm start: the standby \(pid \d+\) is not used: .*bin\/chaind was replaced since it started; starting .* cold/);
    await until('v2-new started', () => (h.launches().includes(`v2-new start --home ${h.home}`) ? true : undefined));
    assert.ok(h.launches().includes(`v2-new pre-upgrade --home ${h.home}`));
    assert.ok(h.launches().includes(`v2 SIGTERM pid=${pid}`));
  });

  test('pre-upgrade failing in the standby (exit 30) aborts the upgrade as a cold one would: exit code, current unchanged, standby ended', async () => {
    writeDaemon(join(h.cv, 'upgrades', 'v2', 'bin', 'chaind'), 'v2', standbyRelease(30));
    const r = run();
    await r.waitFor(/the standby of v2 is loaded/);
    const pid = pidOf(/v2 standby pid=(\d+)/);
    halt();
    const exit = await r.exit;
    assert.equal(exit.code, EXIT.PREUPGRADE_FAILED, exit.stderr);
    assert.match(exit.stderr, /pre-upgrade \(in the standby\) exited with code 30 \(failed\): upgrade v2 aborted, current unchanged/);
    assert.equal(readlinkSync(join(h.cv, 'current')), 'genesis');
    await until('the standby gone', () => (alive(pid) ? undefined : true));
  });
});

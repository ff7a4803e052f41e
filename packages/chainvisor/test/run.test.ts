import assert from 'node:assert/strict';
import { chmodSync, existsSync, readFileSync, readlinkSync, statSync, symlinkSync, unlinkSync, writeFileSync } from 'node:fs';
import type { Server } from 'node:http';
import { join } from 'node:path';
import { afterEach, beforeEach, describe, test } from 'node:test';
import { EXIT } from '../src/exit-codes.ts';
import { baseEnv, chainvisor, killAll, makeHome, statusServer, writeDaemon, type Home } from '@chaind/chainvisor/testing';

const PLAN = "writeInfo({ name: 'v2', time: '0001-01-01T00:00:00Z', height: 20, info: '' });";

/** The old binary: prints a JSON log line, halts at the height like chaind (writes the plan, exit code 10). */
const OLD_HALTS = `console.log(JSON.stringify({ level: 'info', msg: 'old running' })); ${PLAN} process.exit(10);`;

/**
 * The new binary: `pre-upgrade` exits with the next code of <home>/pre-codes (comma-separated, default 0);
 * otherwise it "commits" height 20 (what the status server reports) and runs until SIGTERM.
 */
const NEW = `
if (args[0] === 'pre-upgrade') {
  const f = path.join(home, 'pre-codes');
  const codes = fs.existsSync(f) ? fs.readFileSync(f, 'utf8').trim().split(',') : ['0'];
  const c = codes.length > 1 ? codes.shift() : codes[0];
  fs.writeFileSync(f, codes.join(','));
  process.exit(Number(c));
}
process.on('SIGTERM', () => { log('new got SIGTERM'); process.exit(0); });
fs.writeFileSync(path.join(home, 'data', 'height'), '20');
setInterval(() => {}, 1000);
`;

describe('chainvisor run', () => {
  let h: Home;
  let rpc: { url: string; server: Server } | undefined;
  const oldBin = (): string => join(h.cv, 'genesis', 'bin', 'chaind');
  const newBin = (): string => join(h.cv, 'upgrades', 'v2', 'bin', 'chaind');
  const current = (): string => readlinkSync(join(h.cv, 'current'));
  beforeEach(() => (h = makeHome()));
  afterEach(() => {
    killAll();
    rpc?.server.closeAllConnections();
    rpc?.server.close();
    rpc = undefined;
    h.cleanup();
  });

  test('the upgrade with an installed binary: backup, pre-upgrade, atomic switch, relaunch with the same args, downtime summary', async () => {
    writeDaemon(oldBin(), 'old', OLD_HALTS);
    writeDaemon(newBin(), 'new', NEW);
    rpc = await statusServer(h.home);
    const r = chainvisor(
      ['run', 'start', '--home', '/x', '--cosmovisor-config=', '--log_format', 'json'].filter((a) => a !== '--cosmovisor-config='),
      baseEnv(h, { DAEMON_RPC_ADDRESS: rpc.url }),
    );
    const summary = await r.waitFor(/downtime/);
    assert.match(
      summary,
      /^\[chainvisor\] INF upgrade v2 at height 20 done: downtime \d+(ms|\.\d{3}s) \(stop \d+ms, delay 0ms, backup \d+(ms|\.\d{3}s), pre-upgrade script 0ms, binary \d+ms, pre-upgrade \d+(ms|\.\d{3}s), switch \d+ms, start→first block \d+(ms|\.\d{3}s)\)$/,
    );
    r.child.kill('SIGTERM');
    const { code, stdout, stderr } = await r.exit;
    assert.equal(code, EXIT.OK, stderr);
    assert.deepEqual(h.launches(), [
      'old start --home /x --log_format json',
      `new pre-upgrade --home ${h.home}`,
      'new start --home /x --log_format json',
      'new got SIGTERM',
    ]);
    assert.equal(current(), 'upgrades/v2');
    assert.equal(readFileSync(join(h.cv, 'upgrades', 'v2', 'upgrade-info.json'), 'utf8'), readFileSync(join(h.data, 'upgrade-info.json'), 'utf8'));
    assert.ok(existsSync(join(h.home, 'data-backup-v2-20', 'upgrade-info.json')));
    assert.match(stderr, /\[chainvisor\] INF backup of data\/ to .*data-backup-v2-20: 1 files, \d+ bytes in \d+/);
    // the node's stdout is untouched by chainvisor's own lines
    assert.deepEqual(stdout.trim().split('\n'), ['{"level":"info","msg":"old running"}']);
  });

  test('an upgrade pending at start-up is done before the first launch: the old binary is never started', async () => {
    writeDaemon(oldBin(), 'old', OLD_HALTS);
    writeDaemon(newBin(), 'new', NEW);
    writeFileSync(join(h.data, 'upgrade-info.json'), '{"name":"V2","height":"20"}');
    const r = chainvisor(['run', 'start'], baseEnv(h));
    await r.waitFor(/INF starting .*upgrades\/v2\/bin\/chaind start/);
    while (!existsSync(join(h.data, 'height'))) await new Promise((res) => setTimeout(res, 20));
    r.child.kill('SIGTERM');
    const { code, stderr } = await r.exit;
    assert.equal(code, EXIT.OK, stderr);
    assert.deepEqual(h.launches(), [`new pre-upgrade --home ${h.home}`, 'new start', 'new got SIGTERM']);
    assert.equal(current(), 'upgrades/v2');
  });

  test('a half-written upgrade-info.json at start-up is waited for, then acted on before the first launch', async () => {
    writeDaemon(oldBin(), 'old', OLD_HALTS);
    writeDaemon(newBin(), 'new', NEW);
    const full = '{"name":"v2","height":20,"info":""}';
    writeFileSync(join(h.data, 'upgrade-info.json'), full.slice(0, 10));
    const r = chainvisor(['run', 'start'], baseEnv(h, { DAEMON_RESTART_AFTER_UPGRADE: 'false' }));
    await r.waitFor(/WRN .*upgrade-info\.json is incomplete \(not complete JSON .*\): waiting for it to be completed$/);
    writeFileSync(join(h.data, 'upgrade-info.json'), full);
    const { code, stderr } = await r.exit;
    assert.equal(code, EXIT.OK, stderr);
    assert.deepEqual(h.launches(), [`new pre-upgrade --home ${h.home}`]);
    assert.equal(current(), 'upgrades/v2');
  });

  test('DAEMON_RESTART_AFTER_UPGRADE=false: switched, not relaunched, exit 0', async () => {
    writeDaemon(oldBin(), 'old', OLD_HALTS);
    writeDaemon(newBin(), 'new', NEW);
    const { code, stderr } = await chainvisor(['run', 'start'], baseEnv(h, { DAEMON_RESTART_AFTER_UPGRADE: 'false' })).exit;
    assert.equal(code, EXIT.OK, stderr);
    assert.deepEqual(h.launches(), ['old start', `new pre-upgrade --home ${h.home}`]);
    assert.equal(current(), 'upgrades/v2');
    assert.match(stderr, /upgrade v2 at height 20 done, not restarted \(DAEMON_RESTART_AFTER_UPGRADE=false\): downtime so far/);
  });

  describe('pre-upgrade exit codes', () => {
    const attempt = async (codes: string, extra: Record<string, string> = {}) => {
      writeDaemon(oldBin(), 'old', OLD_HALTS);
      writeDaemon(newBin(), 'new', NEW);
      writeFileSync(join(h.home, 'pre-codes'), codes);
      const r = await chainvisor(['run', 'start'], baseEnv(h, { DAEMON_RESTART_AFTER_UPGRADE: 'false', UNSAFE_SKIP_BACKUP: 'true', ...extra })).exit;
      return { ...r, pre: h.launches().filter((l) => l.startsWith('new pre-upgrade')).length };
    };
    const lastLine = (s: string): string => s.trim().split('\n').at(-1) ?? '';

    test('0: ok', async () => {
      const r = await attempt('0');
      assert.equal(r.code, EXIT.OK, r.stderr);
      assert.equal(current(), 'upgrades/v2');
    });

    test('1: not implemented, the upgrade continues', async () => {
      const r = await attempt('1');
      assert.equal(r.code, EXIT.OK, r.stderr);
      assert.match(r.stderr, /pre-upgrade: exit code 1, not implemented: continuing/);
      assert.equal(current(), 'upgrades/v2');
    });

    test('30: the upgrade is aborted, current unchanged', async () => {
      const r = await attempt('30');
      assert.equal(r.code, EXIT.PREUPGRADE_FAILED);
      assert.equal(lastLine(r.stderr), `[chainvisor] ERR ${newBin()} pre-upgrade exited with code 30 (failed): upgrade v2 aborted, current unchanged`);
      assert.equal(current(), 'genesis');
    });

    test('31: retried up to DAEMON_PREUPGRADE_MAX_RETRIES', async () => {
      const ok = await attempt('31,31,0', { DAEMON_PREUPGRADE_MAX_RETRIES: '2' });
      assert.equal(ok.code, EXIT.OK, ok.stderr);
      assert.equal(ok.pre, 3);
      assert.equal(current(), 'upgrades/v2');
    });

    test('31 past the retries: aborted', async () => {
      const r = await attempt('31', { DAEMON_PREUPGRADE_MAX_RETRIES: '1' });
      assert.equal(r.code, EXIT.PREUPGRADE_FAILED);
      assert.equal(r.pre, 2);
      assert.equal(
        lastLine(r.stderr),
        `[chainvisor] ERR ${newBin()} pre-upgrade exited with code 31 after 1 retries (DAEMON_PREUPGRADE_MAX_RETRIES): upgrade v2 aborted, current unchanged`,
      );
      assert.equal(current(), 'genesis');
    });

    test('any other code: aborted (cosmovisor would carry on)', async () => {
      const r = await attempt('7');
      assert.equal(r.code, EXIT.PREUPGRADE_FAILED);
      assert.equal(
        lastLine(r.stderr),
        `[chainvisor] ERR ${newBin()} pre-upgrade exited with code 7, which the pre-upgrade contract does not define: upgrade v2 aborted, current unchanged`,
      );
      assert.equal(current(), 'genesis');
    });
  });

  test('a failing COSMOVISOR_CUSTOM_PREUPGRADE script aborts the upgrade; it gets the name and height', async () => {
    writeDaemon(oldBin(), 'old', OLD_HALTS);
    writeDaemon(newBin(), 'new', NEW);
    writeDaemon(join(h.cv, 'check.js'), 'script', 'process.exit(3);');
    const { code, stderr } = await chainvisor(['run', 'start'], baseEnv(h, { COSMOVISOR_CUSTOM_PREUPGRADE: 'check.js' })).exit;
    assert.equal(code, EXIT.PREUPGRADE_FAILED);
    assert.equal(
      stderr.trim().split('\n').at(-1),
      `[chainvisor] ERR COSMOVISOR_CUSTOM_PREUPGRADE ${join(h.cv, 'check.js')} exited with code 3: upgrade v2 aborted, current unchanged`,
    );
    assert.deepEqual(h.launches(), ['old start', 'script v2 20']);
    assert.equal(current(), 'genesis');
  });

  test('a COSMOVISOR_CUSTOM_PREUPGRADE script without execute bits gets them, as cosmovisor does, and runs', async () => {
    writeDaemon(oldBin(), 'old', OLD_HALTS);
    writeDaemon(newBin(), 'new', NEW);
    const script = writeDaemon(join(h.cv, 'check.js'), 'script', 'process.exit(0);');
    chmodSync(script, 0o644);
    const { code, stderr } = await chainvisor(['run', 'start'], baseEnv(h, { COSMOVISOR_CUSTOM_PREUPGRADE: 'check.js', DAEMON_RESTART_AFTER_UPGRADE: 'false' }))
      .exit;
    assert.equal(code, EXIT.OK, stderr);
    assert.match(stderr, /setting the execute permission of COSMOVISOR_CUSTOM_PREUPGRADE .*check\.js/);
    assert.equal(statSync(script).mode & 0o777, 0o755);
    assert.deepEqual(h.launches().slice(0, 2), ['old start', 'script v2 20']);
    assert.equal(current(), 'upgrades/v2');
  });

  test('a half-written upgrade-info.json is not acted on until it is complete', async () => {
    writeDaemon(
      oldBin(),
      'old',
      `const f = path.join(home, 'data', 'upgrade-info.json');
       const full = JSON.stringify({ name: 'v2', height: 20, info: '' });
       fs.writeFileSync(f, full.slice(0, 12));
       setTimeout(() => { log('old still alive'); fs.appendFileSync(f, full.slice(12)); process.exit(10); }, 500);`,
    );
    writeDaemon(newBin(), 'new', NEW);
    const { code, stderr } = await chainvisor(['run', 'start'], baseEnv(h, { DAEMON_RESTART_AFTER_UPGRADE: 'false' })).exit;
    assert.equal(code, EXIT.OK, stderr);
    assert.deepEqual(h.launches(), ['old start', 'old still alive', `new pre-upgrade --home ${h.home}`]);
    assert.equal(current(), 'upgrades/v2');
  });

  test('an upgrade-info.json over DAEMON_UPGRADE_INFO_MAX_BYTES is refused unread: logged once, the node keeps running', async () => {
    const big = JSON.stringify({ name: 'v2', height: 20, info: 'x'.repeat(2000) });
    writeDaemon(
      oldBin(),
      'old',
      `const f = path.join(home, 'data', 'upgrade-info.json');
       fs.writeFileSync(f, ${JSON.stringify(big)});
       setTimeout(() => { log('old still alive'); ${PLAN} process.exit(10); }, 600);`,
    );
    writeDaemon(newBin(), 'new', NEW);
    const env = baseEnv(h, { DAEMON_RESTART_AFTER_UPGRADE: 'false', DAEMON_UPGRADE_INFO_MAX_BYTES: '1000' });
    const { code, stderr } = await chainvisor(['run', 'start'], env).exit;
    assert.equal(code, EXIT.OK, stderr);
    const why = `it is ${big.length} bytes, over the limit of 1000 bytes (set by DAEMON_UPGRADE_INFO_MAX_BYTES): not an upgrade the node wrote (a broken release or a wrong file?)`;
    assert.equal(stderr.split('\n').filter((l) => l === `[chainvisor] WRN ${join(h.data, 'upgrade-info.json')} is invalid: ${why}`).length, 1, stderr);
    assert.deepEqual(h.launches(), ['old start', 'old still alive', `new pre-upgrade --home ${h.home}`]);
    assert.equal(current(), 'upgrades/v2');
  });

  test('an upgrade-info.json over DAEMON_UPGRADE_INFO_MAX_BYTES left at the exit is an invalid file: exit 6, current and the file untouched', async () => {
    const big = JSON.stringify({ name: 'v2', height: 20, info: 'x'.repeat(2000) });
    writeDaemon(oldBin(), 'old', `fs.writeFileSync(path.join(home, 'data', 'upgrade-info.json'), ${JSON.stringify(big)}); process.exit(10);`);
    writeDaemon(newBin(), 'new', NEW);
    const { code, stderr } = await chainvisor(['run', 'start'], baseEnv(h, { DAEMON_UPGRADE_INFO_MAX_BYTES: '1000' })).exit;
    assert.equal(code, EXIT.UPGRADE_INFO_INVALID, stderr);
    const why = `it is ${big.length} bytes, over the limit of 1000 bytes (set by DAEMON_UPGRADE_INFO_MAX_BYTES): not an upgrade the node wrote (a broken release or a wrong file?)`;
    assert.equal(stderr.trim().split('\n').at(-1), `[chainvisor] ERR ${join(h.data, 'upgrade-info.json')} is invalid: ${why}`);
    assert.deepEqual(h.launches(), ['old start']);
    assert.equal(current(), 'genesis');
    assert.equal(readFileSync(join(h.data, 'upgrade-info.json'), 'utf8'), big);
  });

  test('a crash that is not an upgrade: non-zero exit, one clear line, current and data untouched', async () => {
    writeDaemon(oldBin(), 'old', 'process.exit(3);');
    writeDaemon(newBin(), 'new', NEW);
    const { code, stderr } = await chainvisor(['run', 'start'], baseEnv(h)).exit;
    assert.equal(code, EXIT.DAEMON_FAILED);
    assert.equal(
      stderr.trim().split('\n').at(-1),
      '[chainvisor] ERR chaind exited with code 3 and no upgrade is pending: not restarted; current and data/ left untouched',
    );
    assert.deepEqual(h.launches(), ['old start']);
    assert.equal(current(), 'genesis');
    assert.equal(existsSync(join(h.home, 'data-backup-v2-20')), false);
  });

  test('COSMOVISOR_DISABLE_LOGS: only the failure line is printed', async () => {
    writeDaemon(oldBin(), 'old', 'process.exit(3);');
    const { code, stderr } = await chainvisor(['run', 'start'], baseEnv(h, { COSMOVISOR_DISABLE_LOGS: 'true' })).exit;
    assert.equal(code, EXIT.DAEMON_FAILED);
    assert.equal(stderr, '[chainvisor] ERR chaind exited with code 3 and no upgrade is pending: not restarted; current and data/ left untouched\n');
  });

  test('a broken current is an error: exit 7, never reset to genesis, nothing started', async () => {
    writeDaemon(oldBin(), 'old', OLD_HALTS);
    unlinkSync(join(h.cv, 'current'));
    symlinkSync('upgrades/v9', join(h.cv, 'current'));
    const { code, stderr } = await chainvisor(['run', 'start'], baseEnv(h)).exit;
    assert.equal(code, EXIT.LAYOUT_BROKEN);
    assert.equal(stderr, `[chainvisor] ERR ${join(h.cv, 'current')} is broken: it points to upgrades/v9, which does not exist\n`);
    assert.equal(current(), 'upgrades/v9');
    assert.deepEqual(h.launches(), []);
  });

  test('shutdown: SIGTERM, then SIGKILL after DAEMON_SHUTDOWN_GRACE', async () => {
    writeDaemon(oldBin(), 'old', `process.on('SIGTERM', () => log('old ignores SIGTERM')); ${PLAN} setInterval(() => {}, 1000);`);
    writeDaemon(newBin(), 'new', NEW);
    const { code, stderr } = await chainvisor(['run', 'start'], baseEnv(h, { DAEMON_SHUTDOWN_GRACE: '300ms', DAEMON_RESTART_AFTER_UPGRADE: 'false' })).exit;
    assert.equal(code, EXIT.OK, stderr);
    assert.match(stderr, /\[chainvisor\] WRN chaind did not stop within DAEMON_SHUTDOWN_GRACE \(300ms\): sent SIGKILL\n/);
    assert.match(stderr, /chaind was killed by SIGKILL/);
    assert.deepEqual(h.launches(), ['old start', 'old ignores SIGTERM', `new pre-upgrade --home ${h.home}`]);
  });

  test('DAEMON_SHUTDOWN_GRACE=0: a node that exits by itself within DAEMON_HALT_EXIT_WAIT of writing the plan (as chaind after its halt-linger) is not killed; one that does not is sent SIGKILL alone, and the logs say so', async () => {
    // 400 ms: past several 50 ms polls, within the 1 s DAEMON_HALT_EXIT_WAIT
    writeDaemon(oldBin(), 'old', `${PLAN} setTimeout(() => process.exit(10), 400);`);
    writeDaemon(newBin(), 'new', NEW);
    const env = baseEnv(h, { DAEMON_RESTART_AFTER_UPGRADE: 'false' });
    const first = await chainvisor(['run', 'start'], env).exit;
    assert.equal(first.code, EXIT.OK, first.stderr);
    assert.match(first.stderr, /\[chainvisor\] INF chaind exited with code 10\n/);
    assert.doesNotMatch(first.stderr, /SIG/);

    h.cleanup();
    h = makeHome();
    writeDaemon(oldBin(), 'old', `process.on('SIGTERM', () => log('old got SIGTERM')); ${PLAN} setInterval(() => {}, 1000);`);
    writeDaemon(newBin(), 'new', NEW);
    const second = await chainvisor(['run', 'start'], baseEnv(h, { DAEMON_RESTART_AFTER_UPGRADE: 'false' })).exit;
    assert.equal(second.code, EXIT.OK, second.stderr);
    assert.match(second.stderr, /\[chainvisor\] INF sent SIGKILL to chaind \(DAEMON_SHUTDOWN_GRACE is 0\)\n\[chainvisor\] INF chaind was killed by SIGKILL\n/);
    assert.deepEqual(h.launches(), ['old start', `new pre-upgrade --home ${h.home}`]);
  });

  test('no binary installed and downloads disabled: exit 3, current untouched', async () => {
    writeDaemon(oldBin(), 'old', OLD_HALTS);
    const { code, stderr } = await chainvisor(['run', 'start'], baseEnv(h)).exit;
    assert.equal(code, EXIT.UPGRADE_FAILED);
    assert.equal(
      stderr.trim().split('\n').at(-1),
      `[chainvisor] ERR no binary for upgrade v2 at ${newBin()} and DAEMON_ALLOW_DOWNLOAD_BINARIES is false: install it with \`chainvisor add-upgrade v2 <path>\``,
    );
    assert.equal(current(), 'genesis');
  });

  test("a plan named '..' is refused: exit 6, current and data untouched, no backup", async () => {
    writeDaemon(oldBin(), 'old', "writeInfo({ name: '..', height: 20 }); process.exit(10);");
    const { code, stderr } = await chainvisor(['run', 'start'], baseEnv(h)).exit;
    assert.equal(code, EXIT.UPGRADE_INFO_INVALID);
    assert.equal(
      stderr.trim().split('\n').at(-1),
      `[chainvisor] ERR ${join(h.data, 'upgrade-info.json')} is invalid: unsafe upgrade name: ".." is not a valid folder name`,
    );
    assert.equal(current(), 'genesis');
    assert.equal(existsSync(join(h.home, 'data-backup-..-20')), false);
  });

  test('a plan written ahead of its height waits for the chain to get there', async () => {
    rpc = await statusServer(h.home);
    writeFileSync(join(h.data, 'height'), '5');
    writeDaemon(
      oldBin(),
      'old',
      "writeInfo({ name: 'v2', height: 20 }); process.on('SIGTERM', () => { log('old stopped'); process.exit(0); }); setTimeout(() => { log('old at 19'); fs.writeFileSync(path.join(home, 'data', 'height'), '19'); }, 400); setInterval(() => {}, 1000);",
    );
    writeDaemon(newBin(), 'new', NEW);
    const { code, stderr } = await chainvisor(
      ['run', 'start'],
      baseEnv(h, { DAEMON_RPC_ADDRESS: rpc.url, DAEMON_RESTART_AFTER_UPGRADE: 'false', DAEMON_SHUTDOWN_GRACE: '10s' }),
    ).exit;
    assert.equal(code, EXIT.OK, stderr);
    assert.match(stderr, /upgrade v2 is due at height 20, the node is at 5: waiting/);
    assert.deepEqual(h.launches(), ['old start', 'old at 19', 'old stopped', `new pre-upgrade --home ${h.home}`]);
  });
  test('a plan written ahead waits while the node takes the height request and does not answer (busy); it is carried out once the node is at the height before', async () => {
    rpc = await statusServer(h.home);
    writeFileSync(join(h.data, 'height'), '5');
    writeFileSync(join(h.data, 'rpc-silent'), '');
    writeDaemon(
      oldBin(),
      'old',
      "writeInfo({ name: 'v2', height: 20 }); process.on('SIGTERM', () => { log('old stopped'); process.exit(0); }); setInterval(() => {}, 1000);",
    );
    writeDaemon(newBin(), 'new', NEW);
    const r = chainvisor(['run', 'start'], baseEnv(h, { DAEMON_RPC_ADDRESS: rpc.url, DAEMON_RESTART_AFTER_UPGRADE: 'false', DAEMON_SHUTDOWN_GRACE: '10s' }));
    await r.waitFor(/INF upgrade v2 at height 20: the node did not tell its height within 1s: waiting$/);
    // two more unanswered requests: still running the old binary
    await new Promise((res) => setTimeout(res, 2500));
    assert.deepEqual(h.launches(), ['old start']);
    assert.doesNotMatch(r.stderr(), /upgrade detected/);
    writeFileSync(join(h.data, 'height'), '19');
    unlinkSync(join(h.data, 'rpc-silent'));
    const { code, stderr } = await r.exit;
    assert.equal(code, EXIT.OK, stderr);
    assert.deepEqual(h.launches(), ['old start', 'old stopped', `new pre-upgrade --home ${h.home}`]);
  });

  describe('upgrade-info.json.batch (add-batch-upgrade)', () => {
    const batch = (): string => join(h.data, 'upgrade-info.json.batch');
    const writeBatchJs = (entries: string): string => `fs.writeFileSync(path.join(home, 'data', 'upgrade-info.json.batch'), JSON.stringify(${entries}));`;

    test(
      'below its height, the lowest entry moves into upgrade-info.json and out of the batch; it is carried out at its height',
      { timeout: 30_000 },
      async () => {
        rpc = await statusServer(h.home);
        writeFileSync(join(h.data, 'height'), '5');
        writeDaemon(
          oldBin(),
          'old',
          `${writeBatchJs("[{ name: 'v3', height: 30 }, { name: 'v2', height: '20' }]")} process.on('SIGTERM', () => { log('old stopped'); process.exit(0); }); setTimeout(() => { log('old at 19'); fs.writeFileSync(path.join(home, 'data', 'height'), '19'); }, 800); setInterval(() => {}, 1000);`,
        );
        writeDaemon(newBin(), 'new', NEW);
        const { code, stderr } = await chainvisor(
          ['run', 'start'],
          baseEnv(h, { DAEMON_RPC_ADDRESS: rpc.url, DAEMON_RESTART_AFTER_UPGRADE: 'false', DAEMON_SHUTDOWN_GRACE: '10s' }),
        ).exit;
        assert.equal(code, EXIT.OK, stderr);
        assert.match(stderr, /batch upgrade v2 at height 20: wrote .*upgrade-info\.json \(the node is at 5\); 1 left in .*upgrade-info\.json\.batch/);
        assert.deepEqual(JSON.parse(readFileSync(batch(), 'utf8')), [{ name: 'v3', time: '0001-01-01T00:00:00Z', height: 30, info: '' }]);
        assert.deepEqual(h.launches(), ['old start', 'old at 19', 'old stopped', `new pre-upgrade --home ${h.home}`]);
        assert.equal(current(), 'upgrades/v2');
      },
    );

    test('an upgrade still pending in upgrade-info.json is never overwritten: the batch entry waits', { timeout: 30_000 }, async () => {
      rpc = await statusServer(h.home);
      writeFileSync(join(h.data, 'height'), '5');
      writeDaemon(
        oldBin(),
        'old',
        `writeInfo({ name: 'v2', height: 20 }); ${writeBatchJs("[{ name: 'v3', height: 30 }]")} process.on('SIGTERM', () => { log('old stopped'); process.exit(0); }); setTimeout(() => { log('old at 19'); fs.writeFileSync(path.join(home, 'data', 'height'), '19'); }, 800); setInterval(() => {}, 1000);`,
      );
      writeDaemon(newBin(), 'new', NEW);
      const { code, stderr } = await chainvisor(
        ['run', 'start'],
        baseEnv(h, { DAEMON_RPC_ADDRESS: rpc.url, DAEMON_RESTART_AFTER_UPGRADE: 'false', DAEMON_SHUTDOWN_GRACE: '10s' }),
      ).exit;
      assert.equal(code, EXIT.OK, stderr);
      assert.match(stderr, /batch upgrade v3 at height 30 waits: .*upgrade-info\.json holds upgrade v2 at height 20, not done yet/);
      assert.doesNotMatch(stderr, /batch upgrade v3 at height 30: wrote/);
      assert.equal(JSON.parse(readFileSync(join(h.cv, 'upgrades', 'v2', 'upgrade-info.json'), 'utf8')).name, 'v2');
      assert.equal(JSON.parse(readFileSync(batch(), 'utf8')).length, 1);
    });

    test('an entry the node has passed is not carried out, and said so once', { timeout: 30_000 }, async () => {
      rpc = await statusServer(h.home);
      writeFileSync(join(h.data, 'height'), '50');
      writeDaemon(
        oldBin(),
        'old',
        `${writeBatchJs("[{ name: 'v2', height: 20 }]")} process.on('SIGTERM', () => { log('old stopped'); process.exit(0); }); setInterval(() => {}, 1000);`,
      );
      const r = chainvisor(['run', 'start'], baseEnv(h, { DAEMON_RPC_ADDRESS: rpc.url }));
      await r.waitFor(/batch upgrade v2 at height 20 is behind the node \(at 50\): it is not carried out, nor any later one in .*; remove it from the file/);
      await new Promise((res) => setTimeout(res, 300));
      r.child.kill('SIGTERM');
      const { code, stderr } = await r.exit;
      assert.equal(code, EXIT.OK, stderr);
      assert.equal(stderr.split('\n').filter((l) => l.includes('is behind the node')).length, 1);
      assert.equal(existsSync(join(h.data, 'upgrade-info.json')), false);
      assert.equal(current(), 'genesis');
    });
  });
});

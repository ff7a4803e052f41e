import assert from 'node:assert/strict';
import { copyFileSync, existsSync, mkdirSync, readdirSync, readFileSync, readlinkSync, rmSync, statSync, symlinkSync, writeFileSync } from 'node:fs';
import { join } from 'node:path';
import { afterEach, beforeEach, describe, test } from 'node:test';
import { EXIT } from '../src/exit-codes.ts';
import { baseEnv, chainvisor, killAll, makeHome, writeDaemon, type Home } from '@chaind/chainvisor/testing';

describe('chainvisor commands', () => {
  let h: Home;
  let bin: string;
  beforeEach(() => {
    h = makeHome();
    bin = writeDaemon(join(h.root, 'chaind-build'), 'build', "if (args[0] === 'version') console.log('v1.0.0');");
  });
  afterEach(() => {
    killAll();
    h.cleanup();
  });
  const cv = (args: string[], extra: Record<string, string> = {}) => chainvisor(args, baseEnv(h, extra)).exit;

  test('init: genesis binary, current -> genesis, config.toml; a second init keeps them', async () => {
    const fresh = join(h.root, 'fresh');
    mkdirSync(fresh);
    const r = await cv(['init', bin], { DAEMON_HOME: fresh });
    assert.equal(r.code, EXIT.OK, r.stderr);
    const g = join(fresh, 'cosmovisor', 'genesis', 'bin', 'chaind');
    assert.equal(statSync(g).mode & 0o777, 0o755);
    assert.equal(readlinkSync(join(fresh, 'cosmovisor', 'current')), 'genesis');
    assert.match(readFileSync(join(fresh, 'cosmovisor', 'config.toml'), 'utf8'), /^daemon_home = ".*fresh"\ndaemon_name = "chaind"\n/);
    const again = await cv(['init', bin], { DAEMON_HOME: fresh });
    assert.equal(again.code, EXIT.OK, again.stderr);
    assert.match(again.stderr, /genesis\/bin\/chaind already exists: kept/);
  });

  test("version: own then the daemon's; -o json; --cosmovisor-only", async () => {
    // the daemon's version: its arguments passed through; with --long --output json, its JSON
    writeDaemon(
      join(h.cv, 'genesis', 'bin', 'chaind'),
      'genesis',
      "if (args[0] === 'version') console.log(args.includes('--output') && args.includes('json') && args.includes('--long') ? JSON.stringify({ name: 'chaind', version: 'v1.0.0', commit: 'abc' }) : 'v1.0.0' + (args.length > 1 ? ' ' + args.slice(1).join(' ') : ''));",
    );
    assert.equal((await cv(['version'])).stdout, 'chainvisor version: 0.1.0\nv1.0.0\n');
    assert.equal((await cv(['version', '--long'])).stdout, 'chainvisor version: 0.1.0\nv1.0.0 --long\n');
    assert.equal(
      (await cv(['version', '-o', 'json'])).stdout,
      '{"cosmovisor_version":"0.1.0","app_version":{"name":"chaind","version":"v1.0.0","commit":"abc"}}\n',
    );
    assert.equal((await cv(['version', '--cosmovisor-only'], { DAEMON_NAME: '' })).stdout, 'chainvisor version: 0.1.0\n');
  });

  test('add-upgrade: installs, refuses to overwrite without --force, --upgrade-height writes upgrade-info.json', async () => {
    const dest = join(h.cv, 'upgrades', 'v2', 'bin', 'chaind');
    const r = await cv(['add-upgrade', 'V2', bin]);
    assert.equal(r.code, EXIT.OK, r.stderr);
    assert.equal(statSync(dest).mode & 0o777, 0o755);
    const again = await cv(['add-upgrade', 'v2', bin]);
    assert.equal(again.code, EXIT.CONFIG);
    assert.equal(again.stderr, `[chainvisor] ERR ${dest} already exists: use --force to overwrite it\n`);
    const forced = await cv(['add-upgrade', 'v2', bin, '--force', '--upgrade-height', '120']);
    assert.equal(forced.code, EXIT.OK, forced.stderr);
    assert.deepEqual(JSON.parse(readFileSync(join(h.data, 'upgrade-info.json'), 'utf8')), { name: 'v2', time: '0001-01-01T00:00:00Z', height: 120, info: '' });
    const shown = await cv(['show-upgrade-info']);
    assert.equal(shown.stdout, '{"name":"v2","time":"0001-01-01T00:00:00Z","height":120,"info":""}\n');
    const bad = await cv(['add-upgrade', 'v3', bin, '--upgrade-height', '0']);
    assert.equal(bad.code, EXIT.CONFIG);
    assert.equal(bad.stderr, '[chainvisor] ERR --upgrade-height: expected a positive integer, got "0"\n');
  });

  test('add-upgrade --upgrade-height replaces the upgrade-info.json of an upgrade carried out already without --force, not a pending one', async () => {
    const info = join(h.data, 'upgrade-info.json');
    assert.equal((await cv(['add-upgrade', 'v2', bin, '--upgrade-height', '120'])).code, EXIT.OK);
    // v2 not applied yet (current is genesis): its plan is pending
    const pending = await cv(['add-upgrade', 'v3', bin, '--upgrade-height', '200']);
    assert.equal(pending.code, EXIT.CONFIG);
    assert.equal(pending.stderr, `[chainvisor] ERR ${info} already exists: use --force to overwrite it\n`);
    // v2 carried out: current -> upgrades/v2, as chainvisor leaves it after the switch; the file still names v2
    rmSync(join(h.cv, 'current'));
    symlinkSync(join('upgrades', 'v2'), join(h.cv, 'current'));
    copyFileSync(info, join(h.cv, 'upgrades', 'v2', 'upgrade-info.json'));
    const next = await cv(['add-upgrade', 'v3', bin, '--upgrade-height', '200']);
    assert.equal(next.code, EXIT.OK, next.stderr);
    assert.deepEqual(JSON.parse(readFileSync(info, 'utf8')), { name: 'v3', time: '0001-01-01T00:00:00Z', height: 200, info: '' });
    // v3 is pending now: replacing it still takes --force
    const again = await cv(['add-upgrade', 'v4', bin, '--upgrade-height', '300']);
    assert.equal(again.code, EXIT.CONFIG);
    assert.equal(JSON.parse(readFileSync(info, 'utf8')).name, 'v3');
  });

  test('add-batch-upgrade --upgrade-list: installs each release through the folder rule, writes upgrade-info.json.batch sorted by height', async () => {
    const r = await cv(['add-batch-upgrade', '--upgrade-list', `V3:${bin}:200,v2:${bin}:100`]);
    assert.equal(r.code, EXIT.OK, r.stderr);
    for (const f of ['v2', 'v3']) assert.equal(statSync(join(h.cv, 'upgrades', f, 'bin', 'chaind')).mode & 0o777, 0o755);
    const batch = join(h.data, 'upgrade-info.json.batch');
    assert.deepEqual(JSON.parse(readFileSync(batch, 'utf8')), [
      { name: 'v2', time: '0001-01-01T00:00:00Z', height: 100, info: '' },
      { name: 'v3', time: '0001-01-01T00:00:00Z', height: 200, info: '' },
    ]);
    assert.equal(existsSync(join(h.data, 'upgrade-info.json')), false);
    assert.match(r.stderr, /wrote .*upgrade-info\.json\.batch: v2 at height 100, v3 at height 200/);
    // a batch still holding upgrades, or an installed release, is replaced only with --force
    const again = await cv(['add-batch-upgrade', '--upgrade-list', `v4:${bin}:300`]);
    assert.equal(again.code, EXIT.CONFIG);
    assert.equal(again.stderr, `[chainvisor] ERR ${batch} still holds v2 at 100, v3 at 200: use --force to replace it; nothing installed\n`);
    const forced = await cv(['add-batch-upgrade', '--upgrade-list', `v4:${bin}:300`, '--force']);
    assert.equal(forced.code, EXIT.OK, forced.stderr);
    assert.deepEqual(JSON.parse(readFileSync(batch, 'utf8')), [{ name: 'v4', time: '0001-01-01T00:00:00Z', height: 300, info: '' }]);
    // naming the installed binary itself keeps it (scripts that re-register their upgrades)
    const installed = join(h.cv, 'upgrades', 'v4', 'bin', 'chaind');
    const same = await cv(['add-batch-upgrade', '--upgrade-list', `v4:${installed}:300`, '--force']);
    assert.equal(same.code, EXIT.OK, same.stderr);
    assert.match(same.stderr, /is the installed binary of upgrade v4: kept/);
  });

  test('add-batch-upgrade --upgrade-file: CSV lines; one bad line, missing binary or clash and nothing at all is written', async () => {
    const csv = join(h.root, 'batch.csv');
    const batch = join(h.data, 'upgrade-info.json.batch');
    const nothing = (): void => {
      assert.deepEqual(readdirSync(join(h.cv, 'upgrades')), []);
      assert.equal(existsSync(batch), false);
    };
    const cases: [string, string][] = [
      [`v2,${bin},100\nv3,${bin}\n`, `${csv} line 2: expected name,path,height, got 2 fields; nothing installed`],
      [`v2,${bin},100\nv3,${bin},-5\n`, `${csv} line 2: the height must be a positive integer, got "-5"; nothing installed`],
      [`v2,${bin},100\nv3,${join(h.root, 'missing')},200\n`, `upgrade v3: ${join(h.root, 'missing')} does not exist; nothing installed`],
      [`v2,${bin},100\nV2,${bin},200\n`, 'upgrades "v2" and "V2" both map to the folder upgrades/v2; nothing installed'],
      [`v2,${bin},100\nv3,${bin},100\n`, 'upgrades "v2" and "v3" are both at height 100; nothing installed'],
      [`v2,${bin},100\n..,${bin},200\n`, 'unsafe upgrade name: ".." is not a valid folder name'],
    ];
    for (const [text, why] of cases) {
      writeFileSync(csv, text);
      const r = await cv(['add-batch-upgrade', '--upgrade-file', csv]);
      assert.notEqual(r.code, EXIT.OK, text);
      assert.equal(r.stderr, `[chainvisor] ERR ${why}\n`);
      nothing();
    }
    const neither = await cv(['add-batch-upgrade']);
    assert.equal(neither.code, EXIT.CONFIG);
    assert.equal(neither.stderr, '[chainvisor] ERR add-batch-upgrade needs --upgrade-file <csv> or --upgrade-list name:path:height,…\n');
    const both = await cv(['add-batch-upgrade', '--upgrade-file', csv, '--upgrade-list', `v2:${bin}:1`]);
    assert.equal(both.code, EXIT.CONFIG);
    nothing();
    writeFileSync(csv, `v2,${bin},100\n\n "v3", ${bin}, 200\n`);
    const ok = await cv(['add-batch-upgrade', '--upgrade-file', csv]);
    assert.equal(ok.code, EXIT.OK, ok.stderr);
    assert.deepEqual(readdirSync(join(h.cv, 'upgrades')).sort(), ['v2', 'v3']);
    assert.deepEqual(
      JSON.parse(readFileSync(batch, 'utf8')).map((u: { name: string; height: number }) => `${u.name}@${u.height}`),
      ['v2@100', 'v3@200'],
    );
    // cosmovisor's other --upgrade-file form: the batch file itself, a JSON array, checked then written as is
    const json = join(h.root, 'batch.json');
    writeFileSync(json, '[{"name":"v5","height":"500","info":"i"},{"name":"v4","height":400}]');
    const copied = await cv(['add-batch-upgrade', '--upgrade-file', json, '--force']);
    assert.equal(copied.code, EXIT.OK, copied.stderr);
    assert.deepEqual(
      JSON.parse(readFileSync(batch, 'utf8')).map((u: { name: string; height: number; info: string }) => `${u.name}@${u.height}${u.info}`),
      ['v4@400', 'v5@500i'],
    );
    writeFileSync(json, '[{"name":"v6","height":0}]');
    const badJson = await cv(['add-batch-upgrade', '--upgrade-file', json, '--force']);
    assert.equal(badJson.code, EXIT.CONFIG);
    assert.equal(badJson.stderr, `[chainvisor] ERR --upgrade-file ${json}: entry 1: "height" must be a positive integer, got 0; nothing written\n`);
  });

  test('add-upgrade refuses names that are not usable folder names, and path-escapes the rest as cosmovisor does', async () => {
    for (const [name, why] of [
      ['..', '".." is not a valid folder name'],
      ['.', '"." is not a valid folder name'],
    ]) {
      const r = await cv(['add-upgrade', name, bin]);
      assert.equal(r.code, EXIT.UPGRADE_INFO_INVALID, name);
      assert.equal(r.stderr, `[chainvisor] ERR unsafe upgrade name: ${why}\n`);
    }
    assert.equal(existsSync(join(h.cv, 'chaind')), false);
    assert.equal(existsSync(join(h.cv, 'bin')), false);
    // lower-cased, then url.PathEscape'd: the folder cosmovisor would use for the same name
    for (const [name, folder] of [
      ['My Upgrade', 'my%20upgrade'],
      ['a/b', 'a%2Fb'],
      ['V2\u0007', 'v2%07'],
    ]) {
      const r = await cv(['add-upgrade', name, bin]);
      assert.equal(r.code, EXIT.OK, r.stderr);
      assert.ok(existsSync(join(h.cv, 'upgrades', folder, 'bin', 'chaind')), folder);
    }
  });

  test('show-upgrade-info: none yet, and an invalid file', async () => {
    assert.equal((await cv(['show-upgrade-info'])).stdout, `no upgrade info: ${join(h.data, 'upgrade-info.json')} does not exist\n`);
    writeFileSync(join(h.data, 'upgrade-info.json'), '{"name":"v2","height":-1}');
    const r = await cv(['show-upgrade-info']);
    assert.equal(r.code, EXIT.UPGRADE_INFO_INVALID);
    assert.equal(r.stderr, `[chainvisor] ERR ${join(h.data, 'upgrade-info.json')} is invalid: "height" must be a positive integer, got -1\n`);
  });

  test('invalid settings: all reported together, exit 2, the daemon never started', async () => {
    writeDaemon(join(h.cv, 'genesis', 'bin', 'chaind'), 'genesis', '');
    const r = await chainvisor(['run', 'start'], { DAEMON_HOME: h.home, DAEMON_POLL_INTERVAL: '1x', UNSAFE_SKIP_BACKUP: '1' }).exit;
    assert.equal(r.code, EXIT.CONFIG);
    assert.equal(
      r.stderr,
      '[chainvisor] ERR invalid configuration (3 problems):\n  DAEMON_NAME is required\n  DAEMON_POLL_INTERVAL: expected a duration such as 300ms or 1m30s, got "1x"\n  UNSAFE_SKIP_BACKUP: expected true, false (any case) or empty, got "1"\n',
    );
    assert.deepEqual(h.launches(), []);
  });

  // cosmovisor's BooleanOption lower-cases the value, then accepts "", "true", "false" only
  test('booleans: true/false in any case, as cosmovisor; anything else refused naming the variable', async () => {
    const f = join(h.root, 'cv.toml');
    writeFileSync(f, 'cosmovisor_disable_recase = "TRUE"\n');
    const r = await cv(['--cosmovisor-config', f, 'config'], {
      DAEMON_ALLOW_DOWNLOAD_BINARIES: 'True',
      DAEMON_RESTART_AFTER_UPGRADE: 'FALSE',
      UNSAFE_SKIP_BACKUP: 'tRuE',
    });
    assert.equal(r.code, EXIT.OK, r.stderr);
    assert.match(r.stdout, /\ndaemon_allow_download_binaries = true\n/);
    assert.match(r.stdout, /\ndaemon_restart_after_upgrade = false\n/);
    assert.match(r.stdout, /\nunsafe_skip_backup = true\n/);
    assert.match(r.stdout, /\ncosmovisor_disable_recase = true\n/);
    for (const bad of ['yes', '1', 'T', ' true']) {
      const refused = await cv(['config'], { DAEMON_ALLOW_DOWNLOAD_BINARIES: bad });
      assert.equal(refused.code, EXIT.CONFIG, bad);
      assert.equal(
        refused.stderr,
        `[chainvisor] ERR invalid configuration (1 problem):\n  DAEMON_ALLOW_DOWNLOAD_BINARIES: expected true, false (any case) or empty, got ${JSON.stringify(bad)}\n`,
      );
    }
  });

  test('every cosmovisor time format name, in the TZ of the process; empty: no timestamp; an unknown config.toml key only warns', async () => {
    const f = join(h.root, 'cv.toml');
    writeFileSync(f, 'daemon_pol_interval = "1s"\n');
    const D = '[A-Z][a-z]{2}';
    const T = '\\d\\d:\\d\\d:\\d\\d';
    // at TZ=UTC; the shapes of Go's layouts (exact strings are checked in src/log-time.test.ts)
    const shapes: Record<string, string> = {
      layout: `\\d\\d/\\d\\d \\d\\d:\\d\\d:\\d\\d[AP]M '\\d\\d \\+0000`,
      ansic: `${D} ${D} [ \\d]\\d ${T} \\d{4}`,
      unixdate: `${D} ${D} [ \\d]\\d ${T} UTC \\d{4}`,
      rubydate: `${D} ${D} \\d\\d ${T} \\+0000 \\d{4}`,
      rfc822: `\\d\\d ${D} \\d\\d \\d\\d:\\d\\d UTC`,
      rfc822z: `\\d\\d ${D} \\d\\d \\d\\d:\\d\\d \\+0000`,
      rfc850: `[A-Z][a-z]+day, \\d\\d-${D}-\\d\\d ${T} UTC`,
      rfc1123: `${D}, \\d\\d ${D} \\d{4} ${T} UTC`,
      rfc1123z: `${D}, \\d\\d ${D} \\d{4} ${T} \\+0000`,
      rfc3339: `\\d{4}-\\d\\d-\\d\\dT${T}Z`,
      rfc3339nano: `\\d{4}-\\d\\d-\\d\\dT${T}(\\.\\d{0,2}[1-9])?Z`,
      kitchen: '\\d{1,2}:\\d\\d[AP]M',
    };
    const warning = (ts: string): RegExp =>
      new RegExp(`^\\[chainvisor\\] ${ts}WRN daemon_pol_interval in ${f.replace(/[.]/g, '\\.')}: unknown setting, ignored\n$`);
    for (const [name, shape] of Object.entries(shapes)) {
      const r = await cv(['--cosmovisor-config', f, 'config'], { TZ: 'UTC', COSMOVISOR_TIMEFORMAT_LOGS: name });
      assert.equal(r.code, EXIT.OK, r.stderr);
      assert.match(r.stderr, warning(`${shape} `), name);
    }
    const none = await cv(['--cosmovisor-config', f, 'config'], { COSMOVISOR_TIMEFORMAT_LOGS: '' });
    assert.equal(none.code, EXIT.OK, none.stderr);
    assert.match(none.stderr, warning(''));
    const india = await cv(['--cosmovisor-config', f, 'config'], { TZ: 'Asia/Kolkata', COSMOVISOR_TIMEFORMAT_LOGS: 'rfc3339' });
    assert.match(india.stderr, warning(`\\d{4}-\\d\\d-\\d\\dT${T}\\+05:30 `));
  });

  test('config prints the resolved settings; --cosmovisor-config is read, the environment wins', async () => {
    const f = join(h.root, 'cv.toml');
    writeFileSync(f, 'daemon_poll_interval = "2s"\ndaemon_restart_delay = "1m30s"\n');
    const r = await cv(['--cosmovisor-config', f, 'config']);
    assert.equal(r.code, EXIT.OK, r.stderr);
    assert.match(r.stdout, /\ndaemon_poll_interval = "50ms"\n/);
    assert.match(r.stdout, /\ndaemon_restart_delay = "1m30s"\n/);
    assert.match(r.stdout, /\ndaemon_download_must_have_checksum = true\n/);
  });
});

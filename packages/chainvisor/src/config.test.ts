import assert from 'node:assert/strict';
import { mkdtempSync, rmSync, writeFileSync } from 'node:fs';
import { tmpdir } from 'node:os';
import { join } from 'node:path';
import { describe, test } from 'node:test';
import { ConfigError, loadConfig, toToml } from './config.ts';
import { EXIT } from './exit-codes.ts';

const base = { DAEMON_HOME: '/srv/node', DAEMON_NAME: 'chaind' };

describe('settings', () => {
  test("cosmovisor's defaults, except checksums required by default", () => {
    const c = loadConfig({ env: base });
    assert.equal(c.home, '/srv/node');
    assert.equal(c.daemonName, 'chaind');
    assert.equal(c.allowDownloadBinaries, false);
    assert.equal(c.downloadMustHaveChecksum, true);
    assert.equal(c.allowInsecureHttp, false);
    assert.equal(c.allowLoopbackHttp, false);
    assert.equal(c.maxExtractBytes, 2 * 1024 ** 3);
    assert.equal(c.maxExtractEntries, 100_000);
    assert.equal(c.restartAfterUpgrade, true);
    assert.equal(c.restartDelayMs, 0);
    assert.equal(c.shutdownGraceMs, 0);
    assert.equal(c.pollIntervalMs, 300);
    assert.equal(c.unsafeSkipBackup, false);
    assert.equal(c.dataBackupDir, '/srv/node');
    assert.equal(c.preupgradeMaxRetries, 0);
    assert.equal(c.grpcAddress, 'localhost:9090');
    assert.equal(c.rpcAddress, 'http://127.0.0.1:26657');
    assert.equal(c.prepareUpgrade, false);
    assert.equal(c.colorLogs, true);
    assert.equal(c.timeFormatLogs, 'kitchen');
  });

  test('the checksum requirement has an explicit opt-out; empty means the default', () => {
    assert.equal(loadConfig({ env: { ...base, DAEMON_DOWNLOAD_MUST_HAVE_CHECKSUM: 'false' } }).downloadMustHaveChecksum, false);
    assert.equal(loadConfig({ env: { ...base, DAEMON_DOWNLOAD_MUST_HAVE_CHECKSUM: '' } }).downloadMustHaveChecksum, true);
  });

  test("the time format: cosmovisor's layout names, case-sensitive; empty means no timestamp (as cosmovisor), unset the default", () => {
    for (const name of [
      'layout',
      'ansic',
      'unixdate',
      'rubydate',
      'rfc822',
      'rfc822z',
      'rfc850',
      'rfc1123',
      'rfc1123z',
      'rfc3339',
      'rfc3339nano',
      'kitchen',
      'none',
      '',
    ])
      assert.equal(loadConfig({ env: { ...base, COSMOVISOR_TIMEFORMAT_LOGS: name } }).timeFormatLogs, name);
    assert.equal(loadConfig({ env: base }).timeFormatLogs, 'kitchen');
    assert.throws(
      () => loadConfig({ env: { ...base, COSMOVISOR_TIMEFORMAT_LOGS: 'RFC3339' } }),
      /COSMOVISOR_TIMEFORMAT_LOGS: expected one of .*, got "RFC3339"$/,
    );
  });

  test("durations use Go's syntax (time.ParseDuration), never negative", () => {
    const grace = (v: string): number => loadConfig({ env: { ...base, DAEMON_SHUTDOWN_GRACE: v } }).shutdownGraceMs;
    const cases: [string, number][] = [
      ['300ms', 300],
      ['1m30s', 90_000],
      ['1.5s', 1500],
      ['0', 0],
      ['.5s', 500],
      ['1.s', 1000],
      ['+1s', 1000],
      ['1.5\u03bcs', 0.0015],
      ['1.5\u00b5s', 0.0015],
      ['0.1ns', 0],
    ];
    for (const [v, ms] of cases) assert.equal(grace(v), ms, v);
    for (const v of ['300', '1 s', '1m1', 's', '9223372036854775808ns'])
      assert.throws(() => grace(v), { message: new RegExp(`DAEMON_SHUTDOWN_GRACE: expected a duration such as 300ms or 1m30s, got "${v}"$`) }, v);
    assert.throws(() => grace('-1s'), { message: /DAEMON_SHUTDOWN_GRACE: must not be negative, got "-1s"$/ });
  });

  test('toToml writes a duration in the form it was read back from', () => {
    const c = loadConfig({ env: { ...base, DAEMON_RESTART_DELAY: '90s', DAEMON_SHUTDOWN_GRACE: '1.5us', DAEMON_POLL_INTERVAL: '1h0.5s' } });
    const toml = toToml(c);
    assert.match(toml, /\ndaemon_restart_delay = "1m30s"\n/);
    assert.match(toml, /\ndaemon_shutdown_grace = "1us500ns"\n/);
    assert.match(toml, /\ndaemon_poll_interval = "1h500ms"\n/);
  });

  test('every invalid setting is reported at once, each naming its variable', () => {
    const env = {
      DAEMON_HOME: 'relative/home',
      DAEMON_ALLOW_DOWNLOAD_BINARIES: 'yes',
      DAEMON_RESTART_DELAY: '5',
      DAEMON_POLL_INTERVAL: '0',
      DAEMON_PREUPGRADE_MAX_RETRIES: '-1',
      COSMOVISOR_TIMEFORMAT_LOGS: 'iso',
      DAEMON_RPC_ADDRESS: '127.0.0.1:26657',
    };
    assert.throws(
      () => loadConfig({ env }),
      (e: unknown) => {
        assert.ok(e instanceof ConfigError);
        assert.equal(e.code, EXIT.CONFIG);
        assert.deepEqual(e.problems, [
          'DAEMON_NAME is required',
          'DAEMON_ALLOW_DOWNLOAD_BINARIES: expected true, false (any case) or empty, got "yes"',
          'DAEMON_RESTART_DELAY: expected a duration such as 300ms or 1m30s, got "5"',
          'DAEMON_PREUPGRADE_MAX_RETRIES: expected a non-negative integer, got "-1"',
          'DAEMON_HOME: must be an absolute path, got "relative/home"',
          'DAEMON_POLL_INTERVAL: must be greater than 0',
          'COSMOVISOR_TIMEFORMAT_LOGS: expected one of layout, ansic, unixdate, rubydate, rfc822, rfc822z, rfc850, rfc1123, rfc1123z, rfc3339, rfc3339nano, kitchen, datetime, timeonly, none or empty, got "iso"',
          'DAEMON_RPC_ADDRESS: expected an http:// or https:// URL, got "127.0.0.1:26657"',
        ]);
        assert.match(e.message, /^invalid configuration \(8 problems\):\n {2}DAEMON_NAME is required\n/);
        return true;
      },
    );
  });

  test('the download stall timeout: 60s by default, Go durations, 0 refused', () => {
    assert.equal(loadConfig({ env: base }).downloadStallTimeoutMs, 60_000);
    assert.equal(loadConfig({ env: { ...base, DAEMON_DOWNLOAD_STALL_TIMEOUT: '90s' } }).downloadStallTimeoutMs, 90_000);
    assert.throws(() => loadConfig({ env: { ...base, DAEMON_DOWNLOAD_STALL_TIMEOUT: '0' } }), {
      message: 'invalid configuration (1 problem):\n  DAEMON_DOWNLOAD_STALL_TIMEOUT: must be greater than 0',
    });
    assert.throws(() => loadConfig({ env: { ...base, DAEMON_DOWNLOAD_STALL_TIMEOUT: '60' } }), {
      message: 'invalid configuration (1 problem):\n  DAEMON_DOWNLOAD_STALL_TIMEOUT: expected a duration such as 300ms or 1m30s, got "60"',
    });
  });

  test('metrics: off by default; host:port or empty; at most 3 connections by default', () => {
    assert.equal(loadConfig({ env: base }).metricsAddress, '');
    assert.equal(loadConfig({ env: base }).metricsMaxConnections, 3);
    const c = loadConfig({ env: { ...base, DAEMON_METRICS_ADDRESS: '[::1]:26670', DAEMON_METRICS_MAX_CONNECTIONS: '0' } });
    assert.equal(c.metricsAddress, '[::1]:26670');
    assert.equal(c.metricsMaxConnections, 0);
    assert.throws(() => loadConfig({ env: { ...base, DAEMON_METRICS_ADDRESS: ':26670' } }), {
      message: 'invalid configuration (1 problem):\n  DAEMON_METRICS_ADDRESS: expected host:port such as 127.0.0.1:26670, or empty, got ":26670"',
    });
  });

  test('a backup folder inside data/ is refused (it would copy itself)', () => {
    assert.throws(() => loadConfig({ env: { ...base, DAEMON_DATA_BACKUP_DIR: '/srv/node/data/backups' } }), {
      message: 'invalid configuration (1 problem):\n  DAEMON_DATA_BACKUP_DIR: must not be inside /srv/node/data',
    });
  });

  test('config.toml: lower-case keys, the environment overrides it, unknown keys and bad values named with the file', () => {
    const dir = mkdtempSync(join(tmpdir(), 'chainvisor-cfg-'));
    try {
      const f = join(dir, 'config.toml');
      writeFileSync(
        f,
        'daemon_home = "/srv/a"\ndaemon_name = "chaind"\ndaemon_poll_interval = 1000000000\ndaemon_restart_delay = "2s"\nunsafe_skip_backup = true\n',
      );
      const c = loadConfig({ env: { DAEMON_HOME: '/srv/b' }, configFile: f });
      assert.equal(c.home, '/srv/b');
      assert.equal(c.pollIntervalMs, 1000); // Go writes durations as nanoseconds
      assert.equal(c.restartDelayMs, 2000);
      assert.equal(c.unsafeSkipBackup, true);
      writeFileSync(f, 'daemon_home = "/srv/a"\ndaemon_name = "chaind"\ndaemon_pol_interval = "1s"\nunsafe_skip_backup = "maybe"\n');
      assert.throws(() => loadConfig({ env: {}, configFile: f }), {
        message: `invalid configuration (1 problem):\n  unsafe_skip_backup in ${f}: expected true, false (any case) or empty, got "maybe"`,
      });
      // unknown keys are a warning, as cosmovisor ignores them
      writeFileSync(f, 'daemon_home = "/srv/a"\ndaemon_name = "chaind"\ndaemon_pol_interval = "1s"\n');
      const w = loadConfig({ env: {}, configFile: f });
      assert.equal(w.pollIntervalMs, 300);
      assert.deepEqual(w.warnings, [`daemon_pol_interval in ${f}: unknown setting, ignored`]);
      assert.throws(() => loadConfig({ env: {}, configFile: join(dir, 'missing.toml') }), /^ChainvisorError: cannot read config file .*missing\.toml: ENOENT/);
    } finally {
      rmSync(dir, { recursive: true, force: true });
    }
  });
});

// config.toml and app.toml: what `chaind init` writes reads back as the defaults, and config.toml is a file
// CometBFT v0.38 reads with the same types (CometBFT's own default config.toml loads here too); a bad value
// is one error naming the file, the key and the form expected; unknown keys are warnings, CometBFT's are
// not; flags override addresses and the ABCI settings; the pairing checks and the RPC URL.
import assert from 'node:assert/strict';
import { mkdirSync, mkdtempSync, readFileSync, rmSync, writeFileSync } from 'node:fs';
import { tmpdir } from 'node:os';
import { join } from 'node:path';
import { after, describe, test } from 'node:test';
import { fileURLToPath } from 'node:url';
import { parse } from 'smol-toml';
import { parseGoDuration } from '@chaind/upgrade-plan';
import {
  COMETBFT_CONFIG_KEYS,
  ConfigError,
  configPaths,
  defaultAppConfig,
  defaultNodeConfig,
  loadConfig,
  parseAppConfig,
  parseListenAddress,
  pairingProblems,
  parseAbciAddress,
  parseBooleanFlag,
  parseNodeConfig,
  renderAppConfig,
  renderNodeConfig,
  resolveServerAddresses,
  rpcDialUrl,
  writeDefaultConfig,
  type AppConfig,
  type NodeConfig,
} from './index.ts';

const dirs: string[] = [];
after(() => dirs.forEach((d) => rmSync(d, { recursive: true, force: true })));
const newHome = (): string => {
  const d = mkdtempSync(join(tmpdir(), 'chaind-config-'));
  dirs.push(d);
  return d;
};

describe('defaults', () => {
  test('writeDefaultConfig writes files that load back as the defaults, with no warnings', async () => {
    const home = newHome();
    const r = await writeDefaultConfig(home, { moniker: 'node "zero"', chainId: 'test-1' });
    const p = configPaths(home);
    assert.deepEqual(r, { written: [p.node, p.app], kept: [] });
    const c = await loadConfig(home);
    assert.deepEqual(c.node, defaultNodeConfig('node "zero"'));
    assert.deepEqual(c.app, defaultAppConfig());
    assert.deepEqual(c.warnings, []);
    // the servers bind to this machine only unless the operator says otherwise
    for (const a of [c.node.rpc.laddr, c.node.p2p.laddr, c.app.api.address, c.app.grpc.address]) assert.equal(a.host, '127.0.0.1');
    assert.deepEqual([c.node.rpc.laddr.port, c.app.api.address.port, c.app.grpc.address.port], [26657, 1317, 9090]);
    const text = readFileSync(p.node, 'utf8');
    assert.match(text, /^laddr = "tcp:\/\/127\.0\.0\.1:26657"$/m);
    assert.match(text, /^block_interval = "1s"$/m);
    assert.match(text, /^# How often the solo driver produces a block /m, 'keys are commented');
    assert.match(readFileSync(p.app, 'utf8'), /^minimum-gas-prices = ""$/m);
    assert.match(readFileSync(p.app, 'utf8'), /^address = "127\.0\.0\.1:9090"$/m, 'gRPC address without a scheme, as Cosmos writes it');
  });

  test('query-gas-limit: an integer, or digits quoted as the SDK writes it; 10000000 by default', async () => {
    assert.equal(parseAppConfig('', 'app.toml').config.queryGasLimit, 10_000_000n);
    assert.equal(parseAppConfig('query-gas-limit = "500"', 'app.toml').config.queryGasLimit, 500n);
    assert.equal(parseAppConfig('query-gas-limit = 0', 'app.toml').config.queryGasLimit, 0n);
    assert.throws(() => parseAppConfig('query-gas-limit = "lots"', 'app.toml'), /query-gas-limit = "lots"/);
  });

  test('verified-signatures-cache-size / -bytes: 65,536 and 16 MiB by default; a cache too small to hold an entry is refused', () => {
    const c = parseAppConfig('', 'app.toml').config;
    assert.equal(c.verifiedSignaturesCacheSize, 65_536);
    assert.equal(c.verifiedSignaturesCacheBytes, 16 * 1024 * 1024);
    assert.equal(
      parseAppConfig('verified-signatures-cache-size = 1000\nverified-signatures-cache-bytes = 1048576', 'app.toml').config.verifiedSignaturesCacheBytes,
      1_048_576,
    );
    assert.throws(() => parseAppConfig('verified-signatures-cache-bytes = 100', 'app.toml'), /verified-signatures-cache-bytes = 100/);
    assert.throws(() => parseAppConfig('verified-signatures-cache-size = 0', 'app.toml'), /verified-signatures-cache-size = 0/);
  });

  test('state-db-max-bytes: 1 TiB by default, at least 1 MiB', async () => {
    assert.equal(parseAppConfig('', 'app.toml').config.stateDbMaxBytes, 1n << 40n);
    assert.equal(parseAppConfig('state-db-max-bytes = 5000000000', 'app.toml').config.stateDbMaxBytes, 5_000_000_000n);
    assert.throws(() => parseAppConfig('state-db-max-bytes = 1000', 'app.toml'), /state-db-max-bytes = 1000/);
  });

  test('existing files are kept unless overwrite', async () => {
    const home = newHome();
    await writeDefaultConfig(home, { moniker: 'a' });
    const p = configPaths(home);
    writeFileSync(p.app, 'halt-height = 7\n');
    const kept = await writeDefaultConfig(home, { moniker: 'b' });
    assert.deepEqual(kept, { written: [], kept: [p.node, p.app] });
    assert.equal((await loadConfig(home)).app.haltHeight, 7n);
    assert.equal((await loadConfig(home)).node.moniker, 'a');
    await writeDefaultConfig(home, { moniker: 'b', overwrite: true });
    assert.equal((await loadConfig(home)).app.haltHeight, 0n);
    assert.equal((await loadConfig(home)).node.moniker, 'b');
  });

  test('any config renders and parses back to itself', () => {
    const node: NodeConfig = {
      proxyApp: 'unix:///run/chaind/abci.sock',
      abci: 'socket',
      moniker: 'validator-1 ünïcode \\ "quoted"',
      rpc: {
        laddr: { host: '::1', port: 36657 },
        maxBodyBytes: 2000,
        maxRequestBatchSize: 0,
        maxOpenConnections: 5,
        timeoutBroadcastTxCommitMs: 1500,
        allowedHosts: ['node.example.com', '*'],
        broadcastViaGet: true,
        maxSearchHeights: 7,
        maxSearchResults: 8,
        writeTimeoutMs: 0,
        maxWriteBufferBytes: 3 * 1024 * 1024,
      },
      consensus: { timeoutCommitMs: 90_000, blockIntervalMs: 500 },
      mempool: {
        size: 10,
        maxTxsBytes: 2048,
        maxTxBytes: 1024,
        cacheSize: 0,
        maxPendingTxs: 11,
        maxPendingBytes: 4096,
        preverifyAhead: 3,
        preverifyAheadBytes: 100,
      },
      p2p: { laddr: { host: '0.0.0.0', port: 0 } },
      instrumentation: { prometheus: true, listenAddr: { host: '::1', port: 26670 }, maxOpenConnections: 0, namespace: 'node_1' },
    };
    const app: AppConfig = {
      minimumGasPrices: [
        { denom: 'atom', amount: '1' },
        { denom: 'stake', amount: '0.025' },
      ],
      haltHeight: 9_223_372_036_854_775_807n,
      queryGasLimit: 0n,
      stateDbMaxBytes: 5_000_000_000n,
      verifiedSignaturesCacheSize: 12,
      verifiedSignaturesCacheBytes: 70_000,
      api: {
        enable: false,
        address: { host: 'localhost', port: 1318 },
        maxOpenConnections: 0,
        readTimeoutMs: 3000,
        idleTimeoutMs: 60_000,
        maxWriteBufferBytes: 2 * 1024 * 1024,
      },
      grpc: {
        enable: false,
        address: { host: '10.0.0.1', port: 9091 },
        maxRecvMsgSize: 1024,
        maxSendMsgSize: 2048,
        maxOpenConnections: 3,
        keepaliveTimeMs: 1000,
        keepaliveTimeoutMs: 500,
        maxConnectionIdleMs: 90_000,
      },
      abci: {
        address: { kind: 'unix', path: '/run/chaind/abci.sock' },
        transport: 'socket',
        maxMessageBytes: 4096,
        maxConnections: 4,
        keepAliveInitialDelayMs: 30_000,
        cometRpcTimeoutMs: 2500,
        cometRpcMaxResponseBytes: 65_536,
        cometbftBinary: '/opt/cometbft/bin/cometbft',
        cometbftStopTimeoutMs: 7000,
        haltLingerMs: 250,
        serversStartWaitMs: 1500,
      },
      instrumentation: { prometheus: true, listenAddr: { host: '0.0.0.0', port: 26671 }, maxOpenConnections: 7, namespace: 'chaind_app' },
    };
    const n = renderNodeConfig(node);
    assert.match(n, /^laddr = "tcp:\/\/\[::1\]:36657"$/m);
    assert.match(n, /^timeout_commit = "1m30s"$/m);
    assert.deepEqual(parseNodeConfig(n, 'config.toml'), { config: node, warnings: [] });
    assert.match(renderAppConfig(app), /^minimum-gas-prices = "1atom,0\.025stake"$/m);
    assert.deepEqual(parseAppConfig(renderAppConfig(app), 'app.toml'), { config: app, warnings: [] });
  });

  test("[abci] limits: written with their defaults, today's constants; out of range refused", async () => {
    const home = newHome();
    await writeDefaultConfig(home, { moniker: 'n' });
    const lines = readFileSync(configPaths(home).app, 'utf8').split('\n');
    for (const line of [
      'max-message-bytes = 2147483647',
      'max-connections = 16',
      'keepalive-initial-delay = "15s"',
      'comet-rpc-timeout = "10s"',
      'comet-rpc-max-response-bytes = 16777216',
    ])
      assert.ok(lines.includes(line), line);
    const c = await loadConfig(home);
    assert.deepEqual(c.app.abci, defaultAppConfig().abci);
    assert.deepEqual(c.warnings, []);
    const bad = (body: string, want: string): void =>
      assert.throws(
        () => parseAppConfig(`[abci]\n${body}`, 'app.toml'),
        (e: Error) => e instanceof ConfigError && e.message.includes(want),
      );
    bad('max-connections = 0', 'abci.max-connections = 0: out of range; expected an integer from 1 to 1000000');
    bad('max-message-bytes = 2147483648', 'abci.max-message-bytes = 2147483648: out of range; expected an integer from 1 to 2147483647');
    bad('comet-rpc-timeout = "0s"', 'abci.comet-rpc-timeout = "0s": must be more than zero');
    bad('comet-rpc-max-response-bytes = 0', 'abci.comet-rpc-max-response-bytes = 0: out of range');
    bad('keepalive-initial-delay = "0s"', 'abci.keepalive-initial-delay = "0s": must be more than zero');
    bad('keepalive-initial-delay = "1500ms"', 'abci.keepalive-initial-delay = "1500ms": expected a duration of whole seconds');
  });

  test('missing keys take their defaults; gas prices are normalised', () => {
    assert.deepEqual(parseNodeConfig('moniker = "x"', 'f').config, defaultNodeConfig('x'));
    assert.deepEqual(parseAppConfig('', 'f').config, defaultAppConfig());
    assert.deepEqual(parseAppConfig('minimum-gas-prices = "0.0250stake, 2atom,0uatom"', 'f').config.minimumGasPrices, [
      { denom: 'atom', amount: '2' },
      { denom: 'stake', amount: '0.025' },
    ]);
  });
});

describe('problems', () => {
  test("unknown keys and sections are warnings naming the file and the key; CometBFT's keys are not", async () => {
    const home = newHome();
    await writeDefaultConfig(home, { moniker: 'n' });
    const p = configPaths(home);
    const text = readFileSync(p.node, 'utf8')
      .replace('[rpc]\n', '[rpc]\ncors_allowed_origins = []\nladdr_ = "x"\n')
      .replace('[p2p]\n', '[p2p]\nseeds = ""\n[p2p.test_fuzz_config]\nmaxDelay = "3s"\n');
    writeFileSync(p.node, `log_level = "info"\nmonikr = "typo"\n${text}\n[statesync]\nenable = false\nenabel = true\n[fastsync]\nversion = "v0"\n`);
    writeFileSync(p.app, 'pruning = "nothing"\n' + readFileSync(p.app, 'utf8'));
    const c = await loadConfig(home);
    assert.deepEqual(c.warnings, [
      `${p.node}: unknown key "monikr" ignored`,
      `${p.node}: unknown key "rpc.laddr_" ignored`,
      `${p.node}: unknown key "statesync.enabel" ignored`,
      `${p.node}: unknown section [fastsync] ignored`,
      `${p.app}: unknown key "pruning" ignored`,
    ]);
    assert.deepEqual(c.node, defaultNodeConfig('n'));
  });

  test("CometBFT v0.38's own default config.toml loads as chaind's, without a warning", () => {
    // rendered from config/toml.go's template with DefaultConfig() of CometBFT v0.38.25 (moniker: the host name)
    const file = fileURLToPath(new URL('./testdata/cometbft-v0.38.25-config.toml', import.meta.url));
    const { config, warnings } = parseNodeConfig(readFileSync(file, 'utf8'), file);
    assert.deepEqual(warnings, []);
    assert.deepEqual(config, {
      ...defaultNodeConfig('cometbft-host'),
      // CometBFT's p2p listens on every interface by default; chaind's default stays on this machine
      p2p: { laddr: { host: '0.0.0.0', port: 26656 } },
      // Go's ":26660", every interface, as CometBFT listens there (when prometheus = true)
      instrumentation: { ...defaultNodeConfig('').instrumentation, listenAddr: { host: '0.0.0.0', port: 26660 } },
    });
  });

  test('every key chaind writes to config.toml that CometBFT v0.38 also has is of the type CometBFT decodes', async () => {
    const home = newHome();
    await writeDefaultConfig(home, { moniker: 'n' });
    const written = parse(readFileSync(configPaths(home).node, 'utf8'), { integersAsBigInt: true }) as Record<string, unknown>;
    // the Go types of config/config.go (v0.38): viper decodes TOML into them; a duration is a time.Duration
    // from a Go duration string, an int an int64 on the 64-bit hosts CometBFT runs on
    const goTypes: Record<string, 'string' | 'int' | 'duration' | 'bool'> = {
      proxy_app: 'string',
      abci: 'string',
      moniker: 'string',
      'rpc.laddr': 'string',
      'rpc.max_body_bytes': 'int',
      'rpc.max_request_batch_size': 'int',
      'rpc.max_open_connections': 'int',
      'rpc.timeout_broadcast_tx_commit': 'duration',
      'consensus.timeout_commit': 'duration',
      'mempool.size': 'int',
      'mempool.max_txs_bytes': 'int',
      'mempool.max_tx_bytes': 'int',
      'mempool.cache_size': 'int',
      'p2p.laddr': 'string',
      'p2p.persistent_peers': 'string',
      'instrumentation.prometheus': 'bool',
      'instrumentation.prometheus_listen_addr': 'string',
      'instrumentation.max_open_connections': 'int',
      'instrumentation.namespace': 'string',
    };
    // chaind's own keys, which CometBFT ignores (viper's Unmarshal drops keys it has no field for)
    const chaindOnly = [
      'consensus.block_interval',
      'rpc.allowed_hosts',
      'rpc.broadcast_via_get',
      'rpc.max_search_heights',
      'rpc.max_search_results',
      'rpc.write_timeout',
      'rpc.max_write_buffer_bytes',
      'mempool.max_pending_txs',
      'mempool.max_pending_bytes',
      'mempool.preverify_ahead',
      'mempool.preverify_ahead_bytes',
    ];
    const seen: string[] = [];
    for (const [k, v] of Object.entries(written)) {
      const entries = typeof v === 'object' && v !== null ? Object.entries(v).map(([sub, x]) => [`${k}.${sub}`, x] as const) : [[k, v] as const];
      for (const [key, value] of entries) {
        seen.push(key);
        const [section, name] = key.includes('.') ? key.split('.') : ['', key];
        const cometHas = COMETBFT_CONFIG_KEYS[section]?.includes(name) ?? false;
        if (!cometHas) {
          assert.ok(chaindOnly.includes(key), `${key} is neither CometBFT's nor one of chaind's own keys`);
          continue;
        }
        const t = goTypes[key];
        assert.ok(t !== undefined, `${key}: add CometBFT's type to this table`);
        if (t === 'int') assert.ok(typeof value === 'bigint' && value >= 0n && value < 1n << 63n, `${key} = ${String(value)} is not an int`);
        else if (t === 'bool') assert.equal(typeof value, 'boolean', key);
        else assert.equal(typeof value, 'string', key);
        if (t === 'duration') assert.ok(parseGoDuration(value as string).ok, `${key} = ${String(value)} is not a Go duration`);
      }
    }
    assert.deepEqual(seen.sort(), [...Object.keys(goTypes), ...chaindOnly].sort(), 'the keys chaind writes');
    // one value for both sides of the pairing
    const c = await loadConfig(home);
    assert.equal(written.proxy_app, 'tcp://127.0.0.1:26658');
    assert.deepEqual(c.app.abci.address, { kind: 'tcp', host: '127.0.0.1', port: 26658 });
    assert.deepEqual(pairingProblems('config.toml', c.node, c.app.abci.address), []);
  });

  test('writeDefaultConfig writes one ABCI address to app.toml and, as CometBFT dials it, to proxy_app', async () => {
    const home = newHome();
    await writeDefaultConfig(home, { moniker: 'n', abciAddress: { kind: 'tcp', host: '0.0.0.0', port: 36658 } });
    const c = await loadConfig(home);
    assert.deepEqual(c.app.abci, { ...defaultAppConfig().abci, address: { kind: 'tcp', host: '0.0.0.0', port: 36658 } });
    assert.equal(c.node.proxyApp, 'tcp://127.0.0.1:36658');
    assert.deepEqual(c.warnings, []);
  });

  const node = (body: string): string => `moniker = "n"\n${body}\n`;
  const cases: [string, 'node' | 'app', string, string][] = [
    [
      'an address without a port',
      'node',
      node('[rpc]\nladdr = "tcp://127.0.0.1"'),
      'rpc.laddr = "tcp://127.0.0.1": missing ":port"; expected a TCP listen address such as "tcp://127.0.0.1:26657"',
    ],
    [
      'a unix socket',
      'app',
      '[grpc]\naddress = "unix:///tmp/s"',
      'grpc.address = "unix:///tmp/s": unsupported scheme "unix://": only tcp:// is served; expected a TCP listen address such as "127.0.0.1:9090"',
    ],
    [
      'a port out of range',
      'app',
      '[api]\naddress = "tcp://127.0.0.1:65536"',
      'api.address = "tcp://127.0.0.1:65536": port "65536" is not a number from 0 to 65535',
    ],
    ['an empty host', 'node', node('[p2p]\nladdr = "tcp://:26656"'), 'p2p.laddr = "tcp://:26656": missing host (write 0.0.0.0 to listen on every interface)'],
    [
      'a duration without a unit',
      'node',
      node('[consensus]\nblock_interval = 1000'),
      'consensus.block_interval = 1000: a number has no unit; expected a positive duration such as "1s" or "500ms"',
    ],
    [
      'a malformed duration',
      'node',
      node('[consensus]\ntimeout_commit = "1 second"'),
      'consensus.timeout_commit = "1 second": expected a duration such as "1s" or "500ms"',
    ],
    ['a zero block interval', 'node', node('[consensus]\nblock_interval = "0s"'), 'consensus.block_interval = "0s": must be more than zero'],
    ['a negative mempool size', 'node', node('[mempool]\nsize = -1'), 'mempool.size = -1: out of range; expected an integer from 1 to 2147483647'],
    ['a fractional mempool size', 'node', node('[mempool]\nsize = 1.5'), 'mempool.size = 1.5: not an integer; expected an integer from 1'],
    [
      'a transaction bigger than the mempool',
      'node',
      node('[mempool]\nmax_txs_bytes = 100\nmax_tx_bytes = 101'),
      'mempool.max_tx_bytes = 101: expected at most mempool.max_txs_bytes (100)',
    ],
    ['an empty moniker', 'node', 'moniker = " "', 'moniker = " ": empty; expected a non-empty name'],
    ['no moniker', 'node', '[rpc]', 'moniker is missing'],
    ['a section that is not a table', 'node', node('rpc = "tcp://127.0.0.1:26657"'), 'rpc = "tcp://127.0.0.1:26657": expected a table [rpc]'],
    ['a quoted height', 'app', 'halt-height = "5"', 'halt-height = "5": expected an integer from 0 to 9223372036854775807'],
    ['a quoted boolean', 'app', '[api]\nenable = "yes"', 'api.enable = "yes": expected true or false (unquoted)'],
    ['a gas price without a denom', 'app', 'minimum-gas-prices = "0.025"', 'minimum-gas-prices = "0.025": invalid coin expression "0.025": missing denom'],
    [
      'a gas price given as a number',
      'app',
      'minimum-gas-prices = 0.025',
      'minimum-gas-prices = 0.025: not a string; expected decimal coins such as "0.025stake"',
    ],
    ['TOML syntax', 'app', '[api]\nenable = \n', 'invalid TOML at line 2, column 10'],
    [
      'an ABCI address without a scheme',
      'app',
      '[abci]\naddress = "127.0.0.1:26658"',
      'abci.address = "127.0.0.1:26658": missing "tcp://" or "unix://"; expected an ABCI address such as "tcp://127.0.0.1:26658" or "unix:///',
    ],
    [
      'a relative unix socket',
      'app',
      '[abci]\naddress = "unix://abci.sock"',
      'abci.address = "unix://abci.sock": a unix socket path must be absolute (three slashes: "unix:///path")',
    ],
    ['an ABCI address over http', 'app', '[abci]\naddress = "http://127.0.0.1:26658"', 'unknown scheme "http://"'],
    [
      'the grpc transport',
      'app',
      '[abci]\ntransport = "grpc"',
      'abci.transport = "grpc": chaind serves ABCI over a socket only (no gRPC transport); expected "socket"',
    ],
    [
      'a proxy_app that is not a string',
      'node',
      node('proxy_app = 26658'),
      'proxy_app = 26658: not a string; expected a string such as "tcp://127.0.0.1:26658"',
    ],
  ];
  for (const [name, which, text, want] of cases) {
    test(`invalid: ${name}`, async () => {
      const home = newHome();
      await writeDefaultConfig(home, { moniker: 'n' });
      const file = which === 'node' ? configPaths(home).node : configPaths(home).app;
      writeFileSync(file, text);
      await assert.rejects(loadConfig(home), (e: Error) => {
        assert.ok(e instanceof ConfigError, String(e));
        assert.ok(e.message.startsWith(`${file}: `), `names the file: ${e.message}`);
        assert.ok(e.message.includes(want), `${e.message}\n  should include\n${want}`);
        assert.ok(!e.message.includes('\n'), 'one line');
        return true;
      });
    });
  }

  test('a missing file says to run init', async () => {
    const home = newHome();
    mkdirSync(join(home, 'config'));
    await assert.rejects(loadConfig(home), {
      name: 'ConfigError',
      message: `${configPaths(home).node} not found: run "chaind init" first, or pass the right --home`,
    });
  });

  test('a moniker is refused before anything is written', async () => {
    const home = newHome();
    await assert.rejects(writeDefaultConfig(home, { moniker: 'a\nb' }), /invalid moniker "a\\nb": contains control characters/);
    await assert.rejects(loadConfig(home), /not found/);
  });
});

describe('server addresses', () => {
  const cfg = { node: defaultNodeConfig('n'), app: defaultAppConfig() };

  test("the files' addresses, unless a Cosmos flag overrides them", () => {
    assert.deepEqual(resolveServerAddresses(cfg), {
      rpc: { host: '127.0.0.1', port: 26657 },
      api: { enable: true, address: { host: '127.0.0.1', port: 1317 } },
      grpc: { enable: true, address: { host: '127.0.0.1', port: 9090 } },
      // solo by default, as today; the ABCI server's address is CometBFT's default proxy_app
      abci: { withComet: true, address: { kind: 'tcp', host: '127.0.0.1', port: 26658 }, transport: 'socket' },
    });
    const r = resolveServerAddresses(cfg, {
      'rpc.laddr': 'tcp://0.0.0.0:36657',
      'api.address': 'localhost:0',
      'grpc.address': '[::1]:9999',
      'api.enable': false,
    });
    assert.deepEqual(r, {
      rpc: { host: '0.0.0.0', port: 36657 },
      api: { enable: false, address: { host: 'localhost', port: 0 } },
      grpc: { enable: true, address: { host: '::1', port: 9999 } },
      abci: { withComet: true, address: { kind: 'tcp', host: '127.0.0.1', port: 26658 }, transport: 'socket' },
    });
  });

  test("app.toml's [abci] settings, unless --with-comet, --address or --transport overrides them", () => {
    const unix = { ...cfg, app: { ...cfg.app, abci: { ...cfg.app.abci, address: { kind: 'unix', path: '/run/chaind/abci.sock' } } } } as const;
    assert.deepEqual(resolveServerAddresses(unix).abci, { withComet: true, address: { kind: 'unix', path: '/run/chaind/abci.sock' }, transport: 'socket' });
    assert.deepEqual(resolveServerAddresses(unix, { withComet: false, address: 'tcp://0.0.0.0:36658', transport: 'socket' }).abci, {
      withComet: false,
      address: { kind: 'tcp', host: '0.0.0.0', port: 36658 },
      transport: 'socket',
    });
    assert.deepEqual(resolveServerAddresses(cfg, { address: 'unix:///tmp/a.sock' }).abci.address, { kind: 'unix', path: '/tmp/a.sock' });
  });

  test('a bad flag value names the flag', () => {
    assert.throws(() => resolveServerAddresses(cfg, { 'grpc.address': '9090' }), {
      name: 'ConfigError',
      message: 'invalid --grpc.address "9090": missing ":port"; expected a TCP listen address such as "127.0.0.1:9090"',
    });
    assert.throws(() => resolveServerAddresses(cfg, { 'rpc.laddr': 'http://x:1' }), /^ConfigError: invalid --rpc\.laddr "http:\/\/x:1": unsupported scheme/);
    assert.throws(() => resolveServerAddresses(cfg, { address: '127.0.0.1:26658' }), {
      name: 'ConfigError',
      message:
        'invalid --address "127.0.0.1:26658": missing "tcp://" or "unix://"; expected an ABCI address such as "tcp://127.0.0.1:26658" or "unix:///var/run/chaind/abci.sock"',
    });
    assert.throws(() => resolveServerAddresses(cfg, { transport: 'grpc' }), {
      name: 'ConfigError',
      // the same refusal as app.toml's abci.transport: one rule for the key and its flag
      message: 'invalid --transport "grpc": chaind serves ABCI over a socket only (no gRPC transport); expected "socket"',
    });
    assert.throws(() => parseBooleanFlag('with-comet', 'no'), { name: 'ConfigError', message: 'invalid --with-comet "no": expected true or false' });
    assert.deepEqual(
      ['false', '0', 'F', 'true', '1', 'True'].map((v) => parseBooleanFlag('with-comet', v)),
      [false, false, false, true, true, true],
    );
  });
});

describe('pairing with CometBFT', () => {
  const tcp = { kind: 'tcp', host: '127.0.0.1', port: 26658 } as const;
  const paired = (proxyApp: string, abci = tcp as Parameters<typeof pairingProblems>[2]): boolean =>
    pairingProblems('config.toml', { proxyApp, abci: 'socket' }, abci).length === 0;

  test("proxy_app reaches chaind's ABCI server as CometBFT dials it", () => {
    assert.ok(paired('tcp://127.0.0.1:26658'));
    // CometBFT reads an address without a scheme as tcp, and the loopback interface by any of its names
    assert.ok(paired('127.0.0.1:26658'));
    assert.ok(paired('tcp://localhost:26658'));
    // chaind listening on every interface is reached at any address of the machine
    assert.ok(paired('tcp://10.1.2.3:26658', { kind: 'tcp', host: '0.0.0.0', port: 26658 }));
    assert.ok(paired('unix:///run/a.sock', { kind: 'unix', path: '/run/a.sock' }));
    assert.ok(!paired('tcp://127.0.0.1:26659'));
    assert.ok(!paired('tcp://10.1.2.3:26658'));
    assert.ok(!paired('kvstore'));
    assert.ok(!paired('unix:///run/b.sock', { kind: 'unix', path: '/run/a.sock' }));
    assert.ok(!paired('tcp://127.0.0.1:26658', { kind: 'unix', path: '/run/a.sock' }));
  });

  test('each problem is one line naming the file, the key and the fix', () => {
    assert.deepEqual(pairingProblems('/h/config/config.toml', { proxyApp: 'tcp://127.0.0.1:1', abci: 'grpc' }, { kind: 'tcp', host: '0.0.0.0', port: 26658 }), [
      '/h/config/config.toml: proxy_app = "tcp://127.0.0.1:1" is not where chaind\'s ABCI server listens (tcp://0.0.0.0:26658): CometBFT reading this file would not reach chaind; set proxy_app = "tcp://127.0.0.1:26658"',
      '/h/config/config.toml: abci = "grpc": chaind serves ABCI over a socket only; CometBFT needs abci = "socket"',
    ]);
  });

  test("the URL chaind forwards broadcasts to, from CometBFT's [rpc] laddr", () => {
    assert.equal(rpcDialUrl({ host: '127.0.0.1', port: 26657 }), 'http://127.0.0.1:26657');
    assert.equal(rpcDialUrl({ host: '0.0.0.0', port: 26657 }), 'http://127.0.0.1:26657');
    assert.equal(rpcDialUrl({ host: '::', port: 26657 }), 'http://[::1]:26657');
    assert.equal(rpcDialUrl({ host: 'fe80::1', port: 1 }), 'http://[fe80::1]:1');
    assert.equal(rpcDialUrl({ host: 'node0.example.com', port: 443 }), 'http://node0.example.com:443');
  });

  test('ABCI addresses', () => {
    assert.deepEqual(parseAbciAddress('tcp://127.0.0.1:26658'), { kind: 'tcp', host: '127.0.0.1', port: 26658 });
    assert.deepEqual(parseAbciAddress('TCP://[::1]:1'), { kind: 'tcp', host: '::1', port: 1 });
    assert.deepEqual(parseAbciAddress('unix:///run/chaind/abci.sock'), { kind: 'unix', path: '/run/chaind/abci.sock' });
    assert.equal(parseAbciAddress('tcp://127.0.0.1'), 'expected host:port');
    assert.equal(parseAbciAddress(`unix:///${'a'.repeat(107)}`), "the socket path is 108 bytes, above the system's limit of 107");
    assert.deepEqual(parseAbciAddress(`unix:///${'a'.repeat(106)}`), { kind: 'unix', path: `/${'a'.repeat(106)}` });
  });
});

describe('values', () => {
  test("durations in Go's syntax (time.ParseDuration), never negative; written back as read", () => {
    const read = (v: string): number =>
      parseNodeConfig(`moniker = "n"\n[consensus]\ntimeout_commit = ${JSON.stringify(v)}\n`, 'config.toml').config.consensus.timeoutCommitMs;
    const cases: [string, number][] = [
      ['1s', 1000],
      ['500ms', 500],
      ['1m30s', 90_000],
      ['1.5s', 1500],
      ['2h', 7_200_000],
      ['250us', 0.25],
      ['0', 0],
      ['1.5\u00b5s', 0.0015],
      ['1.5\u03bcs', 0.0015],
      ['.5s', 500],
      ['1.s', 1000],
      ['+1s', 1000],
      ['0.1ns', 0],
    ];
    for (const [v, ms] of cases) assert.equal(read(v), ms, v);
    for (const v of ['', '1', '1 s', '1d', 's', '1s2', '9223372036854775808ns', '2562048h'])
      assert.throws(() => read(v), { message: `config.toml: consensus.timeout_commit = ${JSON.stringify(v)}: expected a duration such as "1s" or "500ms"` }, v);
    assert.throws(() => read('-1s'), {
      message: 'config.toml: consensus.timeout_commit = "-1s": must not be negative; expected a duration such as "1s" or "500ms"',
    });
    // what init writes reads back to the same milliseconds
    for (const [ms, text] of [
      [1000, '1s'],
      [1500, '1s500ms'],
      [90_000, '1m30s'],
      [3_600_000, '1h'],
      [0, '0s'],
      [0.25, '250us'],
      [0.0015, '1us500ns'],
    ] as const) {
      const written = renderNodeConfig({ ...defaultNodeConfig('n'), consensus: { ...defaultNodeConfig('n').consensus, timeoutCommitMs: ms } });
      assert.ok(written.includes(`\ntimeout_commit = "${text}"\n`), text);
      assert.equal(parseNodeConfig(written, 'config.toml').config.consensus.timeoutCommitMs, ms, text);
    }
  });

  test('listen addresses', () => {
    assert.deepEqual(parseListenAddress('tcp://127.0.0.1:26657'), { host: '127.0.0.1', port: 26657 });
    assert.deepEqual(parseListenAddress('TCP://node.example.com:1'), { host: 'node.example.com', port: 1 });
    assert.deepEqual(parseListenAddress('[::]:9090'), { host: '::', port: 9090 });
    assert.equal(parseListenAddress('::1:9090'), 'an IPv6 host must be in brackets, as "[::1]:26657"');
    assert.equal(parseListenAddress('[1.2.3.4]:9090'), '"1.2.3.4" is not an IPv6 address');
    assert.equal(parseListenAddress('bad_host:1'), '"bad_host" is not an IP address or host name');
    assert.equal(parseListenAddress('host:-1'), 'port "-1" is not a number from 0 to 65535');
  });
});

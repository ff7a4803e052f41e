// The node's configuration: <home>/config/config.toml (CometBFT v0.38's file: chaind reads the keys it
// uses, and CometBFT started on the same home reads all of it) and <home>/config/app.toml (Cosmos'
// application settings). Missing keys take their defaults; CometBFT's keys that chaind does not use
// are accepted silently; any other unknown key is reported as a warning (a misspelling, most likely);
// a bad value is one ConfigError naming the file, the key and the form expected.
import { ChaindError } from '@chaind/errors';
import { readFile } from 'node:fs/promises';
import { hostname } from 'node:os';
import { join, resolve } from 'node:path';
import { parse, TomlDate, TomlError } from 'smol-toml';
import { DEFAULT_VERIFIED_SIGNATURES_CAPACITY, DEFAULT_VERIFIED_SIGNATURES_MAX_BYTES } from '@chaind/sdk/crypto';
import { parseDecCoins, decToString } from '@chaind/sdk/types';
import { durationMs, parseGoDuration } from '@chaind/upgrade-plan';
import { parseListenAddress, type ListenAddress } from './address.ts';
import {
  ABCI_ADDRESS_EXPECTED,
  ABCI_TRANSPORTS,
  DEFAULT_ABCI_ADDRESS,
  DEFAULT_ABCI_TRANSPORT,
  DEFAULT_COMET_RPC_MAX_RESPONSE_BYTES,
  DEFAULT_COMET_RPC_TIMEOUT_MS,
  DEFAULT_KEEPALIVE_INITIAL_DELAY_MS,
  DEFAULT_MAX_CONNECTIONS,
  DEFAULT_MAX_MESSAGE_BYTES,
  formatAbciAddress,
  parseAbciAddress,
  type AbciAddress,
  type AbciTransport,
} from './abci.ts';
import { COMETBFT_KEY_PATHS } from './cometbft-keys.ts';

export const CONFIG_DIR = 'config';

/** JSON-RPC's bound on an unread answer: CometBFT's RPC WriteTimeout (REST's is its idle timeout). */
export const DEFAULT_WRITE_TIMEOUT_MS = 10_000;
/** JSON-RPC's and REST's bound on unread answers, all connections together: above one answer of the largest block CometBFT allows (21 MiB, about 29 MB as JSON). */
export const DEFAULT_MAX_WRITE_BUFFER_BYTES = 64 * 1024 * 1024;
/** Below this, answers an ordinary client reads at once would close connections. */
export const MIN_WRITE_BUFFER_BYTES = 1n << 20n;
export const NODE_CONFIG_FILE = 'config.toml';
export const APP_CONFIG_FILE = 'app.toml';

export interface NodeConfig {
  /** CometBFT's proxy_app: where CometBFT dials the ABCI application (chaind, in abci mode); chaind only checks it names app.toml's [abci] address. */
  readonly proxyApp: string;
  /** CometBFT's abci: how CometBFT connects to the application ("socket", the only one chaind serves). */
  readonly abci: string;
  /** The node's name, shown by `status` and used as the default validator moniker. */
  readonly moniker: string;
  readonly rpc: {
    readonly laddr: ListenAddress;
    /** CometBFT's max_body_bytes. */
    readonly maxBodyBytes: number;
    /** CometBFT's max_request_batch_size; 0 no limit. */
    readonly maxRequestBatchSize: number;
    /** CometBFT's max_open_connections; 0 no limit. */
    readonly maxOpenConnections: number;
    /** CometBFT's timeout_broadcast_tx_commit. */
    readonly timeoutBroadcastTxCommitMs: number;
    /** chaind's: Host header names accepted besides the listen host ("*" any). */
    readonly allowedHosts: readonly string[];
    /** chaind's: serve broadcast_tx_* over GET (any web page can send a GET). */
    readonly broadcastViaGet: boolean;
    /** chaind's: most heights one tx_search / block_search scans, and most matches it collects. */
    readonly maxSearchHeights: number;
    readonly maxSearchResults: number;
    /** chaind's: an answer the client has not read within this long closes its connection (CometBFT's fixed WriteTimeout); 0 none. */
    readonly writeTimeoutMs: number;
    /** chaind's: bytes of unread answers, all connections together; past it the longest-waiting connections are closed. */
    readonly maxWriteBufferBytes: number;
  };
  readonly consensus: {
    /** CometBFT's timeout_commit: read by CometBFT from its own config in abci mode; unused by solo. */
    readonly timeoutCommitMs: number;
    /** How often the solo driver produces a block. */
    readonly blockIntervalMs: number;
  };
  readonly mempool: {
    /** Most transactions held. */
    readonly size: number;
    /** Most bytes held, all transactions together. */
    readonly maxTxsBytes: number;
    /** Largest transaction accepted. */
    readonly maxTxBytes: number;
    /** CheckTx refusals remembered until the next block (CometBFT's cache_size); 0: none. */
    readonly cacheSize: number;
    /** Solo mode: transactions waiting for their CheckTx at most, and their bytes (chaind's own keys). */
    readonly maxPendingTxs: number;
    readonly maxPendingBytes: number;
    /** Solo mode: transactions whose signatures are verified ahead of their CheckTx, and their bytes. */
    readonly preverifyAhead: number;
    readonly preverifyAheadBytes: number;
  };
  /** Kept so a CometBFT config.toml reads the same; the solo driver has no peers. */
  readonly p2p: { readonly laddr: ListenAddress };
  /** CometBFT's [instrumentation]: the solo node's Prometheus /metrics (behind CometBFT, CometBFT serves these). */
  readonly instrumentation: Instrumentation;
}

/** A Prometheus endpoint: CometBFT's [instrumentation] keys (config.toml), or chaind's in app.toml behind CometBFT. */
export interface Instrumentation {
  /** Serve /metrics (off by default, as in CometBFT). */
  readonly prometheus: boolean;
  readonly listenAddr: ListenAddress;
  /** Connections served at once; 0 no limit. */
  readonly maxOpenConnections: number;
  /** The prefix of every metric name. */
  readonly namespace: string;
}

/** A minimum gas price as createChainApp takes it: amount is a decimal string ("0.025"). */
export interface GasPrice {
  readonly denom: string;
  readonly amount: string;
}

export interface AppConfig {
  /** Empty: the node accepts transactions paying no fee. */
  readonly minimumGasPrices: readonly GasPrice[];
  /** Stop after committing this height; 0 never. */
  readonly haltHeight: bigint;
  /** query-gas-limit: most gas a Simulate or a query (free, on every interface) may use; 0 unmetered. */
  readonly queryGasLimit: bigint;
  /** state-db-max-bytes: most bytes the state database (data/application.db) may take; a commit past it stops the node. */
  readonly stateDbMaxBytes: bigint;
  /** verified-signatures-cache-size / -bytes: signatures known to verify, kept so a block's execution need not verify them again. */
  readonly verifiedSignaturesCacheSize: number;
  readonly verifiedSignaturesCacheBytes: number;
  readonly api: {
    readonly enable: boolean;
    readonly address: ListenAddress;
    /** The SDK's max-open-connections; 0 no limit. */
    readonly maxOpenConnections: number;
    /** The SDK's rpc-read-timeout (seconds there): a whole request must arrive within it. */
    readonly readTimeoutMs: number;
    /** chaind's rpc-idle-timeout (seconds): a silent connection is closed after it. */
    readonly idleTimeoutMs: number;
    /** chaind's rpc-max-write-buffer-bytes: bytes of unread answers, all connections together (an answer left unread is closed by rpc-idle-timeout). */
    readonly maxWriteBufferBytes: number;
  };
  readonly grpc: {
    readonly enable: boolean;
    readonly address: ListenAddress;
    /** The SDK's max-recv-msg-size and max-send-msg-size. */
    readonly maxRecvMsgSize: number;
    readonly maxSendMsgSize: number;
    /** chaind's: most connections; keepalive ping interval and timeout; idle connection limit. */
    readonly maxOpenConnections: number;
    readonly keepaliveTimeMs: number;
    readonly keepaliveTimeoutMs: number;
    readonly maxConnectionIdleMs: number;
  };
  /** chaind as an ABCI application behind CometBFT (`start --with-comet=false`): where it listens, and how. */
  readonly abci: {
    readonly address: AbciAddress;
    readonly transport: AbciTransport;
    /** The largest ABCI message read or written (CometBFT's own limit is math.MaxInt32). */
    readonly maxMessageBytes: number;
    /** ABCI connections served at once; CometBFT opens four. */
    readonly maxConnections: number;
    /** Silence on an ABCI TCP connection before keepalive probes start (a peer whose host vanished is then closed). */
    readonly keepAliveInitialDelayMs: number;
    /** How long one call to CometBFT's JSON-RPC (a forwarded broadcast, a tx lookup) may take. */
    readonly cometRpcTimeoutMs: number;
    /** The largest answer read from CometBFT's JSON-RPC. */
    readonly cometRpcMaxResponseBytes: number;
    /** The cometbft binary `chaind start` runs ('' = looked up: COMETBFT_BIN, the project cache, PATH). */
    readonly cometbftBinary: string;
    /** How long a stop waits for CometBFT to exit after SIGTERM before SIGKILL. */
    readonly cometbftStopTimeoutMs: number;
    /** At the upgrade halt, how long CometBFT still runs (and gossips block H's precommits to peers that lack them) before it is told to stop. */
    readonly haltLingerMs: number;
    /** Under `chaind start`, how long REST and gRPC wait for the first block this node saw proposed before they start anyway. */
    readonly serversStartWaitMs: number;
  };
  /** chaind's Prometheus endpoint behind CometBFT (`--with-comet=false`), where config.toml's [instrumentation] is CometBFT's. */
  readonly instrumentation: Instrumentation;
}

export interface LoadedConfig {
  readonly home: string;
  readonly node: NodeConfig;
  readonly app: AppConfig;
  /** One line per unknown key, each naming its file. */
  readonly warnings: readonly string[];
}

export class ConfigError extends ChaindError<'config'> {
  override readonly name = 'ConfigError';
  constructor(message: string, options?: ErrorOptions) {
    super('config', message, options);
  }
}

const MAX_INT64 = (1n << 63n) - 1n;
/** The SDK leaves query-gas-limit unbounded (0); a free simulation must not be: this is well above any block's typical gas. */
export const DEFAULT_QUERY_GAS_LIMIT = 10_000_000n;
/** 1 TiB: far above any state this node keeps today, so only a full disk's worth stops it; operators set it below their free space. */
export const DEFAULT_STATE_DB_MAX_BYTES = 1n << 40n;
/** The setting's name as the store's refusal cites it. */
export const STATE_DB_MAX_BYTES_SETTING = 'app.toml state-db-max-bytes';

export function defaultNodeConfig(moniker: string = hostname()): NodeConfig {
  return {
    // CometBFT's defaults, which are also where chaind's ABCI server listens by default
    proxyApp: formatAbciAddress(DEFAULT_ABCI_ADDRESS),
    abci: 'socket',
    moniker,
    rpc: {
      laddr: { host: '127.0.0.1', port: 26657 },
      // CometBFT's defaults
      maxBodyBytes: 1_000_000,
      maxRequestBatchSize: 10,
      maxOpenConnections: 900,
      timeoutBroadcastTxCommitMs: 10_000,
      allowedHosts: ['localhost', '127.0.0.1', '[::1]'],
      broadcastViaGet: false,
      maxSearchHeights: 100_000,
      maxSearchResults: 10_000,
      writeTimeoutMs: DEFAULT_WRITE_TIMEOUT_MS,
      maxWriteBufferBytes: DEFAULT_MAX_WRITE_BUFFER_BYTES,
    },
    consensus: { timeoutCommitMs: 1000, blockIntervalMs: 1000 },
    // CometBFT's mempool defaults
    mempool: {
      size: 5000,
      maxTxsBytes: 1_073_741_824,
      maxTxBytes: 1_048_576,
      cacheSize: 10_000,
      maxPendingTxs: 20_000,
      maxPendingBytes: 67_108_864,
      preverifyAhead: 1024,
      preverifyAheadBytes: 8_388_608,
    },
    p2p: { laddr: { host: '127.0.0.1', port: 26656 } },
    // CometBFT's defaults, but on loopback when the key is absent (CometBFT's ":26660" is every interface)
    instrumentation: { prometheus: false, listenAddr: { host: '127.0.0.1', port: 26660 }, maxOpenConnections: 3, namespace: 'cometbft' },
  };
}

export function defaultAppConfig(): AppConfig {
  return {
    minimumGasPrices: [],
    haltHeight: 0n,
    queryGasLimit: DEFAULT_QUERY_GAS_LIMIT,
    stateDbMaxBytes: DEFAULT_STATE_DB_MAX_BYTES,
    verifiedSignaturesCacheSize: DEFAULT_VERIFIED_SIGNATURES_CAPACITY,
    verifiedSignaturesCacheBytes: DEFAULT_VERIFIED_SIGNATURES_MAX_BYTES,
    api: {
      enable: true,
      address: { host: '127.0.0.1', port: 1317 },
      maxOpenConnections: 1000,
      readTimeoutMs: 10_000,
      idleTimeoutMs: 10_000,
      maxWriteBufferBytes: DEFAULT_MAX_WRITE_BUFFER_BYTES,
    },
    grpc: {
      enable: true,
      address: { host: '127.0.0.1', port: 9090 },
      maxRecvMsgSize: 10 * 1024 * 1024,
      maxSendMsgSize: 2_147_483_647,
      maxOpenConnections: 1000,
      keepaliveTimeMs: 5 * 60_000,
      keepaliveTimeoutMs: 20_000,
      maxConnectionIdleMs: 5 * 60_000,
    },
    abci: {
      address: DEFAULT_ABCI_ADDRESS,
      transport: DEFAULT_ABCI_TRANSPORT,
      maxMessageBytes: DEFAULT_MAX_MESSAGE_BYTES,
      maxConnections: DEFAULT_MAX_CONNECTIONS,
      keepAliveInitialDelayMs: DEFAULT_KEEPALIVE_INITIAL_DELAY_MS,
      cometRpcTimeoutMs: DEFAULT_COMET_RPC_TIMEOUT_MS,
      cometRpcMaxResponseBytes: DEFAULT_COMET_RPC_MAX_RESPONSE_BYTES,
      cometbftBinary: '',
      cometbftStopTimeoutMs: 20_000,
      haltLingerMs: 500,
      serversStartWaitMs: 5000,
    },
    // the port beside CometBFT's 26660; its own namespace, so the two programs' series never share a name
    instrumentation: { prometheus: false, listenAddr: { host: '127.0.0.1', port: 26661 }, maxOpenConnections: 3, namespace: 'chaind' },
  };
}

export function configPaths(home: string): { dir: string; node: string; app: string } {
  const dir = join(resolve(home), CONFIG_DIR);
  return { dir, node: join(dir, NODE_CONFIG_FILE), app: join(dir, APP_CONFIG_FILE) };
}

type Table = Record<string, unknown>;
const isTable = (v: unknown): v is Table => typeof v === 'object' && v !== null && !Array.isArray(v) && !(v instanceof TomlDate);

/** How a TOML value reads in an error message. */
function show(v: unknown): string {
  if (typeof v === 'string') return JSON.stringify(v);
  if (typeof v === 'bigint' || typeof v === 'number' || typeof v === 'boolean') return String(v);
  if (v instanceof TomlDate) return v.toISOString();
  if (Array.isArray(v)) return 'an array';
  return 'a table';
}

/** Reads one file's values, remembering which keys it read so the others can be reported. */
class Reader {
  private readonly used = new Set<string>();

  constructor(
    readonly file: string,
    private readonly root: Table,
  ) {}

  fail(key: string, v: unknown, expected: string, why?: string): never {
    throw new ConfigError(`${this.file}: ${key} = ${show(v)}: ${why === undefined ? '' : `${why}; `}expected ${expected}`);
  }

  /** The raw value at "key" or "section.key"; undefined when absent. */
  private get(key: string): unknown {
    this.used.add(key);
    const dot = key.indexOf('.');
    if (dot < 0) return this.root[key];
    const section = key.slice(0, dot);
    const t = this.root[section];
    if (t === undefined) return undefined;
    if (!isTable(t)) throw new ConfigError(`${this.file}: ${section} = ${show(t)}: expected a table [${section}]`);
    this.used.add(section);
    return t[key.slice(dot + 1)];
  }

  string(key: string, dflt: string, expected: string, check: (s: string) => string | undefined = () => undefined): string {
    const v = this.get(key);
    if (v === undefined) return dflt;
    if (typeof v !== 'string') this.fail(key, v, expected, 'not a string');
    const why = check(v);
    if (why !== undefined) this.fail(key, v, expected, why);
    return v;
  }

  int(key: string, dflt: bigint, min: bigint, max: bigint): bigint {
    const v = this.get(key);
    const expected = `an integer from ${min} to ${max}`;
    if (v === undefined) return dflt;
    if (typeof v !== 'bigint') this.fail(key, v, expected, typeof v === 'number' ? 'not an integer' : undefined);
    if (v < min || v > max) this.fail(key, v, expected, 'out of range');
    return v;
  }

  /** An integer also accepted as a string of digits (the SDK's template quotes some, e.g. query-gas-limit = "0"). */
  intOrDigits(key: string, dflt: bigint, min: bigint, max: bigint): bigint {
    const v = this.get(key);
    if (typeof v === 'string' && /^[0-9]{1,19}$/.test(v)) {
      const n = BigInt(v);
      if (n < min || n > max) this.fail(key, v, `an integer from ${min} to ${max}`, 'out of range');
      return n;
    }
    return this.int(key, dflt, min, max);
  }

  bool(key: string, dflt: boolean): boolean {
    const v = this.get(key);
    if (v === undefined) return dflt;
    if (typeof v !== 'boolean') this.fail(key, v, 'true or false (unquoted)');
    return v;
  }

  duration(key: string, dfltMs: number, positive: boolean): number {
    const expected = `a ${positive ? 'positive ' : ''}duration such as "1s" or "500ms"`;
    const v = this.get(key);
    if (v === undefined) return dfltMs;
    if (typeof v !== 'string') this.fail(key, v, expected, typeof v === 'bigint' || typeof v === 'number' ? 'a number has no unit' : undefined);
    const d = parseGoDuration(v);
    if (!d.ok) this.fail(key, v, expected);
    // Go reads a sign; no interval here can be negative
    if (d.ns < 0n) this.fail(key, v, expected, 'must not be negative');
    if (positive && d.ns === 0n) this.fail(key, v, expected, 'must be more than zero');
    return durationMs(d.ns);
  }

  abciAddress(key: string, dflt: AbciAddress): AbciAddress {
    const v = this.get(key);
    if (v === undefined) return dflt;
    if (typeof v !== 'string') this.fail(key, v, ABCI_ADDRESS_EXPECTED);
    const a = parseAbciAddress(v);
    if (typeof a === 'string') this.fail(key, v, ABCI_ADDRESS_EXPECTED, a);
    return a;
  }

  stringList(key: string, dflt: readonly string[], expected: string): readonly string[] {
    const v = this.get(key);
    if (v === undefined) return dflt;
    if (!Array.isArray(v) || !v.every((x): x is string => typeof x === 'string' && x.trim() !== '')) this.fail(key, v, expected);
    return v;
  }

  address(key: string, dflt: ListenAddress, example: string, read?: string): ListenAddress {
    const v = this.get(key);
    if (v === undefined) return dflt;
    const expected = `a TCP listen address such as "${example}"`;
    if (typeof v !== 'string') this.fail(key, v, expected);
    const a = parseListenAddress(read ?? v);
    if (typeof a === 'string') this.fail(key, v, expected, a);
    return a;
  }

  /** A listen address where Go's ":port" (every interface, as CometBFT's prometheus_listen_addr default) is accepted too. */
  goAddress(key: string, dflt: ListenAddress, example: string): ListenAddress {
    const v = this.get(key);
    if (typeof v === 'string' && /^:\d{1,5}$/.test(v)) return this.address(key, dflt, example, `0.0.0.0${v}`);
    return this.address(key, dflt, example);
  }

  /** A Prometheus namespace: a metric name's first part. */
  namespace(key: string, dflt: string): string {
    return this.string(key, dflt, 'a name of letters, digits and underscores such as "cometbft"', (s) =>
      /^[a-zA-Z_][a-zA-Z0-9_]*$/.test(s) ? undefined : 'not a Prometheus name',
    );
  }

  /** A warning for every key present but neither read nor in `known` ("key", "section", "section.key"). */
  unknownKeys(known: ReadonlySet<string> = new Set()): string[] {
    const out: string[] = [];
    const isKnown = (k: string): boolean => this.used.has(k) || known.has(k);
    for (const [k, v] of Object.entries(this.root)) {
      if (!isKnown(k)) {
        out.push(`${this.file}: unknown ${isTable(v) ? `section [${k}]` : `key "${k}"`} ignored`);
        continue;
      }
      if (!isTable(v)) continue;
      for (const sub of Object.keys(v)) if (!isKnown(`${k}.${sub}`)) out.push(`${this.file}: unknown key "${k}.${sub}" ignored`);
    }
    return out;
  }
}

function parseToml(text: string, file: string): Table {
  try {
    return parse(text, { integersAsBigInt: true }) as Table;
  } catch (e) {
    if (!(e instanceof TomlError)) throw e;
    // smol-toml's message continues with a code excerpt; the first line and the position say it all
    throw new ConfigError(`${file}: invalid TOML at line ${e.line}, column ${e.column}: ${e.message.split('\n')[0].replace(/^Invalid TOML document: /, '')}`);
  }
}

const MONIKER_EXPECTED = 'a non-empty name without control characters, such as "node0"';
const monikerProblem = (s: string): string | undefined => (s.trim() === '' ? 'empty' : /\p{Cc}/u.test(s) ? 'contains control characters' : undefined);

/** Throws a ConfigError unless `moniker` is a usable node name. */
export function checkMoniker(moniker: string): void {
  const why = monikerProblem(moniker);
  if (why !== undefined) throw new ConfigError(`invalid moniker ${JSON.stringify(moniker)}: ${why}; expected ${MONIKER_EXPECTED}`);
}

/** Parses config.toml text; `file` names it in errors and warnings. */
export function parseNodeConfig(text: string, file: string): { config: NodeConfig; warnings: string[] } {
  const r = new Reader(file, parseToml(text, file));
  const d = defaultNodeConfig('');
  const moniker = r.string('moniker', '', MONIKER_EXPECTED, monikerProblem);
  if (moniker === '') throw new ConfigError(`${file}: moniker is missing; expected a non-empty name such as moniker = "node0"`);
  const size = r.int('mempool.size', BigInt(d.mempool.size), 1n, 2_147_483_647n);
  const maxTxsBytes = r.int('mempool.max_txs_bytes', BigInt(d.mempool.maxTxsBytes), 1n, BigInt(Number.MAX_SAFE_INTEGER));
  const maxTxBytes = r.int('mempool.max_tx_bytes', BigInt(d.mempool.maxTxBytes), 1n, BigInt(Number.MAX_SAFE_INTEGER));
  if (maxTxBytes > maxTxsBytes) r.fail('mempool.max_tx_bytes', maxTxBytes, `at most mempool.max_txs_bytes (${maxTxsBytes})`);
  const config: NodeConfig = {
    proxyApp: r.string('proxy_app', d.proxyApp, `a string such as "${d.proxyApp}"`),
    abci: r.string('abci', d.abci, 'a string such as "socket"'),
    moniker,
    rpc: {
      laddr: r.address('rpc.laddr', d.rpc.laddr, 'tcp://127.0.0.1:26657'),
      maxBodyBytes: Number(r.int('rpc.max_body_bytes', BigInt(d.rpc.maxBodyBytes), 1n, BigInt(Number.MAX_SAFE_INTEGER))),
      maxRequestBatchSize: Number(r.int('rpc.max_request_batch_size', BigInt(d.rpc.maxRequestBatchSize), 0n, 1_000_000n)),
      maxOpenConnections: Number(r.int('rpc.max_open_connections', BigInt(d.rpc.maxOpenConnections), 0n, 1_000_000n)),
      timeoutBroadcastTxCommitMs: r.duration('rpc.timeout_broadcast_tx_commit', d.rpc.timeoutBroadcastTxCommitMs, false),
      allowedHosts: r.stringList(
        'rpc.allowed_hosts',
        d.rpc.allowedHosts,
        'an array of host names such as ["localhost", "127.0.0.1", "node.example.com"], or ["*"]',
      ),
      broadcastViaGet: r.bool('rpc.broadcast_via_get', d.rpc.broadcastViaGet),
      maxSearchHeights: Number(r.int('rpc.max_search_heights', BigInt(d.rpc.maxSearchHeights), 1n, BigInt(Number.MAX_SAFE_INTEGER))),
      maxSearchResults: Number(r.int('rpc.max_search_results', BigInt(d.rpc.maxSearchResults), 1n, BigInt(Number.MAX_SAFE_INTEGER))),
      writeTimeoutMs: r.duration('rpc.write_timeout', d.rpc.writeTimeoutMs, false),
      maxWriteBufferBytes: Number(
        r.int('rpc.max_write_buffer_bytes', BigInt(d.rpc.maxWriteBufferBytes), MIN_WRITE_BUFFER_BYTES, BigInt(Number.MAX_SAFE_INTEGER)),
      ),
    },
    consensus: {
      timeoutCommitMs: r.duration('consensus.timeout_commit', d.consensus.timeoutCommitMs, false),
      blockIntervalMs: r.duration('consensus.block_interval', d.consensus.blockIntervalMs, true),
    },
    mempool: {
      size: Number(size),
      maxTxsBytes: Number(maxTxsBytes),
      maxTxBytes: Number(maxTxBytes),
      cacheSize: Number(r.int('mempool.cache_size', BigInt(d.mempool.cacheSize), 0n, 10_000_000n)),
      maxPendingTxs: Number(r.int('mempool.max_pending_txs', BigInt(d.mempool.maxPendingTxs), 1n, 10_000_000n)),
      maxPendingBytes: Number(r.int('mempool.max_pending_bytes', BigInt(d.mempool.maxPendingBytes), maxTxBytes, BigInt(Number.MAX_SAFE_INTEGER))),
      preverifyAhead: Number(r.int('mempool.preverify_ahead', BigInt(d.mempool.preverifyAhead), 1n, 1_000_000n)),
      preverifyAheadBytes: Number(r.int('mempool.preverify_ahead_bytes', BigInt(d.mempool.preverifyAheadBytes), 1n, BigInt(Number.MAX_SAFE_INTEGER))),
    },
    p2p: { laddr: r.address('p2p.laddr', d.p2p.laddr, 'tcp://127.0.0.1:26656') },
    instrumentation: {
      prometheus: r.bool('instrumentation.prometheus', d.instrumentation.prometheus),
      listenAddr: r.goAddress('instrumentation.prometheus_listen_addr', d.instrumentation.listenAddr, '127.0.0.1:26660'),
      maxOpenConnections: Number(r.int('instrumentation.max_open_connections', BigInt(d.instrumentation.maxOpenConnections), 0n, 1_000_000n)),
      namespace: r.namespace('instrumentation.namespace', d.instrumentation.namespace),
    },
  };
  return { config, warnings: r.unknownKeys(COMETBFT_KEY_PATHS) };
}

/** "0.025000000000000000" → "0.025": the form the operator wrote, which parses to the same value. */
const trimDec = (s: string): string => s.replace(/\.?0+$/, '');

/** Parses app.toml text; `file` names it in errors and warnings. */
export function parseAppConfig(text: string, file: string): { config: AppConfig; warnings: string[] } {
  const r = new Reader(file, parseToml(text, file));
  const d = defaultAppConfig();
  const gasExpected = 'decimal coins such as "0.025stake" or "0.025stake,0.1atom", or "" for none';
  let minimumGasPrices: GasPrice[] = [];
  const gas = r.string('minimum-gas-prices', '', gasExpected);
  try {
    minimumGasPrices = parseDecCoins(gas).map((c) => ({ denom: c.denom, amount: trimDec(decToString(c.amount)) }));
  } catch (e) {
    r.fail('minimum-gas-prices', gas, gasExpected, (e as Error).message);
  }
  const config: AppConfig = {
    minimumGasPrices,
    haltHeight: r.int('halt-height', d.haltHeight, 0n, MAX_INT64),
    queryGasLimit: r.intOrDigits('query-gas-limit', d.queryGasLimit, 0n, MAX_INT64),
    stateDbMaxBytes: r.int('state-db-max-bytes', d.stateDbMaxBytes, 1n << 20n, BigInt(Number.MAX_SAFE_INTEGER)),
    verifiedSignaturesCacheSize: Number(r.int('verified-signatures-cache-size', BigInt(d.verifiedSignaturesCacheSize), 1n, 100_000_000n)),
    verifiedSignaturesCacheBytes: Number(
      r.int('verified-signatures-cache-bytes', BigInt(d.verifiedSignaturesCacheBytes), 1n << 16n, BigInt(Number.MAX_SAFE_INTEGER)),
    ),
    api: {
      enable: r.bool('api.enable', d.api.enable),
      address: r.address('api.address', d.api.address, 'tcp://127.0.0.1:1317'),
      maxOpenConnections: Number(r.int('api.max-open-connections', BigInt(d.api.maxOpenConnections), 0n, 1_000_000n)),
      readTimeoutMs: Number(r.int('api.rpc-read-timeout', BigInt(d.api.readTimeoutMs / 1000), 1n, 86_400n)) * 1000,
      idleTimeoutMs: Number(r.int('api.rpc-idle-timeout', BigInt(d.api.idleTimeoutMs / 1000), 1n, 86_400n)) * 1000,
      maxWriteBufferBytes: Number(
        r.int('api.rpc-max-write-buffer-bytes', BigInt(d.api.maxWriteBufferBytes), MIN_WRITE_BUFFER_BYTES, BigInt(Number.MAX_SAFE_INTEGER)),
      ),
    },
    grpc: {
      enable: r.bool('grpc.enable', d.grpc.enable),
      address: r.address('grpc.address', d.grpc.address, '127.0.0.1:9090'),
      maxRecvMsgSize: Number(r.int('grpc.max-recv-msg-size', BigInt(d.grpc.maxRecvMsgSize), 1n, 2_147_483_647n)),
      maxSendMsgSize: Number(r.int('grpc.max-send-msg-size', BigInt(d.grpc.maxSendMsgSize), 1n, 2_147_483_647n)),
      maxOpenConnections: Number(r.int('grpc.max-open-connections', BigInt(d.grpc.maxOpenConnections), 0n, 1_000_000n)),
      keepaliveTimeMs: r.duration('grpc.keepalive-time', d.grpc.keepaliveTimeMs, true),
      keepaliveTimeoutMs: r.duration('grpc.keepalive-timeout', d.grpc.keepaliveTimeoutMs, true),
      maxConnectionIdleMs: r.duration('grpc.max-connection-idle', d.grpc.maxConnectionIdleMs, true),
    },
    abci: {
      address: r.abciAddress('abci.address', d.abci.address),
      transport: r.string('abci.transport', d.abci.transport, '"socket"', (t) =>
        ABCI_TRANSPORTS.includes(t as AbciTransport) ? undefined : 'chaind serves ABCI over a socket only (no gRPC transport)',
      ) as AbciTransport,
      maxMessageBytes: Number(r.int('abci.max-message-bytes', BigInt(d.abci.maxMessageBytes), 1n, BigInt(DEFAULT_MAX_MESSAGE_BYTES))),
      maxConnections: Number(r.int('abci.max-connections', BigInt(d.abci.maxConnections), 1n, 1_000_000n)),
      keepAliveInitialDelayMs: abciKeepAliveDelay(r, d.abci.keepAliveInitialDelayMs),
      cometRpcTimeoutMs: r.duration('abci.comet-rpc-timeout', d.abci.cometRpcTimeoutMs, true),
      cometRpcMaxResponseBytes: Number(r.int('abci.comet-rpc-max-response-bytes', BigInt(d.abci.cometRpcMaxResponseBytes), 1n, 2_147_483_647n)),
      cometbftBinary: r.string('abci.cometbft-binary', d.abci.cometbftBinary, 'a path to the cometbft binary, or ""'),
      cometbftStopTimeoutMs: r.duration('abci.cometbft-stop-timeout', d.abci.cometbftStopTimeoutMs, true),
      haltLingerMs: r.duration('abci.halt-linger', d.abci.haltLingerMs, false),
      serversStartWaitMs: r.duration('abci.servers-start-wait', d.abci.serversStartWaitMs, false),
    },
    instrumentation: {
      prometheus: r.bool('instrumentation.prometheus', d.instrumentation.prometheus),
      listenAddr: r.goAddress('instrumentation.prometheus-listen-addr', d.instrumentation.listenAddr, '127.0.0.1:26661'),
      maxOpenConnections: Number(r.int('instrumentation.max-open-connections', BigInt(d.instrumentation.maxOpenConnections), 0n, 1_000_000n)),
      namespace: r.namespace('instrumentation.namespace', d.instrumentation.namespace),
    },
  };
  return { config, warnings: r.unknownKeys() };
}

/** abci.keepalive-initial-delay: whole seconds from 1 s (the kernel counts keepalive time in seconds). */
function abciKeepAliveDelay(r: Reader, dfltMs: number): number {
  const ms = r.duration('abci.keepalive-initial-delay', dfltMs, true);
  const expected = 'a duration of whole seconds from "1s" to "24h", such as "15s"';
  if (ms % 1000 !== 0 || ms < 1000 || ms > 86_400_000) r.fail('abci.keepalive-initial-delay', `${ms}ms`, expected);
  return ms;
}

async function readConfigFile(file: string): Promise<string> {
  try {
    return await readFile(file, 'utf8');
  } catch (e) {
    if ((e as NodeJS.ErrnoException).code === 'ENOENT') throw new ConfigError(`${file} not found: run "chaind init" first, or pass the right --home`);
    throw e;
  }
}

export async function loadNodeConfig(home: string): Promise<{ config: NodeConfig; warnings: string[] }> {
  const file = configPaths(home).node;
  return parseNodeConfig(await readConfigFile(file), file);
}

export async function loadAppConfig(home: string): Promise<{ config: AppConfig; warnings: string[] }> {
  const file = configPaths(home).app;
  return parseAppConfig(await readConfigFile(file), file);
}

/** Reads and validates <home>/config/config.toml and app.toml. */
export async function loadConfig(home: string): Promise<LoadedConfig> {
  // one after the other, so that with both files broken the error is always config.toml's
  const node = await loadNodeConfig(home);
  const app = await loadAppConfig(home);
  return { home: resolve(home), node: node.config, app: app.config, warnings: [...node.warnings, ...app.warnings] };
}

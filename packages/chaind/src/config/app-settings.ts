// app.toml's settings, declared once (settings.ts makes the parser, the type, the file `chaind init`
// writes, the flags and the docs' table from them). The Cosmos SDK's keys keep its names and meaning.
import { DEFAULT_VERIFIED_SIGNATURES_CAPACITY, DEFAULT_VERIFIED_SIGNATURES_MAX_BYTES } from '@chaind/sdk/crypto';
import { decToString, parseDecCoins } from '@chaind/sdk/types';
import { errorMessage } from '@chaind/errors';
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
import { DEFAULT_MAX_WRITE_BUFFER_BYTES, MIN_WRITE_BUFFER_BYTES } from './node-settings.ts';
import {
  bigintKind,
  boolKind,
  durationKind,
  intKind,
  listenKind,
  namespaceKind,
  Refused,
  secondsKind,
  section,
  setting,
  stringKind,
  tomlString,
  type ConfigOf,
  type Kind,
  type SettingsTable,
} from './settings.ts';

const MAX_INT64 = (1n << 63n) - 1n;
/** The SDK leaves query-gas-limit unbounded (0); a free simulation must not be: this is well above any block's typical gas. */
export const DEFAULT_QUERY_GAS_LIMIT = 10_000_000n;
/** 1 TiB: far above any state this node keeps today, so only a full disk's worth stops it; operators set it below their free space. */
export const DEFAULT_STATE_DB_MAX_BYTES = 1n << 40n;
/** The setting's name as the store's refusal cites it. */
export const STATE_DB_MAX_BYTES_SETTING = 'app.toml state-db-max-bytes';

/** A minimum gas price as createChainApp takes it: amount is a decimal string ("0.025"). */
export interface GasPrice {
  readonly denom: string;
  readonly amount: string;
}

/** "0.025000000000000000" → "0.025": the form the operator wrote, which parses to the same value. */
const trimDec = (s: string): string => s.replace(/\.?0+$/, '');

const gasPricesKind: Kind<readonly GasPrice[]> = {
  expected: 'decimal coins such as "0.025stake" or "0.025stake,0.1atom", or "" for none',
  read: (v) => {
    if (typeof v !== 'string') return new Refused('not a string');
    try {
      return parseDecCoins(v).map((c) => ({ denom: c.denom, amount: trimDec(decToString(c.amount)) }));
    } catch (e) {
      return new Refused(errorMessage(e));
    }
  },
  toml: (l) => tomlString(l.map((p) => `${p.amount}${p.denom}`).join(',')),
  text: (l) => l.map((p) => `${p.amount}${p.denom}`).join(','),
};

const abciAddressKind: Kind<AbciAddress> = {
  expected: ABCI_ADDRESS_EXPECTED,
  arg: 'address',
  read: (v) => {
    if (typeof v !== 'string') return new Refused();
    const a = parseAbciAddress(v);
    return typeof a === 'string' ? new Refused(a) : a;
  },
  toml: (a) => tomlString(formatAbciAddress(a)),
  text: formatAbciAddress,
};

const transportKind = stringKind<AbciTransport>('"socket"', (t) =>
  ABCI_TRANSPORTS.includes(t as AbciTransport) ? undefined : 'chaind serves ABCI over a socket only (no gRPC transport)',
);

/** Whole seconds from 1 s to 24 h: the kernel counts keepalive time in seconds. */
const keepaliveKind = durationKind(true, (ms) =>
  ms % 1000 !== 0 || ms < 1000 || ms > 86_400_000 ? new Refused(undefined, 'a duration of whole seconds from "1s" to "24h", such as "15s"') : undefined,
);

const SAFE = Number.MAX_SAFE_INTEGER;

export const APP_SETTINGS = {
  minimumGasPrices: setting({
    key: 'minimum-gas-prices',
    kind: gasPricesKind,
    def: [],
    doc: 'the lowest gas prices this node accepts a transaction at, e.g. `"0.025stake"` or `"0.025stake,0.1atom"`: CheckTx refuses lower fees. Empty: transactions paying no fee are accepted. Each node chooses its own',
    from: 'Cosmos SDK',
  }),
  haltHeight: setting({
    key: 'halt-height',
    kind: bigintKind(0n, MAX_INT64),
    def: 0n,
    doc: 'stop the node after committing this block height; 0 never stops',
    from: 'Cosmos SDK',
  }),
  queryGasLimit: setting({
    key: 'query-gas-limit',
    kind: bigintKind(0n, MAX_INT64, true),
    def: DEFAULT_QUERY_GAS_LIMIT,
    doc: "most gas one Simulate or one query may use (JSON-RPC `abci_query`, REST, gRPC: both are free to anyone; a query's store reads cost what a tx's do); 0: unmetered (the SDK's default, which chaind does not follow). The simulated tx may be at most config.toml `[mempool] max_tx_bytes`",
    from: 'Cosmos SDK',
  }),
  stateDbMaxBytes: setting({
    key: 'state-db-max-bytes',
    kind: bigintKind(MIN_WRITE_BUFFER_BYTES, SAFE),
    def: DEFAULT_STATE_DB_MAX_BYTES,
    doc: "most bytes the state database (`data/application.db`) may take, default 1 TiB: a block whose commit would pass it (the database's pages in use plus the block's changes) stops the node with one line naming this key, nothing of that block committed; raise it and restart, and the node goes on from that block. Keep it below the disk's free space, so the node stops cleanly before the disk is full (lmdb-js grows its map without bound)",
    from: 'chaind',
  }),
  verifiedSignaturesCacheSize: setting({
    key: 'verified-signatures-cache-size',
    kind: intKind(1, 100_000_000),
    def: DEFAULT_VERIFIED_SIGNATURES_CAPACITY,
    doc: 'signatures known to verify (by the worker threads ahead of CheckTx, or by CheckTx itself), kept so the block that executes their txs does not verify them again: at most this many. A miss only costs a verification; whether a tx is accepted never depends on it',
    from: 'chaind',
  }),
  verifiedSignaturesCacheBytes: setting({
    key: 'verified-signatures-cache-bytes',
    kind: intKind(1n << 16n, SAFE),
    def: DEFAULT_VERIFIED_SIGNATURES_MAX_BYTES,
    doc: 'most bytes those signatures may take, as counted (about 450 per entry)',
    from: 'chaind',
  }),
  api: section('api', 'REST (gRPC-gateway JSON, OpenAPI at /swagger).', {
    enable: setting({
      key: 'enable',
      kind: boolKind,
      def: true,
      doc: 'serve REST',
      from: 'Cosmos SDK',
      flag: { name: 'api.enable', doc: 'serve REST' },
    }),
    address: setting({
      key: 'address',
      kind: listenKind('tcp', 'tcp://127.0.0.1:1317'),
      def: { host: '127.0.0.1', port: 1317 },
      doc: 'REST listen address',
      from: 'Cosmos SDK',
      flag: { name: 'api.address', doc: 'REST listen address' },
    }),
    maxOpenConnections: setting({
      key: 'max-open-connections',
      kind: intKind(0, 1_000_000),
      def: 1000,
      doc: 'most REST connections open at once; 0: no limit',
      from: 'Cosmos SDK',
    }),
    readTimeoutMs: setting({
      key: 'rpc-read-timeout',
      kind: secondsKind(1, 86_400),
      def: 10_000,
      doc: 'seconds a client has to send a whole request (headers and body): a slow sender cannot hold a connection',
      from: 'Cosmos SDK',
    }),
    idleTimeoutMs: setting({
      key: 'rpc-idle-timeout',
      kind: secondsKind(1, 86_400),
      def: 10_000,
      doc: 'seconds a REST connection may stay silent before it is closed',
      from: 'chaind',
    }),
    maxWriteBufferBytes: setting({
      key: 'rpc-max-write-buffer-bytes',
      kind: intKind(MIN_WRITE_BUFFER_BYTES, SAFE),
      def: DEFAULT_MAX_WRITE_BUFFER_BYTES,
      doc: 'bytes of answers their clients have not read, all connections together; past it the connections waiting longest are closed (an unread answer is closed by `rpc-idle-timeout`)',
      from: 'chaind',
    }),
  }),
  grpc: section('grpc', 'gRPC with server reflection.', {
    enable: setting({
      key: 'enable',
      kind: boolKind,
      def: true,
      doc: 'serve gRPC',
      from: 'Cosmos SDK',
      flag: { name: 'grpc.enable', doc: 'serve gRPC' },
    }),
    address: setting({
      key: 'address',
      kind: listenKind('host:port', '127.0.0.1:9090'),
      def: { host: '127.0.0.1', port: 9090 },
      doc: 'the gRPC listen address (without a scheme, as the SDK writes it)',
      from: 'Cosmos SDK',
      flag: { name: 'grpc.address', doc: 'gRPC listen address' },
    }),
    maxRecvMsgSize: setting({
      key: 'max-recv-msg-size',
      kind: intKind(1, 2_147_483_647),
      def: 10 * 1024 * 1024,
      doc: 'largest request message, in bytes; a bigger one is RESOURCE_EXHAUSTED',
      from: 'Cosmos SDK',
    }),
    maxSendMsgSize: setting({
      key: 'max-send-msg-size',
      kind: intKind(1, 2_147_483_647),
      def: 2_147_483_647,
      doc: 'largest response message, in bytes',
      from: 'Cosmos SDK',
    }),
    maxOpenConnections: setting({
      key: 'max-open-connections',
      kind: intKind(0, 1_000_000),
      def: 1000,
      doc: 'most gRPC connections open at once; 0: no limit',
      from: 'chaind',
    }),
    keepaliveTimeMs: setting({
      key: 'keepalive-time',
      kind: durationKind(true),
      def: 5 * 60_000,
      doc: 'how long a client may be silent before the server pings it',
      from: 'chaind',
    }),
    keepaliveTimeoutMs: setting({
      key: 'keepalive-timeout',
      kind: durationKind(true),
      def: 20_000,
      doc: 'how long the server waits for the answer to its ping before it drops the client',
      from: 'chaind',
    }),
    maxConnectionIdleMs: setting({
      key: 'max-connection-idle',
      kind: durationKind(true),
      def: 5 * 60_000,
      doc: 'a connection without a call (or a socket that never sends a byte) is closed after this',
      from: 'chaind',
    }),
  }),
  abci: section(
    'abci',
    "chaind as an ABCI application behind CometBFT v0.38, which runs consensus and dials chaind here; unused in solo mode. The Cosmos SDK has address and transport as `start` flags only; here they can be set once, and the flags override them. The other keys are chaind's.",
    {
      address: setting({
        key: 'address',
        kind: abciAddressKind,
        def: DEFAULT_ABCI_ADDRESS,
        doc: "where chaind listens for CometBFT: `tcp://host:port` or `unix:///absolute/path`; config.toml's `proxy_app` must name the same address",
        from: 'Cosmos SDK',
        flag: { name: 'address', doc: 'ABCI listen address, tcp://host:port or unix:///path' },
      }),
      transport: setting({
        key: 'transport',
        kind: transportKind,
        def: DEFAULT_ABCI_TRANSPORT,
        doc: '`socket` (CometBFT\'s `abci = "socket"`), the only transport chaind serves',
        from: 'Cosmos SDK',
        flag: { name: 'transport', doc: 'ABCI transport: socket' },
      }),
      maxMessageBytes: setting({
        key: 'max-message-bytes',
        kind: intKind(1, DEFAULT_MAX_MESSAGE_BYTES),
        def: DEFAULT_MAX_MESSAGE_BYTES,
        doc: "the largest ABCI message read or written, in bytes (CometBFT's own limit is MaxInt32): a longer length prefix is refused with an exception and the connection closed",
        from: 'chaind',
      }),
      maxConnections: setting({
        key: 'max-connections',
        kind: intKind(1, 1_000_000),
        def: DEFAULT_MAX_CONNECTIONS,
        doc: 'most ABCI connections open at once (CometBFT opens four); more are closed at once and logged',
        from: 'chaind',
      }),
      keepAliveInitialDelayMs: setting({
        key: 'keepalive-initial-delay',
        kind: keepaliveKind,
        def: DEFAULT_KEEPALIVE_INITIAL_DELAY_MS,
        doc: "silence on a TCP connection from CometBFT before keepalive probes start (Go's default, as on CometBFT's side): a CometBFT whose host vanished without closing is then dropped about 10 s later (10 probes 1 s apart), its place freed",
        from: 'chaind',
      }),
      cometRpcTimeoutMs: setting({
        key: 'comet-rpc-timeout',
        kind: durationKind(true),
        def: DEFAULT_COMET_RPC_TIMEOUT_MS,
        doc: "how long one call to CometBFT's JSON-RPC (config.toml `[rpc] laddr`) may take: REST and gRPC broadcasts forwarded to it, tx lookups; past it the caller gets UNAVAILABLE",
        from: 'chaind',
      }),
      cometRpcMaxResponseBytes: setting({
        key: 'comet-rpc-max-response-bytes',
        kind: intKind(1, 2_147_483_647),
        def: DEFAULT_COMET_RPC_MAX_RESPONSE_BYTES,
        doc: "the largest answer read from CometBFT's JSON-RPC, in bytes, counted as it arrives; a bigger one is refused with UNAVAILABLE",
        from: 'chaind',
      }),
      cometbftBinary: setting({
        key: 'cometbft-binary',
        kind: stringKind('a path to the cometbft binary, or ""'),
        def: '',
        doc: '`chaind start` (--with-comet=true) runs CometBFT as its child: this cometbft binary, which must be the pinned version (`""`: `COMETBFT_BIN`, then the project cache of `npm run cometbft:install`, then `PATH`; a relative path is read from the home)',
        from: 'chaind',
      }),
      cometbftStopTimeoutMs: setting({
        key: 'cometbft-stop-timeout',
        kind: durationKind(true),
        def: 20_000,
        doc: 'how long a stop waits for that CometBFT to exit after SIGTERM before SIGKILL',
        from: 'chaind',
      }),
      haltLingerMs: setting({
        key: 'halt-linger',
        kind: durationKind(false),
        def: 500,
        doc: 'at the upgrade halt, how long CometBFT keeps running before chaind answers block H with the halt (which stops it): its gossip still gives block H\'s precommits to peers that lack them, which would otherwise wait at H until restarted validators tell them; `"0s"`: stop at once',
        from: 'chaind',
      }),
      serversStartWaitMs: setting({
        key: 'servers-start-wait',
        kind: durationKind(false),
        def: 5000,
        doc: "under `chaind start`, REST and gRPC start once the network makes blocks with this node (the first Commit of a block it saw proposed), so that their start-up delays neither the replay of an upgrade's block nor the next proposal; at most this long after the start (a node in block sync)",
        from: 'chaind',
      }),
    },
  ),
  instrumentation: section(
    'instrumentation',
    "chaind's Prometheus metrics behind CometBFT (`start --with-comet=false`), where CometBFT serves its own on config.toml's [instrumentation] address: chaind's go here, on another port (the same one is refused at start-up). Solo mode ignores this section (config.toml's serves everything).",
    {
      prometheus: setting({ key: 'prometheus', kind: boolKind, def: false, doc: 'serve `/metrics`', from: 'chaind' }),
      // the port beside CometBFT's 26660
      listenAddr: setting({
        key: 'prometheus-listen-addr',
        kind: listenKind('host:port', '127.0.0.1:26661', true),
        def: { host: '127.0.0.1', port: 26661 },
        doc: "where `/metrics` is served, beside CometBFT's 26660",
        from: 'chaind',
      }),
      maxOpenConnections: setting({
        key: 'max-open-connections',
        kind: intKind(0, 1_000_000),
        def: 3,
        doc: 'most metrics connections open at once (scrapers); 0: no limit',
        from: 'chaind',
      }),
      // its own namespace, so the two programs' series never share a name
      namespace: setting({
        key: 'namespace',
        kind: namespaceKind,
        def: 'chaind',
        doc: "the prefix of every metric name: `chaind`, apart from CometBFT's `cometbft` series",
        from: 'chaind',
      }),
    },
  ),
} satisfies SettingsTable;

/** app.toml, parsed: one field per APP_SETTINGS entry (durations in milliseconds). */
export type AppConfig = ConfigOf<typeof APP_SETTINGS>;

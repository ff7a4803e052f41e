// config.toml's settings, declared once (settings.ts makes the parser, the type, the file `chaind init`
// writes, the flags and the docs' table from them). config.toml is CometBFT v0.38's file: CometBFT's keys
// keep its names, types and defaults; chaind's own keys are ones CometBFT ignores.
import { DEFAULT_ABCI_ADDRESS, formatAbciAddress } from './abci.ts';
import {
  durationKind,
  intKind,
  listenKind,
  namespaceKind,
  section,
  setting,
  stringKind,
  stringListKind,
  boolKind,
  type ConfigOf,
  type SettingsTable,
  type Written,
} from './settings.ts';

/** JSON-RPC's bound on an unread answer: CometBFT's RPC WriteTimeout (REST's is its idle timeout). */
export const DEFAULT_WRITE_TIMEOUT_MS = 10_000;
/** JSON-RPC's and REST's bound on unread answers, all connections together: above one answer of the largest block CometBFT allows (21 MiB, about 29 MB as JSON). */
export const DEFAULT_MAX_WRITE_BUFFER_BYTES = 64 * 1024 * 1024;
/** Below this, answers an ordinary client reads at once would close connections. */
export const MIN_WRITE_BUFFER_BYTES = 1n << 20n;

export const MONIKER_EXPECTED = 'a non-empty name without control characters, such as "node0"';
export const monikerProblem = (s: string): string | undefined => (s.trim() === '' ? 'empty' : /\p{Cc}/u.test(s) ? 'contains control characters' : undefined);

const SAFE = Number.MAX_SAFE_INTEGER;

export const NODE_SETTINGS = {
  proxyApp: setting({
    key: 'proxy_app',
    kind: stringKind(`a string such as "${formatAbciAddress(DEFAULT_ABCI_ADDRESS)}"`),
    // CometBFT's default, which is also where chaind's ABCI server listens by default
    def: formatAbciAddress(DEFAULT_ABCI_ADDRESS),
    doc: "where CometBFT dials the ABCI application: chaind's ABCI server, app.toml `[abci] address` (the two must name the same address; `chaind comet-config` warns otherwise); unused in solo mode",
    from: 'CometBFT',
  }),
  abci: setting({
    key: 'abci',
    kind: stringKind('a string such as "socket"'),
    def: 'socket',
    doc: 'how CometBFT talks to the application: `socket`, the only transport chaind serves',
    from: 'CometBFT',
  }),
  moniker: setting({
    key: 'moniker',
    kind: stringKind(MONIKER_EXPECTED, monikerProblem),
    doc: 'a name for this node (`chaind init`): shown by `status`, and the default moniker of `chaind genesis add-validator`',
    from: 'CometBFT',
  }),
  rpc: section(
    'rpc',
    "CometBFT-compatible JSON-RPC (CosmJS, `chaind query`/`tx`): served by chaind itself in solo mode; with CometBFT, CometBFT serves it and chaind forwards broadcast transactions to it. chaind's own keys here are ignored by CometBFT.",
    {
      laddr: setting({
        key: 'laddr',
        kind: listenKind('tcp', 'tcp://127.0.0.1:26657'),
        def: { host: '127.0.0.1', port: 26657 },
        doc: 'JSON-RPC listen address: 127.0.0.1 keeps it on this machine; `"tcp://0.0.0.0:26657"` listens on every interface',
        from: 'CometBFT',
        flag: { name: 'rpc.laddr', doc: "JSON-RPC listen address (with --with-comet=false: CometBFT's, where broadcasts are forwarded)" },
      }),
      maxBodyBytes: setting({
        key: 'max_body_bytes',
        kind: intKind(1, SAFE),
        def: 1_000_000,
        doc: 'largest JSON-RPC request body, in bytes',
        from: 'CometBFT',
      }),
      maxRequestBatchSize: setting({
        key: 'max_request_batch_size',
        kind: intKind(0, 1_000_000),
        def: 10,
        doc: 'most requests in one JSON-RPC batch; 0: no limit',
        from: 'CometBFT',
      }),
      maxOpenConnections: setting({
        key: 'max_open_connections',
        kind: intKind(0, 1_000_000),
        def: 900,
        doc: 'most JSON-RPC connections open at once; 0: no limit. A request must arrive whole within 10 s',
        from: 'CometBFT',
      }),
      timeoutBroadcastTxCommitMs: setting({
        key: 'timeout_broadcast_tx_commit',
        kind: durationKind(false),
        def: 10_000,
        doc: "how long `broadcast_tx_commit` waits for the tx's block",
        from: 'CometBFT',
      }),
      allowedHosts: setting({
        key: 'allowed_hosts',
        kind: stringListKind('an array of host names such as ["localhost", "127.0.0.1", "node.example.com"], or ["*"]'),
        def: ['localhost', '127.0.0.1', '[::1]'],
        doc: 'Host header names JSON-RPC accepts besides `laddr`\'s host (others get 403: DNS rebinding, a web page whose name points at 127.0.0.1 sends its own name); with `laddr` 0.0.0.0 add the names clients use; `["*"]` accepts any',
        from: 'chaind',
      }),
      broadcastViaGet: setting({
        key: 'broadcast_via_get',
        kind: boolKind,
        def: false,
        doc: "serve `broadcast_tx_*` in the GET form too: any web page the node's user opens can make a browser send a GET",
        from: 'chaind',
      }),
      maxSearchHeights: setting({
        key: 'max_search_heights',
        kind: intKind(1, SAFE),
        def: 100_000,
        doc: 'most heights one `tx_search`/`block_search` scans in the block store (narrow wider queries with `tx.height`/`block.height`)',
        from: 'chaind',
      }),
      maxSearchResults: setting({
        key: 'max_search_results',
        kind: intKind(1, SAFE),
        def: 10_000,
        doc: 'most matches one `tx_search`/`block_search` collects',
        from: 'chaind',
      }),
      writeTimeoutMs: setting({
        key: 'write_timeout',
        kind: durationKind(false),
        def: DEFAULT_WRITE_TIMEOUT_MS,
        doc: 'an answer its client has not read within this long closes the connection (CometBFT\'s fixed WriteTimeout); `"0"`: none',
        from: 'chaind',
      }),
      maxWriteBufferBytes: setting({
        key: 'max_write_buffer_bytes',
        kind: intKind(MIN_WRITE_BUFFER_BYTES, SAFE),
        def: DEFAULT_MAX_WRITE_BUFFER_BYTES,
        doc: 'bytes of unread answers, all connections together: past it the connections waiting longest are closed and new requests get 503',
        from: 'chaind',
      }),
    },
  ),
  consensus: section('consensus', 'When blocks are made.', {
    blockIntervalMs: setting({
      key: 'block_interval',
      kind: durationKind(true),
      def: 1000,
      doc: 'how often the solo driver produces a block (CometBFT ignores it)',
      from: 'chaind',
    }),
    timeoutCommitMs: setting({
      key: 'timeout_commit',
      kind: durationKind(false),
      def: 1000,
      doc: "CometBFT's pause after committing a block before the next height; solo mode ignores it",
      from: 'CometBFT',
    }),
  }),
  mempool: section(
    'mempool',
    "Transactions waiting for a block (CometBFT's keys and defaults; with CometBFT, its own mempool's). The pending and preverify keys are chaind's, for solo mode; CometBFT ignores them.",
    {
      size: setting({ key: 'size', kind: intKind(1, 2_147_483_647), def: 5000, doc: 'most transactions waiting for a block', from: 'CometBFT' }),
      maxTxsBytes: setting({
        key: 'max_txs_bytes',
        kind: intKind(1, SAFE),
        def: 1_073_741_824,
        doc: 'most bytes waiting for a block, all transactions together',
        from: 'CometBFT',
      }),
      maxTxBytes: setting({
        key: 'max_tx_bytes',
        kind: intKind(1, SAFE),
        def: 1_048_576,
        doc: 'largest transaction accepted, in bytes',
        from: 'CometBFT',
        atMost: 'mempool.max_txs_bytes',
      }),
      cacheSize: setting({
        key: 'cache_size',
        kind: intKind(0, 10_000_000),
        def: 10_000,
        doc: 'transactions CheckTx refused, remembered until the next block so a resend is answered without CheckTx (not a wrong sequence or a missing public key, which an earlier tx of the account can cure); 0: none',
        from: 'CometBFT',
      }),
      maxPendingTxs: setting({
        key: 'max_pending_txs',
        kind: intKind(1, 10_000_000),
        def: 20_000,
        doc: 'solo mode: transactions that arrived and wait for their CheckTx; more are refused at once as `mempool is full` (code 20) until the queue drains',
        from: 'chaind',
      }),
      maxPendingBytes: setting({
        key: 'max_pending_bytes',
        kind: intKind(1, SAFE),
        def: 67_108_864,
        doc: 'solo mode: most bytes of the transactions waiting for their CheckTx',
        from: 'chaind',
        atLeast: 'mempool.max_tx_bytes',
      }),
      preverifyAhead: setting({
        key: 'preverify_ahead',
        kind: intKind(1, 1_000_000),
        def: 1024,
        doc: 'solo mode: of those, the transactions whose signatures worker threads verify ahead of their CheckTx (one tx always goes)',
        from: 'chaind',
      }),
      preverifyAheadBytes: setting({
        key: 'preverify_ahead_bytes',
        kind: intKind(1, SAFE),
        def: 8_388_608,
        doc: 'solo mode: most bytes of the transactions verified ahead',
        from: 'chaind',
      }),
    },
  ),
  p2p: section('p2p', "CometBFT's peer-to-peer networking; a solo node has no peers.", {
    laddr: setting({
      key: 'laddr',
      kind: listenKind('tcp', 'tcp://127.0.0.1:26656'),
      def: { host: '127.0.0.1', port: 26656 },
      doc: 'P2P listen address (solo mode does not listen): 127.0.0.1 accepts peers on this machine only, validators on other machines need `"tcp://0.0.0.0:26656"`',
      from: 'CometBFT',
    }),
    persistentPeers: {
      key: 'persistent_peers',
      written: '""',
      doc: "the peers CometBFT keeps connected: `<node id>@<host>:<port>` separated by commas, each node id from `chaind comet show-node-id` on that node's home",
      from: 'CometBFT',
    } satisfies Written,
  }),
  instrumentation: section(
    'instrumentation',
    'Prometheus metrics at http://<prometheus_listen_addr>/metrics (docs/operator-guide.md "Metrics"): served by chaind in solo mode; with CometBFT, CometBFT serves its own here and chaind\'s are app.toml\'s [instrumentation].',
    {
      prometheus: setting({ key: 'prometheus', kind: boolKind, def: false, doc: 'serve `/metrics`; off by default, as in CometBFT', from: 'CometBFT' }),
      // on loopback when the key is absent (CometBFT's ":26660" is every interface, and accepted)
      listenAddr: setting({
        key: 'prometheus_listen_addr',
        kind: listenKind('host:port', '127.0.0.1:26660', true),
        def: { host: '127.0.0.1', port: 26660 },
        doc: 'where `/metrics` is served: 127.0.0.1 keeps it on this machine; CometBFT\'s `":26660"` (or `"0.0.0.0:26660"`) is every interface',
        from: 'CometBFT',
      }),
      maxOpenConnections: setting({
        key: 'max_open_connections',
        kind: intKind(0, 1_000_000),
        def: 3,
        doc: 'most metrics connections open at once (scrapers); 0: no limit',
        from: 'CometBFT',
      }),
      namespace: setting({
        key: 'namespace',
        kind: namespaceKind,
        def: 'cometbft',
        doc: "the prefix of every metric name: `cometbft`, so dashboards made for CometBFT's metrics read chaind's",
        from: 'CometBFT',
      }),
    },
  ),
} satisfies SettingsTable;

/** config.toml, parsed: one field per NODE_SETTINGS entry (durations in milliseconds). */
export type NodeConfig = ConfigOf<typeof NODE_SETTINGS>;

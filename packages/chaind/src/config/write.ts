// config.toml and app.toml as text, every key with a comment saying what it does (what `chaind init`
// writes), and the atomic file writes shared with the CLI.
import { randomBytes } from 'node:crypto';
import { constants as fsc } from 'node:fs';
import { link, mkdir, open, rename, stat, unlink } from 'node:fs/promises';
import { basename, dirname, join } from 'node:path';
import { stringify } from 'smol-toml';
import { durationNs, formatGoDuration } from '@chaind/upgrade-plan';
import { abciDialAddress, formatAbciAddress, type AbciAddress } from './abci.ts';
import { hostPort, tcpAddress } from './address.ts';
import { checkMoniker, configPaths, defaultAppConfig, defaultNodeConfig, type AppConfig, type NodeConfig } from './config.ts';

/** A TOML string literal, escaped by the TOML library rather than by hand. */
const str = (s: string): string => stringify({ v: s }).trim().slice('v = '.length);
/** A setting's milliseconds as a Go duration string ("1m30s"), what parseGoDuration reads back. */
const formatDuration = (ms: number): string => formatGoDuration(durationNs(ms));

export function renderNodeConfig(c: NodeConfig, chainId?: string): string {
  return `# chaind node configuration${chainId === undefined ? '' : ` for chain ${chainId}`}, in CometBFT v0.38's config.toml format:
# CometBFT started on this home (cometbft start --home <this home>) reads this file too, with its
# defaults for every key not written here. Durations are written as "1s", "500ms", "1m30s".
# CometBFT's keys are accepted here as they are; any other key chaind does not know is reported at
# start-up and ignored.

# Where CometBFT dials the ABCI application: chaind's ABCI server, app.toml [abci] address (the two
# must name the same address; \`chaind comet-config\` prints what CometBFT needs). Unused in solo mode.
proxy_app = ${str(c.proxyApp)}
# How CometBFT talks to the application: "socket", the only transport chaind serves.
abci = ${str(c.abci)}

# A name for this node: shown by \`status\`, and the default moniker of \`chaind genesis add-validator\`.
moniker = ${str(c.moniker)}

[rpc]
# CometBFT-compatible JSON-RPC (CosmJS, \`chaind query\`/\`tx\`): served by chaind itself in solo mode; with
# CometBFT, CometBFT serves it here and chaind forwards broadcast transactions to it.
# 127.0.0.1 keeps it on this machine; "tcp://0.0.0.0:26657" listens on every interface. Flag: --rpc.laddr
laddr = ${str(tcpAddress(c.rpc.laddr))}
# Largest request body, in bytes.
max_body_bytes = ${c.rpc.maxBodyBytes}
# Most requests in one JSON-RPC batch; 0: no limit.
max_request_batch_size = ${c.rpc.maxRequestBatchSize}
# Most connections open at once; 0: no limit.
max_open_connections = ${c.rpc.maxOpenConnections}
# How long broadcast_tx_commit waits for the tx's block.
timeout_broadcast_tx_commit = ${str(formatDuration(c.rpc.timeoutBroadcastTxCommitMs))}
# chaind's own keys (solo mode; CometBFT ignores them):
# Host header names accepted besides laddr's host (DNS rebinding: a web page whose name points at
# 127.0.0.1 sends its own name). Add the names clients use with laddr 0.0.0.0; ["*"] accepts any.
allowed_hosts = [${c.rpc.allowedHosts.map(str).join(', ')}]
# Serve broadcast_tx_* in the GET form too: any web page the node's user opens can send a GET.
broadcast_via_get = ${c.rpc.broadcastViaGet}
# tx_search / block_search scan the block store: most heights one request scans (narrow wider queries
# with tx.height / block.height), and most matches it collects.
max_search_heights = ${c.rpc.maxSearchHeights}
max_search_results = ${c.rpc.maxSearchResults}
# An answer its client has not read within write_timeout closes the connection (CometBFT's fixed
# WriteTimeout; "0": none), and unread answers of all connections together may take at most
# max_write_buffer_bytes (past it, the connections waiting longest are closed).
write_timeout = ${str(formatDuration(c.rpc.writeTimeoutMs))}
max_write_buffer_bytes = ${c.rpc.maxWriteBufferBytes}

[consensus]
# How often the solo driver produces a block (chaind's own key; CometBFT ignores it).
block_interval = ${str(formatDuration(c.consensus.blockIntervalMs))}
# CometBFT's pause after committing a block before the next height; solo mode ignores it.
timeout_commit = ${str(formatDuration(c.consensus.timeoutCommitMs))}

[mempool]
# Most transactions waiting for a block.
size = ${c.mempool.size}
# Most bytes waiting for a block, all transactions together.
max_txs_bytes = ${c.mempool.maxTxsBytes}
# Largest transaction accepted, in bytes (at most max_txs_bytes).
max_tx_bytes = ${c.mempool.maxTxBytes}
# Transactions CheckTx refused, remembered until the next block so a resend costs nothing (0: none).
# Not remembered: a wrong sequence or a missing public key, which an earlier tx of the account can cure.
cache_size = ${c.mempool.cacheSize}
# Solo mode (chaind's own keys; CometBFT ignores them): transactions that arrived and wait for their
# CheckTx, at most this many and bytes; more are refused as "mempool is full" until the queue drains.
max_pending_txs = ${c.mempool.maxPendingTxs}
max_pending_bytes = ${c.mempool.maxPendingBytes}
# Of those, the ones whose signatures are verified ahead on worker threads, and their bytes.
preverify_ahead = ${c.mempool.preverifyAhead}
preverify_ahead_bytes = ${c.mempool.preverifyAheadBytes}

[p2p]
# CometBFT's peer-to-peer listen address; a solo node has no peers and does not listen here.
# 127.0.0.1 accepts peers on this machine only: validators on other machines need "tcp://0.0.0.0:26656".
laddr = ${str(tcpAddress(c.p2p.laddr))}
# The peers CometBFT keeps connected: "<node id>@<host>:<port>" separated by commas, each node id from
# \`chaind comet show-node-id\` on that node's home.
persistent_peers = ""

[instrumentation]
# Prometheus metrics at http://<prometheus_listen_addr>/metrics (docs/operator-guide.md "Metrics"): served
# by chaind in solo mode; with CometBFT, CometBFT serves its own here and chaind's are app.toml's
# [instrumentation]. Off by default, as in CometBFT.
prometheus = ${c.instrumentation.prometheus}
# 127.0.0.1 keeps it on this machine; CometBFT's ":26660" (or "0.0.0.0:26660") is every interface.
prometheus_listen_addr = ${str(hostPort(c.instrumentation.listenAddr))}
# Most connections open at once (scrapers); 0: no limit.
max_open_connections = ${c.instrumentation.maxOpenConnections}
# The prefix of every metric name: "cometbft", so dashboards made for CometBFT's metrics read chaind's.
namespace = ${str(c.instrumentation.namespace)}
`;
}

export function renderAppConfig(c: AppConfig, chainId?: string): string {
  const gas = c.minimumGasPrices.map((p) => `${p.amount}${p.denom}`).join(',');
  return `# chaind application configuration (Cosmos-style app.toml)${chainId === undefined ? '' : ` for chain ${chainId}`}.
# Keys chaind does not know are reported at start-up and ignored.

# The lowest gas prices this node accepts a transaction at, e.g. "0.025stake" or "0.025stake,0.1atom".
# Empty: transactions paying no fee are accepted. Each node chooses its own.
minimum-gas-prices = ${str(gas)}

# Stop the node after committing this block height; 0 never stops.
halt-height = ${c.haltHeight}

# Most gas one Simulate or one query (both free to anyone, over JSON-RPC abci_query, REST and gRPC) may
# use; 0: unmetered. The simulated tx may be at most config.toml [mempool] max_tx_bytes.
query-gas-limit = ${c.queryGasLimit}

# Most bytes the state database (data/application.db) may take: a block whose commit would pass it stops
# the node with an error naming this key, nothing of that block committed; raise it and restart. Keep it
# below the disk's free space, so the node stops cleanly before the disk is full. Default 1 TiB.
state-db-max-bytes = ${c.stateDbMaxBytes}

# Signatures known to verify (by the worker threads ahead of CheckTx, or by CheckTx itself), kept so the
# block that executes their txs does not verify them again: at most this many, and these bytes as counted
# (about 450 per entry). A miss only costs a verification; whether a tx is accepted never depends on it.
verified-signatures-cache-size = ${c.verifiedSignaturesCacheSize}
verified-signatures-cache-bytes = ${c.verifiedSignaturesCacheBytes}

[api]
# REST (gRPC-gateway JSON, OpenAPI at /swagger).
enable = ${c.api.enable}
# Flag: --api.address
address = ${str(tcpAddress(c.api.address))}
# Most connections open at once; 0: no limit.
max-open-connections = ${c.api.maxOpenConnections}
# Seconds a client has to send a whole request (headers and body): a slow sender cannot hold a connection.
rpc-read-timeout = ${c.api.readTimeoutMs / 1000}
# Seconds a connection may stay silent before it is closed (chaind's key).
rpc-idle-timeout = ${c.api.idleTimeoutMs / 1000}
# Bytes of answers their clients have not read, all connections together; past it the connections
# waiting longest are closed (chaind's key; an unread answer is closed by rpc-idle-timeout).
rpc-max-write-buffer-bytes = ${c.api.maxWriteBufferBytes}

[grpc]
# gRPC with server reflection.
enable = ${c.grpc.enable}
# Flag: --grpc.address
address = ${str(hostPort(c.grpc.address))}
# Largest request and response message, in bytes.
max-recv-msg-size = ${c.grpc.maxRecvMsgSize}
max-send-msg-size = ${c.grpc.maxSendMsgSize}
# chaind's keys: most connections open at once (0: no limit); how long without traffic before the
# server pings a client, and how long it waits for the answer before dropping it; how long a
# connection without a call stays open.
max-open-connections = ${c.grpc.maxOpenConnections}
keepalive-time = ${str(formatDuration(c.grpc.keepaliveTimeMs))}
keepalive-timeout = ${str(formatDuration(c.grpc.keepaliveTimeoutMs))}
max-connection-idle = ${str(formatDuration(c.grpc.maxConnectionIdleMs))}

[abci]
# chaind as an ABCI application behind CometBFT v0.38, which runs consensus and dials chaind here;
# unused in solo mode. The Cosmos SDK has these as \`start\` flags only; here they can be set once.
# Where chaind listens for CometBFT: "tcp://host:port" or "unix:///absolute/path". config.toml's
# proxy_app must name the same address. Flag: --address
address = ${str(formatAbciAddress(c.abci.address))}
# "socket" (CometBFT's abci = "socket"), the only transport chaind serves. Flag: --transport
transport = ${str(c.abci.transport)}
# chaind's keys. The largest ABCI message read or written, in bytes: a longer length prefix is refused
# with an exception and the connection closed.
max-message-bytes = ${c.abci.maxMessageBytes}
# Most ABCI connections open at once (CometBFT opens four); more are closed at once and logged.
max-connections = ${c.abci.maxConnections}
# Silence on a TCP connection from CometBFT before keepalive probes start (whole seconds): a CometBFT
# whose host vanished without closing is then dropped about 10 s later, its place freed.
keepalive-initial-delay = ${str(formatDuration(c.abci.keepAliveInitialDelayMs))}
# CometBFT's JSON-RPC, where REST and gRPC broadcasts are forwarded and txs looked up: how long one
# call may take, and the largest answer read, in bytes.
comet-rpc-timeout = ${str(formatDuration(c.abci.cometRpcTimeoutMs))}
comet-rpc-max-response-bytes = ${c.abci.cometRpcMaxResponseBytes}
# \`chaind start\` (--with-comet=true) runs CometBFT as its child: the cometbft binary ("" = COMETBFT_BIN,
# then the project cache of \`npm run cometbft:install\`, then PATH; a relative path is read from the
# home), which must be the pinned version; and how long a stop waits for it after SIGTERM before SIGKILL.
cometbft-binary = ${str(c.abci.cometbftBinary)}
cometbft-stop-timeout = ${str(formatDuration(c.abci.cometbftStopTimeoutMs))}
# At the upgrade halt, how long CometBFT keeps running before chaind answers block H with the halt (which
# stops it): its gossip still gives block H's precommits to peers that lack them, which would otherwise
# wait at H until restarted validators tell them. "0s" = stop at once.
halt-linger = ${str(formatDuration(c.abci.haltLingerMs))}
# Under \`chaind start\`, REST and gRPC start once the network makes blocks with this node (the first
# Commit of a block it saw proposed), so that their start-up delays neither the replay of an upgrade's
# block nor the next block's proposal; at most this long after the start (a node in block sync).
servers-start-wait = ${str(formatDuration(c.abci.serversStartWaitMs))}

[instrumentation]
# chaind's Prometheus metrics behind CometBFT (\`start --with-comet=false\`), where CometBFT serves its own
# on config.toml's [instrumentation] address: chaind's go here, on another port (the same one is refused
# at start-up). Solo mode ignores this section (config.toml's serves everything). chaind's keys.
prometheus = ${c.instrumentation.prometheus}
prometheus-listen-addr = ${str(hostPort(c.instrumentation.listenAddr))}
# Most connections open at once (scrapers); 0: no limit.
max-open-connections = ${c.instrumentation.maxOpenConnections}
# The prefix of every metric name: "chaind", apart from CometBFT's "cometbft" series.
namespace = ${str(c.instrumentation.namespace)}
`;
}

/**
 * Writes `text` to `path` so that a crash leaves the old file or the new one, never a mix: a temp file
 * in the same directory, fsynced, renamed over. With `exclusive`, an existing file is an EEXIST error.
 */
export async function writeFileAtomic(path: string, text: string, mode: number, exclusive = false): Promise<void> {
  const tmp = join(dirname(path), `.${basename(path)}.${randomBytes(6).toString('hex')}.tmp`);
  const fh = await open(tmp, fsc.O_WRONLY | fsc.O_CREAT | fsc.O_EXCL, mode);
  try {
    try {
      await fh.writeFile(text, 'utf8');
      // the mode given to open is narrowed by the umask; key files must end up exactly as asked
      await fh.chmod(mode);
      await fh.sync();
    } finally {
      await fh.close();
    }
    // link, unlike rename, fails when the target exists: no window between a check and the write
    if (exclusive) await link(tmp, path);
    else await rename(tmp, path);
  } finally {
    await unlink(tmp).catch(() => undefined);
  }
}

export async function exists(path: string): Promise<boolean> {
  try {
    await stat(path);
    return true;
  } catch (e) {
    if ((e as NodeJS.ErrnoException).code === 'ENOENT') return false;
    throw e;
  }
}

export interface DefaultConfigOptions {
  readonly moniker: string;
  /** Named in each file's header comment; the chain id itself lives in genesis.json. */
  readonly chainId?: string;
  /** Replace files that exist (otherwise they are kept as they are). */
  readonly overwrite?: boolean;
  /** chaind's ABCI address, written to app.toml [abci] address and, for CometBFT, config.toml proxy_app. */
  readonly abciAddress?: AbciAddress;
}

/**
 * Writes <home>/config/config.toml and app.toml with the defaults and this moniker. Existing files are
 * kept unless `overwrite`. Returns the files written and those kept.
 */
export async function writeDefaultConfig(home: string, o: DefaultConfigOptions): Promise<{ written: string[]; kept: string[] }> {
  const paths = configPaths(home);
  checkMoniker(o.moniker);
  await mkdir(paths.dir, { recursive: true, mode: 0o700 });
  const out = { written: [] as string[], kept: [] as string[] };
  // one value for both files, so CometBFT reading config.toml dials where chaind listens
  const d = defaultAppConfig();
  const app: AppConfig = { ...d, abci: { ...d.abci, address: o.abciAddress ?? d.abci.address } };
  for (const [path, text] of [
    [paths.node, renderNodeConfig({ ...defaultNodeConfig(o.moniker), proxyApp: formatAbciAddress(abciDialAddress(app.abci.address)) }, o.chainId)],
    [paths.app, renderAppConfig(app, o.chainId)],
  ] as const) {
    if (!o.overwrite && (await exists(path))) {
      out.kept.push(path);
      continue;
    }
    await writeFileAtomic(path, text, 0o644);
    out.written.push(path);
  }
  return out;
}

// config.toml and app.toml as text, every key with a comment saying what it does (what `chaind init`
// writes), and the atomic file writes shared with the CLI.
import { randomBytes } from 'node:crypto';
import { constants as fsc } from 'node:fs';
import { link, mkdir, open, rename, stat, unlink } from 'node:fs/promises';
import { basename, dirname, join } from 'node:path';
import { stringify } from 'smol-toml';
import { hostPort, tcpAddress } from './address.ts';
import { checkMoniker, configPaths, defaultAppConfig, defaultNodeConfig, type AppConfig, type NodeConfig } from './config.ts';
import { formatDuration } from './duration.ts';

/** A TOML string literal, escaped by the TOML library rather than by hand. */
const str = (s: string): string => stringify({ v: s }).trim().slice('v = '.length);

export function renderNodeConfig(c: NodeConfig, chainId?: string): string {
  return `# chaind node configuration (CometBFT-style config.toml)${chainId === undefined ? '' : ` for chain ${chainId}`}.
# Durations are written as "1s", "500ms", "1m30s". Keys chaind does not know are reported at start-up and ignored.

# A name for this node: shown by \`status\`, and the default moniker of \`chaind genesis add-validator\`.
moniker = ${str(c.moniker)}

[rpc]
# CometBFT-compatible JSON-RPC (CosmJS, \`chaind query\`/\`tx\`), served by chaind itself in solo mode.
# 127.0.0.1 keeps it on this machine; "tcp://0.0.0.0:26657" listens on every interface. Flag: --rpc.laddr
laddr = ${str(tcpAddress(c.rpc.laddr))}

[consensus]
# How often the solo driver produces a block.
block_interval = ${str(formatDuration(c.consensus.blockIntervalMs))}
# CometBFT's setting, kept for compatibility: in abci mode CometBFT reads its own config.toml; solo ignores it.
timeout_commit = ${str(formatDuration(c.consensus.timeoutCommitMs))}

[mempool]
# Most transactions waiting for a block.
size = ${c.mempool.size}
# Most bytes waiting for a block, all transactions together.
max_txs_bytes = ${c.mempool.maxTxsBytes}
# Largest transaction accepted, in bytes (at most max_txs_bytes).
max_tx_bytes = ${c.mempool.maxTxBytes}

[p2p]
# Kept so a CometBFT config.toml reads the same; a solo node has no peers and does not listen here.
laddr = ${str(tcpAddress(c.p2p.laddr))}
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

[api]
# REST (gRPC-gateway JSON, OpenAPI at /swagger).
enable = ${c.api.enable}
# Flag: --api.address
address = ${str(tcpAddress(c.api.address))}

[grpc]
# gRPC with server reflection.
enable = ${c.grpc.enable}
# Flag: --grpc.address
address = ${str(hostPort(c.grpc.address))}
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
  for (const [path, text] of [
    [paths.node, renderNodeConfig(defaultNodeConfig(o.moniker), o.chainId)],
    [paths.app, renderAppConfig(defaultAppConfig(), o.chainId)],
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

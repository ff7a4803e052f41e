// Node and app information: status, health, net_info, abci_info, abci_query, genesis, genesis_chunked
// (CometBFT rpc/core/status.go, health.go, net.go, abci.go).
import { Buffer } from 'node:buffer';
import { genesisToJSON } from '@chaind/sdk/genesis';
import { ABCI_VERSION, BLOCK_PROTOCOL, COMETBFT_VERSION, P2P_PROTOCOL } from '../../protocol.ts';
import { validatorAddress } from '../../state.ts';
import { b64, hex, infoJSON, int, pubKeyJSON, queryJSON, time } from '../encode.ts';
import { latestHeight, method, type RpcEnv, type RpcMethod } from '../env.ts';
import { internalError } from '../errors.ts';
import { answerQuery } from '../../query/simulate.ts';

/** `genesisChunkSize`: 16 MB. `genesis` refuses documents larger than one chunk. */
export const GENESIS_CHUNK_SIZE = 16 * 1024 * 1024;

interface GenesisJSON {
  readonly doc: unknown;
  /** Compact JSON text, what genesis_chunked splits. */
  readonly text: string;
}
const genesisCache = new WeakMap<RpcEnv['genesis'], GenesisJSON>();
/** The genesis document as JSON, computed once per document. */
function genesisJSON(env: RpcEnv): GenesisJSON {
  let g = genesisCache.get(env.genesis);
  if (g === undefined) {
    const doc = genesisToJSON(env.genesis);
    genesisCache.set(env.genesis, (g = { doc, text: JSON.stringify(doc) }));
  }
  return g;
}

function status(env: RpcEnv): unknown {
  const latest = latestHeight(env);
  const meta = latest > 0n ? env.blockStore.blockMeta(latest) : undefined;
  const base = env.blockStore.base;
  const earliest = base > 0n && base <= latest ? env.blockStore.blockMeta(base) : undefined;
  const key = { ed25519: env.nodeInfo.validatorPubKey };
  const own = Buffer.from(validatorAddress({ pubKey: key, power: 0n }));
  // the voting power this validator has for the next block, as CometBFT's latestUncommittedHeight
  const self = env.driver.state.validators.find((v) => own.equals(Buffer.from(validatorAddress(v))));
  return {
    node_info: {
      protocol_version: { p2p: int(P2P_PROTOCOL), block: int(BLOCK_PROTOCOL), app: int(env.driver.state.appVersion) },
      id: env.nodeInfo.id,
      listen_addr: env.nodeInfo.listenAddr ?? 'tcp://0.0.0.0:26656',
      network: env.driver.chainId,
      version: COMETBFT_VERSION,
      // a solo node runs no p2p reactors
      channels: '',
      moniker: env.nodeInfo.moniker,
      other: { tx_index: 'on', rpc_address: env.rpcAddress() },
    },
    sync_info: {
      latest_block_hash: meta === undefined ? '' : hex(meta.blockId.hash),
      // the header's app hash: the state before the latest block, as CometBFT reports it
      latest_app_hash: meta === undefined ? '' : hex(meta.header.appHash),
      latest_block_height: int(latest),
      latest_block_time: time(meta?.header.time),
      earliest_block_hash: earliest === undefined ? '' : hex(earliest.blockId.hash),
      earliest_app_hash: earliest === undefined ? '' : hex(earliest.header.appHash),
      earliest_block_height: int(earliest === undefined ? 0n : base),
      earliest_block_time: time(earliest?.header.time),
      catching_up: false,
    },
    validator_info: { address: hex(own), pub_key: pubKeyJSON(key), voting_power: int(self?.power ?? 0n) },
  };
}

function abciQuery(env: RpcEnv, path: string, data: Uint8Array, height: bigint, prove: boolean): unknown {
  const latest = latestHeight(env);
  const res = answerQuery(env.app, { path, data, height, prove }, latest);
  // CosmJS refuses a successful answer without a height: report the height the app answered at
  return { response: queryJSON(res.code === 0 && res.height === 0n ? { ...res, height: latest } : res) };
}

export const infoMethods: Readonly<Record<string, RpcMethod>> = {
  health: method({}, () => ({})),
  status: method({}, (_a, env) => status(env)),
  net_info: method({}, (_a, env) => ({ listening: false, listeners: [env.nodeInfo.listenAddr ?? 'tcp://0.0.0.0:26656'], n_peers: '0', peers: [] })),
  abci_info: method({}, (_a, env) => ({
    response: infoJSON(env.app.info({ version: COMETBFT_VERSION, blockVersion: BLOCK_PROTOCOL, p2pVersion: P2P_PROTOCOL, abciVersion: ABCI_VERSION })),
  })),
  abci_query: method({ path: 'string', data: 'hex', height: 'int', prove: 'bool' }, (a, env) =>
    abciQuery(env, a.path ?? '', a.data ?? new Uint8Array(0), a.height ?? 0n, a.prove ?? false),
  ),
  genesis: method({}, (_a, env) => {
    const g = genesisJSON(env);
    if (Buffer.byteLength(g.text) > GENESIS_CHUNK_SIZE) throw internalError('genesis response is large, please use the genesis_chunked API instead');
    return { genesis: g.doc };
  }),
  genesis_chunked: method({ chunk: 'int' }, (a, env) => {
    const bytes = Buffer.from(genesisJSON(env).text, 'utf8');
    const total = Math.max(1, Math.ceil(bytes.length / GENESIS_CHUNK_SIZE));
    const chunk = a.chunk ?? 0n;
    if (chunk < 0n || chunk > BigInt(total - 1)) throw internalError(`there are ${total - 1} chunks, ${chunk} is invalid`);
    const i = Number(chunk);
    return { chunk: int(i), total: int(total), data: b64(bytes.subarray(i * GENESIS_CHUNK_SIZE, (i + 1) * GENESIS_CHUNK_SIZE)) ?? '' };
  }),
};

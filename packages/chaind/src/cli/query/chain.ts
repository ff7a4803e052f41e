// `chaind query block` and `chaind query tx`: CometBFT's block JSON, and a committed tx as the Cosmos
// SDK's TxResponse (the node's JSON-RPC `tx` result, its decoded Tx and the block time).
import { Buffer } from 'node:buffer';
import type { JsonObject, JsonValue } from '@bufbuild/protobuf';
import { Option, type Command } from 'commander';
import { signModeToJSON } from 'cosmjs-types/cosmos/tx/signing/v1beta1/signing';
import { Tx, type ModeInfo } from 'cosmjs-types/cosmos/tx/v1beta1/tx';
import type { Any } from 'cosmjs-types/google/protobuf/any';
import { UserError } from '../common.ts';
import { printOutput } from './format.ts';
import { anyJSON } from './gateway.ts';
import { addNodeOptions, RpcClient, type NodeOptions } from './rpc.ts';

const HASH = /^[0-9a-fA-F]{64}$/;

interface TypeOptions extends NodeOptions {
  type: string;
}

interface RpcTxResult {
  code?: number;
  data?: string | null;
  log?: string;
  info?: string;
  gas_wanted?: string;
  gas_used?: string;
  events?: JsonValue[] | null;
  codespace?: string;
}

interface RpcTx {
  hash: string;
  height: string;
  tx: string;
  tx_result: RpcTxResult;
}

const b64 = (b: Uint8Array): string => Buffer.from(b).toString('base64');
const anyOf = (a: Any): JsonObject => anyJSON(a.typeUrl, a.value);

function modeInfoJSON(m: ModeInfo | undefined): JsonValue {
  if (m?.single !== undefined) return { single: { mode: signModeToJSON(m.single.mode) } };
  if (m?.multi !== undefined) {
    const bits = m.multi.bitarray;
    return {
      multi: {
        bitarray: bits === undefined ? null : { extra_bits_stored: bits.extraBitsStored, elems: b64(bits.elems) },
        mode_infos: m.multi.modeInfos.map(modeInfoJSON),
      },
    };
  }
  return null;
}

/** A Tx as the SDK prints it inside a TxResponse (an Any of /cosmos.tx.v1beta1.Tx); null when the bytes are not one. */
export function txJSON(bytes: Uint8Array): JsonValue {
  let tx: Tx;
  try {
    tx = Tx.decode(bytes);
  } catch {
    return null;
  }
  const body = tx.body;
  const auth = tx.authInfo;
  const fee = auth?.fee;
  return {
    '@type': '/cosmos.tx.v1beta1.Tx',
    body:
      body === undefined
        ? null
        : {
            messages: body.messages.map(anyOf),
            memo: body.memo,
            timeout_height: body.timeoutHeight.toString(),
            extension_options: body.extensionOptions.map(anyOf),
            non_critical_extension_options: body.nonCriticalExtensionOptions.map(anyOf),
          },
    auth_info:
      auth === undefined
        ? null
        : {
            signer_infos: auth.signerInfos.map((s) => ({
              public_key: s.publicKey === undefined ? null : anyOf(s.publicKey),
              mode_info: modeInfoJSON(s.modeInfo),
              sequence: s.sequence.toString(),
            })),
            fee:
              fee === undefined
                ? null
                : {
                    amount: fee.amount.map((c) => ({ denom: c.denom, amount: c.amount })),
                    gas_limit: fee.gasLimit.toString(),
                    payer: fee.payer,
                    granter: fee.granter,
                  },
            tip: auth.tip === undefined ? null : { amount: auth.tip.amount.map((c) => ({ denom: c.denom, amount: c.amount })), tipper: auth.tip.tipper },
          },
    signatures: tx.signatures.map(b64),
  };
}

/** The SDK's TxResponse from a JSON-RPC `tx` result and the block time. */
export function txResponseJSON(r: RpcTx, timestamp: string): JsonObject {
  const res = r.tx_result;
  return {
    height: r.height,
    txhash: r.hash.toUpperCase(),
    codespace: res.codespace ?? '',
    code: res.code ?? 0,
    data: Buffer.from(res.data ?? '', 'base64')
      .toString('hex')
      .toUpperCase(),
    raw_log: res.log ?? '',
    // ABCI 2.0 results carry no per-message logs: the SDK v0.50 leaves them empty
    logs: [],
    info: res.info ?? '',
    gas_wanted: res.gas_wanted ?? '0',
    gas_used: res.gas_used ?? '0',
    tx: txJSON(Buffer.from(r.tx, 'base64')),
    timestamp,
    events: res.events ?? [],
  };
}

const typeOption = (what: string): Option => new Option('--type <type>', `what the argument is: ${what}`).choices(['height', 'hash']).default('height');

export function registerChainQueries(query: Command): void {
  addNodeOptions(
    query
      .command('block')
      .description("query a block (CometBFT's block JSON) by height, or by hash with --type hash; the latest when no argument is given")
      .argument('[height|hash]', 'the block height (or hash with --type hash)')
      .addOption(typeOption('height or hash')),
    'json',
  ).action(async (arg: string | undefined, o: TypeOptions) => {
    const rpc = new RpcClient(o.node);
    let res: { block?: unknown };
    if (o.type === 'hash') {
      if (arg === undefined || !HASH.test(arg)) throw new UserError(`invalid block hash ${JSON.stringify(arg ?? '')}: expected 64 hex characters`);
      res = (await rpc.call('block_by_hash', { hash: Buffer.from(arg, 'hex').toString('base64') })) as { block?: unknown };
      if (res.block === null || res.block === undefined) throw new UserError(`no block found with hash ${arg.toUpperCase()}`);
    } else {
      if (arg !== undefined && (!/^\d+$/.test(arg) || BigInt(arg) === 0n)) throw new UserError(`invalid height ${JSON.stringify(arg)}: expected a height > 0`);
      res = (await rpc.call('block', arg === undefined ? {} : { height: arg })) as { block?: unknown };
      if (res.block === null || res.block === undefined) throw new UserError(`no block found at height ${arg ?? 'latest'}`);
    }
    printOutput(res, o.output, true);
  });

  addNodeOptions(
    query
      .command('tx')
      .description('query a committed transaction by its hash: the tx response (result, events, the decoded tx, block time)')
      .argument('<hash>', 'the tx hash (64 hex characters)')
      .addOption(new Option('--type <type>', 'what the argument is (only hash is supported)').choices(['hash']).default('hash')),
  ).action(async (hash: string, o: NodeOptions) => {
    if (!HASH.test(hash)) throw new UserError(`invalid tx hash ${JSON.stringify(hash)}: expected 64 hex characters`);
    const rpc = new RpcClient(o.node);
    const r = (await rpc.call('tx', { hash: Buffer.from(hash, 'hex').toString('base64'), prove: false })) as RpcTx;
    const block = (await rpc.call('block', { height: r.height })) as { block?: { header?: { time?: string } } | null };
    // the SDK formats the block time as RFC 3339 without fractional seconds
    const time = (block.block?.header?.time ?? '').replace(/\.\d+Z$/, 'Z');
    printOutput(txResponseJSON(r, time), o.output);
  });
}

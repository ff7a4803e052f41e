// What every `chaind tx …` command shares: the Cosmos tx flags, the signer (a key of the keyring, by name
// or address), account number and sequence over abci_query, gas (a number or `auto` = Simulate ×
// adjustment), the y/N confirmation, SIGN_MODE_DIRECT signing and the broadcast over JSON-RPC.
import { Buffer } from 'node:buffer';
import { Option, type Command } from 'commander';
import { BaseAccount } from 'cosmjs-types/cosmos/auth/v1beta1/auth';
import { QueryAccountRequest, QueryAccountResponse } from 'cosmjs-types/cosmos/auth/v1beta1/query';
import { SimulateRequest, SimulateResponse } from 'cosmjs-types/cosmos/tx/v1beta1/service';
import type { Any } from 'cosmjs-types/google/protobuf/any';
import { fromBech32 } from '@chaind/sdk/crypto';
import { KeyringError, type KeyInfo } from '@chaind/sdk/keyring';
import { encodeTx, type UnsignedTx } from '@chaind/sdk/tx';
import { parseCoins } from '@chaind/sdk/types';
import { addKeyringOptions, openKeyring, printErrLine, UserError, type KeyringOptions } from '../common.ts';
import { Input } from '../input.ts';
import { printOutput } from '../query/format.ts';
import { addNodeOptions, RpcClient, type NodeOptions } from '../query/rpc.ts';
import { errorMessage } from '@chaind/errors';

export const DEFAULT_GAS = 200_000n;
export const DEFAULT_GAS_ADJUSTMENT = 1.3;
export const ADDRESS_PREFIX = 'chain';

export interface TxOptions extends NodeOptions, KeyringOptions {
  from?: string;
  chainId?: string;
  fees?: string;
  gas: string;
  gasAdjustment: string;
  note: string;
  yes?: boolean;
  broadcastMode: 'sync' | 'async' | 'commit';
}

/** --from, --chain-id, --fees, --gas, --gas-adjustment, --note, -y, --broadcast-mode, the keyring and node flags. */
export function addTxOptions(cmd: Command, withFrom = true): Command {
  if (withFrom) cmd.option('--from <name-or-address>', 'the key (name or address) that signs the tx');
  addKeyringOptions(cmd);
  addNodeOptions(cmd, 'json');
  return cmd
    .option('--chain-id <id>', "the chain id (default: the node's network from /status)")
    .option('--fees <coins>', 'fees to pay, e.g. 2000stake')
    .option('--gas <limit>', 'gas limit, or "auto" to simulate and multiply by --gas-adjustment', DEFAULT_GAS.toString())
    .option('--gas-adjustment <factor>', 'factor applied to the simulated gas when --gas auto', String(DEFAULT_GAS_ADJUSTMENT))
    .option('--note <memo>', 'the memo of the tx', '')
    .option('-y, --yes', 'sign and broadcast without asking for confirmation')
    .addOption(
      new Option('--broadcast-mode <mode>', 'sync: wait for CheckTx; async: return at once; commit: wait for the block')
        .choices(['sync', 'async', 'commit'])
        .default('sync'),
    );
}

/** A coin list flag or argument ("" → none) in the cosmjs-types shape. */
export function coinsArg(expr: string | undefined, what: string): { denom: string; amount: string }[] {
  if (expr === undefined || expr.trim() === '') return [];
  try {
    return parseCoins(expr).map((c) => ({ denom: c.denom, amount: c.amount.toString() }));
  } catch (e) {
    throw new UserError(`invalid ${what} ${JSON.stringify(expr)}: ${errorMessage(e)}`);
  }
}

export function addressArg(address: string, what: string): string {
  try {
    fromBech32(address, ADDRESS_PREFIX);
  } catch (e) {
    throw new UserError(`invalid ${what} ${JSON.stringify(address)}: ${errorMessage(e)}`);
  }
  return address;
}

function gasArg(o: TxOptions): { auto: true; adjustment: number } | { auto: false; limit: bigint } {
  if (o.gas === 'auto') {
    const adjustment = Number(o.gasAdjustment);
    if (!Number.isFinite(adjustment) || adjustment <= 0)
      throw new UserError(`invalid --gas-adjustment ${JSON.stringify(o.gasAdjustment)}: expected a positive number`);
    return { auto: true, adjustment };
  }
  if (!/^\d+$/.test(o.gas) || BigInt(o.gas) === 0n) throw new UserError(`invalid --gas ${JSON.stringify(o.gas)}: expected a positive integer or "auto"`);
  return { auto: false, limit: BigInt(o.gas) };
}

/** The signing key, by name first, then by address. */
export async function resolveFrom(o: TxOptions, input: Input): Promise<{ info: KeyInfo; privateKey: () => Promise<Uint8Array> }> {
  const from = o.from;
  if (from === undefined || from.trim() === '') throw new UserError('--from is required: the key name or address that signs the tx');
  const keyring = await openKeyring(o, input);
  let info: KeyInfo;
  try {
    info = await keyring.get(from);
  } catch (e) {
    if (!(e instanceof KeyringError) || !from.startsWith(`${ADDRESS_PREFIX}1`)) throw e;
    info = await keyring.getByAddress(from);
  }
  return { info, privateKey: () => keyring.privateKey(info.name) };
}

async function account(rpc: RpcClient, address: string): Promise<{ accountNumber: bigint; sequence: bigint }> {
  let bytes: Uint8Array;
  try {
    bytes = await rpc.abciQuery('/cosmos.auth.v1beta1.Query/Account', QueryAccountRequest.encode({ address }).finish());
  } catch (e) {
    if (e instanceof UserError && /NotFound|not found/.test(e.message))
      throw new UserError(`account ${address} not found on chain: it must receive funds first`);
    throw e;
  }
  const any = QueryAccountResponse.decode(bytes).account;
  if (any?.typeUrl !== '/cosmos.auth.v1beta1.BaseAccount')
    throw new UserError(`account ${address} is not a base account (${any?.typeUrl ?? 'none'}): it cannot sign`);
  const a = BaseAccount.decode(any.value);
  return { accountNumber: a.accountNumber, sequence: a.sequence };
}

export async function chainIdOf(rpc: RpcClient, o: { chainId?: string }): Promise<string> {
  if (o.chainId !== undefined && o.chainId !== '') return o.chainId;
  const s = (await rpc.call('status')) as { node_info?: { network?: string } };
  const id = s.node_info?.network;
  if (id === undefined || id === '') throw new UserError('cannot learn the chain id from the node: pass --chain-id');
  return id;
}

export async function latestHeight(rpc: RpcClient): Promise<bigint> {
  const s = (await rpc.call('status')) as { sync_info?: { latest_block_height?: string } };
  return BigInt(s.sync_info?.latest_block_height ?? '0');
}

/** A message for the tx and its JSON form for the confirmation summary. */
export interface TxMsg {
  any: Any;
  json: Record<string, unknown>;
}

interface TxResponse {
  height: string;
  txhash: string;
  codespace: string;
  code: number;
  raw_log: string;
  gas_wanted: string;
  gas_used: string;
}

interface CheckResult {
  code?: number;
  log?: string;
  codespace?: string;
  gas_wanted?: string;
  gas_used?: string;
}

async function broadcast(rpc: RpcClient, txBytes: Uint8Array, mode: TxOptions['broadcastMode']): Promise<TxResponse> {
  const tx = Buffer.from(txBytes).toString('base64');
  if (mode === 'commit') {
    const r = (await rpc.call('broadcast_tx_commit', { tx })) as { check_tx?: CheckResult; tx_result?: CheckResult; hash?: string; height?: string };
    const failedCheck = (r.check_tx?.code ?? 0) !== 0;
    const res = failedCheck ? r.check_tx : r.tx_result;
    return {
      height: failedCheck ? '0' : (r.height ?? '0'),
      txhash: r.hash ?? '',
      codespace: res?.codespace ?? '',
      code: res?.code ?? 0,
      raw_log: res?.log ?? '',
      gas_wanted: res?.gas_wanted ?? '0',
      gas_used: res?.gas_used ?? '0',
    };
  }
  const r = (await rpc.call(mode === 'async' ? 'broadcast_tx_async' : 'broadcast_tx_sync', { tx })) as CheckResult & { hash?: string };
  return { height: '0', txhash: r.hash ?? '', codespace: r.codespace ?? '', code: r.code ?? 0, raw_log: r.log ?? '', gas_wanted: '0', gas_used: '0' };
}

/**
 * Builds, confirms, signs and broadcasts a tx of `msgs(signerAddress)`. `before` runs once the signer and
 * node are known (client-side checks needing the chain, e.g. the cancel-window warning). Prints the tx
 * response; a tx the chain rejects (code ≠ 0) is a UserError after the response is printed.
 */
export async function runTx(o: TxOptions, msgs: (signer: string) => TxMsg[], before?: (rpc: RpcClient) => Promise<void>): Promise<void> {
  const gas = gasArg(o);
  const fees = coinsArg(o.fees, '--fees');
  const input = new Input();
  try {
    const rpc = new RpcClient(o.node);
    const from = await resolveFrom(o, input);
    const built = msgs(from.info.address);
    const chainId = await chainIdOf(rpc, o);
    if (before !== undefined) await before(rpc);
    const acct = await account(rpc, from.info.address);
    const key = await from.privateKey();
    try {
      const signer = { privateKey: key, accountNumber: acct.accountNumber, sequence: acct.sequence };
      const unsigned = (gasLimit: bigint): UnsignedTx => ({ msgs: built.map((m) => m.any), memo: o.note, fee: { amount: fees, gasLimit } });
      let gasLimit = gas.auto ? 0n : gas.limit;
      if (gas.auto) {
        const req = SimulateRequest.fromPartial({ txBytes: encodeTx(unsigned(0n), [signer], chainId) });
        const sim = SimulateResponse.decode(await rpc.abciQuery('/cosmos.tx.v1beta1.Service/Simulate', SimulateRequest.encode(req).finish()));
        const used = sim.gasInfo?.gasUsed ?? 0n;
        gasLimit = BigInt(Math.ceil(Number(used) * gas.adjustment));
        printErrLine(`gas estimate: ${gasLimit}`);
      }
      if (o.yes !== true) {
        const summary = {
          body: { messages: built.map((m) => ({ '@type': m.any.typeUrl, ...m.json })), memo: o.note },
          auth_info: { fee: { amount: fees, gas_limit: gasLimit.toString() } },
          chain_id: chainId,
          signer: from.info.address,
        };
        printErrLine(JSON.stringify(summary, null, 2));
        if (!(await input.confirm('confirm transaction before signing and broadcasting'))) {
          // as the Cosmos SDK: declining is not an error
          printErrLine('canceled transaction');
          return;
        }
      }
      const txBytes = encodeTx(unsigned(gasLimit), [signer], chainId);
      const res = await broadcast(rpc, txBytes, o.broadcastMode);
      printOutput(res, o.output);
      if (res.code !== 0)
        throw new UserError(`the chain rejected the tx (code ${res.code}${res.codespace !== '' ? `, ${res.codespace}` : ''}): ${res.raw_log}`);
    } finally {
      key.fill(0);
    }
  } finally {
    input.close();
  }
}

// Bank genesis as the Cosmos SDK's JSON (cosmos.bank.v1beta1.GenesisState, proto field names).
import { ChaindError } from '@chaind/errors';
import type { Context } from '../../app/context.ts';
import { errorMessage } from '../../app/errors.ts';
import { jsonFields } from '../../genesis/json.ts';
import { compareBytes, toHex } from '../../store/index.ts';
import { addCoins, coinsEqual, coinsToString, fromProtoCoin, toProtoCoins, validateCoins, validateDenom, type Coin } from '../../types/coins.ts';
import type { BankKeeper } from './keeper.ts';
import type { BankSendKeeper } from './send.ts';
import type { BankViewKeeper } from './view.ts';

export interface GenesisCoinJSON {
  denom: string;
  amount: string;
}

export interface SendEnabledJSON {
  denom: string;
  enabled: boolean;
}

export interface BankGenesisJSON {
  params: { send_enabled: SendEnabledJSON[]; default_send_enabled: boolean };
  balances: { address: string; coins: GenesisCoinJSON[] }[];
  supply: GenesisCoinJSON[];
  denom_metadata: unknown[];
  send_enabled: SendEnabledJSON[];
}

/** A validated genesis: balances in address-byte order, supply computed from them. */
export interface BankGenesis {
  readonly defaultSendEnabled: boolean;
  readonly sendEnabled: readonly SendEnabledJSON[];
  readonly balances: readonly { readonly address: Uint8Array; readonly coins: readonly Coin[] }[];
  readonly supply: readonly Coin[];
}

export class BankGenesisError extends ChaindError<'genesis'> {
  override readonly name = 'BankGenesisError';
  constructor(detail: string) {
    super('genesis', `bank genesis: ${detail}`);
  }
}

export function defaultBankGenesis(): BankGenesisJSON {
  return { params: { send_enabled: [], default_send_enabled: true }, balances: [], supply: [], denom_metadata: [], send_enabled: [] };
}

const { object, array, string, boolean } = jsonFields({ fail: (detail) => new BankGenesisError(detail) });

/** JSON coins → a valid coin set (sorted, positive, unique), errors prefixed with `where`. */
function coins(v: unknown, where: string): Coin[] {
  try {
    const list = array(v, `${where}: coins`).map((c, i) => {
      const o = object(c, `${where}: coin ${i}`, ['denom', 'amount']);
      // amounts are strings in Cosmos JSON; a JSON number could already have lost precision
      return fromProtoCoin({ denom: string(o.denom, `${where}: coin ${i} denom`), amount: string(o.amount, `${where}: coin ${i} amount`) });
    });
    validateCoins(list);
    return list;
  } catch (e) {
    if (e instanceof BankGenesisError) throw e;
    throw new BankGenesisError(`${where}: ${errorMessage(e)}`);
  }
}

function sendEnabledList(v: unknown, where: string): SendEnabledJSON[] {
  return array(v, where).map((x, i) => {
    const o = object(x, `${where}[${i}]`, ['denom', 'enabled']);
    const denom = string(o.denom, `${where}[${i}].denom`);
    try {
      validateDenom(denom);
    } catch (e) {
      throw new BankGenesisError(`${where}[${i}]: ${errorMessage(e)}`);
    }
    return { denom, enabled: boolean(o.enabled, `${where}[${i}].enabled`, false) };
  });
}

/**
 * Parses and validates, as Cosmos' GenesisState.Validate: valid bech32 addresses with this chain's
 * prefix, no address twice, valid coin sets, and a supply (when given) equal to the sum of balances.
 */
export function parseBankGenesis(raw: unknown, keeper: BankViewKeeper): BankGenesis {
  const g = object(raw, 'genesis', ['params', 'balances', 'supply', 'denom_metadata', 'send_enabled']);
  const params = g.params === undefined ? {} : object(g.params, 'params', ['send_enabled', 'default_send_enabled']);
  const defaultSendEnabled = boolean(params.default_send_enabled, 'params.default_send_enabled', true);
  const legacySendEnabled = sendEnabledList(params.send_enabled, 'params.send_enabled');
  const topSendEnabled = sendEnabledList(g.send_enabled, 'send_enabled');
  if (legacySendEnabled.length > 0 && topSendEnabled.length > 0) throw new BankGenesisError('send_enabled is defined in both the genesis and params');
  const sendEnabled = [...legacySendEnabled, ...topSendEnabled].sort((a, b) => (a.denom < b.denom ? -1 : a.denom > b.denom ? 1 : 0));
  for (let i = 1; i < sendEnabled.length; i++) {
    if (sendEnabled[i].denom === sendEnabled[i - 1].denom) throw new BankGenesisError(`duplicate send enabled found: '${sendEnabled[i].denom}'`);
  }
  if (array(g.denom_metadata, 'denom_metadata').length > 0) throw new BankGenesisError('denom_metadata is not supported');

  const seen = new Set<string>();
  let total: Coin[] = [];
  const balances = array(g.balances, 'balances').map((b, i) => {
    const o = object(b, `balances[${i}]`, ['address', 'coins']);
    const address = string(o.address, `balances[${i}].address`);
    let bytes: Uint8Array;
    try {
      bytes = keeper.addressBytes(address);
    } catch (e) {
      throw new BankGenesisError(`balances[${i}]: ${errorMessage(e)}`);
    }
    const key = toHex(bytes);
    if (seen.has(key)) throw new BankGenesisError(`duplicate balance for address ${address}`);
    seen.add(key);
    const list = coins(o.coins, `balance of ${address}`);
    try {
      total = addCoins(total, list);
    } catch (e) {
      throw new BankGenesisError(`balance of ${address}: ${errorMessage(e)}`);
    }
    return { address: bytes, coins: list };
  });
  balances.sort((a, b) => compareBytes(a.address, b.address));

  const supply = coins(g.supply, 'supply');
  if (supply.length > 0 && !coinsEqual(supply, total)) {
    throw new BankGenesisError(`genesis supply is incorrect, expected ${coinsToString(supply)}, got ${coinsToString(total)}`);
  }
  return { defaultSendEnabled, sendEnabled, balances, supply: total };
}

export function initBankGenesis(ctx: Context, keeper: BankKeeper, raw: unknown): void {
  const g = parseBankGenesis(raw, keeper);
  keeper.setParams(ctx, { sendEnabled: [], defaultSendEnabled: g.defaultSendEnabled });
  for (const s of g.sendEnabled) keeper.setSendEnabled(ctx, s.denom, s.enabled);
  for (const b of g.balances) for (const c of b.coins) keeper.setBalance(ctx, b.address, c);
  for (const c of g.supply) keeper.setSupply(ctx, c);
}

export function exportBankGenesis(ctx: Context, keeper: BankSendKeeper): BankGenesisJSON {
  const byAddress = new Map<string, { address: Uint8Array; coins: Coin[] }>();
  keeper.iterateAllBalances(ctx, (address, coin) => {
    const key = toHex(address);
    let entry = byAddress.get(key);
    if (entry === undefined) byAddress.set(key, (entry = { address, coins: [] }));
    entry.coins.push(coin);
  });
  // store order is (length, address); Cosmos exports in address-byte order
  const balances = [...byAddress.values()].sort((a, b) => compareBytes(a.address, b.address));
  return {
    params: { send_enabled: [], default_send_enabled: keeper.getParams(ctx).defaultSendEnabled },
    balances: balances.map((b) => ({ address: keeper.addressString(b.address), coins: toProtoCoins(b.coins) })),
    supply: toProtoCoins(keeper.getTotalSupply(ctx)),
    denom_metadata: [],
    send_enabled: keeper.getAllSendEnabled(ctx),
  };
}

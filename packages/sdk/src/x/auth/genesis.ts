// x/auth genesis as the Cosmos SDK's JSON: {params, accounts: [Any-JSON BaseAccount | ModuleAccount]}.
import { ChaindError, errorMessage } from '@chaind/errors';
import { Buffer } from 'node:buffer';
import type { Any } from 'cosmjs-types/google/protobuf/any';
import type { Context } from '../../app/context.ts';
import { addressFromPublicKey, moduleAddress } from '../../crypto/index.ts';
import { toHex } from '../../store/index.ts';
import { SECP256K1_PUBKEY_TYPE_URL, decodeSecp256k1PubKey, encodeSecp256k1PubKey } from '../../tx/pubkey.ts';
import { BASE_ACCOUNT_TYPE_URL, MODULE_ACCOUNT_TYPE_URL, type Account } from './account.ts';
import type { AccountKeeper } from './keeper.ts';
import { FEE_COLLECTOR_NAME } from './keys.ts';
import { defaultParams, validateParams, type Params } from './params.ts';

export interface ParamsJSON {
  max_memo_characters: string;
  tx_sig_limit: string;
  tx_size_cost_per_byte: string;
  sig_verify_cost_ed25519: string;
  sig_verify_cost_secp256k1: string;
}

export interface PubKeyJSON {
  '@type': string;
  key: string;
}

export interface BaseAccountFieldsJSON {
  address: string;
  pub_key: PubKeyJSON | null;
  account_number: string;
  sequence: string;
}

export interface BaseAccountJSON extends BaseAccountFieldsJSON {
  '@type': typeof BASE_ACCOUNT_TYPE_URL;
}

export interface ModuleAccountJSON {
  '@type': typeof MODULE_ACCOUNT_TYPE_URL;
  base_account: BaseAccountFieldsJSON;
  name: string;
  permissions: string[];
}

export interface AuthGenesisJSON {
  params: ParamsJSON;
  accounts: (BaseAccountJSON | ModuleAccountJSON)[];
}

export interface AuthGenesis {
  readonly params: Params;
  readonly accounts: readonly Account[];
}

export class AuthGenesisError extends ChaindError<'genesis'> {
  override readonly name = 'AuthGenesisError';
  constructor(message: string) {
    super('genesis', `auth genesis: ${message}`);
  }
}

const PARAM_FIELDS = [
  ['max_memo_characters', 'maxMemoCharacters'],
  ['tx_sig_limit', 'txSigLimit'],
  ['tx_size_cost_per_byte', 'txSizeCostPerByte'],
  ['sig_verify_cost_ed25519', 'sigVerifyCostEd25519'],
  ['sig_verify_cost_secp256k1', 'sigVerifyCostSecp256k1'],
] as const;

export function paramsToJSON(p: Params): ParamsJSON {
  return {
    max_memo_characters: p.maxMemoCharacters.toString(),
    tx_sig_limit: p.txSigLimit.toString(),
    tx_size_cost_per_byte: p.txSizeCostPerByte.toString(),
    sig_verify_cost_ed25519: p.sigVerifyCostEd25519.toString(),
    sig_verify_cost_secp256k1: p.sigVerifyCostSecp256k1.toString(),
  };
}

export function defaultGenesis(): AuthGenesisJSON {
  return { params: paramsToJSON(defaultParams()), accounts: [] };
}

const isObject = (v: unknown): v is Record<string, unknown> => typeof v === 'object' && v !== null && !Array.isArray(v);

/** A uint64 as JSON: a decimal string (proto3 JSON), or a non-negative safe integer. */
function u64(v: unknown, what: string): bigint {
  let n: bigint | undefined;
  if (typeof v === 'string' && /^[0-9]+$/.test(v)) n = BigInt(v);
  else if (typeof v === 'number' && Number.isSafeInteger(v) && v >= 0) n = BigInt(v);
  if (n === undefined || n > 0xffffffffffffffffn) throw new AuthGenesisError(`${what} must be a uint64 as a decimal string, got ${JSON.stringify(v)}`);
  return n;
}

function parseParams(v: unknown): Params {
  if (v === undefined) return defaultParams();
  if (!isObject(v)) throw new AuthGenesisError('params must be an object');
  const p = defaultParams();
  for (const [json, field] of PARAM_FIELDS) {
    if (v[json] === undefined) throw new AuthGenesisError(`params.${json} is missing`);
    p[field] = u64(v[json], `params.${json}`);
  }
  try {
    validateParams(p);
  } catch (e) {
    throw new AuthGenesisError(`params: ${errorMessage(e)}`);
  }
  return p;
}

function parsePubKey(v: unknown, what: string): Any | undefined {
  if (v === null || v === undefined) return undefined;
  if (!isObject(v)) throw new AuthGenesisError(`${what}.pub_key must be null or {"@type", "key"}`);
  if (v['@type'] !== SECP256K1_PUBKEY_TYPE_URL)
    throw new AuthGenesisError(`${what}.pub_key has unsupported type ${JSON.stringify(v['@type'])}; only ${SECP256K1_PUBKEY_TYPE_URL} is supported`);
  if (typeof v.key !== 'string' || !/^[A-Za-z0-9+/]*={0,2}$/.test(v.key)) throw new AuthGenesisError(`${what}.pub_key.key must be base64`);
  const any = encodeSecp256k1PubKey(Buffer.from(v.key, 'base64'));
  try {
    decodeSecp256k1PubKey(any);
  } catch (e) {
    throw new AuthGenesisError(`${what}.pub_key: ${errorMessage(e)}`);
  }
  return any;
}

function parseBase(v: unknown, what: string, k: AccountKeeper): Account {
  if (!isObject(v)) throw new AuthGenesisError(`${what} must be an object`);
  if (typeof v.address !== 'string') throw new AuthGenesisError(`${what}.address must be a string`);
  const address = v.address;
  let bytes: Uint8Array;
  try {
    bytes = k.addressBytes(address);
  } catch (e) {
    throw new AuthGenesisError(`${what} has an invalid address "${address}": ${errorMessage(e)}`);
  }
  const pubKey = parsePubKey(v.pub_key, what);
  if (pubKey !== undefined) {
    const fromKey = addressFromPublicKey(decodeSecp256k1PubKey(pubKey), k.prefix);
    if (toHex(k.addressBytes(fromKey)) !== toHex(bytes)) throw new AuthGenesisError(`account ${address}: account address and pubkey address do not match`);
  }
  return {
    address,
    pubKey,
    accountNumber: v.account_number === undefined ? 0n : u64(v.account_number, `${what}.account_number`),
    sequence: v.sequence === undefined ? 0n : u64(v.sequence, `${what}.sequence`),
  };
}

function parseAccount(v: unknown, i: number, k: AccountKeeper): Account {
  const what = `accounts[${i}]`;
  if (!isObject(v)) throw new AuthGenesisError(`${what} must be an object`);
  if (v['@type'] === BASE_ACCOUNT_TYPE_URL) return parseBase(v, what, k);
  if (v['@type'] === MODULE_ACCOUNT_TYPE_URL) {
    const base = parseBase(v.base_account, `${what}.base_account`, k);
    if (typeof v.name !== 'string' || v.name.trim().length === 0) throw new AuthGenesisError(`${what}: module account name cannot be blank`);
    if (base.address !== moduleAddress(v.name, k.prefix)) {
      throw new AuthGenesisError(`${what}: address ${base.address} cannot be derived from the module name '${v.name}'`);
    }
    const perms = v.permissions ?? [];
    if (!Array.isArray(perms) || !perms.every((p): p is string => typeof p === 'string')) {
      throw new AuthGenesisError(`${what}.permissions must be an array of strings`);
    }
    return { ...base, module: { name: v.name, permissions: perms } };
  }
  throw new AuthGenesisError(`${what} has unsupported type ${JSON.stringify(v['@type'])}; expected ${BASE_ACCOUNT_TYPE_URL} or ${MODULE_ACCOUNT_TYPE_URL}`);
}

/** Parses and validates genesis JSON; errors name the offending account or param. */
export function parseGenesis(json: unknown, k: AccountKeeper): AuthGenesis {
  if (!isObject(json)) throw new AuthGenesisError('must be an object');
  const params = parseParams(json.params);
  const list = json.accounts ?? [];
  if (!Array.isArray(list)) throw new AuthGenesisError('accounts must be an array');
  const seen = new Set<string>();
  const accounts = list.map((v, i) => {
    const acc = parseAccount(v, i, k);
    const key = toHex(k.addressBytes(acc.address));
    if (seen.has(key)) throw new AuthGenesisError(`duplicate account found in genesis state; address: ${acc.address}`);
    seen.add(key);
    return acc;
  });
  return { params, accounts };
}

/**
 * As the SDK's SanitizeGenesisAccounts: a repeated account number (add-genesis-account writes 0 for
 * every account) is replaced by the lowest unused one, in list order; the result is sorted by number.
 */
export function sanitizeGenesisAccounts(accounts: readonly Account[]): Account[] {
  const seen = new Set<bigint>();
  const dup = accounts.map((a) => {
    if (seen.has(a.accountNumber)) return true;
    seen.add(a.accountNumber);
    return false;
  });
  let last = 0n;
  const out = accounts.map((a, i): Account => {
    if (!dup[i]) return a;
    do last++;
    while (seen.has(last));
    seen.add(last);
    return { ...a, accountNumber: last };
  });
  return out.sort((x, y) => (x.accountNumber < y.accountNumber ? -1 : x.accountNumber > y.accountNumber ? 1 : 0));
}

export function initGenesis(ctx: Context, k: AccountKeeper, json: unknown): void {
  const g = parseGenesis(json, k);
  k.setParams(ctx, g.params);
  for (const acc of sanitizeGenesisAccounts(g.accounts)) {
    k.setAccount(ctx, acc);
    // the counter ends past the largest account number, as the SDK's InitGenesis
    k.ensureNextAccountNumberAbove(ctx, acc.accountNumber);
  }
  k.getModuleAccount(ctx, FEE_COLLECTOR_NAME);
}

function pubKeyToJSON(any: Any | undefined, address: string): PubKeyJSON | null {
  if (any === undefined) return null;
  if (any.typeUrl !== SECP256K1_PUBKEY_TYPE_URL) throw new AuthGenesisError(`account ${address} has a public key of unsupported type ${any.typeUrl}`);
  return { '@type': SECP256K1_PUBKEY_TYPE_URL, key: Buffer.from(decodeSecp256k1PubKey(any)).toString('base64') };
}

export function accountToJSON(a: Account): BaseAccountJSON | ModuleAccountJSON {
  const base: BaseAccountFieldsJSON = {
    address: a.address,
    pub_key: pubKeyToJSON(a.pubKey, a.address),
    account_number: a.accountNumber.toString(),
    sequence: a.sequence.toString(),
  };
  if (a.module !== undefined) return { '@type': MODULE_ACCOUNT_TYPE_URL, base_account: base, name: a.module.name, permissions: [...a.module.permissions] };
  return { '@type': BASE_ACCOUNT_TYPE_URL, ...base };
}

/** Params and every account in address-byte order (store order). */
export function exportGenesis(ctx: Context, k: AccountKeeper): AuthGenesisJSON {
  return { params: paramsToJSON(k.getParams(ctx)), accounts: k.getAllAccounts(ctx).map(accountToJSON) };
}

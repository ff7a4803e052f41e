// Validators genesis: {"validators": [{operator_address, consensus_pubkey, power, moniker}]}.
// consensus_pubkey is accepted in both JSON forms a genesis may carry an ed25519 key in:
//   Cosmos SDK (Any-JSON):  {"@type": "/cosmos.crypto.ed25519.PubKey", "key": "<base64>"}
//   CometBFT (amino JSON):  {"type": "tendermint/PubKeyEd25519", "value": "<base64>"}
// and always exported in the first. power is an int64 as a decimal string (a safe JSON integer is accepted).
import { ChaindError, errorMessage } from '@chaind/errors';
import { Buffer } from 'node:buffer';
import type { Context } from '../../app/context.ts';
import { jsonFields } from '../../genesis/json.ts';
import { compareBytes, toHex } from '../../store/index.ts';
import type { ValidatorsKeeper } from './keeper.ts';
import {
  COMETBFT_ED25519_TYPE,
  ED25519_PUBKEY_LENGTH,
  ED25519_PUBKEY_TYPE_URL,
  MAX_MONIKER_LENGTH,
  MAX_TOTAL_VOTING_POWER,
  consensusAddress,
  type Validator,
} from './validator.ts';

export interface Ed25519PubKeyJSON {
  '@type': typeof ED25519_PUBKEY_TYPE_URL;
  key: string;
}

export interface CometBFTEd25519PubKeyJSON {
  type: typeof COMETBFT_ED25519_TYPE;
  value: string;
}

export interface ValidatorJSON {
  operator_address: string;
  consensus_pubkey: Ed25519PubKeyJSON | CometBFTEd25519PubKeyJSON;
  power: string;
  moniker: string;
}

export interface ValidatorsGenesisJSON {
  validators: ValidatorJSON[];
}

export class ValidatorsGenesisError extends ChaindError<'genesis'> {
  override readonly name = 'ValidatorsGenesisError';
  constructor(detail: string) {
    super('genesis', `validators genesis: ${detail}`);
  }
}

/** Empty: a chain needs validators, but that is the chain genesis' check (genesis/validate.ts), not the module's. */
export function defaultValidatorsGenesis(): ValidatorsGenesisJSON {
  return { validators: [] };
}

type Obj = Record<string, unknown>;
const { object } = jsonFields({ fail: (detail) => new ValidatorsGenesisError(detail) });

/** Canonical padded base64 only (what Go's StdEncoding accepts), of exactly 32 bytes. */
function ed25519Key(v: unknown, where: string): Uint8Array {
  if (typeof v !== 'string') throw new ValidatorsGenesisError(`${where} must be a base64 string`);
  const bytes = Buffer.from(v, 'base64');
  if (bytes.toString('base64') !== v) throw new ValidatorsGenesisError(`${where} is not valid base64`);
  if (bytes.length !== ED25519_PUBKEY_LENGTH) {
    throw new ValidatorsGenesisError(`${where} must be a ${ED25519_PUBKEY_LENGTH}-byte ed25519 public key, got ${bytes.length} bytes`);
  }
  return new Uint8Array(bytes);
}

function consensusPubKey(v: unknown, who: string): Uint8Array {
  const where = `${who}: consensus_pubkey`;
  if (typeof v !== 'object' || v === null || Array.isArray(v)) throw new ValidatorsGenesisError(`${where} must be an object`);
  const o = v as Obj;
  if ('@type' in o) {
    object(o, where, ['@type', 'key']);
    if (o['@type'] !== ED25519_PUBKEY_TYPE_URL) {
      throw new ValidatorsGenesisError(`${where} has unsupported type ${JSON.stringify(o['@type'])}; only ${ED25519_PUBKEY_TYPE_URL} is supported`);
    }
    return ed25519Key(o.key, `${where}.key`);
  }
  if ('type' in o) {
    object(o, where, ['type', 'value']);
    if (o.type !== COMETBFT_ED25519_TYPE) {
      throw new ValidatorsGenesisError(`${where} has unsupported type ${JSON.stringify(o.type)}; only ${COMETBFT_ED25519_TYPE} is supported`);
    }
    return ed25519Key(o.value, `${where}.value`);
  }
  throw new ValidatorsGenesisError(
    `${where} must be {"@type":"${ED25519_PUBKEY_TYPE_URL}","key":"<base64>"} or {"type":"${COMETBFT_ED25519_TYPE}","value":"<base64>"}`,
  );
}

function power(v: unknown, who: string): bigint {
  let n: bigint | undefined;
  if (typeof v === 'string' && /^-?[0-9]+$/.test(v)) n = BigInt(v);
  else if (typeof v === 'number' && Number.isSafeInteger(v)) n = BigInt(v);
  if (n === undefined) throw new ValidatorsGenesisError(`${who}: power must be an integer as a decimal string, got ${JSON.stringify(v)}`);
  if (n <= 0n || n > MAX_TOTAL_VOTING_POWER) throw new ValidatorsGenesisError(`${who}: power must be between 1 and ${MAX_TOTAL_VOTING_POWER}, got ${n}`);
  return n;
}

/** A label naming the validator in errors: its index, then its moniker and operator when they are strings. */
function label(o: Obj, i: number): string {
  let s = `validators[${i}]`;
  if (typeof o.moniker === 'string' && o.moniker.trim() !== '') s += ` "${o.moniker}"`;
  if (typeof o.operator_address === 'string' && o.operator_address !== '') s += ` (${o.operator_address})`;
  return s;
}

/**
 * Parses and validates: operators are valid addresses with the chain's prefix, 32-byte ed25519 keys,
 * 1 ≤ power ≤ CometBFT's MaxTotalVotingPower (and the sum too), a moniker of 1 to 70 bytes, no
 * operator or consensus key twice. Returns the validators in operator-address byte order.
 */
export function parseValidatorsGenesis(raw: unknown, k: Pick<ValidatorsKeeper, 'addressBytes'>): Validator[] {
  const g = object(raw, 'genesis', ['validators']);
  const list = g.validators ?? [];
  if (!Array.isArray(list)) throw new ValidatorsGenesisError('validators must be an array');
  const operators = new Map<string, string>();
  const keys = new Map<string, string>();
  let total = 0n;
  const out = list.map((x, i): Validator & { bytes: Uint8Array } => {
    const o = object(x, `validators[${i}]`, ['operator_address', 'consensus_pubkey', 'power', 'moniker']);
    const who = label(o, i);
    if (typeof o.operator_address !== 'string') throw new ValidatorsGenesisError(`${who}: operator_address must be a string`);
    let bytes: Uint8Array;
    try {
      bytes = k.addressBytes(o.operator_address);
    } catch (e) {
      throw new ValidatorsGenesisError(`${who}: invalid operator_address: ${errorMessage(e)}`);
    }
    const key = consensusPubKey(o.consensus_pubkey, who);
    const p = power(o.power, who);
    if (typeof o.moniker !== 'string' || o.moniker.trim() === '') throw new ValidatorsGenesisError(`${who}: moniker must be a non-empty string`);
    // bytes, as Go's len(): the Cosmos SDK's MaxMonikerLength check
    if (Buffer.byteLength(o.moniker, 'utf8') > MAX_MONIKER_LENGTH) {
      throw new ValidatorsGenesisError(`${who}: moniker is longer than ${MAX_MONIKER_LENGTH} bytes`);
    }
    const op = toHex(bytes);
    const prevOp = operators.get(op);
    if (prevOp !== undefined) throw new ValidatorsGenesisError(`${who}: duplicate operator address, already used by ${prevOp}`);
    operators.set(op, who);
    const cons = toHex(consensusAddress(key));
    const prevKey = keys.get(cons);
    if (prevKey !== undefined) throw new ValidatorsGenesisError(`${who}: duplicate consensus public key, already used by ${prevKey}`);
    keys.set(cons, who);
    total += p;
    if (total > MAX_TOTAL_VOTING_POWER) throw new ValidatorsGenesisError(`total voting power exceeds the maximum ${MAX_TOTAL_VOTING_POWER} at ${who}`);
    return { operatorAddress: o.operator_address, consensusPubKey: key, power: p, moniker: o.moniker, bytes };
  });
  return out
    .sort((a, b) => compareBytes(a.bytes, b.bytes))
    .map(({ operatorAddress, consensusPubKey, power, moniker }) => ({ operatorAddress, consensusPubKey, power, moniker }));
}

export function initValidatorsGenesis(ctx: Context, k: ValidatorsKeeper, raw: unknown): void {
  for (const v of parseValidatorsGenesis(raw, k)) k.setValidator(ctx, v);
}

export function validatorToJSON(v: Validator): ValidatorJSON {
  return {
    operator_address: v.operatorAddress,
    consensus_pubkey: { '@type': ED25519_PUBKEY_TYPE_URL, key: Buffer.from(v.consensusPubKey).toString('base64') },
    power: v.power.toString(),
    moniker: v.moniker,
  };
}

/** Every validator in operator-address byte order (store order), keys in the Cosmos SDK form. */
export function exportValidatorsGenesis(ctx: Context, k: ValidatorsKeeper): ValidatorsGenesisJSON {
  return { validators: k.getValidators(ctx).map(validatorToJSON) };
}

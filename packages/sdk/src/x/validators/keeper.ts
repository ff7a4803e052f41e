import type { ValidatorUpdate } from 'cosmjs-types/tendermint/abci/types';
import type { Context } from '../../app/context.ts';
import { errors } from '../../app/errors.ts';
import { DEFAULT_PREFIX, fromBech32, toBech32 } from '../../crypto/index.ts';
import { prefixEnd, toHex, type KVStore } from '../../store/index.ts';
import { STORE_KEY, VALIDATOR_PREFIX, consAddressKey, validatorKey } from './keys.ts';
import { MAX_TOTAL_VOTING_POWER, consensusAddress, decodeValidator, encodeValidator, toValidatorUpdate, type Validator } from './validator.ts';

export interface ValidatorsKeeperOptions {
  /** Bech32 prefix of operator (account) addresses; default "chain". */
  readonly prefix?: string;
  /** The store holding the set; default "validators" (a chain may rename it in an upgrade). */
  readonly storeKey?: string;
}

/** The validator set: fixed at genesis (no delegation, slashing or rewards). */
export class ValidatorsKeeper {
  readonly prefix: string;
  readonly storeKey: string;

  constructor(o: ValidatorsKeeperOptions = {}) {
    this.prefix = o.prefix ?? DEFAULT_PREFIX;
    this.storeKey = o.storeKey ?? STORE_KEY;
  }

  /** The module's store, for migrations and chain-specific records kept beside the set. */
  store(ctx: Context): KVStore {
    return ctx.kvStore(this.storeKey);
  }

  /** Address bytes of an operator address with this chain's prefix; `errors.invalidAddress` otherwise. */
  addressBytes(address: string): Uint8Array {
    if (address.length === 0) throw errors.invalidAddress.wrap('empty address string is not allowed');
    return fromBech32(address, this.prefix).data;
  }

  addressString(bytes: Uint8Array): string {
    return toBech32(this.prefix, bytes);
  }

  getValidator(ctx: Context, operator: string): Validator | undefined {
    const v = this.store(ctx).get(validatorKey(this.addressBytes(operator)));
    return v === undefined ? undefined : decodeValidator(v);
  }

  /** The validator whose consensus key hashes to `consAddress` (a block's proposer, a vote's signer). */
  getValidatorByConsAddress(ctx: Context, consAddress: Uint8Array): Validator | undefined {
    const operator = this.store(ctx).get(consAddressKey(consAddress));
    return operator === undefined ? undefined : this.getValidator(ctx, this.addressString(operator));
  }

  /** Stores a validator, keeping the consensus-address index current; a consensus key serves one operator only. */
  setValidator(ctx: Context, v: Validator): void {
    const operator = this.addressBytes(v.operatorAddress);
    if (v.power <= 0n || v.power > MAX_TOTAL_VOTING_POWER) {
      throw errors.invalidRequest.wrap(`validator ${v.operatorAddress}: power must be between 1 and ${MAX_TOTAL_VOTING_POWER}, got ${v.power}`);
    }
    const cons = consensusAddress(v.consensusPubKey);
    const store = this.store(ctx);
    const owner = store.get(consAddressKey(cons));
    if (owner !== undefined && toHex(owner) !== toHex(operator)) {
      throw errors.invalidRequest.wrap(`consensus key of validator ${v.operatorAddress} is already used by validator ${this.addressString(owner)}`);
    }
    const old = store.get(validatorKey(operator));
    if (old !== undefined) store.delete(consAddressKey(consensusAddress(decodeValidator(old).consensusPubKey)));
    store.set(validatorKey(operator), encodeValidator(v));
    store.set(consAddressKey(cons), operator);
  }

  /** Visits validators in operator-address byte order until `cb` returns true. */
  iterateValidators(ctx: Context, cb: (v: Validator) => boolean | void): void {
    for (const e of this.store(ctx).iterator(VALIDATOR_PREFIX, prefixEnd(VALIDATOR_PREFIX))) {
      if (cb(decodeValidator(e.value)) === true) return;
    }
  }

  /** Every validator, ordered by operator address bytes. */
  getValidators(ctx: Context): Validator[] {
    const out: Validator[] = [];
    this.iterateValidators(ctx, (v) => {
      out.push(v);
    });
    return out;
  }

  totalPower(ctx: Context): bigint {
    let total = 0n;
    this.iterateValidators(ctx, (v) => {
      total += v.power;
    });
    return total;
  }

  /**
   * Operator address (bech32) → power, in operator-address byte order. An arrow property so it can be
   * handed on detached (governance's `votingPower` option).
   */
  readonly votingPower = (ctx: Context): Map<string, bigint> => {
    const out = new Map<string, bigint>();
    this.iterateValidators(ctx, (v) => {
      out.set(v.operatorAddress, v.power);
    });
    return out;
  };

  /** The set as CometBFT ValidatorUpdates (ed25519 keys), for ResponseInitChain. */
  abciValidators(ctx: Context): ValidatorUpdate[] {
    return this.getValidators(ctx).map(toValidatorUpdate);
  }
}

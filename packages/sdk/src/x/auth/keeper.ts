import { Params } from 'cosmjs-types/cosmos/auth/v1beta1/auth';
import type { Context } from '../../app/context.ts';
import { errors } from '../../app/errors.ts';
import { DEFAULT_PREFIX, fromBech32, moduleAddress, toBech32 } from '../../crypto/index.ts';
import { prefixEnd, readU64be, u64be, type KVStore } from '../../store/index.ts';
import { decodeAccount, encodeAccount, type Account } from './account.ts';
import { ACCOUNT_PREFIX, GLOBAL_ACCOUNT_NUMBER_KEY, PARAMS_KEY, STORE_KEY, accountKey, accountNumberKey } from './keys.ts';
import { decodeParams, defaultParams } from './params.ts';

export interface AccountKeeperOptions {
  /** Bech32 prefix of account addresses; default "chain". */
  readonly prefix?: string;
  /** Module account name → permissions (the SDK's maccPerms), e.g. `{ fee_collector: [], gov: ['burner'] }`. */
  readonly moduleAccounts?: Readonly<Record<string, readonly string[]>>;
}

/** Accounts, the account-number counter and the auth params (x/auth's AccountKeeper). */
export class AccountKeeper {
  readonly prefix: string;
  readonly moduleAccounts: Readonly<Record<string, readonly string[]>>;
  /**
   * The params decoded last, with the stored bytes they came from: every tx reads them, and committed
   * state hands CheckTx the same bytes object until the next commit. Callers never change either.
   */
  private lastParams: { readonly bytes: Uint8Array; readonly params: Params } | undefined;

  constructor(o: AccountKeeperOptions = {}) {
    this.prefix = o.prefix ?? DEFAULT_PREFIX;
    this.moduleAccounts = o.moduleAccounts ?? {};
  }

  private store(ctx: Context): KVStore {
    return ctx.kvStore(STORE_KEY);
  }

  /** Address bytes of a bech32 address with this chain's prefix; `errors.invalidAddress` otherwise. */
  addressBytes(address: string): Uint8Array {
    if (address.length === 0) throw errors.invalidAddress.wrap('empty address string is not allowed');
    return fromBech32(address, this.prefix).data;
  }

  addressString(bytes: Uint8Array): string {
    return toBech32(this.prefix, bytes);
  }

  getParams(ctx: Context): Params {
    const v = this.store(ctx).get(PARAMS_KEY);
    if (v === undefined) return defaultParams();
    if (this.lastParams?.bytes !== v) this.lastParams = { bytes: v, params: decodeParams(v) };
    return this.lastParams.params;
  }

  setParams(ctx: Context, params: Params): void {
    this.store(ctx).set(PARAMS_KEY, Params.encode(params).finish());
  }

  getAccount(ctx: Context, address: string): Account | undefined {
    return this.getAccountByAddress(ctx, this.addressBytes(address));
  }

  /** The account of raw address bytes (no bech32 round trip: the node reads one per incoming tx). */
  getAccountByAddress(ctx: Context, address: Uint8Array): Account | undefined {
    const v = this.store(ctx).get(accountKey(address));
    return v === undefined ? undefined : decodeAccount(v);
  }

  hasAccount(ctx: Context, address: string): boolean {
    return this.hasAccountByAddress(ctx, this.addressBytes(address));
  }

  /** Whether raw address bytes have an account (the ante handler has the bytes already). */
  hasAccountByAddress(ctx: Context, address: Uint8Array): boolean {
    return this.store(ctx).has(accountKey(address));
  }

  /** Stores an account, keeping the account-number → address index current. */
  setAccount(ctx: Context, acc: Account): void {
    const addr = this.addressBytes(acc.address);
    const store = this.store(ctx);
    const key = accountKey(addr);
    const old = store.get(key);
    if (old !== undefined) {
      const prev = decodeAccount(old).accountNumber;
      if (prev !== acc.accountNumber) store.delete(accountNumberKey(prev));
    }
    store.set(key, encodeAccount(acc));
    store.set(accountNumberKey(acc.accountNumber), addr);
  }

  /**
   * Rewrites an existing account whose account number is unchanged (the ante handler's pubkey and
   * sequence updates): one write, no read of the old record or of the number index. `addressBytes`:
   * the account's address decoded, when the caller has it.
   */
  updateAccount(ctx: Context, acc: Account, addressBytes?: Uint8Array): void {
    this.store(ctx).set(accountKey(addressBytes ?? this.addressBytes(acc.address)), encodeAccount(acc));
  }

  removeAccount(ctx: Context, address: string): void {
    const store = this.store(ctx);
    const key = accountKey(this.addressBytes(address));
    const old = store.get(key);
    if (old === undefined) return;
    store.delete(accountNumberKey(decodeAccount(old).accountNumber));
    store.delete(key);
  }

  /** Returns the next account number and advances the counter. */
  nextAccountNumber(ctx: Context): bigint {
    const store = this.store(ctx);
    const v = store.get(GLOBAL_ACCOUNT_NUMBER_KEY);
    const n = v === undefined ? 0n : readU64be(v);
    store.set(GLOBAL_ACCOUNT_NUMBER_KEY, u64be(n + 1n));
    return n;
  }

  /** Moves the counter past `accountNumber` if it is not already (genesis import). */
  ensureNextAccountNumberAbove(ctx: Context, accountNumber: bigint): void {
    const store = this.store(ctx);
    const v = store.get(GLOBAL_ACCOUNT_NUMBER_KEY);
    if (v === undefined || readU64be(v) <= accountNumber) store.set(GLOBAL_ACCOUNT_NUMBER_KEY, u64be(accountNumber + 1n));
  }

  /**
   * A new base account for `address` with the next account number. As the SDK's NewAccountWithAddress
   * it is not stored: call `setAccount` with it.
   */
  newAccountWithAddress(ctx: Context, address: string): Account {
    this.addressBytes(address);
    return { address, pubKey: undefined, accountNumber: this.nextAccountNumber(ctx), sequence: 0n };
  }

  /** The address of module `name`: sha256(name)[:20]. */
  moduleAddress(name: string): string {
    return moduleAddress(name, this.prefix);
  }

  /** The account address of an account number, from the index. */
  addressByAccountNumber(ctx: Context, accountNumber: bigint): string | undefined {
    const v = this.store(ctx).get(accountNumberKey(accountNumber));
    return v === undefined ? undefined : this.addressString(v);
  }

  /** Module `name`'s account, created (and stored) on first use with the configured permissions. */
  getModuleAccount(ctx: Context, name: string): Account {
    if (name.trim().length === 0) throw errors.invalidRequest.wrap('module account name cannot be blank');
    const address = this.moduleAddress(name);
    const existing = this.getAccount(ctx, address);
    if (existing !== undefined) {
      if (existing.module === undefined) throw errors.logic.wrap(`account ${address} of module "${name}" exists but is not a module account`);
      return existing;
    }
    const acc: Account = { ...this.newAccountWithAddress(ctx, address), module: { name, permissions: [...(this.moduleAccounts[name] ?? [])] } };
    this.setAccount(ctx, acc);
    return acc;
  }

  /** Whether `name` is a configured module account (the SDK's maccPerms): read from the configuration, not the store. */
  isModuleAccountName(name: string): boolean {
    return Object.hasOwn(this.moduleAccounts, name);
  }

  /** Module `name`'s permissions as its account has them, or as configured while it has none; [] for an unregistered name. */
  modulePermissions(ctx: Context, name: string): readonly string[] {
    return this.getAccount(ctx, this.moduleAddress(name))?.module?.permissions ?? this.moduleAccounts[name] ?? [];
  }

  /** Visits accounts in address-byte order until `cb` returns true. */
  iterateAccounts(ctx: Context, cb: (acc: Account) => boolean | void): void {
    for (const e of this.store(ctx).iterator(ACCOUNT_PREFIX, prefixEnd(ACCOUNT_PREFIX))) {
      if (cb(decodeAccount(e.value)) === true) return;
    }
  }

  getAllAccounts(ctx: Context): Account[] {
    const out: Account[] = [];
    this.iterateAccounts(ctx, (a) => {
      out.push(a);
    });
    return out;
  }
}

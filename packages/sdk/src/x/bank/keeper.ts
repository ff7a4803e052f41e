import { Buffer } from 'node:buffer';
import { Params } from 'cosmjs-types/cosmos/bank/v1beta1/bank';
import type { Context } from '../../app/context.ts';
import { errors } from '../../app/errors.ts';
import { DEFAULT_PREFIX, fromBech32, moduleAddress, toBech32 } from '../../crypto/index.ts';
import { copyBytes } from '../../bytes/index.ts';
import { bytesToKey, prefixEnd, utf8, type KVStore } from '../../store/index.ts';
import type { Coin as ProtoCoin } from 'cosmjs-types/cosmos/base/v1beta1/coin';
import { coinsToString, coinToString, fromProtoCoins, MAX_AMOUNT, validateCoins, validateDenom, type Coin } from '../../types/coins.ts';
import { bankErrors } from './errors.ts';
import type { BankAccountKeeper } from './expected-keepers.ts';
import {
  BALANCES_PREFIX,
  MAX_ADDRESS_LENGTH,
  PARAMS_KEY,
  SEND_ENABLED_PREFIX,
  STORE_KEY,
  SUPPLY_PREFIX,
  balanceKey,
  balancesPrefix,
  sendEnabledKey,
  supplyKey,
} from './keys.ts';

function encodeAmount(amount: bigint): Uint8Array {
  return utf8(amount.toString());
}

/** Largest digit count whose value a Number holds exactly (10^15 < 2^53). */
const EXACT_DIGITS = 15;

function decodeAmount(value: Uint8Array, where: string): bigint {
  // only canonical positive amounts are ever written: [1-9][0-9]*
  const n = value.length;
  let ok = n > 0 && value[0] >= 0x31 && value[0] <= 0x39;
  let exact = 0;
  for (let i = 0; ok && i < n; i++) {
    const d = value[i] - 0x30;
    if (d < 0 || d > 9) ok = false;
    else if (i < EXACT_DIGITS) exact = exact * 10 + d;
  }
  const s = n > EXACT_DIGITS || !ok ? Buffer.from(value.buffer, value.byteOffset, value.byteLength).toString('latin1') : '';
  if (!ok) throw errors.logic.wrap(`corrupt bank state: ${where} holds "${s.slice(0, 100)}"`);
  return n > EXACT_DIGITS ? BigInt(s) : BigInt(exact);
}

const textOf = (b: Uint8Array): string => Buffer.from(b.buffer, b.byteOffset, b.byteLength).toString('utf8');

/** A bech32 address (with the chain's prefix) or raw address bytes. */
export type AddressLike = string | Uint8Array;

export const defaultBankParams = (): Params => ({ sendEnabled: [], defaultSendEnabled: true });

/**
 * Module accounts that hold coins on behalf of their module and so may not receive through MsgSend
 * or module-to-account sends (the Cosmos SDK app's BlockedAddresses, gov included).
 */
export const DEFAULT_BLOCKED_MODULES: readonly string[] = ['fee_collector', 'distribution', 'mint', 'bonded_tokens_pool', 'not_bonded_tokens_pool', 'gov'];

export interface BankKeeperOptions {
  /** x/auth's keeper: a send to a new address creates its account, as the SDK's SendCoins does. */
  readonly accounts: BankAccountKeeper;
  /** Bech32 prefix of account addresses; default "chain". */
  readonly prefix?: string;
  /** Bech32 addresses that may not receive through MsgSend; default: the DEFAULT_BLOCKED_MODULES accounts. */
  readonly blockedAddresses?: readonly string[];
}

/**
 * Balances and supply, as the Cosmos SDK's bank keeper. Every operation validates first and writes
 * after, so a failed call leaves nothing behind even for a caller that catches and continues.
 */
export class BankKeeper {
  readonly prefix: string;
  private readonly blocked: Set<string>;
  private readonly moduleAddrs = new Map<string, Uint8Array>();
  private readonly moduleStrings = new Map<string, string>();
  private readonly accounts: BankAccountKeeper;

  constructor(opts: BankKeeperOptions) {
    this.prefix = opts.prefix ?? DEFAULT_PREFIX;
    this.accounts = opts.accounts;
    const blocked = opts.blockedAddresses ?? DEFAULT_BLOCKED_MODULES.map((m) => moduleAddress(m, this.prefix));
    this.blocked = new Set(blocked.map((a) => bytesToKey(this.addressBytes(a))));
  }

  /** Raw address bytes; a bech32 string must carry this chain's prefix. */
  addressBytes(address: AddressLike): Uint8Array {
    const bytes = typeof address === 'string' ? fromBech32(address, this.prefix).data : address;
    if (bytes.length === 0) throw errors.invalidAddress.wrap('addresses cannot be empty');
    if (bytes.length > MAX_ADDRESS_LENGTH) throw errors.invalidAddress.wrap(`address max length is ${MAX_ADDRESS_LENGTH}, got ${bytes.length}`);
    return bytes;
  }

  addressString(address: AddressLike): string {
    return toBech32(this.prefix, this.addressBytes(address));
  }

  /** A module account's raw address: sha256(name)[:20], as authtypes.NewModuleAddress. */
  moduleAddressBytes(moduleName: string): Uint8Array {
    if (moduleName.length === 0) throw errors.unknownAddress.wrap('module name must not be empty');
    let a = this.moduleAddrs.get(moduleName);
    if (a === undefined) {
      a = fromBech32(moduleAddress(moduleName, this.prefix)).data;
      this.moduleAddrs.set(moduleName, a);
    }
    return a;
  }

  isBlocked(address: AddressLike): boolean {
    return this.blocked.has(bytesToKey(this.addressBytes(address)));
  }

  // ---- reads ----

  getBalance(ctx: Context, address: AddressLike, denom: string): Coin {
    validateDenom(denom);
    const addr = this.addressBytes(address);
    const v = ctx.kvStore(STORE_KEY).get(balanceKey(addr, denom));
    return { denom, amount: v === undefined ? 0n : decodeAmount(v, `balance of ${denom}`) };
  }

  /** Every non-zero balance of an address, in denom (byte) order. */
  getAllBalances(ctx: Context, address: AddressLike): Coin[] {
    const prefix = balancesPrefix(this.addressBytes(address));
    const out: Coin[] = [];
    for (const { key, value } of ctx.kvStore(STORE_KEY).iterator(prefix, prefixEnd(prefix))) {
      const denom = textOf(key.subarray(prefix.length));
      out.push({ denom, amount: decodeAmount(value, `balance of ${denom}`) });
    }
    return out;
  }

  hasBalance(ctx: Context, address: AddressLike, coin: Coin): boolean {
    return this.getBalance(ctx, address, coin.denom).amount >= coin.amount;
  }

  /** Every balance in store order (address length, address, denom); `cb` returns true to stop. */
  iterateAllBalances(ctx: Context, cb: (address: Uint8Array, coin: Coin) => boolean | void): void {
    const start = Uint8Array.of(BALANCES_PREFIX);
    for (const { key, value } of ctx.kvStore(STORE_KEY).iterator(start, prefixEnd(start))) {
      const len = key[1];
      const address = copyBytes(key.subarray(2, 2 + len));
      const denom = textOf(key.subarray(2 + len));
      if (cb(address, { denom, amount: decodeAmount(value, `balance of ${denom}`) }) === true) return;
    }
  }

  getSupply(ctx: Context, denom: string): Coin {
    validateDenom(denom);
    const v = ctx.kvStore(STORE_KEY).get(supplyKey(denom));
    return { denom, amount: v === undefined ? 0n : decodeAmount(v, `supply of ${denom}`) };
  }

  /** The supply of every denom with a non-zero supply, in denom order. */
  getTotalSupply(ctx: Context): Coin[] {
    const start = Uint8Array.of(SUPPLY_PREFIX);
    const out: Coin[] = [];
    for (const { key, value } of ctx.kvStore(STORE_KEY).iterator(start, prefixEnd(start))) {
      const denom = textOf(key.subarray(1));
      out.push({ denom, amount: decodeAmount(value, `supply of ${denom}`) });
    }
    return out;
  }

  getParams(ctx: Context): Params {
    const v = ctx.kvStore(STORE_KEY).get(PARAMS_KEY);
    return v === undefined ? defaultBankParams() : Params.decode(v);
  }

  setParams(ctx: Context, params: Params): void {
    // per-denom flags live under their own keys (SDK ≥ 0.47); params keep only the default
    ctx.kvStore(STORE_KEY).set(PARAMS_KEY, Params.encode({ sendEnabled: [], defaultSendEnabled: params.defaultSendEnabled }).finish());
  }

  /** Every per-denom send flag, in denom order. */
  getAllSendEnabled(ctx: Context): { denom: string; enabled: boolean }[] {
    const start = Uint8Array.of(SEND_ENABLED_PREFIX);
    const out: { denom: string; enabled: boolean }[] = [];
    for (const { key, value } of ctx.kvStore(STORE_KEY).iterator(start, prefixEnd(start))) {
      out.push({ denom: textOf(key.subarray(1)), enabled: value.length === 1 && value[0] === 1 });
    }
    return out;
  }

  setSendEnabled(ctx: Context, denom: string, enabled: boolean): void {
    validateDenom(denom);
    ctx.kvStore(STORE_KEY).set(sendEnabledKey(denom), Uint8Array.of(enabled ? 1 : 0));
  }

  isSendEnabledDenom(ctx: Context, denom: string): boolean {
    const v = ctx.kvStore(STORE_KEY).get(sendEnabledKey(denom));
    return v === undefined ? this.getParams(ctx).defaultSendEnabled : v.length === 1 && v[0] === 1;
  }

  /** Throws the SDK's send-disabled error for the first denom that may not be sent. */
  assertSendEnabledCoins(ctx: Context, coins: readonly Coin[]): void {
    for (const c of coins) {
      if (!this.isSendEnabledDenom(ctx, c.denom)) throw bankErrors.sendDisabled.wrap(`${c.denom} transfers are currently disabled`);
    }
  }

  // ---- writes ----

  /** Moves coins between accounts; emits coin_spent, coin_received, transfer and message events as the SDK. */
  sendCoins(ctx: Context, from: AddressLike, to: AddressLike, coins: readonly Coin[]): void {
    const fromAddr = this.addressBytes(from);
    const toAddr = this.addressBytes(to);
    this.send(ctx, fromAddr, this.canonical(from, fromAddr), toAddr, this.canonical(to, toAddr), coins, 'create');
  }

  /** The ante handler's fee deduction (its `deductFee`): the fee from the payer to module `moduleName`, the fee collector. */
  deductFeeTo(moduleName: string): (ctx: Context, payer: string, fee: readonly ProtoCoin[]) => void {
    return (ctx, payer, fee) => this.sendCoinsFromAccountToModule(ctx, payer, moduleName, fromProtoCoins(fee));
  }

  sendCoinsFromAccountToModule(ctx: Context, from: AddressLike, moduleName: string, coins: readonly Coin[]): void {
    this.assertModule(moduleName);
    // the module first, as when its address was an argument of sendCoins
    const toAddr = this.moduleAddressBytes(moduleName);
    const fromAddr = this.addressBytes(from);
    // every fee takes this path, and a simulation without a fee does not see its gas: so no account reads here
    // (the SDK reads the module account twice); a module's account is created by its InitGenesis
    this.send(ctx, fromAddr, this.canonical(from, fromAddr), toAddr, this.moduleAddressString(moduleName), coins, 'exists');
  }

  /** Blocked recipients (other module accounts) are refused, as the SDK does. */
  sendCoinsFromModuleToAccount(ctx: Context, moduleName: string, to: AddressLike, coins: readonly Coin[]): void {
    this.assertModule(moduleName);
    this.assertNotBlocked(to);
    this.sendCoins(ctx, this.moduleAddressBytes(moduleName), to, coins);
  }

  sendCoinsFromModuleToModule(ctx: Context, fromModule: string, toModule: string, coins: readonly Coin[]): void {
    this.assertModule(fromModule);
    this.assertModule(toModule);
    const fromAddr = this.moduleAddressBytes(fromModule);
    this.send(ctx, fromAddr, this.moduleAddressString(fromModule), this.moduleAddressBytes(toModule), this.moduleAddressString(toModule), coins, {
      module: toModule,
    });
  }

  /** Creates coins in a module account that has the minter permission and raises their supply; emits coin_received and coinbase. */
  mintCoins(ctx: Context, moduleName: string, coins: readonly Coin[]): void {
    this.assertPermission(ctx, moduleName, 'minter', 'mint');
    const addr = this.moduleAddressBytes(moduleName);
    this.checkCoins(coins);
    const supplies = coins.map((c) => {
      const s = this.getSupply(ctx, c.denom).amount + c.amount;
      if (s > MAX_AMOUNT) throw errors.invalidCoins.wrap(`minting ${coinToString(c)} would take the supply of ${c.denom} beyond 2^256-1`);
      return { denom: c.denom, amount: s };
    });
    this.accounts.getModuleAccount(ctx, moduleName);
    this.addCoins(ctx, addr, coins);
    for (const s of supplies) this.setSupply(ctx, s);
    ctx.events.emit('coinbase', [
      ['minter', toBech32(this.prefix, addr)],
      ['amount', coinsToString(coins)],
    ]);
  }

  /** Destroys coins held by a module account that has the burner permission and lowers their supply; emits coin_spent and burn. */
  burnCoins(ctx: Context, moduleName: string, coins: readonly Coin[]): void {
    this.assertPermission(ctx, moduleName, 'burner', 'burn');
    const addr = this.moduleAddressBytes(moduleName);
    this.checkCoins(coins);
    this.assertSpendable(ctx, addr, coins);
    const supplies = coins.map((c) => {
      const s = this.getSupply(ctx, c.denom).amount - c.amount;
      if (s < 0n) throw errors.logic.wrap(`burning ${coinToString(c)} would take the supply of ${c.denom} below zero`);
      return { denom: c.denom, amount: s };
    });
    this.accounts.getModuleAccount(ctx, moduleName);
    this.subCoins(ctx, addr, coins);
    for (const s of supplies) this.setSupply(ctx, s);
    ctx.events.emit('burn', [
      ['burner', toBech32(this.prefix, addr)],
      ['amount', coinsToString(coins)],
    ]);
  }

  /**
   * Writes a balance as genesis does: no supply change, no events. Callers keep supply consistent
   * (initGenesis sets it from the balances' sum).
   */
  setBalance(ctx: Context, address: AddressLike, coin: Coin): void {
    validateDenom(coin.denom);
    if (coin.amount < 0n || coin.amount > MAX_AMOUNT) throw errors.invalidCoins.wrap(`balance out of range: ${coinToString(coin)}`);
    const key = balanceKey(this.addressBytes(address), coin.denom);
    const store = ctx.kvStore(STORE_KEY);
    if (coin.amount === 0n) store.delete(key);
    else store.set(key, encodeAmount(coin.amount));
  }

  /** Writes a denom's supply; a zero supply is removed, as the SDK does. */
  setSupply(ctx: Context, coin: Coin): void {
    validateDenom(coin.denom);
    if (coin.amount < 0n || coin.amount > MAX_AMOUNT) throw errors.invalidCoins.wrap(`supply out of range: ${coinToString(coin)}`);
    const store = ctx.kvStore(STORE_KEY);
    if (coin.amount === 0n) store.delete(supplyKey(coin.denom));
    else store.set(supplyKey(coin.denom), encodeAmount(coin.amount));
  }

  assertNotBlocked(address: AddressLike): void {
    if (this.isBlocked(address)) throw errors.unauthorized.wrap(`${this.addressString(address)} is not allowed to receive funds`);
  }

  // ---- internals ----

  /** The SDK panics on a module name that is not registered (maccPerms); here a coded error, before anything is written. */
  private assertModule(name: string): void {
    if (!this.accounts.isModuleAccountName(name)) throw errors.unknownAddress.wrap(`module account ${name} does not exist`);
  }

  /** Minting needs the module's minter permission and burning its burner permission (the SDK panics without). */
  private assertPermission(ctx: Context, name: string, permission: 'minter' | 'burner', verb: string): void {
    this.assertModule(name);
    if (!this.accounts.modulePermissions(ctx, name).includes(permission)) {
      throw errors.unauthorized.wrap(`module account ${name} does not have permissions to ${verb} tokens`);
    }
  }

  /**
   * The bech32 form of an address that `addressBytes` accepted: a valid bech32 string is its
   * lower-case self (bech32 is all-lower or all-upper, and re-encoding its bytes gives the lower-case
   * form), so no re-encoding is needed.
   */
  private canonical(address: AddressLike, bytes: Uint8Array): string {
    return typeof address === 'string' ? address.toLowerCase() : toBech32(this.prefix, bytes);
  }

  private moduleAddressString(moduleName: string): string {
    let a = this.moduleStrings.get(moduleName);
    if (a === undefined) {
      a = toBech32(this.prefix, this.moduleAddressBytes(moduleName));
      this.moduleStrings.set(moduleName, a);
    }
    return a;
  }

  /**
   * sendCoins between checked addresses: the same store reads and writes, in the same order, as
   * getBalance / setBalance per coin would make (gas is charged per access), without re-validating
   * denoms `validateCoins` already checked or re-encoding addresses and amounts for each event.
   */
  private send(
    ctx: Context,
    fromAddr: Uint8Array,
    sender: string,
    toAddr: Uint8Array,
    recipient: string,
    coins: readonly Coin[],
    account: RecipientAccount,
  ): void {
    this.checkCoins(coins);
    const store = ctx.kvStore(STORE_KEY);
    const n = coins.length;
    const fromKeys: Uint8Array[] = new Array<Uint8Array>(n);
    for (let i = 0; i < n; i++) {
      const c = coins[i];
      const key = (fromKeys[i] = balanceKey(fromAddr, c.denom));
      const balance = readBalance(store, key, c.denom);
      if (balance < c.amount) {
        throw errors.insufficientFunds.wrap(`spendable balance ${coinToString({ denom: c.denom, amount: balance })} is smaller than ${coinToString(c)}`);
      }
    }
    if (typeof account === 'object') this.accounts.getModuleAccount(ctx, account.module);
    for (let i = 0; i < n; i++) {
      const c = coins[i];
      writeBalance(store, fromKeys[i], c.denom, readBalance(store, fromKeys[i], c.denom) - c.amount);
    }
    const amount = coinsToString(coins);
    ctx.events.emit('coin_spent', [
      ['spender', sender],
      ['amount', amount],
    ]);
    for (let i = 0; i < n; i++) {
      const c = coins[i];
      const key = balanceKey(toAddr, c.denom);
      writeBalance(store, key, c.denom, readBalance(store, key, c.denom) + c.amount);
    }
    ctx.events.emit('coin_received', [
      ['receiver', recipient],
      ['amount', amount],
    ]);
    // as the SDK's SendCoins: the recipient gets an account, so coins sent to a fresh address can be spent from it
    if (account === 'create' && !this.accounts.hasAccountByAddress(ctx, toAddr))
      this.accounts.setAccount(ctx, this.accounts.newAccountWithAddress(ctx, recipient));
    ctx.events.emit('transfer', [
      ['recipient', recipient],
      ['sender', sender],
      ['amount', amount],
    ]);
    ctx.events.emit('message', [['sender', sender]]);
  }

  /** Amounts moved must be a valid coin set (sorted, positive), as the SDK's `amt.IsValid()`. */
  private checkCoins(coins: readonly Coin[]): void {
    validateCoins(coins);
  }

  private assertSpendable(ctx: Context, addr: Uint8Array, coins: readonly Coin[]): void {
    for (const c of coins) {
      const balance = this.getBalance(ctx, addr, c.denom);
      if (balance.amount < c.amount) {
        throw errors.insufficientFunds.wrap(`spendable balance ${coinToString(balance)} is smaller than ${coinToString(c)}`);
      }
    }
  }

  /** Balances were checked by assertSpendable. */
  private subCoins(ctx: Context, addr: Uint8Array, coins: readonly Coin[]): void {
    for (const c of coins) this.setBalance(ctx, addr, { denom: c.denom, amount: this.getBalance(ctx, addr, c.denom).amount - c.amount });
    ctx.events.emit('coin_spent', [
      ['spender', toBech32(this.prefix, addr)],
      ['amount', coinsToString(coins)],
    ]);
  }

  /** Cannot overflow while supply ≤ 2^256-1 bounds every balance; setBalance refuses it regardless. */
  private addCoins(ctx: Context, addr: Uint8Array, coins: readonly Coin[]): void {
    for (const c of coins) this.setBalance(ctx, addr, { denom: c.denom, amount: this.getBalance(ctx, addr, c.denom).amount + c.amount });
    ctx.events.emit('coin_received', [
      ['receiver', toBech32(this.prefix, addr)],
      ['amount', coinsToString(coins)],
    ]);
  }
}

/**
 * The recipient's account in a send: created when missing (the SDK's SendCoins), known to exist (a fee to the
 * fee collector), or a module's account, created as one when missing (the SDK's GetModuleAccount).
 */
type RecipientAccount = 'create' | 'exists' | { readonly module: string };

/** A balance under `key` (a valid denom's), as getBalance reads it. */
function readBalance(store: KVStore, key: Uint8Array, denom: string): bigint {
  const v = store.get(key);
  return v === undefined ? 0n : decodeAmount(v, `balance of ${denom}`);
}

/** A balance write as setBalance makes it, for a denom already validated. */
function writeBalance(store: KVStore, key: Uint8Array, denom: string, amount: bigint): void {
  if (amount < 0n || amount > MAX_AMOUNT) throw errors.invalidCoins.wrap(`balance out of range: ${amount}${denom}`);
  if (amount === 0n) store.delete(key);
  else store.set(key, encodeAmount(amount));
}

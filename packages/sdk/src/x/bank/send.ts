// Bank's send keeper: account-to-account sends and their events, send-enabled flags, params and blocked
// recipients (the Cosmos SDK's x/bank/keeper/send.go, BaseSendKeeper); keeper.ts builds on it.
import { Params } from 'cosmjs-types/cosmos/bank/v1beta1/bank';
import type { Context } from '../../app/context.ts';
import { errors } from '../../app/errors.ts';
import { moduleAddress, toBech32 } from '../../crypto/index.ts';
import { bytesToKey, prefixEnd } from '../../store/index.ts';
import { coinsToString, coinToString, validateCoins, validateDenom, type Coin } from '../../types/coins.ts';
import { readBalance, textOf, writeBalance } from './amounts.ts';
import { bankErrors } from './errors.ts';
import type { BankAccountKeeper } from './expected-keepers.ts';
import { PARAMS_KEY, SEND_ENABLED_PREFIX, STORE_KEY, balanceKey, sendEnabledKey } from './keys.ts';
import { BankViewKeeper, type AddressLike, type BankViewKeeperOptions } from './view.ts';

export const defaultBankParams = (): Params => ({ sendEnabled: [], defaultSendEnabled: true });

/**
 * Module accounts that hold coins on behalf of their module and so may not receive through MsgSend
 * or module-to-account sends (the Cosmos SDK app's BlockedAddresses, gov included).
 */
export const DEFAULT_BLOCKED_MODULES: readonly string[] = ['fee_collector', 'distribution', 'mint', 'bonded_tokens_pool', 'not_bonded_tokens_pool', 'gov'];

export interface BankSendKeeperOptions extends BankViewKeeperOptions {
  /** x/auth's keeper: a send to a new address creates its account, as the SDK's SendCoins does. */
  readonly accounts: BankAccountKeeper;
  /** Bech32 addresses that may not receive through MsgSend; default: the DEFAULT_BLOCKED_MODULES accounts. */
  readonly blockedAddresses?: readonly string[];
}

/**
 * The recipient's account in a send: created when missing (the SDK's SendCoins), known to exist (a fee to the
 * fee collector), or a module's account, created as one when missing (the SDK's GetModuleAccount).
 */
type RecipientAccount = 'create' | 'exists' | { readonly module: string };

/** Moves coins between accounts. Every operation validates first and writes after. */
export class BankSendKeeper extends BankViewKeeper {
  protected readonly accounts: BankAccountKeeper;
  private readonly blocked: Set<string>;

  constructor(opts: BankSendKeeperOptions) {
    super(opts);
    this.accounts = opts.accounts;
    const blocked = opts.blockedAddresses ?? DEFAULT_BLOCKED_MODULES.map((m) => moduleAddress(m, this.prefix));
    this.blocked = new Set(blocked.map((a) => bytesToKey(this.addressBytes(a))));
  }

  isBlocked(address: AddressLike): boolean {
    return this.blocked.has(bytesToKey(this.addressBytes(address)));
  }

  assertNotBlocked(address: AddressLike): void {
    if (this.isBlocked(address)) throw errors.unauthorized.wrap(`${this.addressString(address)} is not allowed to receive funds`);
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

  /** Moves coins between accounts; emits coin_spent, coin_received, transfer and message events as the SDK. */
  sendCoins(ctx: Context, from: AddressLike, to: AddressLike, coins: readonly Coin[]): void {
    const fromAddr = this.addressBytes(from);
    const toAddr = this.addressBytes(to);
    this.send(ctx, fromAddr, this.canonical(from, fromAddr), toAddr, this.canonical(to, toAddr), coins, 'create');
  }

  /** Amounts moved must be a valid coin set (sorted, positive), as the SDK's `amt.IsValid()`. */
  protected checkCoins(coins: readonly Coin[]): void {
    validateCoins(coins);
  }

  /**
   * The bech32 form of an address that `addressBytes` accepted: a valid bech32 string is its
   * lower-case self (bech32 is all-lower or all-upper, and re-encoding its bytes gives the lower-case
   * form), so no re-encoding is needed.
   */
  protected canonical(address: AddressLike, bytes: Uint8Array): string {
    return typeof address === 'string' ? address.toLowerCase() : toBech32(this.prefix, bytes);
  }

  /**
   * sendCoins between checked addresses: the same store reads and writes, in the same order, as
   * getBalance / setBalance per coin would make (gas is charged per access), without re-validating
   * denoms `validateCoins` already checked or re-encoding addresses and amounts for each event.
   */
  protected send(
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
}

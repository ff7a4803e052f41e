// Bank's full keeper: module accounts' sends, minting, burning, fee deduction and the genesis writes (the Cosmos
// SDK's x/bank/keeper/keeper.go, BaseKeeper); reads are view.ts's, account-to-account sends send.ts's.
import type { Coin as ProtoCoin } from 'cosmjs-types/cosmos/base/v1beta1/coin';
import type { Context } from '../../app/context.ts';
import { errors } from '../../app/errors.ts';
import { fromBech32, moduleAddress, toBech32 } from '../../crypto/index.ts';
import { coinsToString, coinToString, fromProtoCoins, MAX_AMOUNT, validateDenom, type Coin } from '../../types/coins.ts';
import { encodeAmount } from './amounts.ts';
import { STORE_KEY, balanceKey, supplyKey } from './keys.ts';
import { BankSendKeeper, type BankSendKeeperOptions } from './send.ts';
import type { AddressLike } from './view.ts';

export type BankKeeperOptions = BankSendKeeperOptions;

/**
 * Balances and supply, as the Cosmos SDK's bank keeper. Every operation validates first and writes
 * after, so a failed call leaves nothing behind even for a caller that catches and continues.
 */
export class BankKeeper extends BankSendKeeper {
  private readonly moduleAddrs = new Map<string, Uint8Array>();
  private readonly moduleStrings = new Map<string, string>();

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

  private moduleAddressString(moduleName: string): string {
    let a = this.moduleStrings.get(moduleName);
    if (a === undefined) {
      a = toBech32(this.prefix, this.moduleAddressBytes(moduleName));
      this.moduleStrings.set(moduleName, a);
    }
    return a;
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

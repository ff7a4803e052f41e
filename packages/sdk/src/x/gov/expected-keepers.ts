// What gov needs from other modules (the SDK's x/gov/types/expected_keepers.go): only the methods it
// calls, so gov depends on no other module's keeper. x/bank's and x/auth's keepers satisfy them.
import type { Context } from '../../app/context.ts';
import type { Coin } from '../../types/coins.ts';

/** Bank: deposits move into the gov module account, back out (refunds) or are burned there. */
export interface GovBankKeeper {
  sendCoinsFromAccountToModule(ctx: Context, from: Uint8Array, moduleName: string, coins: readonly Coin[]): void;
  sendCoinsFromModuleToAccount(ctx: Context, moduleName: string, to: string, coins: readonly Coin[]): void;
  burnCoins(ctx: Context, moduleName: string, coins: readonly Coin[]): void;
  /** At genesis: the gov module account must hold exactly the deposits. */
  getAllBalances(ctx: Context, address: string): Coin[];
}

/** Auth: the chain's address prefix, and the gov module account (created at genesis). */
export interface GovAccountKeeper {
  readonly prefix: string;
  getModuleAccount(ctx: Context, name: string): void;
}

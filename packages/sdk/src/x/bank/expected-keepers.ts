// What bank needs from x/auth (the SDK's x/bank/types/expected_keepers.go): only the methods it calls, so
// bank depends on no other module's files. x/auth's AccountKeeper satisfies it.
import type { Context } from '../../app/context.ts';

/** Auth: a send to an address without an account creates one; a send to a module goes to its module account. */
export interface BankAccountKeeper {
  hasAccountByAddress(ctx: Context, address: Uint8Array): boolean;
  /** A new account with the next account number, not yet stored; bank hands it to `setAccount` unchanged. */
  newAccountWithAddress(ctx: Context, address: string): unknown;
  setAccount(ctx: Context, acc: unknown): void;
  /** Module `name`'s account, created (as a module account) on first use. */
  getModuleAccount(ctx: Context, name: string): unknown;
  /** Whether `name` is a registered module account (the SDK's maccPerms); no store read. */
  isModuleAccountName(name: string): boolean;
  /** A registered module's permissions: its stored account's, or the configured ones before the account exists. */
  modulePermissions(ctx: Context, name: string): readonly string[];
}

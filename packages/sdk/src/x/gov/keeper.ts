// x/gov's keeper (cosmos.gov.v1, as the Cosmos SDK v0.50): the state every part of the module shares
// (the gov store, the address prefix, the module account, the message router), params and the
// constitution. The rest is split as the SDK's x/gov/keeper, each file functions of (ctx, keeper, …):
// proposals.ts, deposits.ts, votes.ts, tally.ts, and the end blocker in abci.ts.
//
// State machine rules: block time only (ctx.header.time), bigint amounts, 18-decimal fixed point,
// byte-ordered iteration, protobuf bytes in the store (see keys.ts for the layout).
import { Buffer } from 'node:buffer';
import type { Context } from '../../app/context.ts';
import { errorMessage, errors } from '../../app/errors.ts';
import type { MsgRouter } from '../../app/router.ts';
import { fromBech32, moduleAddress } from '../../crypto/index.ts';
import { toHex, utf8, type KVStore } from '../../store/index.ts';
import type { GovAccountKeeper, GovBankKeeper } from './expected-keepers.ts';
import { CONSTITUTION_KEY, MODULE_NAME, STORE_KEY, PARAMS_KEY } from './keys.ts';
import { DEFAULT_BOND_DENOM, Params, defaultParams, normalizeParams, parseParams, type ParsedParams } from './params.ts';

/** Length limits of proposal texts (the SDK's keeper config); bytes, as Go's len(string). */
export interface GovConfig {
  readonly maxTitleLen: number;
  readonly maxMetadataLen: number;
  readonly maxSummaryLen: number;
}

export const DEFAULT_GOV_CONFIG: GovConfig = { maxTitleLen: 140, maxMetadataLen: 255, maxSummaryLen: 10_000 };

/**
 * Validator power by the bech32 address of each validator's operator account (any prefix: only the
 * address bytes count). Accounts missing from the map carry no power.
 */
export type VotingPowerFn = (ctx: Context) => ReadonlyMap<string, bigint>;

export interface GovKeeperOptions {
  readonly bank: GovBankKeeper;
  readonly accounts: GovAccountKeeper;
  readonly votingPower: VotingPowerFn;
  /** The app's message router; by default the one the module is registered with. */
  readonly msgRouter?: MsgRouter;
  /** Bech32 prefix of account addresses; default: the account keeper's. */
  readonly prefix?: string;
  /** Denom of the default min_deposit; default "stake". */
  readonly bondDenom?: string;
  readonly config?: Partial<GovConfig>;
}

/** The gov module's state and dependencies. Every write validates first. */
export class GovKeeper {
  readonly bank: GovBankKeeper;
  readonly accounts: GovAccountKeeper;
  readonly prefix: string;
  readonly bondDenom: string;
  readonly config: GovConfig;
  /** The gov module account's address: the authority of every proposal message. */
  readonly authority: string;
  readonly votingPower: VotingPowerFn;
  private readonly authorityHex: string;
  private router: MsgRouter | undefined;

  constructor(o: GovKeeperOptions) {
    this.bank = o.bank;
    this.accounts = o.accounts;
    this.prefix = o.prefix ?? o.accounts.prefix;
    this.bondDenom = o.bondDenom ?? DEFAULT_BOND_DENOM;
    this.config = { ...DEFAULT_GOV_CONFIG, ...o.config };
    this.votingPower = o.votingPower;
    this.router = o.msgRouter;
    this.authority = moduleAddress(MODULE_NAME, this.prefix);
    this.authorityHex = toHex(fromBech32(this.authority).data);
  }

  /** Sets the router proposal messages are checked and executed with, unless one was given. */
  useMsgRouter(router: MsgRouter): void {
    this.router ??= router;
  }

  /** The router, or undefined before the module is registered (genesis JSON then falls back to raw Anys). */
  routerIfSet(): MsgRouter | undefined {
    return this.router;
  }

  get msgRouter(): MsgRouter {
    if (this.router === undefined) throw errors.logic.wrap('the gov keeper has no message router: register the gov module or pass msgRouter');
    return this.router;
  }

  /** The gov store of `ctx`. */
  store(ctx: Context): KVStore {
    return ctx.kvStore(STORE_KEY);
  }

  /** Address bytes of a bech32 address of this chain; `errors.invalidAddress` naming the role otherwise. */
  addressBytes(address: string, role: string): Uint8Array {
    let data: Uint8Array;
    try {
      data = fromBech32(address, this.prefix).data;
    } catch (e) {
      throw errors.invalidAddress.wrap(`invalid ${role} address: ${errorMessage(e)}`);
    }
    if (data.length === 0 || data.length > 255) throw errors.invalidAddress.wrap(`invalid ${role} address: length ${data.length} is not in 1..255`);
    return data;
  }

  /** Whether `address` (any prefix) is the gov module account's. */
  isAuthority(address: string): boolean {
    try {
      return toHex(fromBech32(address).data) === this.authorityHex;
    } catch {
      return false;
    }
  }

  getParams(ctx: Context): Params {
    const v = this.store(ctx).get(PARAMS_KEY);
    return v === undefined ? defaultParams(this.bondDenom) : Params.decode(v);
  }

  getParsedParams(ctx: Context): ParsedParams {
    return parseParams(this.getParams(ctx), this.prefix);
  }

  /** Validates (errors name the field) and stores params in canonical form. */
  setParams(ctx: Context, params: Params): void {
    parseParams(params, this.prefix);
    this.store(ctx).set(PARAMS_KEY, Params.encode(normalizeParams(params)).finish());
  }

  getConstitution(ctx: Context): string {
    const v = this.store(ctx).get(CONSTITUTION_KEY);
    return v === undefined ? '' : Buffer.from(v).toString('utf8');
  }

  setConstitution(ctx: Context, constitution: string): void {
    if (constitution === '') this.store(ctx).delete(CONSTITUTION_KEY);
    else this.store(ctx).set(CONSTITUTION_KEY, utf8(constitution));
  }
}

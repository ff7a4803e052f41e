import type { ValidatorUpdate } from 'cosmjs-types/tendermint/abci/types';
import type { Context } from './context.ts';
import type { MsgRouter, QueryRouter } from './router.ts';

/** Module name → consensus version. Iterate it through `sortedEntries` for a deterministic order. */
export type VersionMap = Record<string, bigint>;

/** Moves a module's state from version `from` to `from + 1`. */
export type MigrationHandler = (ctx: Context) => void;

/** What a module gets at wiring time: the shared routers and the migration registry. */
export interface Configurator {
  readonly msgRouter: MsgRouter;
  readonly queryRouter: QueryRouter;
  registerMigration(moduleName: string, fromVersion: bigint, handler: MigrationHandler): void;
}

/** Result of a pre-blocker: whether it changed consensus params (the upgrade module's may). */
export interface PreBlockResult {
  readonly consensusParamsChanged?: boolean;
}

/**
 * An application module: its stores, its consensus version, its genesis and its hooks.
 * Genesis is JSON (it comes from genesis.json); state itself is always protobuf bytes.
 */
export interface AppModule {
  readonly name: string;
  /** Stores this module owns; the multistore mounts them. */
  readonly storeKeys: readonly string[];
  readonly consensusVersion: bigint;
  defaultGenesis?(): unknown;
  /** Throws a clear error naming the problem. */
  validateGenesis?(genesis: unknown): void;
  /** May return the genesis validator set (CometBFT takes it from InitChain's response). */
  initGenesis?(ctx: Context, genesis: unknown): ValidatorUpdate[] | void;
  exportGenesis?(ctx: Context): unknown;
  registerServices?(cfg: Configurator): void;
  preBlock?(ctx: Context): PreBlockResult | void;
  beginBlock?(ctx: Context): void;
  endBlock?(ctx: Context): void;
}

export function sortedEntries(vm: VersionMap): [string, bigint][] {
  return Object.keys(vm)
    .sort()
    .map((k) => [k, vm[k]]);
}

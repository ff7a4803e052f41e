import type { AppModule, Context } from '@chaind/sdk/app';
import type { Plan } from '@chaind/sdk/gen/chain/upgrade/v1beta1/upgrade';
import type { StoreUpgrades } from '@chaind/sdk/store';
import type { AccountKeeper } from '@chaind/sdk/x/auth';
import type { BankKeeper } from '@chaind/sdk/x/bank';
import type { GovKeeper } from '@chaind/sdk/x/gov';
import type { UpgradeKeeper } from '@chaind/sdk/x/upgrade';
import type { ValidatorsKeeper } from '@chaind/sdk/x/validators';

/** The keepers of the modules every release has: what migrations, new modules and hooks may use. */
export interface ChainKeepers {
  readonly upgrade: UpgradeKeeper;
  readonly accounts: AccountKeeper;
  readonly bank: BankKeeper;
  readonly validators: ValidatorsKeeper;
  readonly gov: GovKeeper;
}

/** Moves one module's state from consensus version N - 1 to N (the Cosmos SDK's RegisterMigration handler). */
export type ModuleMigration = (ctx: Context, k: ChainKeepers) => void;

/** Runs in the upgrade block, after every module migrated. */
export type UpgradeHook = (ctx: Context, plan: Plan) => void;

/**
 * What one upgrade does to one module (any module: the SDK's, or one an earlier upgrade added).
 * - a module this upgrade adds: `create` and `consensusVersion` equal to the created module's;
 * - an existing module migrated: `consensusVersion` one more than before, and `migrate` to it;
 * - an existing module not migrated (only `storeKey` or `onEveryUpgrade` change): the same version, no `migrate`.
 *
 * A chain started from a later release's genesis runs the module's InitGenesis and then every one of
 * its migrations in order, so it reaches the same layout as a chain that was upgraded: there is no
 * separate genesis hook to keep in step with the migrations.
 */
export interface ModuleUpgrade {
  readonly consensusVersion: bigint;
  /** The module this upgrade adds; its store must be in `storeUpgrades.added`. */
  readonly create?: (k: ChainKeepers) => AppModule;
  readonly migrate?: ModuleMigration;
  /** The module's store from this upgrade on (a store in `storeUpgrades.renamed`); validators only. */
  readonly storeKey?: string;
  /**
   * Runs after the migrations of this and every later upgrade (e.g. chaininfo records each upgrade).
   * It writes this version's layout, so an upgrade that migrates the module must restate it.
   */
  readonly onEveryUpgrade?: UpgradeHook;
  /** The chain's applied upgrades, when this module keeps them (chaininfo): the upgrade dashboard shows them. */
  readonly history?: UpgradeHistory;
}

/** The applied upgrades a module records, read from its store. */
export type UpgradeHistory = (ctx: Context) => { name: string; height: bigint }[];

/**
 * One upgrade of this chain (one folder under src/upgrades/): its name (the governance plan's), the
 * store changes it makes, and per module name what it changes. Its handler is always the same: every
 * module to its consensus version (`runMigrations`), then `afterMigrations`, then the `onEveryUpgrade`
 * hooks of the modules present. The module set and versions are a function of the upgrade list.
 */
export interface Upgrade {
  readonly name: string;
  readonly storeUpgrades: StoreUpgrades;
  readonly modules?: Readonly<Record<string, ModuleUpgrade>>;
  /** Work of this upgrade that belongs to no module's migration; throw to fail the upgrade. */
  readonly afterMigrations?: (ctx: Context, plan: Plan, k: ChainKeepers) => void;
}

import type { AppModule, ModuleManager } from '@chaind/sdk/app';
import type { StoreUpgrades } from '@chaind/sdk/store';
import type { UpgradeHandler } from '@chaind/sdk/x/upgrade';
import type { ValidatorsModuleOptions } from '@chaind/sdk/x/validators';

/** What an upgrade handler may use: the app's module manager (for runMigrations). */
export interface UpgradeDeps {
  readonly modules: ModuleManager;
}

/** Options of the modules every release has; upgrades change them from their release on. */
export interface ChainModuleOptions {
  readonly validators: ValidatorsModuleOptions;
}

/** The options of the first release (v1, the genesis release). */
export const GENESIS_MODULE_OPTIONS: ChainModuleOptions = { validators: {} };

/**
 * One upgrade of this chain (one folder under src/upgrades/): its name (the governance plan's), the
 * store changes it makes, the modules it introduces, how it changes existing modules, and its handler.
 */
export interface Upgrade {
  readonly name: string;
  readonly storeUpgrades: StoreUpgrades;
  /** Modules first present from this upgrade on. */
  readonly modules?: () => readonly AppModule[];
  /**
   * Changes to existing modules from this upgrade on (a renamed store key, a raised consensus version
   * with its migrations); applied in upgrade order, so the module set is a function of the upgrade list.
   */
  readonly moduleOptions?: (o: ChainModuleOptions) => ChainModuleOptions;
  readonly handler: (deps: UpgradeDeps) => UpgradeHandler;
}

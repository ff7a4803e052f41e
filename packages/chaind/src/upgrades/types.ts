import type { AppModule, ModuleManager } from '@chaind/sdk/app';
import type { StoreUpgrades } from '@chaind/sdk/store';
import type { UpgradeHandler } from '@chaind/sdk/x/upgrade';

/** What an upgrade handler may use: the app's module manager (for runMigrations). */
export interface UpgradeDeps {
  readonly modules: ModuleManager;
}

/**
 * One upgrade of this chain (one folder under src/upgrades/): its name (the governance plan's), the
 * store changes it makes, the modules it introduces, and its handler.
 */
export interface Upgrade {
  readonly name: string;
  readonly storeUpgrades: StoreUpgrades;
  /** Modules first present from this upgrade on. */
  readonly modules?: () => readonly AppModule[];
  readonly handler: (deps: UpgradeDeps) => UpgradeHandler;
}

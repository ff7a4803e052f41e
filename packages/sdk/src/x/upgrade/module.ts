import type { AppModule, Configurator, Context } from '../../app/index.ts';
import { UpgradeKeeper, type UpgradeKeeperOptions } from './keeper.ts';
import { MODULE_NAME, STORE_KEY } from './keys.ts';
import { registerMsgServer } from './msg-server.ts';
import { registerQueryServer } from './query-server.ts';

export interface UpgradeModule extends AppModule {
  readonly keeper: UpgradeKeeper;
}

/** x/upgrade: no genesis state of its own (export is `{}`); it must be the app's first pre-blocker. */
export function upgradeModule(opts: UpgradeKeeperOptions): UpgradeModule {
  const keeper = new UpgradeKeeper(opts);
  return {
    name: MODULE_NAME,
    storeKeys: [STORE_KEY],
    consensusVersion: 1n,
    keeper,
    defaultGenesis: () => ({}),
    validateGenesis(g: unknown) {
      if (typeof g !== 'object' || g === null || Array.isArray(g) || Object.keys(g).length > 0) {
        throw new Error('upgrade genesis must be {}: the upgrade module has no genesis state');
      }
    },
    initGenesis: (ctx: Context) => keeper.initGenesis(ctx),
    exportGenesis: () => ({}),
    registerServices(cfg: Configurator) {
      registerMsgServer(cfg, keeper);
      registerQueryServer(cfg, keeper);
    },
    preBlock: (ctx: Context) => keeper.preBlock(ctx),
  };
}

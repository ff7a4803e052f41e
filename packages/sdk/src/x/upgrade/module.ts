import type { AppModule, Configurator, Context } from '../../app/index.ts';
import { UpgradeKeeper, type UpgradeKeeperOptions } from './keeper.ts';
import { MODULE_NAME, STORE_KEY } from './keys.ts';
import { registerMsgServer } from './msg-server.ts';
import { registerQueryServer } from './query-server.ts';
import { DEFAULT_PARAMS, paramsEqual, paramsFromJSON, paramsToJSON } from './params.ts';
import { parseGenesis, type UpgradeGenesisJSON } from './genesis.ts';

export interface UpgradeModule extends AppModule {
  readonly keeper: UpgradeKeeper;
}

/** x/upgrade: no genesis state but its params (export is `{}` while they are the defaults, as the SDK's); it must be the app's first pre-blocker. */
export function upgradeModule(opts: UpgradeKeeperOptions): UpgradeModule {
  const keeper = new UpgradeKeeper(opts);
  return {
    name: MODULE_NAME,
    storeKeys: [STORE_KEY],
    consensusVersion: 1n,
    keeper,
    defaultGenesis: () => ({}),
    validateGenesis(g: unknown) {
      parseGenesis(g);
    },
    initGenesis(ctx: Context, g: unknown) {
      keeper.initGenesis(ctx);
      const { params } = parseGenesis(g ?? {});
      if (params !== undefined) keeper.setParams(ctx, paramsFromJSON(params));
    },
    exportGenesis(ctx: Context): UpgradeGenesisJSON {
      const p = keeper.getParams(ctx);
      return paramsEqual(p, DEFAULT_PARAMS) ? {} : { params: paramsToJSON(p) };
    },
    registerServices(cfg: Configurator) {
      registerMsgServer(cfg, keeper);
      registerQueryServer(cfg, keeper);
    },
    preBlock: (ctx: Context) => keeper.preBlock(ctx),
  };
}

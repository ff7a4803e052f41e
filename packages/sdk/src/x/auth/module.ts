import type { AppModule } from '../../app/module.ts';
import { defaultGenesis, exportGenesis, initGenesis, parseGenesis } from './genesis.ts';
import type { AccountKeeper } from './keeper.ts';
import { MODULE_NAME, STORE_KEY } from './keys.ts';
import { AuthQueryDefinition, authQueryServer } from './query-server.ts';

export interface AuthModuleOptions {
  readonly keeper: AccountKeeper;
}

/** x/auth: accounts, params and the cosmos.auth.v1beta1.Query service. The ante handler is wired by the app (`newAnteHandler`). */
export function authModule(o: AuthModuleOptions): AppModule {
  const k = o.keeper;
  return {
    name: MODULE_NAME,
    storeKeys: [STORE_KEY],
    consensusVersion: 1n,
    defaultGenesis,
    validateGenesis: (g) => void parseGenesis(g, k),
    initGenesis: (ctx, g) => initGenesis(ctx, k, g),
    exportGenesis: (ctx) => exportGenesis(ctx, k),
    registerServices(cfg) {
      cfg.queryRouter.registerService(AuthQueryDefinition, authQueryServer(k));
    },
  };
}

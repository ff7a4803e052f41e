import type { Context } from '../../app/context.ts';
import type { AppModule } from '../../app/module.ts';
import { endBlocker } from './abci.ts';
import { defaultGenesis, exportGenesis, initGenesis, parseGenesis, type GovGenesisJSON } from './genesis.ts';
import { GovKeeper, type GovKeeperOptions } from './keeper.ts';
import { MODULE_NAME, STORE_KEY } from './keys.ts';
import { registerGovMsgServer } from './msg-server.ts';
import { registerGovQueryServer } from './query-server.ts';

export interface GovModule extends AppModule {
  /** Gov's state and dependencies: what the functions of proposals.ts, deposits.ts, votes.ts and tally.ts take. */
  readonly keeper: GovKeeper;
  defaultGenesis(): GovGenesisJSON;
  exportGenesis(ctx: Context): GovGenesisJSON;
}

export type GovModuleOptions = GovKeeperOptions;

/**
 * cosmos.gov.v1 in the store "gov": proposals whose messages run with the gov module account as
 * their authority, deposits, (weighted) votes by validator power, and the tally in EndBlock.
 * In the init-genesis order gov comes after auth and bank (it creates its module account and checks
 * that account's balance against the deposits).
 */
export function govModule(o: GovModuleOptions): GovModule {
  const keeper = new GovKeeper(o);
  return {
    name: MODULE_NAME,
    storeKeys: [STORE_KEY],
    consensusVersion: 1n,
    keeper,
    defaultGenesis: () => defaultGenesis(keeper.bondDenom),
    validateGenesis(genesis) {
      parseGenesis(genesis, keeper);
    },
    initGenesis(ctx, genesis) {
      initGenesis(ctx, keeper, genesis);
    },
    exportGenesis: (ctx) => exportGenesis(ctx, keeper),
    registerServices(cfg) {
      keeper.useMsgRouter(cfg.msgRouter);
      registerGovMsgServer(cfg.msgRouter, keeper);
      registerGovQueryServer(cfg.queryRouter, keeper);
    },
    endBlock(ctx) {
      endBlocker(ctx, keeper);
    },
  };
}

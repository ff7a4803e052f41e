import type { Context } from '../../app/context.ts';
import type { AppModule } from '../../app/module.ts';
import { defaultBankGenesis, exportBankGenesis, initBankGenesis, parseBankGenesis, type BankGenesisJSON } from './genesis.ts';
import { BankKeeper, type BankKeeperOptions } from './keeper.ts';
import { MODULE_NAME, STORE_KEY } from './keys.ts';
import { registerBankMsgServer } from './msg-server.ts';
import { registerBankQueryServer } from './query-server.ts';

export interface BankModule extends AppModule {
  /** For the modules that move coins: auth's fee deduction, gov's deposits, staking's pools. */
  readonly keeper: BankKeeper;
  defaultGenesis(): BankGenesisJSON;
  exportGenesis(ctx: Context): BankGenesisJSON;
}

export type BankModuleOptions = BankKeeperOptions;

/** cosmos.bank.v1beta1: balances, supply, MsgSend and the bank queries, in the store "bank". */
export function bankModule(opts: BankModuleOptions): BankModule {
  const keeper = new BankKeeper(opts);
  return {
    name: MODULE_NAME,
    storeKeys: [STORE_KEY],
    consensusVersion: 1n,
    keeper,
    defaultGenesis: defaultBankGenesis,
    validateGenesis(genesis) {
      parseBankGenesis(genesis, keeper);
    },
    initGenesis(ctx, genesis) {
      initBankGenesis(ctx, keeper, genesis);
    },
    exportGenesis(ctx) {
      return exportBankGenesis(ctx, keeper);
    },
    registerServices(cfg) {
      registerBankMsgServer(cfg.msgRouter, keeper);
      registerBankQueryServer(cfg.queryRouter, keeper);
    },
  };
}

import type { Context } from '../../app/context.ts';
import type { AppModule } from '../../app/module.ts';
import { defaultValidatorsGenesis, exportValidatorsGenesis, initValidatorsGenesis, parseValidatorsGenesis, type ValidatorsGenesisJSON } from './genesis.ts';
import { ValidatorsKeeper, type ValidatorsKeeperOptions } from './keeper.ts';
import { MODULE_NAME } from './keys.ts';

export interface ValidatorsModule extends AppModule {
  /** For governance (`keeper.votingPower`) and the node (`keeper.abciValidators` for InitChain). */
  readonly keeper: ValidatorsKeeper;
  defaultGenesis(): ValidatorsGenesisJSON;
  exportGenesis(ctx: Context): ValidatorsGenesisJSON;
}

/**
 * A chain that moves the set to another store in an upgrade passes `storeKey`. Later consensus versions
 * and their migrations are the chain's to declare (chaind: its upgrade list), as for every module.
 */
export type ValidatorsModuleOptions = ValidatorsKeeperOptions;

/** The genesis validator set, in the store "validators" (or `storeKey`). No messages, queries or block hooks. */
export function validatorsModule(opts: ValidatorsModuleOptions = {}): ValidatorsModule {
  const keeper = new ValidatorsKeeper(opts);
  return {
    name: MODULE_NAME,
    storeKeys: [keeper.storeKey],
    consensusVersion: 1n,
    keeper,
    defaultGenesis: defaultValidatorsGenesis,
    validateGenesis(genesis) {
      parseValidatorsGenesis(genesis, keeper);
    },
    initGenesis(ctx, genesis) {
      initValidatorsGenesis(ctx, keeper, genesis);
      return keeper.abciValidators(ctx);
    },
    exportGenesis(ctx) {
      return exportValidatorsGenesis(ctx, keeper);
    },
  };
}

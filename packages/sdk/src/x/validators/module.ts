import type { Context } from '../../app/context.ts';
import type { AppModule } from '../../app/module.ts';
import { defaultValidatorsGenesis, exportValidatorsGenesis, initValidatorsGenesis, parseValidatorsGenesis, type ValidatorsGenesisJSON } from './genesis.ts';
import { ValidatorsKeeper, type ValidatorsKeeperOptions } from './keeper.ts';
import { VALIDATORS_MODULE_NAME } from './keys.ts';

export interface ValidatorsModule extends AppModule {
  /** For governance (`keeper.votingPower`) and the node (`keeper.abciValidators` for InitChain). */
  readonly keeper: ValidatorsKeeper;
  defaultGenesis(): ValidatorsGenesisJSON;
  exportGenesis(ctx: Context): ValidatorsGenesisJSON;
}

/** Moves the module's state from `from` to `from + 1`. */
export interface ValidatorsMigration {
  readonly from: bigint;
  readonly migrate: (ctx: Context, keeper: ValidatorsKeeper) => void;
}

/**
 * A chain that changes the module's layout in an upgrade raises `consensusVersion`, supplies the
 * migrations up to it, and `afterInitGenesis` so a chain started at the new version gets the same state.
 */
export interface ValidatorsModuleOptions extends ValidatorsKeeperOptions {
  /** Default 1. */
  readonly consensusVersion?: bigint;
  readonly migrations?: readonly ValidatorsMigration[];
  readonly afterInitGenesis?: (ctx: Context, keeper: ValidatorsKeeper) => void;
}

/** The genesis validator set, in the store "validators" (or `storeKey`). No messages, queries or block hooks. */
export function validatorsModule(opts: ValidatorsModuleOptions = {}): ValidatorsModule {
  const keeper = new ValidatorsKeeper(opts);
  return {
    name: VALIDATORS_MODULE_NAME,
    storeKeys: [keeper.storeKey],
    consensusVersion: opts.consensusVersion ?? 1n,
    keeper,
    registerServices(cfg) {
      for (const m of opts.migrations ?? []) cfg.registerMigration(VALIDATORS_MODULE_NAME, m.from, (ctx) => m.migrate(ctx, keeper));
    },
    defaultGenesis: defaultValidatorsGenesis,
    validateGenesis(genesis) {
      parseValidatorsGenesis(genesis, keeper);
    },
    initGenesis(ctx, genesis) {
      initValidatorsGenesis(ctx, keeper, genesis);
      opts.afterInitGenesis?.(ctx, keeper);
      return keeper.abciValidators(ctx);
    },
    exportGenesis(ctx) {
      return exportValidatorsGenesis(ctx, keeper);
    },
  };
}

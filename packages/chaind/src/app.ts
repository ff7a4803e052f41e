import { SignaturePreverifier } from '@chaind/sdk/admission';
import { BaseApp, ModuleManager, nopLogger, type AppModule, type Logger } from '@chaind/sdk/app';
import { moduleAddress } from '@chaind/sdk/crypto';
import { CommitMultiStore } from '@chaind/sdk/store';
import type { DecodedTx } from '@chaind/sdk/tx';
import { AccountKeeper, authModule, newAnteHandler, signaturesToPreverify } from '@chaind/sdk/x/auth';
import { bankModule, type BankKeeper, type BankModule } from '@chaind/sdk/x/bank';
import { govModule, type GovKeeper, type GovModule } from '@chaind/sdk/x/gov';
import { chooseStoreLoader, upgradeModule, type UpgradeKeeper, type UpgradeModule } from '@chaind/sdk/x/upgrade';
import { validatorsModule, type ValidatorsKeeper, type ValidatorsModule } from '@chaind/sdk/x/validators';
import { GENESIS_MODULE_OPTIONS, UPGRADES, type ChainModuleOptions, type Upgrade } from './upgrades/index.ts';
import { CHAIND_VERSION } from './version.ts';

export const APP_NAME = 'chaind';
export const FEE_COLLECTOR = 'fee_collector';
/** The upgrade authority: the gov module account. */
export const GOV_AUTHORITY = moduleAddress('gov');

export interface ChainAppOptions {
  /** The LMDB state directory (`<home>/data/application.db`). */
  readonly dbPath: string;
  /** `<home>/data/upgrade-info.json`; without it the old binary halts without writing the file. */
  readonly upgradeInfoPath?: string;
  readonly chainId?: string;
  readonly logger?: Logger;
  /** `--unsafe-skip-upgrades` */
  readonly skipUpgradeHeights?: ReadonlySet<bigint>;
  /** The upgrades this binary knows (default: all of this release's). */
  readonly upgrades?: readonly Upgrade[];
  /** The node's minimum gas prices, e.g. [{denom: 'stake', amount: '0.025'}]. */
  readonly minGasPrices?: readonly { denom: string; amount: string }[];
  /** Most gas a simulation may use (app.toml query-gas-limit; undefined or 0: unmetered). */
  readonly simulationGasLimit?: bigint;
  /** Largest tx a simulation runs (the mempool's max_tx_bytes: a bigger tx could never be broadcast). */
  readonly simulationMaxTxBytes?: number;
  /** Worker threads verifying signatures ahead of CheckTx (`preverify`); default one per core beyond the first, at most 4; 0: none. */
  readonly verifyThreads?: number;
}

export interface ChainApp {
  readonly app: BaseApp<DecodedTx>;
  /**
   * Verifies the signatures of a tx about to be checked on worker threads (started on first use), so the
   * ante handler finds them verified; resolves when done, and is undefined when there is nothing to wait
   * for (no thread, not a tx, or every signature already known). Never fails and never decides admission.
   */
  preverify(tx: Uint8Array): Promise<unknown> | undefined;
  /** CheckTx refused this pre-verified tx (the same bytes object): what pre-verification cached for it goes. */
  refused(tx: Uint8Array): void;
  readonly upgrade: UpgradeKeeper;
  readonly accounts: AccountKeeper;
  readonly bank: BankKeeper;
  readonly validators: ValidatorsKeeper;
  readonly gov: GovKeeper;
  close(): Promise<void>;
}

/** The chain's modules and keepers, without a store: genesis tooling needs them as well as the app. */
export interface ChainModules {
  readonly modules: ModuleManager;
  readonly upgrade: UpgradeModule;
  readonly accounts: AccountKeeper;
  readonly bank: BankModule;
  readonly validators: ValidatorsModule;
  readonly gov: GovModule;
}

export interface ChainModulesOptions {
  readonly upgradeInfoPath?: string;
  readonly skipUpgradeHeights?: ReadonlySet<bigint>;
  readonly upgrades?: readonly Upgrade[];
  readonly logger?: Logger;
  readonly onProtocolVersion?: (v: bigint) => void;
}

/** upgrade (the first and only pre-blocker), auth, bank, validators, gov, and the known upgrades' modules. */
export function chainModules(o: ChainModulesOptions = {}): ChainModules {
  const upgrades = o.upgrades ?? UPGRADES;
  const accounts = new AccountKeeper({ moduleAccounts: { [FEE_COLLECTOR]: [], gov: ['burner'] } });
  // versionMap runs only after `modules` exists (at InitChain)
  const upgrade = upgradeModule({
    authority: GOV_AUTHORITY,
    upgradeInfoPath: o.upgradeInfoPath,
    skipHeights: o.skipUpgradeHeights,
    versionMap: () => modules.getVersionMap(),
    onProtocolVersion: o.onProtocolVersion,
    logger: o.logger ?? nopLogger,
  });
  const bank = bankModule();
  const validators = validatorsModule(moduleOptions(upgrades).validators);
  const gov = govModule({ bank: bank.keeper, accounts, votingPower: validators.keeper.votingPower });
  const extra: AppModule[] = upgrades.flatMap((u) => [...(u.modules?.() ?? [])]);
  const modules = new ModuleManager([upgrade, authModule({ keeper: accounts }), bank, validators, gov, ...extra]);
  return { modules, upgrade, accounts, bank, validators, gov };
}

/** Gives the upgrade keeper every known upgrade's handler (the app at start-up, and the upgrade dry run). */
export function setUpgradeHandlers(keeper: UpgradeKeeper, upgrades: readonly Upgrade[], modules: ModuleManager): void {
  for (const u of upgrades) keeper.setUpgradeHandler(u.name, u.handler({ modules }));
}

/** The options of the modules every release has, as changed by each upgrade in turn. */
export function moduleOptions(upgrades: readonly Upgrade[]): ChainModuleOptions {
  return upgrades.reduce((o, u) => u.moduleOptions?.(o) ?? o, GENESIS_MODULE_OPTIONS);
}

/**
 * Wires the chain: its modules, the ante handler, the upgrade handlers, and, when upgrade-info.json
 * names an upgrade this binary knows, that upgrade's store loader. Loads the store.
 */
export function createChainApp(o: ChainAppOptions): ChainApp {
  const logger = o.logger ?? nopLogger;
  const upgrades = o.upgrades ?? UPGRADES;
  const { modules, upgrade, accounts, bank, validators, gov } = chainModules({
    upgradeInfoPath: o.upgradeInfoPath,
    skipUpgradeHeights: o.skipUpgradeHeights,
    upgrades,
    logger,
    // runs only after `app` exists (at an upgrade)
    onProtocolVersion: (v) => {
      app.appVersion = v;
    },
  });
  const preverifier: SignaturePreverifier = new SignaturePreverifier({
    threads: o.verifyThreads,
    logger,
    // runs only after `app` exists (at a tx's pre-verification)
    signaturesOf: (tx) => app.withQueryContext((ctx) => signaturesToPreverify(ctx, accounts, modules.msgRouter, tx)),
  });
  const app = new BaseApp<DecodedTx>({
    name: APP_NAME,
    version: CHAIND_VERSION,
    store: CommitMultiStore.open(o.dbPath),
    modules,
    txDecoder: preverifier.decodeTx,
    chainId: o.chainId,
    logger,
    simulationGasLimit: o.simulationGasLimit === 0n ? undefined : o.simulationGasLimit,
    simulationMaxTxBytes: o.simulationMaxTxBytes,
  });
  app.setAnteHandler(
    newAnteHandler({
      accountKeeper: accounts,
      msgRouter: modules.msgRouter,
      deductFee: bank.keeper.deductFeeTo(FEE_COLLECTOR),
      minGasPrices: o.minGasPrices,
      verifiedSignatures: preverifier.verified,
    }),
  );
  setUpgradeHandlers(upgrade.keeper, upgrades, modules);
  try {
    const loader = chooseStoreLoader(app.store, o.upgradeInfoPath, upgrades, o.skipUpgradeHeights);
    if (loader !== undefined) app.setStoreLoader(loader);
    app.load();
    app.appVersion = readProtocolVersion(app, upgrade.keeper);
  } catch (e) {
    // a binary that cannot start must not keep the database open
    void app.store.close();
    throw e;
  }
  return {
    app,
    upgrade: upgrade.keeper,
    accounts,
    bank: bank.keeper,
    validators: validators.keeper,
    gov: gov.keeper,
    preverify: (tx) => preverifier.preverify(tx),
    refused: (tx) => preverifier.refused(tx),
    close: async () => {
      await preverifier.close();
      app.releaseQuerySnapshot();
      await app.store.close();
    },
  };
}

/** The protocol version committed under key 0x3, which Info reports as the app version. */
function readProtocolVersion(app: BaseApp<DecodedTx>, k: UpgradeKeeper): bigint {
  return app.withQueryContext((ctx) => (ctx.store.hasStore('upgrade') ? k.getProtocolVersion(ctx) : 0n));
}

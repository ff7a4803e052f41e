import { SignaturePreverifier } from '@chaind/sdk/admission';
import { BaseApp, ModuleManager, nopLogger, type AppModule, type Context, type Logger } from '@chaind/sdk/app';
import { moduleAddress, type VerifiedSignaturesOptions } from '@chaind/sdk/crypto';
import { CommitMultiStore, type StoreSizeLimit } from '@chaind/sdk/store';
import type { Plan } from '@chaind/sdk/gen/chain/upgrade/v1beta1/upgrade';
import type { DecodedTx } from '@chaind/sdk/tx';
import { AccountKeeper, authModule, newAnteHandler, signaturesToPreverify } from '@chaind/sdk/x/auth';
import { bankModule, type BankKeeper, type BankModule } from '@chaind/sdk/x/bank';
import { govModule, type GovKeeper, type GovModule } from '@chaind/sdk/x/gov';
import {
  chooseStoreLoader,
  compareCompletedUpgrades,
  readinessVoteExtensions,
  STORE_KEY as UPGRADE_STORE_KEY,
  type LocalReadiness,
  upgradeModule,
  type UpgradeKeeper,
  type UpgradeModule,
} from '@chaind/sdk/x/upgrade';
import {
  consensusAddress,
  MODULE_NAME as VALIDATORS_MODULE_NAME,
  validatorsModule,
  type ValidatorsKeeper,
  type ValidatorsModule,
} from '@chaind/sdk/x/validators';
import { UPGRADES, type ChainKeepers, type Upgrade } from './upgrades/index.ts';

export { upgradesOf } from './upgrades/index.ts';
import { moduleSchedule, scheduledModule, scheduledStoreKey, upgradeHandler, UpgradeListError, type ScheduledModule } from './upgrades/schedule.ts';
import { CHAIND_VERSION } from './version.ts';

export const APP_NAME = 'chaind';
export const FEE_COLLECTOR = 'fee_collector';
/**
 * The modules that may hold coins, with their permissions (the SDK's maccPerms): bank refuses a module
 * call for a name not here, minting without 'minter' and burning without 'burner'. A module an upgrade
 * adds that holds coins is added here.
 */
export const MODULE_ACCOUNT_PERMISSIONS: Readonly<Record<string, readonly string[]>> = { [FEE_COLLECTOR]: [], gov: ['burner'] };
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
  /** Most gas a simulation, and any query, may use (app.toml query-gas-limit; undefined or 0: unmetered). */
  readonly simulationGasLimit?: bigint;
  /** Largest tx a simulation runs (the mempool's max_tx_bytes: a bigger tx could never be broadcast). */
  readonly simulationMaxTxBytes?: number;
  /** The state database's size limit (app.toml state-db-max-bytes); none when absent. */
  readonly stateDbMaxBytes?: StoreSizeLimit;
  /** Worker threads verifying signatures ahead of CheckTx (`preverify`); default one per core beyond the first, at most 4; 0: none. */
  readonly verifyThreads?: number;
  /** Bounds of the verified-signature cache (app.toml verified-signatures-cache-size / -bytes). */
  readonly verifiedSignatures?: VerifiedSignaturesOptions;
  /** What this node's own files say of the scheduled plan's release, for its vote extension; none: not prepared. */
  readonly localReadiness?: (plan: Plan) => LocalReadiness;
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
  /** The applied upgrades by height: the history a module keeps (chaininfo, from v2 on), else the upgrade module's records. */
  upgradeHistory(ctx: Context): { name: string; height: bigint }[];
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
  readonly keepers: ChainKeepers;
  /** Every module's version, migrations and hooks, from the upgrade list. */
  readonly schedule: ReadonlyMap<string, ScheduledModule>;
}

export interface ChainModulesOptions {
  readonly upgradeInfoPath?: string;
  readonly skipUpgradeHeights?: ReadonlySet<bigint>;
  readonly upgrades?: readonly Upgrade[];
  readonly logger?: Logger;
  readonly onProtocolVersion?: (v: bigint) => void;
}

/**
 * upgrade (the first and only pre-blocker), auth, bank, validators, gov, and the modules the known
 * upgrades add, each at the consensus version and with the migrations the upgrade list gives it.
 */
export function chainModules(o: ChainModulesOptions = {}): ChainModules {
  const upgrades = o.upgrades ?? UPGRADES;
  const accounts = new AccountKeeper({ moduleAccounts: MODULE_ACCOUNT_PERMISSIONS });
  // versionMap runs only after `modules` exists (at InitChain)
  const upgrade = upgradeModule({
    authority: GOV_AUTHORITY,
    upgradeInfoPath: o.upgradeInfoPath,
    skipHeights: o.skipUpgradeHeights,
    versionMap: () => modules.getVersionMap(),
    onProtocolVersion: o.onProtocolVersion,
    logger: o.logger ?? nopLogger,
    // runs only after `validators` exists (at a Readiness query)
    validators: (ctx) =>
      validators.keeper
        .getValidators(ctx)
        .map((v) => ({ operatorAddress: v.operatorAddress, moniker: v.moniker, consensusAddress: consensusAddress(v.consensusPubKey), power: v.power })),
  });
  const auth = authModule({ keeper: accounts });
  const bank = bankModule({ accounts });
  const validators = validatorsModule({ storeKey: scheduledStoreKey(upgrades, VALIDATORS_MODULE_NAME) });
  const gov = govModule({ bank: bank.keeper, accounts, votingPower: validators.keeper.votingPower });
  const base: AppModule[] = [upgrade, auth, bank, validators, gov];
  const schedule = moduleSchedule(Object.fromEntries(base.map((m) => [m.name, m.consensusVersion])), upgrades);
  const keepers: ChainKeepers = { upgrade: upgrade.keeper, accounts, bank: bank.keeper, validators: validators.keeper, gov: gov.keeper };
  const added: AppModule[] = [...schedule.values()].filter((s) => s.create !== undefined).map((s) => (s.create as (k: ChainKeepers) => AppModule)(keepers));
  const all = [...base, ...added].map((m) => {
    const s = schedule.get(m.name);
    if (s === undefined) throw new UpgradeListError(`a created module is named "${m.name}", which no upgrade declares`);
    return scheduledModule(m, s, keepers);
  });
  const modules = new ModuleManager(all);
  return { modules, upgrade, accounts, bank, validators, gov, keepers, schedule };
}

/** Gives the upgrade keeper every known upgrade's handler (the app at start-up, and the upgrade dry run). */
export function setUpgradeHandlers(chain: ChainModules, upgrades: readonly Upgrade[]): void {
  for (const u of upgrades) chain.upgrade.keeper.setUpgradeHandler(u.name, upgradeHandler(u, chain.modules, chain.schedule, chain.keepers));
}

/** Each module's consensus version in the app of this upgrade list (a pure function of the list). */
export function moduleVersions(upgrades: readonly Upgrade[]): Record<string, bigint> {
  return chainModules({ upgrades }).modules.getVersionMap();
}

/**
 * Wires the chain: its modules, the ante handler, the upgrade handlers, and, when upgrade-info.json
 * names an upgrade this binary knows, that upgrade's store loader. Loads the store.
 */
export function createChainApp(o: ChainAppOptions): ChainApp {
  const logger = o.logger ?? nopLogger;
  const upgrades = o.upgrades ?? UPGRADES;
  const chain: ChainModules = chainModules({
    upgradeInfoPath: o.upgradeInfoPath,
    skipUpgradeHeights: o.skipUpgradeHeights,
    upgrades,
    logger,
    // runs only after `app` exists (at an upgrade)
    onProtocolVersion: (v) => {
      app.appVersion = v;
    },
  });
  const { modules, upgrade, accounts, bank, validators, gov } = chain;
  const queryGasLimit = o.simulationGasLimit === 0n ? undefined : o.simulationGasLimit;
  const preverifier: SignaturePreverifier = new SignaturePreverifier({
    threads: o.verifyThreads,
    cache: o.verifiedSignatures,
    logger,
    // runs only after `app` exists (at a tx's pre-verification)
    signaturesOf: (tx) => app.withQueryContext((ctx) => signaturesToPreverify(ctx, accounts, modules.msgRouter, tx)),
  });
  const app = new BaseApp<DecodedTx>({
    name: APP_NAME,
    version: CHAIND_VERSION,
    store: CommitMultiStore.open(o.dbPath, o.stateDbMaxBytes === undefined ? {} : { sizeLimit: o.stateDbMaxBytes }),
    modules,
    txDecoder: preverifier.decodeTx,
    chainId: o.chainId,
    logger,
    // app.toml query-gas-limit bounds both, as free requests; 0 leaves both unmetered
    simulationGasLimit: queryGasLimit,
    queryGasLimit,
    simulationMaxTxBytes: o.simulationMaxTxBytes,
    voteExtensions: readinessVoteExtensions({
      plan: (ctx) => upgrade.keeper.attestedPlan(ctx),
      local: o.localReadiness,
      consensusKey: (ctx, address) => validators.keeper.getValidatorByConsAddress(ctx, address)?.consensusPubKey,
      logger,
    }),
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
  setUpgradeHandlers(chain, upgrades);
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
    upgradeHistory: (ctx) => upgradeHistoryOf(ctx, chain.schedule, upgrade.keeper),
    preverify: (tx) => preverifier.preverify(tx),
    refused: (tx) => preverifier.refused(tx),
    close: async () => {
      await preverifier.close();
      app.releaseQuerySnapshot();
      await app.store.close();
    },
  };
}

function upgradeHistoryOf(ctx: Context, schedule: ReadonlyMap<string, ScheduledModule>, upgrade: UpgradeKeeper): { name: string; height: bigint }[] {
  // a module's history keeps the upgrades imported at genesis too; the upgrade module's, only those applied here
  const keeper = [...schedule.values()].find((s) => s.history !== undefined && ctx.store.hasStore(s.storeKey ?? s.name));
  if (keeper?.history === undefined) return upgrade.getDoneUpgrades(ctx);
  return keeper.history(ctx).sort(compareCompletedUpgrades);
}

/** The protocol version committed under key 0x3, which Info reports as the app version. */
function readProtocolVersion(app: BaseApp<DecodedTx>, k: UpgradeKeeper): bigint {
  return app.withQueryContext((ctx) => (ctx.store.hasStore(UPGRADE_STORE_KEY) ? k.getProtocolVersion(ctx) : 0n));
}

import { ChaindError } from '@chaind/errors';
import type { ValidatorUpdate } from 'cosmjs-types/tendermint/abci/types';
import type { Context } from './context.ts';
import { MsgRouter, QueryRouter } from './router.ts';
import type { AppModule, Configurator, MigrationHandler, VersionMap } from './module.ts';

type Phase = 'preBlock' | 'beginBlock' | 'endBlock' | 'initGenesis' | 'exportGenesis' | 'migrations';

export class ModuleManagerError extends ChaindError<'module-manager'> {
  override readonly name: string = 'ModuleManagerError';
  constructor(message: string, options?: ErrorOptions) {
    super('module-manager', message, options);
  }
}

/** A genesis app_state key no module of this app has (a genesis written by another program or a newer release). */
export class UnknownGenesisModuleError extends ModuleManagerError {
  override readonly name = 'UnknownGenesisModuleError';
  constructor(readonly moduleName: string) {
    super(`genesis app_state has an unknown module "${moduleName}"`);
  }
}

/**
 * Holds the app's modules, the order each phase runs them in, and the migrations between consensus
 * versions. Orders default to registration order, except migrations: name order with "auth" last,
 * as the Cosmos SDK's DefaultMigrationsOrder (auth depends on other modules' accounts).
 */
export class ModuleManager {
  readonly modules: ReadonlyMap<string, AppModule>;
  private readonly orders = new Map<Phase, string[]>();
  private readonly migrations = new Map<string, Map<bigint, MigrationHandler>>();
  readonly msgRouter = new MsgRouter();
  readonly queryRouter = new QueryRouter();

  constructor(modules: readonly AppModule[]) {
    const m = new Map<string, AppModule>();
    for (const mod of modules) {
      if (m.has(mod.name)) throw new ModuleManagerError(`module "${mod.name}" is registered twice`);
      if (mod.consensusVersion < 1n) throw new ModuleManagerError(`module "${mod.name}" must have a consensus version of at least 1`);
      m.set(mod.name, mod);
    }
    this.modules = m;
    const names = modules.map((x) => x.name);
    for (const p of ['preBlock', 'beginBlock', 'endBlock', 'initGenesis', 'exportGenesis'] as const) this.orders.set(p, names);
    const mig = [...names].sort().filter((n) => n !== 'auth');
    if (m.has('auth')) mig.push('auth');
    this.orders.set('migrations', mig);
  }

  /** Sets the order of a phase; it must name every module exactly once. */
  setOrder(phase: Phase, names: readonly string[]): void {
    const want = [...this.modules.keys()].sort().join(',');
    const got = [...names].sort().join(',');
    if (want !== got || new Set(names).size !== names.length) {
      throw new ModuleManagerError(`order of ${phase} must list every module exactly once: expected [${want}], got [${names.join(',')}]`);
    }
    this.orders.set(phase, [...names]);
  }

  order(phase: Phase): AppModule[] {
    return (this.orders.get(phase) as string[]).map((n) => this.modules.get(n) as AppModule);
  }

  storeKeys(): string[] {
    return [...this.modules.values()].flatMap((m) => m.storeKeys);
  }

  /** Wires every module's services and migrations into the shared routers. */
  registerServices(): void {
    const cfg: Configurator = {
      msgRouter: this.msgRouter,
      queryRouter: this.queryRouter,
      registerMigration: (name, from, handler) => this.registerMigration(name, from, handler),
    };
    for (const m of this.modules.values()) m.registerServices?.(cfg);
  }

  registerMigration(moduleName: string, fromVersion: bigint, handler: MigrationHandler): void {
    if (!this.modules.has(moduleName)) throw new ModuleManagerError(`cannot register a migration for unknown module "${moduleName}"`);
    if (fromVersion < 1n) throw new ModuleManagerError(`module migration versions should start at 1: module "${moduleName}", version ${fromVersion}`);
    let byVersion = this.migrations.get(moduleName);
    if (byVersion === undefined) this.migrations.set(moduleName, (byVersion = new Map()));
    if (byVersion.has(fromVersion)) {
      throw new ModuleManagerError(`another migration for module "${moduleName}" and version ${fromVersion} already exists`);
    }
    byVersion.set(fromVersion, handler);
  }

  /** Every module at its current consensus version. */
  getVersionMap(): VersionMap {
    const vm: VersionMap = {};
    for (const name of [...this.modules.keys()].sort()) vm[name] = (this.modules.get(name) as AppModule).consensusVersion;
    return vm;
  }

  /**
   * Brings every module from `fromVM` to its consensus version: registered migrations from → to-1 in
   * turn; a module absent from `fromVM` is new and gets InitGenesis with its default genesis.
   * Returns exactly the manager's modules at their target versions.
   */
  runMigrations(ctx: Context, fromVM: VersionMap): VersionMap {
    for (const m of this.order('migrations')) {
      const to = m.consensusVersion;
      const from = Object.hasOwn(fromVM, m.name) ? fromVM[m.name] : undefined;
      if (from === undefined) {
        ctx.logger.info(`adding a new module: ${m.name}`);
        if (m.initGenesis) m.initGenesis(ctx, m.defaultGenesis?.() ?? {});
        continue;
      }
      if (from > to) {
        throw new ModuleManagerError(`module "${m.name}" is at version ${from} on chain but this binary has version ${to}: cannot migrate backwards`);
      }
      for (let v = from; v < to; v++) {
        const step = this.migrations.get(m.name)?.get(v);
        if (step === undefined) throw new ModuleManagerError(`no migration registered for module "${m.name}" from version ${v} to ${v + 1n}`);
        step(ctx);
      }
    }
    return this.getVersionMap();
  }

  /** Validates a genesis app_state: every key a known module, every module's part valid. */
  validateGenesis(appState: Record<string, unknown>): void {
    for (const name of Object.keys(appState).sort()) {
      if (!this.modules.has(name)) throw new UnknownGenesisModuleError(name);
    }
    for (const m of this.modules.values()) {
      if (appState[m.name] !== undefined) m.validateGenesis?.(appState[m.name]);
    }
  }

  /** Runs every module's InitGenesis; returns the validator set a module reported, if any. */
  initGenesis(ctx: Context, appState: Record<string, unknown>): ValidatorUpdate[] | undefined {
    this.validateGenesis(appState);
    let validators: ValidatorUpdate[] | undefined;
    for (const m of this.order('initGenesis')) {
      const v = m.initGenesis?.(ctx, appState[m.name] ?? m.defaultGenesis?.() ?? {});
      if (Array.isArray(v)) {
        if (validators !== undefined) throw new ModuleManagerError(`module "${m.name}" returns genesis validators, but another module already did`);
        validators = v;
      }
    }
    return validators;
  }

  exportGenesis(ctx: Context): Record<string, unknown> {
    const out: Record<string, unknown> = {};
    for (const m of this.order('exportGenesis')) if (m.exportGenesis) out[m.name] = m.exportGenesis(ctx);
    return out;
  }
}

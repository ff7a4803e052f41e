// The module schedule: every module's consensus version, migrations, store key and per-upgrade hook, as
// a pure function of the genesis modules and the upgrade list (the Cosmos SDK's ConsensusVersion and
// configurator.RegisterMigration, declared per upgrade instead of per module).
import { ChaindError } from '@chaind/errors';
import type { AppModule, ModuleManager } from '@chaind/sdk/app';
import type { UpgradeHandler } from '@chaind/sdk/x/upgrade';
import { MODULE_NAME as VALIDATORS } from '@chaind/sdk/x/validators';
import type { ChainKeepers, ModuleMigration, Upgrade, UpgradeHistory, UpgradeHook } from './types.ts';

export class UpgradeListError extends ChaindError<'upgrade-list'> {
  override readonly name = 'UpgradeListError';
  constructor(message: string) {
    super('upgrade-list', message);
  }
}

export interface ScheduledMigration {
  readonly from: bigint;
  /** The upgrade that declared it. */
  readonly upgrade: string;
  readonly migrate: ModuleMigration;
}

export interface ScheduledModule {
  readonly name: string;
  /** The upgrade that added the module; undefined for a genesis module. */
  readonly addedBy?: string;
  readonly create?: (k: ChainKeepers) => AppModule;
  /** The version the module starts at (its own, at genesis or when an upgrade adds it). */
  readonly initialVersion: bigint;
  readonly consensusVersion: bigint;
  /** The migrations after the module was added, oldest first. */
  readonly migrations: readonly ScheduledMigration[];
  readonly storeKey?: string;
  readonly onEveryUpgrade?: { readonly upgrade: string; readonly hook: UpgradeHook };
  readonly history?: UpgradeHistory;
}

/** The modules whose store an upgrade may move (`storeKey`): the validator set (validators → valset in v2). */
const MOVABLE_STORES: ReadonlySet<string> = new Set([VALIDATORS]);

/** The store key `module` has after the upgrade list (the last upgrade to move it wins); undefined: its own. */
export function scheduledStoreKey(upgrades: readonly Upgrade[], module: string): string | undefined {
  return upgrades.reduce<string | undefined>((k, u) => u.modules?.[module]?.storeKey ?? k, undefined);
}

/**
 * Folds the upgrade list over the genesis modules (name → consensus version). Throws an
 * `UpgradeListError` naming the upgrade and module for a declaration that cannot be applied.
 */
export function moduleSchedule(genesis: Readonly<Record<string, bigint>>, upgrades: readonly Upgrade[]): Map<string, ScheduledModule> {
  const out = new Map<string, ScheduledModule>();
  for (const name of Object.keys(genesis).sort()) out.set(name, { name, initialVersion: genesis[name], consensusVersion: genesis[name], migrations: [] });
  const names = new Set<string>();
  for (const u of upgrades) {
    if (names.has(u.name)) throw new UpgradeListError(`upgrade "${u.name}" is listed twice`);
    names.add(u.name);
    const mods = u.modules ?? {};
    for (const name of Object.keys(mods).sort()) {
      const d = mods[name];
      const at = `upgrade "${u.name}", module "${name}"`;
      if (d.storeKey !== undefined && !MOVABLE_STORES.has(name))
        throw new UpgradeListError(`${at}: only the ${[...MOVABLE_STORES].join(', ')} module's store key can be changed by an upgrade`);
      const prev = out.get(name);
      if (prev === undefined) {
        if (d.create === undefined) throw new UpgradeListError(`${at}: no such module before this upgrade; a module an upgrade adds needs create`);
        if (d.migrate !== undefined) throw new UpgradeListError(`${at}: a module this upgrade adds has nothing to migrate`);
        if (d.consensusVersion < 1n) throw new UpgradeListError(`${at}: consensus version must be at least 1`);
        out.set(name, {
          name,
          addedBy: u.name,
          create: d.create,
          initialVersion: d.consensusVersion,
          consensusVersion: d.consensusVersion,
          migrations: [],
          storeKey: d.storeKey,
          onEveryUpgrade: d.onEveryUpgrade && { upgrade: u.name, hook: d.onEveryUpgrade },
          history: d.history,
        });
        continue;
      }
      if (d.create !== undefined)
        throw new UpgradeListError(`${at}: the module already exists (${prev.addedBy === undefined ? 'since genesis' : `added by "${prev.addedBy}"`})`);
      let migrations = prev.migrations;
      if (d.consensusVersion === prev.consensusVersion + 1n) {
        if (d.migrate === undefined) throw new UpgradeListError(`${at}: consensus version ${prev.consensusVersion} → ${d.consensusVersion} needs migrate`);
        if (prev.onEveryUpgrade !== undefined && d.onEveryUpgrade === undefined) {
          throw new UpgradeListError(
            `${at}: migrates the module to version ${d.consensusVersion} but does not restate its onEveryUpgrade hook (declared by "${prev.onEveryUpgrade.upgrade}" for version ${prev.consensusVersion}): give the hook for the new layout`,
          );
        }
        migrations = [...migrations, { from: prev.consensusVersion, upgrade: u.name, migrate: d.migrate }];
      } else if (d.consensusVersion === prev.consensusVersion) {
        if (d.migrate !== undefined) throw new UpgradeListError(`${at}: migrate without a new consensus version (the module is at ${prev.consensusVersion})`);
      } else {
        throw new UpgradeListError(
          `${at}: consensus version ${prev.consensusVersion} → ${d.consensusVersion}: an upgrade keeps a module's version or raises it by one`,
        );
      }
      out.set(name, {
        ...prev,
        consensusVersion: d.consensusVersion,
        migrations,
        storeKey: d.storeKey ?? prev.storeKey,
        onEveryUpgrade: d.onEveryUpgrade ? { upgrade: u.name, hook: d.onEveryUpgrade } : prev.onEveryUpgrade,
        history: d.history ?? prev.history,
      });
    }
  }
  return out;
}

/**
 * `m` as the schedule has it: its consensus version, its migrations registered with the module manager,
 * and at genesis its InitGenesis followed by every migration, so a chain started from a later genesis
 * and an upgraded chain reach the same layout.
 */
export function scheduledModule(m: AppModule, s: ScheduledModule, k: ChainKeepers): AppModule {
  if (m.name !== s.name) throw new UpgradeListError(`upgrade "${s.addedBy}": module "${s.name}" creates a module named "${m.name}"`);
  if (m.consensusVersion !== s.initialVersion) {
    throw new UpgradeListError(
      `upgrade "${s.addedBy}": module "${s.name}" is declared at consensus version ${s.initialVersion} but the created module has ${m.consensusVersion}`,
    );
  }
  if (s.migrations.length === 0) return m;
  return {
    ...m,
    consensusVersion: s.consensusVersion,
    registerServices(cfg) {
      m.registerServices?.(cfg);
      for (const step of s.migrations) cfg.registerMigration(m.name, step.from, (ctx) => step.migrate(ctx, k));
    },
    initGenesis(ctx, genesis) {
      const validators = m.initGenesis?.(ctx, genesis);
      for (const step of s.migrations) step.migrate(ctx, k);
      return validators;
    },
  };
}

/** Every upgrade's handler: all modules to their consensus versions, the upgrade's own work, then the hooks. */
export function upgradeHandler(u: Upgrade, modules: ModuleManager, schedule: ReadonlyMap<string, ScheduledModule>, k: ChainKeepers): UpgradeHandler {
  const hooks = [...schedule.keys()].sort().flatMap((n) => {
    const h = schedule.get(n)?.onEveryUpgrade;
    return h === undefined ? [] : [h.hook];
  });
  return (ctx, plan, fromVM) => {
    const toVM = modules.runMigrations(ctx, fromVM);
    u.afterMigrations?.(ctx, plan, k);
    for (const h of hooks) h(ctx, plan);
    return toVM;
  };
}

import { StoreError } from './types.ts';

export interface StoreRename {
  readonly oldKey: string;
  readonly newKey: string;
}

/** Store changes an upgrade makes, applied in the upgrade block: renames, then deletes, then adds. */
export interface StoreUpgrades {
  readonly added?: readonly string[];
  readonly renamed?: readonly StoreRename[];
  readonly deleted?: readonly string[];
}

export function isEmptyStoreUpgrades(u: StoreUpgrades): boolean {
  return (u.added?.length ?? 0) === 0 && (u.renamed?.length ?? 0) === 0 && (u.deleted?.length ?? 0) === 0;
}

/** The JSON form `{"added":[…],"renamed":[{"old_key","new_key"}],"deleted":[…]}` used by Cosmos tooling. */
export function storeUpgradesFromJSON(json: unknown): StoreUpgrades {
  if (typeof json !== 'object' || json === null || Array.isArray(json)) throw new StoreError('store upgrades must be a JSON object');
  const o = json as Record<string, unknown>;
  const names = (field: string): string[] => {
    const v = o[field];
    if (v === undefined || v === null) return [];
    if (!Array.isArray(v) || v.some((x) => typeof x !== 'string')) throw new StoreError(`store upgrades: "${field}" must be an array of store names`);
    return v as string[];
  };
  const renamedRaw = o.renamed ?? [];
  if (!Array.isArray(renamedRaw)) throw new StoreError('store upgrades: "renamed" must be an array of {old_key, new_key}');
  const renamed = renamedRaw.map((r: unknown) => {
    const x = r as Record<string, unknown> | null;
    if (typeof x?.old_key !== 'string' || typeof x?.new_key !== 'string') {
      throw new StoreError('store upgrades: each "renamed" entry needs string "old_key" and "new_key"');
    }
    return { oldKey: x.old_key, newKey: x.new_key };
  });
  return { added: names('added'), renamed, deleted: names('deleted') };
}

/** What applying store upgrades does besides renaming: the entry an added store starts with, and what a deleted one leaves. */
export interface StoreUpgradeHooks<T> {
  added(name: string): T;
  deleted?(entry: T): void;
}

/**
 * The store loader's rules: applies `u` to `stores` (name → entry) in place, renames first, then
 * deletes, then adds. Errors name the store. The multistore applies them to its layout, the upgrade
 * dry run to a read view.
 */
export function applyStoreUpgrades<T>(stores: Map<string, T>, u: StoreUpgrades, hooks: StoreUpgradeHooks<T>): void {
  for (const { oldKey, newKey } of u.renamed ?? []) {
    const entry = stores.get(oldKey);
    if (entry === undefined && !stores.has(oldKey)) throw new StoreError(`cannot rename store "${oldKey}" to "${newKey}": store "${oldKey}" does not exist`);
    if (stores.has(newKey)) throw new StoreError(`cannot rename store "${oldKey}" to "${newKey}": store "${newKey}" already exists`);
    if (newKey.length === 0) throw new StoreError(`cannot rename store "${oldKey}": the new name is empty`);
    stores.delete(oldKey);
    stores.set(newKey, entry as T);
  }
  for (const name of u.deleted ?? []) {
    const entry = stores.get(name);
    if (entry === undefined && !stores.has(name)) throw new StoreError(`cannot delete store "${name}": it does not exist`);
    stores.delete(name);
    hooks.deleted?.(entry as T);
  }
  for (const name of u.added ?? []) {
    if (name.length === 0) throw new StoreError('cannot add a store with an empty name');
    if (stores.has(name)) throw new StoreError(`cannot add store "${name}": it already exists`);
    stores.set(name, hooks.added(name));
  }
}

import { StoreError } from './types.ts';
import type { Registry } from './multistore.ts';

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

interface MutableLayout {
  registry: Registry;
  nextId: number;
  deletedIds: number[];
}

/** Applies store upgrades to a layout in place. Errors name the store and leave the caller's committed layout alone. */
export function applyStoreUpgrades(layout: MutableLayout, u: StoreUpgrades, maxId: number): void {
  const reg = layout.registry;
  for (const { oldKey, newKey } of u.renamed ?? []) {
    const info = reg.get(oldKey);
    if (info === undefined) throw new StoreError(`cannot rename store "${oldKey}" to "${newKey}": store "${oldKey}" does not exist`);
    if (reg.has(newKey)) throw new StoreError(`cannot rename store "${oldKey}" to "${newKey}": store "${newKey}" already exists`);
    if (newKey.length === 0) throw new StoreError(`cannot rename store "${oldKey}": the new name is empty`);
    reg.delete(oldKey);
    reg.set(newKey, info);
  }
  for (const name of u.deleted ?? []) {
    const info = reg.get(name);
    if (info === undefined) throw new StoreError(`cannot delete store "${name}": it does not exist`);
    reg.delete(name);
    layout.deletedIds.push(info.id);
  }
  for (const name of u.added ?? []) {
    if (name.length === 0) throw new StoreError('cannot add a store with an empty name');
    if (reg.has(name)) throw new StoreError(`cannot add store "${name}": it already exists`);
    if (layout.nextId > maxId) throw new StoreError(`cannot add store "${name}": no store ids left`);
    reg.set(name, { id: layout.nextId++, hash: new Uint8Array(0) });
  }
}

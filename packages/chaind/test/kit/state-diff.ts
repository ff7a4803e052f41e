// Test support: what one state did to another, counted key by key over every store (an oracle for the
// upgrade simulation's per-store counts, computed independently of the write sets).
import { toHex, type ReadMultiStore } from '@chaind/sdk/store';

export interface CountedStoreDiff {
  readonly name: string;
  readonly keysAdded: number;
  readonly keysChanged: number;
  readonly keysDeleted: number;
}

/** Stores whose keys differ between `before` and `after`, in name order; `renamed` maps a new store name to its old one. */
export function stateDiff(before: ReadMultiStore, after: ReadMultiStore, renamed: ReadonlyMap<string, string> = new Map()): CountedStoreDiff[] {
  const out: CountedStoreDiff[] = [];
  const sources = new Set<string>();
  for (const name of after.storeNames()) {
    const old = renamed.get(name) ?? name;
    const prev = new Map<string, string>();
    if (before.hasStore(old)) {
      sources.add(old);
      for (const e of before.getStore(old).iterator()) prev.set(toHex(e.key), toHex(e.value));
    }
    let keysAdded = 0;
    let keysChanged = 0;
    for (const e of after.getStore(name).iterator()) {
      const k = toHex(e.key);
      const v = prev.get(k);
      if (v === undefined) keysAdded++;
      else if (v !== toHex(e.value)) keysChanged++;
      prev.delete(k);
    }
    if (keysAdded + keysChanged + prev.size > 0) out.push({ name, keysAdded, keysChanged, keysDeleted: prev.size });
  }
  for (const name of before.storeNames()) {
    if (sources.has(name)) continue;
    const keysDeleted = [...before.getStore(name).iterator()].length;
    if (keysDeleted > 0) out.push({ name, keysAdded: 0, keysChanged: 0, keysDeleted });
  }
  return out.sort((a, b) => (a.name < b.name ? -1 : a.name > b.name ? 1 : 0));
}

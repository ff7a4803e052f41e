// What committing a scratch branch over a snapshot would do, without writing: the app hash the commit
// would produce (the same rules as CommitMultiStore.commit) and, per store, the keys it adds, changes
// and deletes. The upgrade simulation reports both for the upgrade block.
import { equalBytes } from '../bytes/index.ts';
import { appHashOf, nextStoreHash } from './hash.ts';
import { compareBytes } from './bytes.ts';
import type { CacheKVStore } from './cachekv.ts';
import type { BranchStore, Snapshot } from './multistore.ts';
import type { Entry } from './types.ts';
import { applyStoreUpgrades, isEmptyStoreUpgrades, type StoreUpgrades } from './upgrades.ts';

/** One store's changes. Bytes count key and value lengths; a changed key counts its value's growth (or shrink) in netBytes. */
export interface StoreDiff {
  readonly name: string;
  /** The store's name in the snapshot when a store upgrade renamed it. */
  readonly renamedFrom?: string;
  /** added / deleted: by a store upgrade; kept: the store exists before and after. */
  readonly layout: 'kept' | 'added' | 'deleted';
  readonly keysAdded: number;
  readonly keysChanged: number;
  readonly keysDeleted: number;
  /** Key and value bytes of the keys added, and the new values of the keys changed. */
  readonly bytesWritten: number;
  /** Key and value bytes of the keys deleted. */
  readonly bytesDeleted: number;
  /** How much larger the store is afterwards (negative: smaller). */
  readonly netBytes: number;
}

export interface WouldCommit {
  readonly appHash: Uint8Array;
  /** Every store that changes, in name order (deleted stores by their name in the snapshot). */
  readonly stores: readonly StoreDiff[];
}

/**
 * `branch` (a ScratchMultiStore over `upgradedView(snapshot, u)`) as the next commit would make it
 * durable after the store upgrades `u`: renamed stores keep their hash, added ones start empty, a
 * store's hash moves on only if the block wrote to it, and an unchanged layout with no writes keeps
 * the snapshot's app hash.
 */
export function wouldCommit(snapshot: Snapshot, u: StoreUpgrades, branch: BranchStore): WouldCommit {
  // name in the upgraded layout → name in the snapshot (undefined: added)
  const names = new Map<string, string | undefined>(snapshot.storeNames().map((n) => [n, n]));
  const deleted: string[] = [];
  applyStoreUpgrades(names, u, { added: () => undefined, deleted: (from) => from !== undefined && deleted.push(from) });
  const hashes = new Map<string, { hash: Uint8Array }>();
  const stores: StoreDiff[] = [];
  let changed = !isEmptyStoreUpgrades(u);
  for (const [name, from] of names) {
    const prev = from === undefined ? new Uint8Array(0) : snapshot.storeHash(from);
    const ws = branch.writeSet(name);
    if (ws === undefined || ws.size === 0) {
      hashes.set(name, { hash: prev });
      if (from === undefined)
        stores.push({ name, layout: 'added', keysAdded: 0, keysChanged: 0, keysDeleted: 0, bytesWritten: 0, bytesDeleted: 0, netBytes: 0 });
      else if (from !== name)
        stores.push({ name, renamedFrom: from, layout: 'kept', keysAdded: 0, keysChanged: 0, keysDeleted: 0, bytesWritten: 0, bytesDeleted: 0, netBytes: 0 });
      continue;
    }
    changed = true;
    hashes.set(name, { hash: nextStoreHash(prev, ws) });
    let keysAdded = 0;
    let keysChanged = 0;
    let keysDeleted = 0;
    let bytesWritten = 0;
    let bytesDeleted = 0;
    let netBytes = 0;
    const before = priorValues(ws);
    ws.forEachChange((keys, ks, ke, values, vs, ve) => {
      const prior = before(keys.subarray(ks, ke));
      const kl = ke - ks;
      if (vs < 0) {
        if (prior === undefined) return;
        keysDeleted++;
        bytesDeleted += kl + prior.length;
        netBytes -= kl + prior.length;
      } else if (prior === undefined) {
        keysAdded++;
        bytesWritten += kl + (ve - vs);
        netBytes += kl + (ve - vs);
      } else if (!equalBytes(prior, values.subarray(vs, ve))) {
        keysChanged++;
        bytesWritten += ve - vs;
        netBytes += ve - vs - prior.length;
      }
    });
    stores.push({
      name,
      ...(from !== undefined && from !== name ? { renamedFrom: from } : {}),
      layout: from === undefined ? 'added' : 'kept',
      keysAdded,
      keysChanged,
      keysDeleted,
      bytesWritten,
      bytesDeleted,
      netBytes,
    });
  }
  for (const name of deleted) {
    let keysDeleted = 0;
    let bytesDeleted = 0;
    for (const e of snapshot.getStore(name).iterator()) {
      keysDeleted++;
      bytesDeleted += e.key.length + e.value.length;
    }
    stores.push({ name, layout: 'deleted', keysAdded: 0, keysChanged: 0, keysDeleted, bytesWritten: 0, bytesDeleted, netBytes: -bytesDeleted });
  }
  stores.sort((a, b) => (a.name < b.name ? -1 : a.name > b.name ? 1 : 0));
  // an empty block over an unchanged layout keeps the last app hash (as the commit does)
  const appHash = changed || snapshot.height === 0n ? appHashOf(hashes) : snapshot.appHash;
  return { appHash, stores };
}

/** Write sets at least this large look their prior values up by one ordered scan rather than a lookup per key. */
const SCAN_MIN_CHANGES = 1024;

/**
 * The committed value of each changed key, asked in key order. A large write set (a migration) reads
 * them by walking the parent in key order beside it: one ordered scan instead of a lookup per key. If
 * the walk passes more unchanged keys than there are changes (changes sparse in a large store), the
 * rest are looked up one by one, so it never costs much more than the lookups.
 */
function priorValues(ws: CacheKVStore): (key: Uint8Array) => Uint8Array | undefined {
  const parent = ws.parent;
  const get = (key: Uint8Array): Uint8Array | undefined => parent.get(key);
  if (ws.size < SCAN_MIN_CHANGES) return get;
  let it: Iterator<Entry> | undefined;
  let cur: Entry | undefined;
  let skipped = 0;
  const budget = ws.size;
  return (key) => {
    if (skipped > budget) return get(key);
    if (it === undefined) {
      it = parent.iterator(key)[Symbol.iterator]();
      cur = next(it);
    }
    while (cur !== undefined && compareBytes(cur.key, key) < 0) {
      if (++skipped > budget) {
        it.return?.();
        return get(key);
      }
      cur = next(it);
    }
    if (cur === undefined || compareBytes(cur.key, key) !== 0) return undefined;
    const v = cur.value;
    cur = next(it);
    return v;
  };
}

function next(it: Iterator<Entry>): Entry | undefined {
  const r = it.next();
  return r.done === true ? undefined : r.value;
}

import { Buffer } from 'node:buffer';
import { open, type RootDatabase } from 'lmdb';
import { copyRange } from '../bytes/index.ts';
import { prefixEnd, readU64be, u64be } from './bytes.ts';
import { CacheKVStore } from './cachekv.ts';
import { appHashOf, nextStoreHash } from './hash.ts';
import { InterBlockCache, type InterBlockCacheBounds } from './inter-block-cache.ts';
import { LmdbStoreView, type BinaryDB } from './lmdb.ts';
import { ENTRY_OVERHEAD_BYTES, StoreFullError, type StoreSizeLimit } from './size-limit.ts';
import { MAX_KEY_BYTES, StoreError, type Entry, type KVStore, type ReadKVStore } from './types.ts';
import { applyStoreUpgrades, isEmptyStoreUpgrades, type StoreUpgrades } from './upgrades.ts';

/** A store's entry in the registry: its key prefix id and its hash as of the last commit. */
export interface StoreInfo {
  readonly id: number;
  readonly hash: Uint8Array;
}

export type Registry = Map<string, StoreInfo>;

export interface CommitInfo {
  readonly height: bigint;
  readonly appHash: Uint8Array;
}

/** Anything that hands out stores by name and can be branched: the block's write set or a branch of it. */
export interface MultiStore {
  getStore(name: string): KVStore;
  hasStore(name: string): boolean;
  branch(): BranchStore;
}

/** A read-only view of committed state, consistent across stores. */
export interface ReadMultiStore {
  readonly height: bigint;
  readonly appHash: Uint8Array;
  getStore(name: string): ReadKVStore;
  hasStore(name: string): boolean;
  storeNames(): string[];
}

export interface Snapshot extends ReadMultiStore {
  /** The store's hash as of this snapshot's commit (empty for a store no block has written to). */
  storeHash(name: string): Uint8Array;
  /** Releases the LMDB read transaction; the snapshot must not be used afterwards. */
  release(): void;
}

const META_REGISTRY = Buffer.from('registry');
const META_HEIGHT = Buffer.from('height');
const META_APPHASH = Buffer.from('apphash');
const META_NEXTID = Buffer.from('nextid');
const MAX_STORE_ID = 0xfffe;

function idPrefix(id: number): Buffer {
  const b = Buffer.alloc(2);
  b.writeUInt16BE(id);
  return b;
}

/** The stores' layout for the next block: registry, id counter and stores whose keys go at commit. */
interface Layout {
  registry: Registry;
  nextId: number;
  deletedIds: number[];
}

function cloneLayout(l: Layout): Layout {
  return { registry: new Map(l.registry), nextId: l.nextId, deletedIds: [...l.deletedIds] };
}

/** Store upgrades applied to a layout: an added store takes the next id and starts with an empty hash. */
function upgradeLayout(layout: Layout, u: StoreUpgrades): void {
  applyStoreUpgrades(layout.registry, u, {
    added(name) {
      if (layout.nextId > MAX_STORE_ID) throw new StoreError(`cannot add store "${name}": no store ids left`);
      return { id: layout.nextId++, hash: new Uint8Array(0) };
    },
    deleted: (info) => layout.deletedIds.push(info.id),
  });
}

/** The loader's check: every store the application mounts exists in the state the next block starts from. */
export function assertMountedStores(mounted: Iterable<string>, exists: (name: string) => boolean, height: bigint): void {
  for (const name of mounted) {
    if (!exists(name)) {
      throw new StoreError(
        `store "${name}" is mounted by the application but does not exist in the committed state at height ${height}: ` +
          `add it to StoreUpgrades.added of the upgrade that introduces it`,
      );
    }
  }
}

/** Values up to this size are committed through a scratch buffer (larger ones as views of the write set). */
const SCRATCH_VALUE_BYTES = 256;

/**
 * The application state: named stores over one LMDB environment. Writes of the block being executed
 * collect in a write set per store; `commit(height)` makes them durable in one LMDB transaction
 * together with every store hash, the app hash and the height.
 */
export class CommitMultiStore implements MultiStore {
  private readonly env: RootDatabase;
  private readonly data: BinaryDB;
  private readonly meta: BinaryDB;
  private last: CommitInfo;
  private committed: Layout;
  /** Layout the next block starts from: committed + store upgrades staged by the loader. */
  private base: Layout;
  private working: Layout;
  private writeSets = new Map<number, CacheKVStore>();
  private mounted: string[] = [];
  private loaded = false;
  private hashCache: { writes: number; hashes: Registry; appHash: Uint8Array; changed: boolean } | null = null;
  /** The loader staged store additions, renames or deletions for the next block. */
  private layoutStaged = false;
  /**
   * Point reads of the latest committed state by snapshots of that height (CheckTx, queries). The
   * block's write sets read LMDB: a migration's or a block's reads of many keys once each would only
   * churn it.
   */
  private readonly cache: InterBlockCache;

  private constructor(
    path: string,
    cache: InterBlockCacheBounds,
    private readonly sizeLimit: StoreSizeLimit | undefined,
  ) {
    this.cache = new InterBlockCache(cache);
    this.env = open({ path, maxDbs: 4 });
    this.data = this.env.openDB({ name: 'data', keyEncoding: 'binary', encoding: 'binary' }) as unknown as BinaryDB;
    this.meta = this.env.openDB({ name: 'meta', keyEncoding: 'binary', encoding: 'binary' }) as unknown as BinaryDB;
    const height = this.meta.get(META_HEIGHT);
    const appHash = this.meta.get(META_APPHASH);
    const reg = this.meta.get(META_REGISTRY);
    const nextId = this.meta.get(META_NEXTID);
    this.last = { height: height ? readU64be(height) : 0n, appHash: appHash ?? new Uint8Array(0) };
    this.committed = {
      registry: reg ? decodeRegistry(reg) : new Map(),
      nextId: nextId ? nextId.readUInt16BE(0) : 1,
      deletedIds: [],
    };
    this.base = cloneLayout(this.committed);
    this.working = cloneLayout(this.committed);
  }

  /**
   * Opens (creating when absent) the state database in directory `path`; `cache` bounds the inter-block
   * cache per store; `sizeLimit`: a commit that would grow the database past it is refused (StoreFullError).
   */
  static open(path: string, opts: { readonly cache?: InterBlockCacheBounds; readonly sizeLimit?: StoreSizeLimit } = {}): CommitMultiStore {
    return new CommitMultiStore(path, opts.cache ?? {}, opts.sizeLimit);
  }

  /** The bytes the database file holds now: its pages up to the highest one in use. */
  sizeBytes(): number {
    const s = this.env.getStats() as { lastPageNumber: number; pageSize: number };
    return (s.lastPageNumber + 1) * s.pageSize;
  }

  /** Refuses, before anything is written, a commit whose changes would take the database past its limit. */
  private checkSize(height: bigint): void {
    const limit = this.sizeLimit;
    if (limit === undefined) return;
    let pending = 0;
    for (const ws of this.writeSets.values()) {
      if (ws.size === 0) continue;
      ws.forEachChange((_k, ks, ke, _v, vs, ve) => {
        pending += 2 + ke - ks + (vs < 0 ? 0 : ve - vs) + ENTRY_OVERHEAD_BYTES;
      });
    }
    const bytes = this.sizeBytes() + pending;
    if (bytes > limit.maxBytes) throw new StoreFullError(height, bytes, limit);
  }

  lastCommitInfo(): CommitInfo {
    return this.last;
  }

  /** Declares the stores the application uses; the loader checks they all exist. */
  mount(names: readonly string[]): void {
    if (this.loaded) throw new StoreError('stores must be mounted before the multistore is loaded');
    const seen = new Set<string>();
    for (const n of names) {
      if (n.length === 0) throw new StoreError('store name must not be empty');
      if (seen.has(n)) throw new StoreError(`store "${n}" is mounted twice`);
      seen.add(n);
    }
    this.mounted = [...names];
  }

  /** Loads the latest committed state. A new database gets every mounted store, in name order. */
  loadLatest(): void {
    this.loadLatestWithUpgrades({});
  }

  /**
   * Loads the latest committed state and stages `upgrades` for the next block: they are part of its
   * write set, committed with it or not at all.
   */
  loadLatestWithUpgrades(upgrades: StoreUpgrades): void {
    if (this.loaded) throw new StoreError('the multistore is already loaded');
    const layout = cloneLayout(this.committed);
    const genesis = this.last.height === 0n && layout.registry.size === 0;
    if (genesis) upgradeLayout(layout, { added: [...this.mounted].sort() });
    upgradeLayout(layout, upgrades);
    this.layoutStaged = genesis || !isEmptyStoreUpgrades(upgrades);
    assertMountedStores(this.mounted, (name) => layout.registry.has(name), this.last.height);
    this.base = layout;
    this.working = cloneLayout(layout);
    this.loaded = true;
  }

  private assertLoaded(): void {
    if (!this.loaded) throw new StoreError('the multistore is not loaded: call a store loader first');
  }

  hasStore(name: string): boolean {
    return this.working.registry.has(name);
  }

  storeNames(): string[] {
    return [...this.working.registry.keys()].sort();
  }

  /** The block's write set for store `name`. */
  getStore(name: string): CacheKVStore {
    this.assertLoaded();
    const info = this.working.registry.get(name);
    if (info === undefined) throw new StoreError(`store "${name}" does not exist`);
    let ws = this.writeSets.get(info.id);
    if (ws === undefined) {
      ws = new CacheKVStore(new LmdbStoreView(this.data, idPrefix(info.id)));
      this.writeSets.set(info.id, ws);
    }
    return ws;
  }

  branch(): BranchStore {
    return new BranchStore(this);
  }

  /** Per-store hashes and the app hash the pending write set would commit to. */
  private computeHashes(): { hashes: Registry; appHash: Uint8Array; changed: boolean } {
    let writes = 0;
    for (const ws of this.writeSets.values()) writes += ws.writes;
    if (this.hashCache !== null && this.hashCache.writes === writes) return this.hashCache;
    const hashes: Registry = new Map();
    let changed = this.layoutStaged;
    for (const [name, info] of this.working.registry) {
      const ws = this.writeSets.get(info.id);
      if (ws && ws.size > 0) changed = true;
      hashes.set(name, ws && ws.size > 0 ? { id: info.id, hash: nextStoreHash(info.hash, ws) } : info);
    }
    // an empty block over an unchanged layout keeps the last app hash: no rehash of every store
    const appHash = changed || this.last.height === 0n ? appHashOf(hashes) : this.last.appHash;
    this.hashCache = { writes, hashes, appHash, changed };
    return this.hashCache;
  }

  /** The app hash of committed state plus the pending write set. */
  workingAppHash(): Uint8Array {
    this.assertLoaded();
    return this.computeHashes().appHash;
  }

  /** Makes the pending write set durable as `height`, atomically. */
  commit(height: bigint): CommitInfo {
    this.assertLoaded();
    if (height <= this.last.height) throw new StoreError(`cannot commit height ${height}: last committed height is ${this.last.height}`);
    const { hashes, appHash, changed } = this.computeHashes();
    this.checkSize(height);
    const working = this.working;
    this.env.transactionSync(() => {
      for (const [id, ws] of this.writeSets) {
        if (ws.size === 0) continue;
        // LMDB copies key and value during the call, so one scratch buffer serves every key, another
        // every small value, each through one view per length made once: no Buffer object per change
        const kb = Buffer.allocUnsafe(2 + MAX_KEY_BYTES);
        kb.writeUInt16BE(id, 0);
        const keyViews: Buffer[] = [];
        const vb = Buffer.allocUnsafe(SCRATCH_VALUE_BYTES);
        const valueViews: Buffer[] = [];
        ws.forEachChange((keys, ks, ke, values, vs, ve) => {
          copyRange(keys, ks, ke, kb, 2);
          const key = (keyViews[ke - ks] ??= kb.subarray(0, 2 + ke - ks));
          if (vs < 0) this.data.removeSync(key);
          else if (ve - vs > SCRATCH_VALUE_BYTES) this.data.putSync(key, values.subarray(vs, ve));
          else {
            copyRange(values, vs, ve, vb, 0);
            this.data.putSync(key, (valueViews[ve - vs] ??= vb.subarray(0, ve - vs)));
          }
        });
      }
      for (const id of working.deletedIds) {
        const prefix = idPrefix(id);
        const keys = [...this.data.getKeys({ start: prefix, end: prefixEnd(prefix) as Buffer })];
        for (const k of keys) this.data.removeSync(k);
      }
      // an empty block over an unchanged layout leaves the registry (names, ids, hashes) as it was
      if (changed || this.last.height === 0n) this.meta.putSync(META_REGISTRY, encodeRegistry(hashes));
      this.meta.putSync(META_HEIGHT, Buffer.from(u64be(height)));
      this.meta.putSync(META_APPHASH, Buffer.from(appHash));
      const nid = Buffer.alloc(2);
      nid.writeUInt16BE(working.nextId);
      this.meta.putSync(META_NEXTID, nid);
    });
    // durable: the cache takes the block's changes (a failed transaction threw before this)
    for (const [id, ws] of this.writeSets) if (ws.size > 0) this.cache.committed(id, ws);
    for (const id of working.deletedIds) this.cache.dropStore(id);
    this.cache.advance();
    this.last = { height, appHash };
    this.committed = { registry: hashes, nextId: working.nextId, deletedIds: [] };
    this.layoutStaged = false;
    this.base = cloneLayout(this.committed);
    this.resetWorking();
    return this.last;
  }

  /** Drops the pending write set: the next block starts again from the loaded layout. */
  discard(): void {
    this.resetWorking();
  }

  private resetWorking(): void {
    this.working = cloneLayout(this.base);
    this.writeSets = new Map();
    this.hashCache = null;
  }

  /**
   * A consistent view of the latest committed state that stays valid while later blocks commit. Until
   * the next commit its point reads go through the inter-block cache; after it, to its own LMDB read
   * transaction. So does a snapshot of a height this store did not commit (another process's).
   */
  snapshot(): Snapshot {
    const txn = this.env.useReadTransaction();
    const opts = { transaction: txn };
    const height = this.meta.get(META_HEIGHT, opts);
    const cached = (height ? readU64be(height) : 0n) === this.last.height;
    const generation = this.cache.currentGeneration;
    const appHash = this.meta.get(META_APPHASH, opts);
    const reg = this.meta.get(META_REGISTRY, opts);
    const registry = reg ? decodeRegistry(reg) : new Map<string, StoreInfo>();
    const data = this.data;
    const cache = this.cache;
    // the stores an upgrade's loader staged for the next block, read as that block finds them (renamed: the same
    // data under the new name; added: empty): the new release reads committed state by its own store names
    // before that block commits (ProcessProposal of the upgrade block, queries)
    const staged = cached && this.layoutStaged && this.last.height > 0n ? this.base.registry : undefined;
    const views = new Map<string, ReadKVStore>();
    let released = false;
    return {
      height: height ? readU64be(height) : 0n,
      appHash: appHash ?? new Uint8Array(0),
      hasStore: (name) => registry.has(name),
      storeNames: () => [...registry.keys()].sort(),
      storeHash(name: string): Uint8Array {
        const info = registry.get(name);
        if (info === undefined) throw new StoreError(`store "${name}" does not exist at height ${this.height}`);
        return info.hash;
      },
      getStore(name: string): ReadKVStore {
        if (released) throw new StoreError('snapshot already released');
        let view = views.get(name);
        if (view === undefined) {
          const info = registry.get(name) ?? staged?.get(name);
          if (info === undefined) throw new StoreError(`store "${name}" does not exist at height ${this.height}`);
          const lmdb = new LmdbStoreView(data, idPrefix(info.id), txn);
          // a store first read after a later commit: the cache holds that commit's state, not this snapshot's
          view = cached && cache.isCurrent(generation) ? cache.view(info.id, lmdb) : lmdb;
          views.set(name, view);
        }
        return view;
      },
      release(): void {
        if (!released) txn.done();
        released = true;
        views.clear();
      },
    };
  }

  async close(): Promise<void> {
    await this.env.close();
  }
}

/** A branch of a multistore: each store is a write set over the parent's; `write()` merges it back. */
export class BranchStore implements MultiStore {
  private readonly stores = new Map<string, CacheKVStore>();

  constructor(private readonly parent: Pick<ReadMultiStore, 'getStore' | 'hasStore'>) {}

  getStore(name: string): CacheKVStore {
    let s = this.stores.get(name);
    if (s === undefined) {
      s = new CacheKVStore(this.parent.getStore(name));
      this.stores.set(name, s);
    }
    return s;
  }

  hasStore(name: string): boolean {
    return this.parent.hasStore(name);
  }

  branch(): BranchStore {
    return new BranchStore(this);
  }

  /** The write set of store `name` if this branch opened it (undefined: never read nor written through it). */
  writeSet(name: string): CacheKVStore | undefined {
    return this.stores.get(name);
  }

  /** Applies this branch's writes to the parent. Each store's go to that store's own write set, so the order of the stores changes nothing. */
  write(): void {
    for (const s of this.stores.values()) s.write();
    this.stores.clear();
  }
}

function encodeRegistry(r: Registry): Buffer {
  const parts: Buffer[] = [];
  const head = Buffer.alloc(2);
  head.writeUInt16BE(r.size);
  parts.push(head);
  for (const [name, info] of r) {
    const n = Buffer.from(name, 'utf8');
    const b = Buffer.alloc(2 + n.length + 2 + 1);
    b.writeUInt16BE(n.length, 0);
    n.copy(b, 2);
    b.writeUInt16BE(info.id, 2 + n.length);
    b.writeUInt8(info.hash.byteLength, 4 + n.length);
    parts.push(b, Buffer.from(info.hash));
  }
  return Buffer.concat(parts);
}

function decodeRegistry(b: Buffer): Registry {
  const r: Registry = new Map();
  const count = b.readUInt16BE(0);
  let o = 2;
  for (let i = 0; i < count; i++) {
    const nl = b.readUInt16BE(o);
    const name = b.toString('utf8', o + 2, o + 2 + nl);
    o += 2 + nl;
    const id = b.readUInt16BE(o);
    const hl = b.readUInt8(o + 2);
    const hash = Uint8Array.from(b.subarray(o + 3, o + 3 + hl));
    o += 3 + hl;
    r.set(name, { id, hash });
  }
  return r;
}

/**
 * A writable scratch layer over a read-only view (a snapshot): writes stay in memory and are never
 * persisted (its `write()` refuses). CheckTx state, simulations, queries and upgrade dry-runs run on it.
 */
export class ScratchMultiStore extends BranchStore {
  constructor(readonly view: ReadMultiStore) {
    super(view);
  }
}

const EMPTY_STORE: ReadKVStore = {
  get: () => undefined,
  has: () => false,
  iterator: (): IterableIterator<Entry> => [][Symbol.iterator](),
  reverseIterator: (): IterableIterator<Entry> => [][Symbol.iterator](),
};

/**
 * `view` as the next block would see it after store upgrades `u` (the upgrade dry run): renamed stores
 * under their new names, deleted ones gone, added ones empty; the loader's rules and errors.
 */
export function upgradedView(view: ReadMultiStore, u: StoreUpgrades): ReadMultiStore {
  // name in the upgraded layout → name in `view` (undefined: a new, empty store)
  const names = new Map<string, string | undefined>(view.storeNames().map((n) => [n, n]));
  applyStoreUpgrades(names, u, { added: () => undefined });
  return {
    height: view.height,
    appHash: view.appHash,
    hasStore: (n) => names.has(n),
    storeNames: () => [...names.keys()].sort(),
    getStore(n: string): ReadKVStore {
      if (!names.has(n)) throw new StoreError(`store "${n}" does not exist`);
      const from = names.get(n);
      return from === undefined ? EMPTY_STORE : view.getStore(from);
    },
  };
}

export * from './bytes.ts';
export * from './types.ts';
export { CacheKVStore, type Change } from './cachekv.ts';
export { LmdbStoreView } from './lmdb.ts';
export { INTER_BLOCK_CACHE_BYTES, INTER_BLOCK_CACHE_ENTRIES, InterBlockCache, type ChangeSet, type InterBlockCacheBounds } from './inter-block-cache.ts';
export {
  CommitMultiStore,
  BranchStore,
  ScratchMultiStore,
  appHashOf,
  nextStoreHash,
  type CommitInfo,
  type MultiStore,
  type ReadMultiStore,
  type Registry,
  type Snapshot,
  type StoreInfo,
} from './multistore.ts';
export {
  defaultStoreLoader,
  isEmptyStoreUpgrades,
  storeUpgradesFromJSON,
  upgradeStoreLoader,
  type StoreLoader,
  type StoreRename,
  type StoreUpgrades,
} from './upgrades.ts';

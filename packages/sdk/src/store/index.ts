export * from './bytes.ts';
export * from './types.ts';
export { CacheKVStore, type Change } from './cachekv.ts';
export { LmdbStoreView } from './lmdb.ts';
export { INTER_BLOCK_CACHE_BYTES, INTER_BLOCK_CACHE_ENTRIES, InterBlockCache, type ChangeSet, type InterBlockCacheBounds } from './inter-block-cache.ts';
export { appHashOf, nextStoreHash, type ChangeSource } from './hash.ts';
export { defaultStoreLoader, upgradeStoreLoader, type StoreLoader } from './loader.ts';
export {
  CommitMultiStore,
  BranchStore,
  ScratchMultiStore,
  assertMountedStores,
  upgradedView,
  type CommitInfo,
  type MultiStore,
  type ReadMultiStore,
  type Registry,
  type Snapshot,
  type StoreInfo,
} from './multistore.ts';
export { isEmptyStoreUpgrades, storeUpgradesFromJSON, type StoreRename, type StoreUpgrades } from './upgrades.ts';
export { wouldCommit, type StoreDiff, type WouldCommit } from './would-commit.ts';
export * from './size-limit.ts';
export * as iavl from './iavl/index.ts';

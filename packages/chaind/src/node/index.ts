// The node's core as a library: hashing, block store, the consensus-driver seam, the solo driver, the tx service. Servers and the CLI build on it.
export * from './blockstore.ts';
export * from './commit.ts';
export * from './driver.ts';
export * from './hash.ts';
export * from './protocol.ts';
export * from './solo.ts';
export * from './state.ts';
export * from './tx-service.ts';

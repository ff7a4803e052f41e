// @chaind/sdk/testing: the framework's test kit (never imported by production code). Real apps over
// LMDB in temporary directories, fed real signed txs in real blocks: an auth app with a tiny ledger
// (auth.ts), an auth + bank + gov app (gov.ts); deterministic keys, block requests, temp dirs.
export * from './auth.ts';
export * from './block.ts';
export * from './common.ts';
export * from './dirs.ts';
export * from './gov.ts';
export * from './keys.ts';
export * from './net.ts';

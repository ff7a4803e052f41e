// @chaind/chaind/testing: chaind's test kit (never imported by production code). The real chain app
// over LMDB that a test reopens as another binary (chain.ts), the upgrades of a "new binary"
// (upgrades.ts), a chain upgraded through a list of upgrades and its comparison with one started from
// that release's genesis (upgrade-history.ts), a whole solo node behind its RPC server (node.ts), the
// chaind binary as a child process (cli.ts), a validator network's homes made with the CLI (homes.ts), CometBFT v0.38's checks
// of a genesis.json (comet.ts), CometBFT's side of the ABCI connections and a network's blocks
// (network.ts), a wallet's amino JSON converters (amino.ts), `chaind dev` as a process (dev-node.ts), the governance
// steps of an upgrade (gov-upgrade.ts). Keys, temp dirs and block requests are the framework kit's.
export { DENOM, freePort, removeTmpDirs, testKey, tmpDir, type TestKey } from '@chaind/sdk/testing';
export * from './amino.ts';
export * from './buf.ts';
export * from './chain.ts';
export * from './cli.ts';
export * from './dev-node.ts';
export * from './gov-upgrade.ts';
export * from './comet.ts';
export * from './homes.ts';
export * from './network.ts';
export * from './node.ts';
export { killGroup, runInGroup, serve, type GroupRun, type GroupRunOptions, type Served } from '@chaind/upgrade-plan/testing';
export * from './upgrades.ts';
export * from './upgrade-history.ts';
export * from './abci-proxy.ts';
export * from './next-release.ts';
export * from './state-diff.ts';
export * from './validator.ts';
export { setTomlValue } from '../../src/config/toml-edit.ts';

export * from './errors.ts';
export * from './expected-keepers.ts';
export * from './genesis.ts';
export * from './keeper.ts';
export * from './module.ts';
export * from './msg-server.ts';
export * from './query-server.ts';

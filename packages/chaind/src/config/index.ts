export * from './abci.ts';
export * from './address.ts';
export * from './cometbft-keys.ts';
export * from './config.ts';
export * from './overrides.ts';
export * from './settings.ts';
export * from './write.ts';

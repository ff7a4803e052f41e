export * from './genesis.ts';
export * from './keeper.ts';
export * from './keys.ts';
export * from './module.ts';
export * from './validator.ts';

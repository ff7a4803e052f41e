// Module shape (docs/development.md, "Adding a module"): keys.ts (MODULE_NAME, STORE_KEY, key layout), keeper.ts,
// genesis.ts, module.ts. validators has no msgs (no msg-server.ts, amino.ts), no queries and raises the sdk's root errors (no errors.ts).
export * from './genesis.ts';
export * from './keeper.ts';
export * from './keys.ts';
export * from './module.ts';
export * from './validator.ts';

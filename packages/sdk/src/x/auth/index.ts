// Module shape (docs/development.md, "Adding a module"): keys.ts (MODULE_NAME, STORE_KEY, key layout), keeper.ts,
// query-server.ts, genesis.ts, module.ts. auth has no msgs (no msg-server.ts, amino.ts) and raises the sdk's root errors (no errors.ts).
export * from './account.ts';
export * from './ante.ts';
export * from './fee.ts';
export * from './genesis.ts';
export * from './keeper.ts';
export * from './keys.ts';
export * from './module.ts';
export * from './params.ts';
export * from './preverify.ts';
export * from './query-server.ts';

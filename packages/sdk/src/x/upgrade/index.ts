// Module shape (docs/development.md, "Adding a module"): keys.ts (MODULE_NAME, STORE_KEY, key layout), keeper.ts,
// msg-server.ts, query-server.ts, module.ts, amino.ts, errors.ts, genesis.ts (its params only: the spec's state starts empty).
export * from './cancel-window.ts';
export * from './errors.ts';
export * from './gate.ts';
export * from './genesis.ts';
export * from './keeper.ts';
export * from './keys.ts';
export * from './module.ts';
export * from './msg-server.ts';
export * from './params.ts';
export * from './plan.ts';
export * from './query-server.ts';
export * from './readiness.ts';
export * from './store-loader.ts';

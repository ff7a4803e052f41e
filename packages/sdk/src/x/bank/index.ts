// Module shape (docs/development.md, "Adding a module"): keys.ts (MODULE_NAME, STORE_KEY, key layout), keeper.ts,
// msg-server.ts, query-server.ts, genesis.ts, module.ts, amino.ts, errors.ts; extra files hold the module's own types.
// The keeper is three classes, as the SDK's x/bank/keeper: view.ts (reads) ← send.ts (sends) ← keeper.ts (BankKeeper);
// amounts.ts is their store-value helpers, internal.
export * from './errors.ts';
export * from './expected-keepers.ts';
export * from './genesis.ts';
export * from './keeper.ts';
export * from './keys.ts';
export * from './module.ts';
export * from './msg-server.ts';
export * from './query-server.ts';
export * from './send.ts';
export * from './view.ts';

export * from './mempool.ts';
export * from './order.ts';
export * from './verify-pool.ts';

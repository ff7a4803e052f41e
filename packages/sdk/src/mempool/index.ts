export * from './mempool.ts';
export * from './order.ts';

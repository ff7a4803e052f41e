export { DEFAULT_PREVERIFY_AHEAD, type Preverify } from './arrival.ts';
export * from './mempool.ts';
export * from './order.ts';
export * from './preverify.ts';
export { MempoolRefusal, refusalFromText } from './refusals.ts';
export * from './verify-pool.ts';

export * from './coins.ts';
export * from './time.ts';

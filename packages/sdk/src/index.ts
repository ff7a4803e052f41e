export * from './store/index.ts';
export * from './app/index.ts';
export * from './crypto/index.ts';
export * from './types/index.ts';

export * from './store/index.ts';
export * from './app/index.ts';

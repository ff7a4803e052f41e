export * from './bytes.ts';

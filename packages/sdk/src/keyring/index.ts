export * from './errors.ts';
export * from './keyring.ts';

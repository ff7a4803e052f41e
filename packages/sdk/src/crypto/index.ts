export * from './address.ts';
export * from './mnemonic.ts';
export * from './secp256k1.ts';
export * from './verified-signatures.ts';

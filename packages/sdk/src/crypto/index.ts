// BIP-39 mnemonics and BIP-32 derivation are '@chaind/sdk/crypto/mnemonic': they load a curve library that
// only key creation needs, not every importer of addresses and signatures.
export * from './address.ts';
export * from './secp256k1.ts';
export * from './verified-signatures.ts';

// BIP39 mnemonics and BIP32 derivation on the Cosmos path m/44'/118'/account'/0/index.
import { HDKey } from '@scure/bip32';
import * as bip39 from '@scure/bip39';
import { wordlist } from '@scure/bip39/wordlists/english.js';

/** Cosmos' registered SLIP-44 coin type (ATOM); CosmJS and the Cosmos SDK default to it. */
export const COSMOS_COIN_TYPE = 118;

export interface DerivationOptions {
  account?: number;
  index?: number;
  /** The optional BIP39 "25th word"; not the keyring passphrase. */
  bip39Passphrase?: string;
}

/** Whitespace differences must not change the seed, so a pasted phrase derives the same key. */
export function normalizeMnemonic(mnemonic: string): string {
  return mnemonic.trim().split(/\s+/).join(' ');
}

/** A fresh 24-word English mnemonic (256 bits of entropy from the platform CSPRNG). */
export function generateMnemonic(): string {
  return bip39.generateMnemonic(wordlist, 256);
}

/** True for a BIP39 English mnemonic with a valid checksum. */
export function validateMnemonic(mnemonic: string): boolean {
  return bip39.validateMnemonic(normalizeMnemonic(mnemonic), wordlist);
}

export function hdPath(account = 0, index = 0): string {
  for (const [what, n] of [
    ['account', account],
    ['index', index],
  ] as const) {
    if (!Number.isInteger(n) || n < 0 || n >= 0x80000000) throw new RangeError(`${what} must be an integer in [0, 2^31), got ${n}`);
  }
  return `m/44'/${COSMOS_COIN_TYPE}'/${account}'/0/${index}`;
}

/** The secp256k1 private key at m/44'/118'/account'/0/index of a mnemonic. */
export function privateKeyFromMnemonic(mnemonic: string, opts: DerivationOptions = {}): Uint8Array {
  const phrase = normalizeMnemonic(mnemonic);
  if (!bip39.validateMnemonic(phrase, wordlist)) throw new Error('invalid mnemonic: not a BIP39 English phrase with a valid checksum');
  const path = hdPath(opts.account, opts.index);
  const seed = bip39.mnemonicToSeedSync(phrase, opts.bip39Passphrase ?? '');
  const node = HDKey.fromMasterSeed(seed).derive(path);
  seed.fill(0);
  const key = node.privateKey;
  if (key === null) throw new Error(`derivation of ${path} produced no private key`);
  const out = Uint8Array.from(key);
  node.wipePrivateData();
  return out;
}

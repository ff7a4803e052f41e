// Public keys in transactions and accounts travel as Any, as in the Cosmos SDK. Only secp256k1 is supported.
import { PubKey } from 'cosmjs-types/cosmos/crypto/secp256k1/keys';
import type { Any } from 'cosmjs-types/google/protobuf/any';
import { errors } from '../app/errors.ts';
import { PUBLIC_KEY_LENGTH } from '../crypto/index.ts';
import { errorMessage } from '@chaind/errors';

export const SECP256K1_PUBKEY_TYPE_URL = '/cosmos.crypto.secp256k1.PubKey';

/** A 33-byte compressed secp256k1 public key packed as `/cosmos.crypto.secp256k1.PubKey`. */
export function encodeSecp256k1PubKey(key: Uint8Array): Any {
  // PubKey{key = 1}: what PubKey.encode writes, without its 8 KiB writer slab
  if (key.length === 0) return { typeUrl: SECP256K1_PUBKEY_TYPE_URL, value: new Uint8Array(0) };
  if (key.length >= 0x80) return { typeUrl: SECP256K1_PUBKEY_TYPE_URL, value: PubKey.encode({ key }).finish() };
  const value = new Uint8Array(2 + key.length);
  value[0] = 0x0a;
  value[1] = key.length;
  value.set(key, 2);
  return { typeUrl: SECP256K1_PUBKEY_TYPE_URL, value };
}

/** The key of the canonical PubKey{key} encoding of a compressed key (the common case), else undefined. */
function canonicalKey(value: Uint8Array): Uint8Array | undefined {
  if (value.length !== 2 + PUBLIC_KEY_LENGTH || value[0] !== 0x0a || value[1] !== PUBLIC_KEY_LENGTH) return undefined;
  // a plain Uint8Array copy, as PubKey.decode returns
  const key = new Uint8Array(PUBLIC_KEY_LENGTH);
  key.set(value.subarray(2));
  return key;
}

/** The 33 key bytes of a packed secp256k1 public key; anything else is `errors.invalidPubKey`. */
export function decodeSecp256k1PubKey(any: Any): Uint8Array {
  if (any.typeUrl !== SECP256K1_PUBKEY_TYPE_URL) {
    throw errors.invalidPubKey.wrap(`unsupported public key type ${any.typeUrl || '(empty type URL)'}; only ${SECP256K1_PUBKEY_TYPE_URL} is supported`);
  }
  let key = canonicalKey(any.value);
  if (key === undefined) {
    try {
      key = PubKey.decode(any.value).key;
    } catch (e) {
      throw errors.invalidPubKey.wrap(`cannot decode ${SECP256K1_PUBKEY_TYPE_URL}: ${errorMessage(e)}`);
    }
  }
  if (key.length !== PUBLIC_KEY_LENGTH || (key[0] !== 2 && key[0] !== 3)) {
    throw errors.invalidPubKey.wrap(`expected a ${PUBLIC_KEY_LENGTH}-byte compressed secp256k1 public key, got ${key.length} bytes`);
  }
  return key;
}

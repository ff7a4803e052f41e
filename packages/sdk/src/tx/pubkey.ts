// Public keys in transactions and accounts travel as Any, as in the Cosmos SDK. Only secp256k1 is supported.
import { PubKey } from 'cosmjs-types/cosmos/crypto/secp256k1/keys';
import type { Any } from 'cosmjs-types/google/protobuf/any';
import { errors } from '../app/errors.ts';
import { PUBLIC_KEY_LENGTH } from '../crypto/index.ts';

export const SECP256K1_PUBKEY_TYPE_URL = '/cosmos.crypto.secp256k1.PubKey';

/** A 33-byte compressed secp256k1 public key packed as `/cosmos.crypto.secp256k1.PubKey`. */
export function encodeSecp256k1PubKey(key: Uint8Array): Any {
  return { typeUrl: SECP256K1_PUBKEY_TYPE_URL, value: PubKey.encode({ key }).finish() };
}

/** The 33 key bytes of a packed secp256k1 public key; anything else is `errors.invalidPubKey`. */
export function decodeSecp256k1PubKey(any: Any): Uint8Array {
  if (any.typeUrl !== SECP256K1_PUBKEY_TYPE_URL) {
    throw errors.invalidPubKey.wrap(`unsupported public key type ${any.typeUrl || '(empty type URL)'}; only ${SECP256K1_PUBKEY_TYPE_URL} is supported`);
  }
  let key: Uint8Array;
  try {
    key = PubKey.decode(any.value).key;
  } catch (e) {
    throw errors.invalidPubKey.wrap(`cannot decode ${SECP256K1_PUBKEY_TYPE_URL}: ${(e as Error).message}`);
  }
  if (key.length !== PUBLIC_KEY_LENGTH || (key[0] !== 2 && key[0] !== 3)) {
    throw errors.invalidPubKey.wrap(`expected a ${PUBLIC_KEY_LENGTH}-byte compressed secp256k1 public key, got ${key.length} bytes`);
  }
  return key;
}

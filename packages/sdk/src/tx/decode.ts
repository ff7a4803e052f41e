// The Cosmos SDK's transaction wire format: TxRaw{body_bytes, auth_info_bytes, signatures}.
import type { AuthInfo, Fee, TxBody, TxRaw } from 'cosmjs-types/cosmos/tx/v1beta1/tx';
import type { Tx } from '../app/application.ts';
import { errors } from '../app/errors.ts';
import {
  authInfoSchema,
  decodeAuthInfoMessage,
  NestingDepthError,
  decodeTxBodyMessage,
  decodeTxRawMessage,
  rejectNonAdr027TxRaw,
  rejectUnknownFields,
  txBodySchema,
  txRawSchema,
  type Schema,
} from '../codec/index.ts';
import { errorMessage } from '@chaind/errors';

/** A decoded transaction. Signatures cover the raw body and auth-info bytes, never a re-encoding. */
export interface DecodedTx extends Tx {
  readonly body: TxBody;
  readonly authInfo: AuthInfo;
  /** `authInfo.fee`, or an empty fee (no coins, zero gas) when the tx carries none. */
  readonly fee: Fee;
  readonly signatures: readonly Uint8Array[];
  readonly bodyBytes: Uint8Array;
  readonly authInfoBytes: Uint8Array;
  /** Length of the whole encoded tx: the ante handler charges gas per byte. */
  readonly size: number;
}

const SCHEMAS: Readonly<Record<string, Schema>> = { TxRaw: txRawSchema, TxBody: txBodySchema, AuthInfo: authInfoSchema };

/**
 * Decodes one part, then, as the SDK's tx decoder, refuses a TxRaw not in ADR-027's form and unknown
 * fields: anywhere in TxRaw and AuthInfo, and in TxBody unless non-critical; so a tx's bytes, and its
 * hash, cannot be changed by reordering or adding fields every decoder would skip.
 */
function part<T>(what: 'TxRaw' | 'TxBody' | 'AuthInfo', decode: (bytes: Uint8Array) => T, bytes: Uint8Array): T {
  // the schema walk bounds the nesting depth, so it comes first: a decoder never recurses deeper
  try {
    if (what === 'TxRaw') rejectNonAdr027TxRaw(bytes);
    rejectUnknownFields(bytes, SCHEMAS[what], what === 'TxBody');
  } catch (e) {
    // otherwise a decoder's error comes before the schema's, as it always has
    if (!(e instanceof NestingDepthError)) decodeOrThrow(what, decode, bytes);
    throw errors.txDecode.wrap(errorMessage(e));
  }
  return decodeOrThrow(what, decode, bytes);
}

function decodeOrThrow<T>(what: string, decode: (bytes: Uint8Array) => T, bytes: Uint8Array): T {
  try {
    return decode(bytes);
  } catch (e) {
    throw errors.txDecode.wrap(`cannot decode ${what}: ${errorMessage(e)}`);
  }
}

/** What signing covers of a tx, and its signatures: a `DecodedTx` without its body decoded. */
export type SignedTxParts = Pick<DecodedTx, 'authInfo' | 'signatures' | 'bodyBytes' | 'authInfoBytes'>;

/** TxRaw and AuthInfo of TxRaw bytes, with `decodeTx`'s errors: enough to know what was signed, by whom. */
export function decodeSignedParts(bytes: Uint8Array): SignedTxParts {
  const raw: TxRaw = part('TxRaw', decodeTxRawMessage, bytes);
  const authInfo: AuthInfo = part('AuthInfo', decodeAuthInfoMessage, raw.authInfoBytes);
  return { authInfo, signatures: raw.signatures, bodyBytes: raw.bodyBytes, authInfoBytes: raw.authInfoBytes };
}

/**
 * Decodes TxRaw bytes into a `DecodedTx`. Only the wire format is checked here (a proposal whose txs
 * do not decode is rejected); meaning (signers, keys, fee) is the ante handler's.
 */
export function decodeTx(bytes: Uint8Array): DecodedTx {
  const raw: TxRaw = part('TxRaw', decodeTxRawMessage, bytes);
  const body: TxBody = part('TxBody', decodeTxBodyMessage, raw.bodyBytes);
  const authInfo: AuthInfo = part('AuthInfo', decodeAuthInfoMessage, raw.authInfoBytes);
  return decoded(bytes, body, { authInfo, signatures: raw.signatures, bodyBytes: raw.bodyBytes, authInfoBytes: raw.authInfoBytes });
}

/**
 * `decodeTx` of `bytes` whose `decodeSignedParts` is `parts` (the node pre-verified it): only the body
 * is left to decode. The same result, and the same error for a body that does not decode.
 */
export function decodeTxWithParts(bytes: Uint8Array, parts: SignedTxParts): DecodedTx {
  return decoded(bytes, part('TxBody', decodeTxBodyMessage, parts.bodyBytes), parts);
}

function decoded(bytes: Uint8Array, body: TxBody, parts: SignedTxParts): DecodedTx {
  const fee: Fee = parts.authInfo.fee ?? { amount: [], gasLimit: 0n, payer: '', granter: '' };
  return {
    msgs: body.messages,
    gasLimit: fee.gasLimit,
    body,
    authInfo: parts.authInfo,
    fee,
    signatures: parts.signatures,
    bodyBytes: parts.bodyBytes,
    authInfoBytes: parts.authInfoBytes,
    size: bytes.length,
  };
}

// The Cosmos SDK's transaction wire format: TxRaw{body_bytes, auth_info_bytes, signatures}.
import { AuthInfo, Fee, TxBody, TxRaw } from 'cosmjs-types/cosmos/tx/v1beta1/tx';
import type { Tx } from '../app/application.ts';
import { errors } from '../app/errors.ts';

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

function part<T>(what: string, decode: () => T): T {
  try {
    return decode();
  } catch (e) {
    throw errors.txDecode.wrap(`cannot decode ${what}: ${(e as Error).message}`);
  }
}

/**
 * Decodes TxRaw bytes into a `DecodedTx`. Only the wire format is checked here (a proposal whose txs
 * do not decode is rejected); meaning (signers, keys, fee) is the ante handler's.
 */
export function decodeTx(bytes: Uint8Array): DecodedTx {
  const raw = part('TxRaw', () => TxRaw.decode(bytes));
  const body = part('TxBody', () => TxBody.decode(raw.bodyBytes));
  const authInfo = part('AuthInfo', () => AuthInfo.decode(raw.authInfoBytes));
  const fee: Fee = authInfo.fee ?? { amount: [], gasLimit: 0n, payer: '', granter: '' };
  return {
    msgs: body.messages,
    gasLimit: fee.gasLimit,
    body,
    authInfo,
    fee,
    signatures: raw.signatures,
    bodyBytes: raw.bodyBytes,
    authInfoBytes: raw.authInfoBytes,
    size: bytes.length,
  };
}

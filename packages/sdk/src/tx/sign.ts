// SIGN_MODE_DIRECT: sign bytes are SignDoc{body_bytes, auth_info_bytes, chain_id, account_number}.
import type { Coin } from 'cosmjs-types/cosmos/base/v1beta1/coin';
import { SignMode } from 'cosmjs-types/cosmos/tx/signing/v1beta1/signing';
import { AuthInfo, TxBody, TxRaw } from 'cosmjs-types/cosmos/tx/v1beta1/tx';
import type { Any } from 'cosmjs-types/google/protobuf/any';
import { publicKeyFromPrivate, signBytesDigest, signDirect } from '../crypto/index.ts';
import { encodeSignDocMessage } from '../codec/index.ts';
import { encodeSecp256k1PubKey } from './pubkey.ts';

/** The bytes a SIGN_MODE_DIRECT signer signs (sha256 is applied by the signature scheme). */
export function signDocBytes(tx: { readonly bodyBytes: Uint8Array; readonly authInfoBytes: Uint8Array }, chainId: string, accountNumber: bigint): Uint8Array {
  return encodeSignDocMessage(tx.bodyBytes, tx.authInfoBytes, chainId, accountNumber);
}

/** What a SIGN_MODE_DIRECT signature signs: the digest of `signDocBytes`, whose bytes are not kept. */
export function signDocDigest(tx: { readonly bodyBytes: Uint8Array; readonly authInfoBytes: Uint8Array }, chainId: string, accountNumber: bigint): Uint8Array {
  return signBytesDigest(signDocBytes(tx, chainId, accountNumber));
}

export interface UnsignedTx {
  readonly msgs: readonly Any[];
  readonly memo?: string;
  readonly timeoutHeight?: bigint;
  readonly fee: {
    readonly amount: readonly Coin[];
    readonly gasLimit: bigint;
    readonly payer?: string;
    readonly granter?: string;
  };
}

export interface TxSigner {
  readonly privateKey: Uint8Array;
  readonly accountNumber: bigint;
  readonly sequence: bigint;
  /** Leave the public key out of the signer info (allowed once the account's key is on chain). */
  readonly omitPubKey?: boolean;
}

/** TxRaw bytes from its three parts. */
export function encodeTxRaw(parts: {
  readonly bodyBytes: Uint8Array;
  readonly authInfoBytes: Uint8Array;
  readonly signatures: readonly Uint8Array[];
}): Uint8Array {
  return TxRaw.encode({ bodyBytes: parts.bodyBytes, authInfoBytes: parts.authInfoBytes, signatures: [...parts.signatures] }).finish();
}

/** Body and auth-info bytes of a tx, signer infos in `signers` order with SIGN_MODE_DIRECT. */
export function encodeTxParts(tx: UnsignedTx, signers: readonly TxSigner[]): { bodyBytes: Uint8Array; authInfoBytes: Uint8Array } {
  const bodyBytes = TxBody.encode(TxBody.fromPartial({ messages: [...tx.msgs], memo: tx.memo ?? '', timeoutHeight: tx.timeoutHeight ?? 0n })).finish();
  const authInfoBytes = AuthInfo.encode(
    AuthInfo.fromPartial({
      signerInfos: signers.map((s) => ({
        publicKey: s.omitPubKey ? undefined : encodeSecp256k1PubKey(publicKeyFromPrivate(s.privateKey)),
        modeInfo: { single: { mode: SignMode.SIGN_MODE_DIRECT } },
        sequence: s.sequence,
      })),
      fee: { amount: [...tx.fee.amount], gasLimit: tx.fee.gasLimit, payer: tx.fee.payer ?? '', granter: tx.fee.granter ?? '' },
    }),
  ).finish();
  return { bodyBytes, authInfoBytes };
}

/** Builds and signs a tx (SIGN_MODE_DIRECT), one signature per signer, for `chainId`. Returns TxRaw bytes. */
export function encodeTx(tx: UnsignedTx, signers: readonly TxSigner[], chainId: string): Uint8Array {
  const parts = encodeTxParts(tx, signers);
  const signatures = signers.map((s) => signDirect(s.privateKey, signDocBytes(parts, chainId, s.accountNumber)));
  return encodeTxRaw({ ...parts, signatures });
}

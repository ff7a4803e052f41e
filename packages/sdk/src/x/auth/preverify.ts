// What the node can verify of a tx before CheckTx runs: the SIGN_MODE_DIRECT signatures whose signer
// info carries its public key, over the sign bytes for the account number found in committed state.
// Only for a tx the ante handler's cheap checks would let through to its signatures: a free tx must
// not buy work or memory in proportion to its signer infos.
import { SignMode } from 'cosmjs-types/cosmos/tx/signing/v1beta1/signing';
import type { Any } from 'cosmjs-types/google/protobuf/any';
import type { Context } from '../../app/context.ts';
import type { MsgRouter } from '../../app/router.ts';
import { equalBytes } from '../../bytes/index.ts';
import { rawAddressFromPublicKey, type SignatureTriple } from '../../crypto/index.ts';
import type { DecodedTx, SignedTxParts } from '../../tx/decode.ts';
import { decodeSecp256k1PubKey } from '../../tx/pubkey.ts';
import { signDocDigest } from '../../tx/sign.ts';
import type { AccountKeeper } from './keeper.ts';
import { requiredSigners } from './signers.ts';

/** What pre-verification derived for one signer: the ante handler takes it instead of deriving it again. */
export interface PreverifiedSigner {
  /** The signer info's key, as found (the ante handler takes the rest only for this very object). */
  readonly publicKey: Any;
  /** `publicKey` decoded. */
  readonly pubkey: Uint8Array;
  /** The address `pubkey` hashes to. */
  readonly address: Uint8Array;
  readonly chainId: string;
  readonly accountNumber: bigint;
  /** sha256 of SignDoc{body, auth info, chainId, accountNumber}; the sign bytes themselves are not kept. */
  readonly digest: Uint8Array;
}

interface Preverified {
  readonly bodyBytes: Uint8Array;
  readonly authInfoBytes: Uint8Array;
  readonly signers: readonly (PreverifiedSigner | undefined)[];
}

/**
 * Keyed by the decoded AuthInfo object, which CheckTx's decode of the same bytes reuses: kept here, not
 * on the tx, so only this module's own derivations can ever be taken for a tx's.
 */
const derived = new WeakMap<object, Preverified>();

/**
 * The (public key, sign-bytes digest, signature) triples the ante handler will verify for `tx`, as far as
 * they can be known now (read-only `ctx`). Nothing for a tx the ante handler refuses before verifying
 * (more signer infos than tx_sig_limit, signatures or keys that do not match its messages' signers, a
 * message that fails its stateless checks). A signer whose key is only on chain, whose account does not
 * exist yet or whose mode is not direct is left out: the ante handler verifies it itself. A wrong guess
 * costs a wasted verification, never a wrong answer: the ante handler only skips a triple that is exactly its own.
 */
export function signaturesToPreverify(ctx: Context, ak: AccountKeeper, router: MsgRouter, tx: DecodedTx): SignatureTriple[] {
  const infos = tx.authInfo.signerInfos;
  if (infos.length === 0 || infos.length !== tx.signatures.length || BigInt(infos.length) > ak.getParams(ctx).txSigLimit) return [];
  let signers: readonly { readonly bytes: Uint8Array }[];
  try {
    signers = requiredSigners(tx, router, ak).signers;
  } catch {
    return []; // the ante handler gives the error
  }
  if (signers.length !== infos.length) return [];
  const out: SignatureTriple[] = [];
  const derivedSigners = new Array<PreverifiedSigner | undefined>(infos.length);
  for (let i = 0; i < infos.length; i++) {
    const si = infos[i];
    const signature = tx.signatures[i];
    const publicKey = si.publicKey;
    if (publicKey === undefined || si.modeInfo?.single?.mode !== SignMode.SIGN_MODE_DIRECT) continue;
    let pubkey: Uint8Array;
    try {
      pubkey = decodeSecp256k1PubKey(publicKey);
    } catch {
      return []; // the ante handler refuses the tx
    }
    const address = rawAddressFromPublicKey(pubkey);
    // the ante handler refuses a key that is not its signer's; signers are distinct, so one sign doc per account
    if (!equalBytes(address, signers[i].bytes)) return [];
    const acc = ak.getAccountByAddress(ctx, address);
    if (acc === undefined) continue;
    const digest = signDocDigest(tx, ctx.chainId, acc.accountNumber);
    derivedSigners[i] = { publicKey, pubkey, address, chainId: ctx.chainId, accountNumber: acc.accountNumber, digest };
    out.push({ pubkey, digest, signature });
  }
  if (out.length > 0) derived.set(tx.authInfo, { bodyBytes: tx.bodyBytes, authInfoBytes: tx.authInfoBytes, signers: derivedSigners });
  return out;
}

/**
 * Signer `i`'s derivations by `signaturesToPreverify`, when `tx` is the very tx they were made for (the
 * same decoded objects, never an equal copy); undefined otherwise. The caller still checks that the key,
 * chain id and account number it would use are the ones these were made with.
 */
export function preverifiedSigner(tx: SignedTxParts, i: number): PreverifiedSigner | undefined {
  const d = derived.get(tx.authInfo);
  return d !== undefined && d.bodyBytes === tx.bodyBytes && d.authInfoBytes === tx.authInfoBytes ? d.signers[i] : undefined;
}

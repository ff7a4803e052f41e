// What the node can verify of a tx before CheckTx runs: the SIGN_MODE_DIRECT signatures whose signer
// info carries its public key, over the sign bytes for the account number found in committed state.
import { SignMode } from 'cosmjs-types/cosmos/tx/signing/v1beta1/signing';
import type { Context } from '../../app/context.ts';
import { rawAddressFromPublicKey, type SignatureTriple } from '../../crypto/index.ts';
import type { SignedTxParts } from '../../tx/decode.ts';
import { decodeSecp256k1PubKey } from '../../tx/pubkey.ts';
import { signDocBytes } from '../../tx/sign.ts';
import type { AccountKeeper } from './keeper.ts';

/**
 * The (public key, sign bytes, signature) triples the ante handler will verify for `tx`, as far as they
 * can be known now (read-only `ctx`). A signer whose key is only on chain, whose account does not exist
 * yet or whose mode is not direct is left out: the ante handler verifies it itself. A wrong guess costs a
 * wasted verification, never a wrong answer: the ante handler only skips a triple that is exactly its own.
 */
export function signaturesToPreverify(ctx: Context, ak: AccountKeeper, tx: SignedTxParts): SignatureTriple[] {
  const out: SignatureTriple[] = [];
  tx.authInfo.signerInfos.forEach((si, i) => {
    const signature = tx.signatures[i];
    if (signature === undefined || si.publicKey === undefined || si.modeInfo?.single?.mode !== SignMode.SIGN_MODE_DIRECT) return;
    let pubkey: Uint8Array;
    try {
      pubkey = decodeSecp256k1PubKey(si.publicKey);
    } catch {
      return; // the ante handler gives the error
    }
    const acc = ak.getAccountByAddress(ctx, rawAddressFromPublicKey(pubkey));
    if (acc === undefined) return;
    out.push({ pubkey, signDoc: signDocBytes(tx, ctx.chainId, acc.accountNumber), signature });
  });
  return out;
}

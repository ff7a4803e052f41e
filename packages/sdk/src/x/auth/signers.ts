// A tx's signers: the ante handler's, and pre-verification's, which must agree with it.
import { errors } from '../../app/errors.ts';
import type { MsgRouter } from '../../app/router.ts';
import { equalBytes } from '../../bytes/index.ts';
import type { DecodedTx } from '../../tx/decode.ts';
import type { AccountKeeper } from './keeper.ts';
import { errorMessage } from '@chaind/errors';

export interface Signer {
  readonly address: string;
  readonly bytes: Uint8Array;
}

/** Adds a signer unless its address bytes are already there (a tx has a handful of signers at most). */
function addSigner(out: Signer[], address: string, bytes: Uint8Array): void {
  for (const s of out) if (equalBytes(s.bytes, bytes)) return;
  out.push({ address, bytes });
}

/**
 * Signers of the messages in order of first appearance, then the fee payer if it is not one (as the
 * SDK's GetSigners); and the fee payer: the first signer when the fee names none (undefined: no signer).
 */
export function requiredSigners(tx: DecodedTx, router: MsgRouter, ak: AccountKeeper): { signers: Signer[]; payer: Signer | undefined } {
  const out: Signer[] = [];
  for (const any of tx.msgs) {
    router.checkUnpackLimits(any);
    const { route, msg } = router.decode(any);
    // stateless message checks come before the ante chain in the SDK (baseapp's validateBasicTxMsgs)
    route.validateBasic?.(msg);
    if (route.signers === undefined) throw errors.invalidRequest.wrap(`message ${any.typeUrl} cannot be signed: its route declares no signers`);
    for (const s of route.signers(msg)) addSigner(out, s, ak.addressBytes(s));
  }
  const payer = tx.fee.payer;
  if (payer !== '') {
    let bytes: Uint8Array;
    try {
      bytes = ak.addressBytes(payer);
    } catch (e) {
      throw errors.invalidAddress.wrap(`invalid fee payer address "${payer}": ${errorMessage(e)}`);
    }
    addSigner(out, payer, bytes);
    return { signers: out, payer: { address: payer, bytes } };
  }
  return { signers: out, payer: out[0] };
}

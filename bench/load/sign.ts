// A lane's bank send, signed (SIGN_MODE_DIRECT) and encoded as TxRaw bytes, with its hash.
import { Buffer } from 'node:buffer';
import { createHash } from 'node:crypto';
import { MsgSend } from 'cosmjs-types/cosmos/bank/v1beta1/tx';
import { signDirect } from '@chaind/sdk/crypto';
import { encodeTxParts, encodeTxRaw, signDocBytes } from '@chaind/sdk/tx';
import type { Lane } from './protocol.ts';

const GAS = 200_000n;

export interface SignedSend {
  readonly tx: Buffer;
  /** sha256 of the bytes, upper-case hex (CometBFT's tx hash). */
  readonly hash: string;
}

/**
 * 1 `denom` from the lane's account to its `to`, at `sequence`. The public key rides on every tx, as CosmJS
 * signs them: without it the node cannot verify the signature ahead on its worker threads (the key is in
 * the account's state), and CheckTx and FinalizeBlock each verify it on the main thread.
 */
export function signSend(lane: Lane, sequence: number, chainId: string, denom: string): SignedSend {
  const privateKey = Buffer.from(lane.privateKey, 'hex');
  const msg = MsgSend.encode(MsgSend.fromPartial({ fromAddress: lane.address, toAddress: lane.to, amount: [{ denom, amount: '1' }] })).finish();
  const accountNumber = BigInt(lane.accountNumber);
  const parts = encodeTxParts({ msgs: [{ typeUrl: '/cosmos.bank.v1beta1.MsgSend', value: msg }], fee: { amount: [{ denom, amount: '200' }], gasLimit: GAS } }, [
    { privateKey, accountNumber, sequence: BigInt(sequence) },
  ]);
  const signature = signDirect(privateKey, signDocBytes(parts, chainId, accountNumber));
  const tx = Buffer.from(encodeTxRaw({ ...parts, signatures: [signature] }));
  return { tx, hash: createHash('sha256').update(tx).digest('hex').toUpperCase() };
}

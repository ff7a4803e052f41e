// Fast codecs for cosmos.bank.v1beta1's messages: value for value what cosmjs-types gives
// (codec.test.ts compares them through x/bank).
import { MsgSend } from 'cosmjs-types/cosmos/bank/v1beta1/tx';
import { readCoin } from './tx.ts';
import { fastOr, WireReader } from './wire.ts';

function fastMsgSend(bytes: Uint8Array): MsgSend {
  // no bytes fields: nothing can alias the input, so no private copy is needed
  const r = new WireReader(bytes);
  const m: MsgSend = { fromAddress: '', toAddress: '', amount: [] };
  while (r.next()) {
    if (r.field === 1) m.fromAddress = r.string();
    else if (r.field === 2) m.toAddress = r.string();
    else if (r.field === 3) m.amount.push(readCoin(r.sub()));
    else r.skip();
  }
  return m;
}

const slowMsgSend = (bytes: Uint8Array): MsgSend => MsgSend.decode(bytes);

/** MsgSend.decode of a whole message, skipping cosmjs-types' reader for the usual encodings (same result). */
export function decodeMsgSend(bytes: Uint8Array): MsgSend {
  return fastOr(fastMsgSend, slowMsgSend, bytes);
}

import type { BinaryReader } from 'cosmjs-types/binary';
import { MsgSend, MsgSendResponse } from 'cosmjs-types/cosmos/bank/v1beta1/tx';
import type { Context } from '../../app/context.ts';
import { CodedError, errors } from '../../app/errors.ts';
import type { MsgRoute, MsgRouter } from '../../app/router.ts';
import { bech32DataLength } from '../../crypto/index.ts';
import { decodeMsgSend } from '../../codec/index.ts';
import { fromProtoCoins, type Coin } from '../../types/coins.ts';
import { msgSendAmino } from './amino.ts';
import type { BankSendKeeper } from './send.ts';
import { errorMessage } from '@chaind/errors';

export const MSG_SEND_TYPE_URL = '/cosmos.bank.v1beta1.MsgSend';
export const MSG_SEND_RESPONSE_TYPE_URL = '/cosmos.bank.v1beta1.MsgSendResponse';

/** A coded error's own detail, without the registered text `wrap` appended. */
function detailOf(e: unknown): string {
  if (!(e instanceof CodedError)) return errorMessage(e);
  const suffix = `: ${e.registered.message}`;
  return e.message.endsWith(suffix) ? e.message.slice(0, -suffix.length) : e.message;
}

function checkAddress(address: string, role: string, prefix: string): void {
  let length: number;
  try {
    length = bech32DataLength(address, prefix);
  } catch (e) {
    throw errors.invalidAddress.wrap(`invalid ${role} address: ${detailOf(e)}`);
  }
  if (length === 0 || length > 255) throw errors.invalidAddress.wrap(`invalid ${role} address: length ${length} is not in 1..255`);
}

/** Stateless checks of MsgSend, as the SDK's: both addresses valid bech32 of this chain, a non-empty valid coin set. */
export function validateMsgSend(msg: MsgSend, prefix: string): Coin[] {
  checkAddress(msg.fromAddress, 'from', prefix);
  checkAddress(msg.toAddress, 'to', prefix);
  if (msg.amount.length === 0) throw errors.invalidCoins.wrap('amount must not be empty');
  return fromProtoCoins(msg.amount);
}

/** MsgSend's codec with a decoder that skips cosmjs-types' reader for the usual encodings (same result). */
export const msgSendCodec: typeof MsgSend = {
  ...MsgSend,
  decode: (input: Uint8Array | BinaryReader, length?: number): MsgSend =>
    input instanceof Uint8Array && length === undefined ? decodeMsgSend(input) : MsgSend.decode(input, length),
};

/** cosmos.bank.v1beta1.Msg/Send: refuses disabled denoms and blocked recipients, then moves the coins. */
export function msgSendRoute(keeper: BankSendKeeper): MsgRoute<MsgSend, MsgSendResponse> {
  return {
    typeUrl: MSG_SEND_TYPE_URL,
    codec: msgSendCodec,
    responseTypeUrl: MSG_SEND_RESPONSE_TYPE_URL,
    responseCodec: MsgSendResponse,
    validateBasic: (msg) => void validateMsgSend(msg, keeper.prefix),
    signers: (msg) => [msg.fromAddress],
    amino: msgSendAmino,
    handler(ctx: Context, msg: MsgSend): MsgSendResponse {
      const coins = validateMsgSend(msg, keeper.prefix);
      keeper.assertSendEnabledCoins(ctx, coins);
      if (keeper.isBlocked(msg.toAddress)) throw errors.unauthorized.wrap(`${msg.toAddress} is not allowed to receive funds`);
      keeper.sendCoins(ctx, msg.fromAddress, msg.toAddress, coins);
      return {};
    },
  };
}

export function registerBankMsgServer(router: MsgRouter, keeper: BankSendKeeper): void {
  router.register(msgSendRoute(keeper));
}

// bank's messages in legacy amino JSON (SIGN_MODE_LEGACY_AMINO_JSON), as the SDK's x/bank registers them.
import type { MsgSend } from 'cosmjs-types/cosmos/bank/v1beta1/tx';
import type { AminoForm } from '../../app/router.ts';
import { aminoCoins, aminoFields } from '../../tx/amino-json.ts';

/** cosmos.bank.v1beta1.MsgSend: amount is legacy coins, always present. */
export const msgSendAmino: AminoForm<MsgSend> = {
  name: 'cosmos-sdk/MsgSend',
  value: (m) => aminoFields({ from_address: m.fromAddress, to_address: m.toAddress, amount: aminoCoins(m.amount) }, ['amount']),
};

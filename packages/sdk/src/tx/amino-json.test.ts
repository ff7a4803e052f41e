import assert from 'node:assert/strict';
import { describe, test } from 'node:test';
import { Buffer } from 'node:buffer';
import { makeSignDoc, serializeSignDoc } from '@cosmjs/amino';
import { MsgSend, MsgSendResponse } from 'cosmjs-types/cosmos/bank/v1beta1/tx';
import { MsgSubmitProposal, MsgSubmitProposalResponse } from 'cosmjs-types/cosmos/gov/v1/tx';
import type { Any } from 'cosmjs-types/google/protobuf/any';
import { TxBody } from 'cosmjs-types/cosmos/tx/v1beta1/tx';
import { CodedError } from '../app/errors.ts';
import { MsgRouter, type AminoForm } from '../app/router.ts';
import { aminoCoins, aminoFields, aminoMsg, aminoSignBytes, aminoTime, MAX_AMINO_MSG_DEPTH } from './amino-json.ts';
import { decodeTx } from './decode.ts';
import { encodeTxParts, encodeTxRaw } from './sign.ts';

const KEY = Uint8Array.from({ length: 32 }, (_, i) => i + 1);
const SEND = '/cosmos.bank.v1beta1.MsgSend';

function router(amino: AminoForm<MsgSend> | undefined): MsgRouter {
  const r = new MsgRouter();
  r.register({ typeUrl: SEND, codec: MsgSend, responseTypeUrl: `${SEND}Response`, responseCodec: MsgSendResponse, handler: () => ({}), amino });
  return r;
}

const sendAmino: AminoForm<MsgSend> = {
  name: 'cosmos-sdk/MsgSend',
  value: (m) => aminoFields({ from_address: m.fromAddress, to_address: m.toAddress, amount: aminoCoins(m.amount) }, ['amount']),
};

describe('amino JSON rules', () => {
  test('omitempty unless kept, int64s as strings, enums as numbers, legacy coins always an array', () => {
    assert.deepEqual(aminoFields({ a: '', b: 0n, c: 0, d: false, e: [], f: undefined, g: 5n, h: 2, i: 'x', j: true }), { g: '5', h: 2, i: 'x', j: true });
    assert.deepEqual(aminoFields({ proposal_id: 0n, amount: [] }, ['proposal_id', 'amount']), { proposal_id: '0', amount: [] });
    assert.deepEqual(aminoCoins([{ denom: 'stake', amount: '0' }]), [{ denom: 'stake', amount: '0' }]);
  });

  test("timestamps as Go's RFC 3339; unset is Go's zero time", () => {
    assert.equal(aminoTime(undefined), '0001-01-01T00:00:00Z');
    assert.equal(aminoTime({ seconds: 1_700_000_000n, nanos: 0 }), '2023-11-14T22:13:20Z');
    assert.equal(aminoTime({ seconds: 1_700_000_000n, nanos: 120_000_000 }), '2023-11-14T22:13:20.12Z');
    assert.equal(aminoTime({ seconds: 1_700_000_000n, nanos: 1 }), '2023-11-14T22:13:20.000000001Z');
    assert.equal(aminoTime({ seconds: 253_402_300_799n, nanos: 0 }), '9999-12-31T23:59:59Z');
    // out of the Timestamp's range: a coded refusal, never a RangeError
    for (const t of [
      { seconds: 253_402_300_800n, nanos: 0 },
      { seconds: -62_135_596_801n, nanos: 0 },
      { seconds: 0n, nanos: 1e9 },
    ]) {
      assert.throws(
        () => aminoTime(t),
        (e: unknown) => e instanceof CodedError && e.code === 18,
      );
    }
  });

  test("the sign bytes are CosmJS's serializeSignDoc of the StdSignDoc: fee payer and granter, timeout height, escaping", () => {
    const msg = { fromAddress: 'chain1from', toAddress: 'chain1to<&>', amount: [{ denom: 'stake', amount: '7' }] };
    const parts = encodeTxParts(
      {
        msgs: [{ typeUrl: SEND, value: MsgSend.encode(msg).finish() }],
        memo: 'a <b> & c',
        timeoutHeight: 99n,
        fee: { amount: [], gasLimit: 200_000n, payer: 'chain1payer', granter: 'chain1granter' },
      },
      [{ privateKey: KEY, accountNumber: 3n, sequence: 4n }],
    );
    const tx = decodeTx(encodeTxRaw({ ...parts, signatures: [new Uint8Array(64)] }));
    const want = serializeSignDoc(
      makeSignDoc(
        [{ type: 'cosmos-sdk/MsgSend', value: { from_address: msg.fromAddress, to_address: msg.toAddress, amount: msg.amount } }],
        { amount: [], gas: '200000', payer: 'chain1payer', granter: 'chain1granter' },
        'chain-x',
        'a <b> & c',
        3n,
        4,
        99n,
      ),
    );
    const got = aminoSignBytes(tx, router(sendAmino), 'chain-x', 3n, 4n);
    assert.equal(Buffer.from(got).toString(), Buffer.from(want).toString());
    assert.equal(
      Buffer.from(got).toString(),
      '{"account_number":"3","chain_id":"chain-x","fee":{"amount":[],"gas":"200000","granter":"chain1granter","payer":"chain1payer"},"memo":"a \\u003cb\\u003e \\u0026 c",' +
        '"msgs":[{"type":"cosmos-sdk/MsgSend","value":{"amount":[{"amount":"7","denom":"stake"}],"from_address":"chain1from","to_address":"chain1to\\u003c\\u0026\\u003e"}}],' +
        '"sequence":"4","timeout_height":"99"}',
    );
  });

  test('a message without an amino form, and non-critical extension options, are refused with code 37', () => {
    const parts = encodeTxParts(
      { msgs: [{ typeUrl: SEND, value: MsgSend.encode({ fromAddress: 'a', toAddress: 'b', amount: [] }).finish() }], fee: { amount: [], gasLimit: 1n } },
      [{ privateKey: KEY, accountNumber: 0n, sequence: 0n }],
    );
    const tx = decodeTx(encodeTxRaw({ ...parts, signatures: [new Uint8Array(64)] }));
    assert.throws(
      () => aminoSignBytes(tx, router(undefined), 'c', 0n, 0n),
      (e: unknown) => e instanceof CodedError && e.code === 37 && /\/cosmos\.bank\.v1beta1\.MsgSend has no amino JSON form/.test(e.message),
    );
    const body = TxBody.decode(parts.bodyBytes);
    const withExt = decodeTx(
      encodeTxRaw({
        ...parts,
        bodyBytes: TxBody.encode({ ...body, nonCriticalExtensionOptions: [{ typeUrl: '/x.Ext', value: new Uint8Array() }] }).finish(),
        signatures: [new Uint8Array(64)],
      }),
    );
    assert.throws(
      () => aminoSignBytes(withExt, router(sendAmino), 'c', 0n, 0n),
      (e: unknown) => e instanceof CodedError && e.code === 37,
    );
  });
});

test('messages nest at most MAX_AMINO_MSG_DEPTH deep in amino JSON (code 18 beyond), never as deep as the stack allows', () => {
  const PROPOSAL = '/cosmos.gov.v1.MsgSubmitProposal';
  const r = new MsgRouter();
  r.register<MsgSubmitProposal, MsgSubmitProposalResponse>({
    typeUrl: PROPOSAL,
    codec: MsgSubmitProposal,
    responseTypeUrl: `${PROPOSAL}Response`,
    responseCodec: MsgSubmitProposalResponse,
    handler: () => ({ proposalId: 0n }),
    amino: { name: 'p', value: (m, any) => aminoFields({ messages: m.messages.map(any) }) },
  });
  const nested = (levels: number): Any => {
    let any: Any = { typeUrl: PROPOSAL, value: MsgSubmitProposal.encode(MsgSubmitProposal.fromPartial({})).finish() };
    for (let i = 1; i < levels; i++) any = { typeUrl: PROPOSAL, value: MsgSubmitProposal.encode(MsgSubmitProposal.fromPartial({ messages: [any] })).finish() };
    return any;
  };
  assert.equal(aminoMsg(r, nested(MAX_AMINO_MSG_DEPTH)).type, 'p');
  assert.throws(
    () => aminoMsg(r, nested(MAX_AMINO_MSG_DEPTH + 1)),
    (e: unknown) => e instanceof CodedError && e.code === 18 && /nested more than 16 deep/.test(e.message),
  );
  assert.throws(
    () => aminoMsg(r, nested(20_000)),
    (e: unknown) => e instanceof CodedError && e.code === 18,
  );
});

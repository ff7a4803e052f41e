import assert from 'node:assert/strict';
import { describe, test } from 'node:test';
import { decodeTxRaw, encodePubkey, makeAuthInfoBytes, makeSignBytes, makeSignDoc } from '@cosmjs/proto-signing';
import { MsgSend } from 'cosmjs-types/cosmos/bank/v1beta1/tx';
import { SignMode } from 'cosmjs-types/cosmos/tx/signing/v1beta1/signing';
import { BinaryWriter } from 'cosmjs-types/binary';
import { AuthInfo, ModeInfo, TxBody, TxRaw } from 'cosmjs-types/cosmos/tx/v1beta1/tx';
import { PubKey } from 'cosmjs-types/cosmos/crypto/secp256k1/keys';
import { CodedError, errors } from '../app/errors.ts';
import { addressFromPublicKey, publicKeyFromPrivate, verifySignature } from '../crypto/index.ts';
import { decodeSecp256k1PubKey, decodeSignedParts, decodeTx, encodeSecp256k1PubKey, encodeTx, signDocBytes } from './index.ts';

const key = new Uint8Array(32).fill(7);
const pub = publicKeyFromPrivate(key);
const from = addressFromPublicKey(pub);
const send = {
  typeUrl: '/cosmos.bank.v1beta1.MsgSend',
  value: MsgSend.encode({ fromAddress: from, toAddress: from, amount: [{ denom: 'stake', amount: '5' }] }).finish(),
};

describe('decodeTx', () => {
  test('decodes a CosmJS-built tx, keeping the raw body and auth-info bytes and the size', () => {
    const bodyBytes = TxBody.encode(TxBody.fromPartial({ messages: [send], memo: 'memo', timeoutHeight: 9n })).finish();
    const pubkey = encodePubkey({ type: 'tendermint/PubKeySecp256k1', value: Buffer.from(pub).toString('base64') });
    const authInfoBytes = makeAuthInfoBytes([{ pubkey, sequence: 3 }], [{ denom: 'stake', amount: '100' }], 150000, undefined, from);
    const bytes = TxRaw.encode({ bodyBytes, authInfoBytes, signatures: [new Uint8Array(64).fill(1)] }).finish();
    const tx = decodeTx(bytes);
    assert.deepEqual(tx.msgs, [send]);
    assert.equal(tx.gasLimit, 150000n);
    assert.equal(tx.body.memo, 'memo');
    assert.equal(tx.body.timeoutHeight, 9n);
    assert.deepEqual(tx.fee.amount, [{ denom: 'stake', amount: '100' }]);
    assert.equal(tx.fee.payer, from);
    const [si] = tx.authInfo.signerInfos;
    assert.equal(si.sequence, 3n);
    assert.equal(si.modeInfo?.single?.mode, SignMode.SIGN_MODE_DIRECT);
    assert.deepEqual(decodeSecp256k1PubKey(si.publicKey ?? { typeUrl: '', value: new Uint8Array() }), pub);
    assert.deepEqual(tx.bodyBytes, bodyBytes);
    assert.deepEqual(tx.authInfoBytes, authInfoBytes);
    assert.equal(tx.size, bytes.length);
    assert.equal(tx.signatures.length, 1);
    // what the node pre-verifies from: the same, without the body decoded
    const parts = decodeSignedParts(bytes);
    assert.deepEqual(parts, { authInfo: tx.authInfo, signatures: tx.signatures, bodyBytes: tx.bodyBytes, authInfoBytes: tx.authInfoBytes });
  });

  test('bytes that decode but re-encode differently are kept as sent (signatures cover them)', () => {
    // field 1030 (non-critical: bit 11 set) is unknown to TxBody: it survives in body_bytes
    const bodyBytes = Buffer.concat([TxBody.encode(TxBody.fromPartial({ messages: [send] })).finish(), Buffer.from([0xb2, 0x40, 0x01, 0x41])]);
    const tx = decodeTx(TxRaw.encode({ bodyBytes, authInfoBytes: new Uint8Array(0), signatures: [] }).finish());
    assert.deepEqual(tx.bodyBytes, new Uint8Array(bodyBytes));
    assert.notDeepEqual(TxBody.encode(tx.body).finish(), tx.bodyBytes);
    assert.equal(tx.gasLimit, 0n, 'no fee: zero gas');
  });

  test('undecodable bytes are tx parse errors naming the part', () => {
    const fails = (bytes: Uint8Array, re: RegExp): void => {
      assert.throws(
        () => decodeTx(bytes),
        (e: unknown) => e instanceof CodedError && errors.txDecode.is(e) && re.test(e.message),
      );
    };
    fails(Uint8Array.from([0xff, 0xff, 0xff]), /^cannot decode TxRaw: /);
    fails(
      TxRaw.encode({ bodyBytes: Uint8Array.from([0x0a, 0x05, 0x01]), authInfoBytes: new Uint8Array(0), signatures: [] }).finish(),
      /^cannot decode TxBody: /,
    );
    fails(TxRaw.encode({ bodyBytes: new Uint8Array(0), authInfoBytes: Uint8Array.from([0x12, 0x7f]), signatures: [] }).finish(), /^cannot decode AuthInfo: /);
    // decodeSignedParts gives the same errors for the parts it reads, and does not read the body
    const partsFail = (bytes: Uint8Array, re: RegExp): void => {
      assert.throws(
        () => decodeSignedParts(bytes),
        (e: unknown) => e instanceof CodedError && errors.txDecode.is(e) && re.test(e.message),
      );
    };
    partsFail(Uint8Array.from([0xff, 0xff, 0xff]), /^cannot decode TxRaw: /);
    partsFail(
      TxRaw.encode({ bodyBytes: new Uint8Array(0), authInfoBytes: Uint8Array.from([0x12, 0x7f]), signatures: [] }).finish(),
      /^cannot decode AuthInfo: /,
    );
    const badBody = TxRaw.encode({ bodyBytes: Uint8Array.from([0x0a, 0x05, 0x01]), authInfoBytes: new Uint8Array(0), signatures: [] }).finish();
    assert.deepEqual(decodeSignedParts(badBody).bodyBytes, Uint8Array.from([0x0a, 0x05, 0x01]));
  });
});

describe('unknown fields below the top levels (the SDK recurses into known message fields and Anys)', () => {
  const refuses = (raw: { bodyBytes?: Uint8Array; authInfoBytes?: Uint8Array }, log: string): void => {
    const bytes = TxRaw.encode({
      bodyBytes: raw.bodyBytes ?? new Uint8Array(0),
      authInfoBytes: raw.authInfoBytes ?? new Uint8Array(0),
      signatures: [],
    }).finish();
    assert.throws(
      () => decodeTx(bytes),
      (e: unknown) => e instanceof CodedError && errors.txDecode.is(e) && e.message === `${log}: tx parse error`,
    );
  };
  const extra = Uint8Array.from([0x22, 0x01, 0x41]); // field 4, bytes

  test('in a secp256k1 PubKey Any, a Coin of the fee, a mode_info.multi, a body timeout_timestamp, a message Any', () => {
    const pk = { typeUrl: '/cosmos.crypto.secp256k1.PubKey', value: Uint8Array.from([...PubKey.encode({ key: pub }).finish(), ...extra]) };
    refuses(
      { authInfoBytes: AuthInfo.encode(AuthInfo.fromPartial({ signerInfos: [{ publicKey: pk }] })).finish() },
      'errUnknownField "PubKey": {TagNum: 4, WireType:"bytes"}',
    );
    const fee = AuthInfo.encode(AuthInfo.fromPartial({ fee: { amount: [{ denom: 'stake', amount: '1' }], gasLimit: 1n } })).finish();
    // AuthInfo{fee{amount{…}}}: add the field inside the coin, fixing the two enclosing lengths
    const coinEnd = 4 + fee[3];
    const withCoinExtra = Uint8Array.from([fee[0], fee[1] + 3, fee[2], fee[3] + 3, ...fee.subarray(4, coinEnd), ...extra, ...fee.subarray(coinEnd)]);
    refuses({ authInfoBytes: withCoinExtra }, 'errUnknownField "Coin": {TagNum: 4, WireType:"bytes"}');
    const multi = AuthInfo.encode(
      AuthInfo.fromPartial({
        signerInfos: [{ modeInfo: { multi: { bitarray: { extraBitsStored: 1, elems: Uint8Array.of(1) }, modeInfos: [{ single: { mode: 1 } }] } } }],
      }),
    ).finish();
    assert.doesNotThrow(() => decodeSignedParts(TxRaw.encode({ bodyBytes: new Uint8Array(0), authInfoBytes: multi, signatures: [] }).finish()));
    const ts = TxBody.encode(TxBody.fromPartial({ timeoutTimestamp: { seconds: 5n, nanos: 0 } })).finish();
    assert.doesNotThrow(() => decodeTx(TxRaw.encode({ bodyBytes: ts, authInfoBytes: new Uint8Array(0), signatures: [] }).finish()));
    refuses({ bodyBytes: Uint8Array.from([0x2a, ts[1] + 3, ...ts.subarray(2), ...extra]) }, 'errUnknownField "Timestamp": {TagNum: 4, WireType:"bytes"}');
    const anyWithExtra = Uint8Array.from([0x0a, 0x05, 0x0a, 0x01, 0x2f, ...extra]); // Any{type_url "/", field 4}
    refuses({ bodyBytes: anyWithExtra }, 'errUnknownField "Any": {TagNum: 4, WireType:"bytes"}');
  });
});

describe('nesting depth', () => {
  test('messages nested deeper than 100 levels are a tx parse error before anything decodes them, at any depth the same', () => {
    const tx = (multisigLevels: number): Uint8Array => {
      // built as headers around one inner message, joined once: re-encoding each level would copy O(n²) bytes
      const single = ModeInfo.encode({ single: { mode: SignMode.SIGN_MODE_DIRECT }, multi: undefined }).finish();
      const headers: Uint8Array[] = [];
      let length = single.length;
      for (let i = 0; i < 2 * multisigLevels; i++) {
        // Multi{mode_infos: [mi]} then ModeInfo{multi}: both field 2, length-delimited
        const header = BinaryWriter.create().uint32(0x12).uint32(length).finish();
        headers.push(header);
        length += header.length;
      }
      const mi = Buffer.concat([...headers.reverse(), single]);
      const signerInfo = BinaryWriter.create().uint32(0x12).bytes(mi).finish();
      const authInfoBytes = BinaryWriter.create().uint32(0x0a).bytes(signerInfo).finish();
      return TxRaw.encode({ bodyBytes: new Uint8Array(0), authInfoBytes, signatures: [] }).finish();
    };
    // AuthInfo 0, SignerInfo 1, ModeInfo 2, then Multi and ModeInfo per level, the innermost Single one more:
    // 48 multisig levels reach depth 99, 49 reach 101
    assert.doesNotThrow(() => decodeTx(tx(48)));
    for (const levels of [49, 5_000, 100_000]) {
      assert.throws(
        () => decodeTx(tx(levels)),
        (e: unknown) =>
          e instanceof CodedError && errors.txDecode.is(e) && e.message === 'protobuf message nesting depth exceeded maximum of 100: tx parse error',
        `${levels} multisig levels`,
      );
    }
  });
});

describe('signing', () => {
  test('signDocBytes is CosmJS’ makeSignBytes; encodeTx signs SIGN_MODE_DIRECT and CosmJS decodes it', () => {
    const bytes = encodeTx(
      { msgs: [send], memo: 'm', fee: { amount: [{ denom: 'stake', amount: '1' }], gasLimit: 100000n } },
      [{ privateKey: key, accountNumber: 4n, sequence: 2n }],
      'c-1',
    );
    const tx = decodeTx(bytes);
    const doc = signDocBytes(tx, 'c-1', 4n);
    assert.deepEqual(doc, makeSignBytes(makeSignDoc(tx.bodyBytes, tx.authInfoBytes, 'c-1', 4)));
    assert.equal(verifySignature(pub, doc, tx.signatures[0]), true);
    assert.equal(verifySignature(pub, signDocBytes(tx, 'c-2', 4n), tx.signatures[0]), false);
    const theirs = decodeTxRaw(bytes);
    assert.equal(theirs.body.memo, 'm');
    assert.equal(theirs.authInfo.signerInfos[0].sequence, 2n);
    assert.deepEqual(theirs.authInfo.signerInfos[0].publicKey, encodeSecp256k1PubKey(pub));
  });

  test('public keys: only 33-byte compressed secp256k1 keys', () => {
    assert.deepEqual(decodeSecp256k1PubKey(encodeSecp256k1PubKey(pub)), pub);
    assert.throws(
      () => decodeSecp256k1PubKey({ typeUrl: '/cosmos.crypto.ed25519.PubKey', value: new Uint8Array(34) }),
      /unsupported public key type \/cosmos\.crypto\.ed25519\.PubKey/,
    );
    assert.throws(
      () => decodeSecp256k1PubKey(encodeSecp256k1PubKey(new Uint8Array(65).fill(4))),
      /expected a 33-byte compressed secp256k1 public key, got 65 bytes: invalid pubkey/,
    );
  });
});

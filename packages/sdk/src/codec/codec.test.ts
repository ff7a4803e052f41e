// The fast codecs against cosmjs-types on many values and many damaged encodings: same bytes out of
// every encoder, and out of every decoder the same value or the same error. cosmjs-types writes a uint64
// in [2^31, 2^32) wrongly (2^31 as 00 00 00 00 00); the fast encoders keep those bytes too.
import assert from 'node:assert/strict';
import { describe, test } from 'node:test';
import { BaseAccount, ModuleAccount, Params } from 'cosmjs-types/cosmos/auth/v1beta1/auth';
import { MsgSend } from 'cosmjs-types/cosmos/bank/v1beta1/tx';
import { PubKey } from 'cosmjs-types/cosmos/crypto/secp256k1/keys';
import { SignMode } from 'cosmjs-types/cosmos/tx/signing/v1beta1/signing';
import { AuthInfo, SignDoc, TxBody, TxRaw } from 'cosmjs-types/cosmos/tx/v1beta1/tx';
import { Any } from 'cosmjs-types/google/protobuf/any';
import { accountFromAny, accountToAny, decodeAccount, encodeAccount, type Account } from '../x/auth/account.ts';
import { decodeParams } from '../x/auth/params.ts';
import { msgSendCodec } from '../x/bank/msg-server.ts';
import { decodeAuthInfoMessage, decodeTxBodyMessage, decodeTxRawMessage, encodeAnyMessage, encodeSignDocMessage } from './tx.ts';
import { decodeSecp256k1PubKey, encodeSecp256k1PubKey } from '../tx/pubkey.ts';
import { errorMessage } from '@chaind/errors';

/** A deterministic generator (xorshift32), so every run tests the same values. */
function rng(seed: number): { int(n: number): number; pick<T>(xs: readonly T[]): T; bytes(n: number): Uint8Array } {
  let s = seed >>> 0 || 1;
  const next = (): number => {
    s ^= s << 13;
    s >>>= 0;
    s ^= s >>> 17;
    s ^= s << 5;
    s >>>= 0;
    return s;
  };
  return {
    int: (n) => next() % n,
    pick: (xs) => xs[next() % xs.length],
    bytes: (n) => Uint8Array.from({ length: n }, () => next() & 0xff),
  };
}

const R = rng(20261122);
const U64S = [
  0n,
  1n,
  127n,
  128n,
  300n,
  2n ** 28n - 1n,
  2n ** 28n,
  2n ** 31n - 1n,
  2n ** 31n,
  3_000_000_000n,
  2n ** 32n - 1n,
  2n ** 32n,
  2n ** 49n,
  2n ** 53n + 1n,
  2n ** 63n,
  2n ** 64n - 1n,
];
const STRINGS = ['', 'a', 'chain1qyqszqgpqyqszqgpqyqszqgpqyqszqgp9z4ggx', 'stake', 'x'.repeat(200), 'memo with spaces', 'ünïcödé ✓', '\u0000nul', '😀'];
const u64 = (): bigint => R.pick(U64S);
const str = (): string => R.pick(STRINGS);
const bytes = (): Uint8Array => R.bytes(R.pick([0, 1, 20, 33, 64, 130]));
const any = (): Any => ({ typeUrl: R.pick(['', '/cosmos.crypto.secp256k1.PubKey', '/cosmos.bank.v1beta1.MsgSend', '/x.ü']), value: bytes() });
const coin = (): { denom: string; amount: string } => ({
  denom: str(),
  amount: R.pick(['', '0', '1', '200', '115792089237316195423570985008687907853269984665640564039457584007913129639935', '-5', '1.5']),
});
const times = <T>(n: number, f: () => T): T[] => Array.from({ length: R.int(n) }, f);

function body(): TxBody {
  return TxBody.fromPartial({
    messages: times(4, any),
    memo: str(),
    timeoutHeight: u64(),
    unordered: R.int(4) === 0,
    extensionOptions: R.int(5) === 0 ? [any()] : [],
    nonCriticalExtensionOptions: R.int(5) === 0 ? [any()] : [],
  });
}

function authInfo(): AuthInfo {
  return AuthInfo.fromPartial({
    signerInfos: times(4, () => ({
      publicKey: R.int(3) === 0 ? undefined : any(),
      modeInfo:
        R.int(4) === 0
          ? undefined
          : { single: { mode: R.pick([SignMode.SIGN_MODE_DIRECT, SignMode.SIGN_MODE_UNSPECIFIED, SignMode.SIGN_MODE_LEGACY_AMINO_JSON]) } },
      sequence: u64(),
    })),
    fee: R.int(5) === 0 ? undefined : { amount: times(3, coin), gasLimit: u64(), payer: str(), granter: str() },
  });
}

function account(): Account {
  return { address: str(), pubKey: R.int(3) === 0 ? undefined : any(), accountNumber: u64(), sequence: u64() };
}

/** A value or the error message: what a caller of a decoder can observe. */
function outcome<T>(f: () => T): { ok: T } | { error: string } {
  try {
    return { ok: f() };
  } catch (e) {
    return { error: errorMessage(e) };
  }
}

/** Damaged copies of an encoding: truncated, a byte changed, bytes appended (unknown fields, groups, bad tags). */
function damaged(b: Uint8Array): Uint8Array[] {
  const out: Uint8Array[] = [];
  for (let i = 0; i < 6 && b.length > 0; i++) out.push(b.subarray(0, R.int(b.length)));
  for (let i = 0; i < 12 && b.length > 0; i++) {
    const c = Uint8Array.from(b);
    c[R.int(c.length)] = R.pick([0x00, 0x07, 0x08, 0x0a, 0x0b, 0x0c, 0x0f, 0x10, 0x12, 0x7f, 0x80, 0xff, R.int(256)]);
    out.push(c);
  }
  const tails = [
    [0xc2, 0x3e, 0x01, 0x41], // field 1000, bytes
    [0x48, 0x96, 0x01], // field 9 varint
    [0x49, 1, 2, 3, 4, 5, 6, 7, 8], // field 9 fixed64
    [0x4d, 1, 2, 3, 4], // field 9 fixed32
    [0x4b, 0x4c], // field 9 group start/end
    [0x4c], // a lone group end
    [0x4e], // wire type 6
    [0x00], // field 0
    [0x18, 0xff, 0xff, 0xff, 0xff, 0xff, 0xff, 0xff, 0xff, 0xff, 0x01], // field 3 varint, max u64
    [0x18, 0xff, 0xff, 0xff, 0xff, 0xff, 0xff, 0xff, 0xff, 0xff, 0x7f], // field 3, bits beyond 64
    [0x18, 0x80, 0x80, 0x00], // field 3, non-minimal zero
    [0x20, 0x01], // field 4 varint
    [0x0a, 0x05, 0x61], // field 1 length overrunning the end
    [0x08, 0x01], // field 1 with the wrong wire type
  ];
  for (const t of tails) out.push(Uint8Array.from([...b, ...t]));
  return out;
}

/** Asserts the fast decoder behaves as the cosmjs-types one on `b` and on its damaged copies. */
function sameDecode<T>(fast: (b: Uint8Array) => T, slow: (b: Uint8Array) => T, b: Uint8Array, what: string): void {
  for (const input of [b, ...damaged(b)]) {
    // each decoder gets its own private copy, as decodeTx gives the TxBody and AuthInfo decoders
    assert.deepEqual(
      outcome(() => fast(Uint8Array.from(input))),
      outcome(() => slow(Uint8Array.from(input))),
      `${what}: ${Buffer.from(input).toString('hex')}`,
    );
  }
}

describe('fast codecs are cosmjs-types, byte for byte', () => {
  test('TxRaw, TxBody and AuthInfo decode to the same values and fail with the same errors', () => {
    for (let i = 0; i < 300; i++) {
      const b = TxBody.encode(body()).finish();
      const a = AuthInfo.encode(authInfo()).finish();
      const raw = TxRaw.encode({ bodyBytes: b, authInfoBytes: a, signatures: times(3, bytes) }).finish();
      sameDecode(decodeTxRawMessage, (x) => TxRaw.decode(x), raw, 'TxRaw');
      sameDecode(decodeTxBodyMessage, (x) => TxBody.decode(x), b, 'TxBody');
      sameDecode(decodeAuthInfoMessage, (x) => AuthInfo.decode(x), a, 'AuthInfo');
    }
    for (const x of [new Uint8Array(0), Uint8Array.of(0xff, 0xff, 0xff), Uint8Array.of(0x0a, 0x05, 0x01)]) {
      sameDecode(decodeTxRawMessage, (y) => TxRaw.decode(y), x, 'TxRaw');
    }
  });

  test('SignDoc and Any encode to the same bytes', () => {
    for (let i = 0; i < 500; i++) {
      const doc = { bodyBytes: bytes(), authInfoBytes: bytes(), chainId: str(), accountNumber: u64() };
      assert.deepEqual(encodeSignDocMessage(doc.bodyBytes, doc.authInfoBytes, doc.chainId, doc.accountNumber), SignDoc.encode(doc).finish());
      const a = any();
      assert.deepEqual(encodeAnyMessage(a), Any.encode(a).finish());
    }
  });

  test('accounts: stored bytes and decoded accounts are the same; module accounts and damaged bytes too', () => {
    for (let i = 0; i < 500; i++) {
      const acc = account();
      const slow = Any.encode(accountToAny(acc)).finish();
      assert.deepEqual(encodeAccount(acc), slow);
      sameDecode(decodeAccount, (x) => accountFromAny(Any.decode(x)), slow, 'account');
      // the account inside the Any damaged too
      const inner = BaseAccount.encode({ address: acc.address, pubKey: acc.pubKey, accountNumber: acc.accountNumber, sequence: acc.sequence }).finish();
      for (const d of damaged(inner)) {
        const x = Any.encode({ typeUrl: '/cosmos.auth.v1beta1.BaseAccount', value: d }).finish();
        assert.deepEqual(
          outcome(() => decodeAccount(x)),
          outcome(() => accountFromAny(Any.decode(x))),
          Buffer.from(x).toString('hex'),
        );
      }
    }
    const mod: Account = { address: 'chain1m', pubKey: undefined, accountNumber: 3n, sequence: 0n, module: { name: 'gov', permissions: ['burner'] } };
    const bytes = Any.encode({
      typeUrl: '/cosmos.auth.v1beta1.ModuleAccount',
      value: ModuleAccount.encode({
        baseAccount: BaseAccount.fromPartial({ address: 'chain1m', accountNumber: 3n }),
        name: 'gov',
        permissions: ['burner'],
      }).finish(),
    }).finish();
    assert.deepEqual(encodeAccount(mod), bytes);
    assert.deepEqual(decodeAccount(bytes), mod);
  });

  test('auth params and MsgSend decode as cosmjs-types', () => {
    for (let i = 0; i < 300; i++) {
      const p = { maxMemoCharacters: u64(), txSigLimit: u64(), txSizeCostPerByte: u64(), sigVerifyCostEd25519: u64(), sigVerifyCostSecp256k1: u64() };
      sameDecode(decodeParams, (x) => Params.decode(x), Params.encode(p).finish(), 'Params');
      const m = MsgSend.fromPartial({ fromAddress: str(), toAddress: str(), amount: times(4, coin) });
      sameDecode(
        (x) => msgSendCodec.decode(x),
        (x) => MsgSend.decode(x),
        MsgSend.encode(m).finish(),
        'MsgSend',
      );
    }
  });

  test('secp256k1 public keys pack and unpack as PubKey does', () => {
    for (const n of [0, 1, 33, 127, 128, 300]) {
      const key = R.bytes(n);
      assert.deepEqual(encodeSecp256k1PubKey(key).value, PubKey.encode({ key }).finish());
    }
    const key = Uint8Array.of(2, ...R.bytes(32));
    const packed = encodeSecp256k1PubKey(key);
    assert.deepEqual(decodeSecp256k1PubKey(packed), PubKey.decode(packed.value).key);
    // a non-canonical encoding (an unknown field first) still decodes, through cosmjs-types
    const odd = { typeUrl: packed.typeUrl, value: Uint8Array.from([0x10, 0x01, ...packed.value]) };
    assert.deepEqual(decodeSecp256k1PubKey(odd), key);
  });

  test('decoded bytes never alias the input', () => {
    const b = TxBody.encode(TxBody.fromPartial({ messages: [{ typeUrl: '/a', value: Uint8Array.of(1, 2, 3) }] })).finish();
    const raw = TxRaw.encode({ bodyBytes: b, authInfoBytes: Uint8Array.of(), signatures: [Uint8Array.of(9, 9)] }).finish();
    const input = Uint8Array.from(raw);
    const tx = decodeTxRawMessage(input);
    input.fill(0);
    assert.deepEqual(tx.signatures[0], Uint8Array.of(9, 9));
    assert.deepEqual(decodeTxBodyMessage(tx.bodyBytes).messages[0].value, Uint8Array.of(1, 2, 3));
  });
});

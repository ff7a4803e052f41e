import assert from 'node:assert/strict';
import { describe, test } from 'node:test';
import { DirectSecp256k1HdWallet, encodePubkey, makeAuthInfoBytes, makeCosmoshubPath, makeSignBytes, makeSignDoc } from '@cosmjs/proto-signing';
import { MsgSend } from 'cosmjs-types/cosmos/bank/v1beta1/tx';
import { SignDoc, TxBody } from 'cosmjs-types/cosmos/tx/v1beta1/tx';
import { CodedError, errors } from '../app/errors.ts';
import {
  addressFromPublicKey,
  bech32DataLength,
  fromBech32,
  moduleAddress,
  publicKeyFromPrivate,
  rawAddressFromPublicKey,
  secp256k1Implementation,
  signDirect,
  toBech32,
  verifySignature,
} from './index.ts';
import { generateMnemonic, hdPath, privateKeyFromMnemonic, validateMnemonic } from './mnemonic.ts';

const MNEMONIC = 'surround miss nominee dream gap cross assault thank captain prosper drop duty group candy wealth weather scale put';
const MNEMONIC_24 =
  'abandon abandon abandon abandon abandon abandon abandon abandon abandon abandon abandon abandon abandon abandon abandon abandon abandon abandon abandon abandon abandon abandon abandon art';
const N = 0xfffffffffffffffffffffffffffffffebaaedce6af48a03bbfd25e8cd0364141n;

const hex = (b: Uint8Array): string => Buffer.from(b).toString('hex');
const b64 = (b: Uint8Array): string => Buffer.from(b).toString('base64');

async function cosmjsAccount(mnemonic: string, opts: { index?: number; bip39Password?: string } = {}) {
  const wallet = await DirectSecp256k1HdWallet.fromMnemonic(mnemonic, {
    prefix: 'chain',
    hdPaths: [makeCosmoshubPath(opts.index ?? 0)],
    bip39Password: opts.bip39Password ?? '',
  });
  const [account] = await wallet.getAccounts();
  return { wallet, account };
}

/** A realistic SignDoc (MsgSend body, auth info with the signer's pubkey), as a client would sign. */
function signDocFor(pubkey: Uint8Array, from: string) {
  const msg = MsgSend.fromPartial({ fromAddress: from, toAddress: moduleAddress('gov'), amount: [{ denom: 'ustake', amount: '12345' }] });
  const bodyBytes = TxBody.encode(
    TxBody.fromPartial({ messages: [{ typeUrl: '/cosmos.bank.v1beta1.MsgSend', value: MsgSend.encode(msg).finish() }], memo: 'hi' }),
  ).finish();
  const authInfoBytes = makeAuthInfoBytes(
    [{ pubkey: encodePubkey({ type: 'tendermint/PubKeySecp256k1', value: b64(pubkey) }), sequence: 7 }],
    [{ denom: 'ustake', amount: '200' }],
    200000,
    undefined,
    undefined,
  );
  const doc = makeSignDoc(bodyBytes, authInfoBytes, 'chain-test-1', 42);
  return { doc, bytes: makeSignBytes(doc) };
}

describe('mnemonics and derivation', () => {
  test('the native libsecp256k1 binding is loaded (not the JS fallback)', () => {
    assert.equal(secp256k1Implementation(), 'native');
  });

  test('generateMnemonic gives 24 valid, distinct words', () => {
    const a = generateMnemonic();
    assert.equal(a.split(' ').length, 24);
    assert.ok(validateMnemonic(a));
    assert.notEqual(a, generateMnemonic());
  });

  test('validateMnemonic rejects a bad checksum, unknown words and wrong lengths; tolerates extra whitespace', () => {
    assert.ok(validateMnemonic(MNEMONIC));
    assert.ok(validateMnemonic(`  ${MNEMONIC.replaceAll(' ', '  \n')} `));
    assert.equal(validateMnemonic(MNEMONIC_24.replace(/art$/, 'abandon')), false, 'bad checksum');
    assert.equal(validateMnemonic(MNEMONIC.replace('surround', 'surroundx')), false, 'unknown word');
    assert.equal(validateMnemonic(MNEMONIC.split(' ').slice(1).join(' ')), false, '17 words');
    assert.equal(validateMnemonic(''), false);
    assert.throws(() => privateKeyFromMnemonic('not a mnemonic'), /invalid mnemonic/);
  });

  for (const [label, mnemonic] of [
    ['18 words', MNEMONIC],
    ['24 words', MNEMONIC_24],
  ] as const) {
    test(`address from a fixed mnemonic (${label}) equals CosmJS' DirectSecp256k1HdWallet`, async () => {
      const { account } = await cosmjsAccount(mnemonic);
      const pub = publicKeyFromPrivate(privateKeyFromMnemonic(mnemonic));
      assert.equal(pub.length, 33);
      assert.equal(hex(pub), hex(account.pubkey));
      assert.equal(addressFromPublicKey(pub), account.address);
      assert.match(account.address, /^chain1/);
    });
  }

  test('index and BIP39 passphrase select other keys, as in CosmJS', async () => {
    const base = addressFromPublicKey(publicKeyFromPrivate(privateKeyFromMnemonic(MNEMONIC)));
    const idx3 = addressFromPublicKey(publicKeyFromPrivate(privateKeyFromMnemonic(MNEMONIC, { index: 3 })));
    const pass = addressFromPublicKey(publicKeyFromPrivate(privateKeyFromMnemonic(MNEMONIC, { bip39Passphrase: 'x' })));
    assert.equal(idx3, (await cosmjsAccount(MNEMONIC, { index: 3 })).account.address);
    assert.equal(pass, (await cosmjsAccount(MNEMONIC, { bip39Password: 'x' })).account.address);
    assert.equal(new Set([base, idx3, pass]).size, 3);
    const acct1 = addressFromPublicKey(publicKeyFromPrivate(privateKeyFromMnemonic(MNEMONIC, { account: 1 })));
    assert.notEqual(acct1, base);
    assert.equal(hdPath(1, 2), "m/44'/118'/1'/0/2");
    assert.throws(() => hdPath(-1, 0), RangeError);
    assert.throws(() => hdPath(0, 2 ** 31), RangeError);
  });
});

describe('addresses', () => {
  test("moduleAddress('gov') is sha256('gov')[:20], the Cosmos SDK's gov module address", () => {
    assert.equal(moduleAddress('gov', 'cosmos'), 'cosmos10d07y265gmmuvt4z0w9aw880jnsr700j6zn9kn');
    const { prefix, data } = fromBech32(moduleAddress('gov'));
    assert.equal(prefix, 'chain');
    assert.equal(hex(data), hex(fromBech32('cosmos10d07y265gmmuvt4z0w9aw880jnsr700j6zn9kn').data));
    assert.notEqual(moduleAddress('bank'), moduleAddress('gov'));
  });

  test('bech32 round-trips and accepts an all-uppercase address', () => {
    const data = Uint8Array.from({ length: 32 }, (_, i) => i);
    const addr = toBech32('chain', data);
    assert.deepEqual(fromBech32(addr, 'chain'), { prefix: 'chain', data });
    assert.deepEqual(fromBech32(addr.toUpperCase(), 'chain').data, data);
  });

  test('bad checksum, wrong prefix, mixed case and garbage are clear invalid-address errors', () => {
    const addr = moduleAddress('gov');
    const last = addr.at(-1) === 'q' ? 'p' : 'q';
    const bad = (s: string, re: RegExp) =>
      assert.throws(
        () => fromBech32(s, 'chain'),
        (e: unknown) => e instanceof CodedError && errors.invalidAddress.is(e) && re.test(e.message),
      );
    bad(addr.slice(0, -1) + last, /invalid checksum/);
    bad(moduleAddress('gov', 'cosmos'), /expected "chain", got "cosmos"/);
    bad(addr.slice(0, 8) + addr.slice(8).toUpperCase(), /mixed-case/);
    bad('chain', /decoding bech32/);
    bad('', /decoding bech32/);
    // bech32DataLength: the same checks, whether the address was decoded before or not
    const fresh = toBech32('other', new Uint8Array(32).fill(7));
    assert.equal(bech32DataLength(addr, 'chain'), 20);
    assert.equal(bech32DataLength(addr, 'chain'), 20);
    assert.throws(() => bech32DataLength(addr, 'cosmos'), /expected "cosmos", got "chain"/);
    assert.throws(() => bech32DataLength(fresh, 'chain'), /expected "chain", got "other"/);
    assert.equal(bech32DataLength(fresh), 32);
    assert.throws(() => bech32DataLength(addr.slice(0, -1) + last, 'chain'), /invalid checksum/);
  });

  test('addressFromPublicKey rejects anything but a 33-byte compressed key', () => {
    const pub = publicKeyFromPrivate(privateKeyFromMnemonic(MNEMONIC));
    assert.throws(
      () => addressFromPublicKey(pub.subarray(1)),
      (e: unknown) => errors.invalidPubKey.is(e),
    );
    const wrongTag = Uint8Array.from(pub);
    wrongTag[0] = 4;
    assert.throws(
      () => addressFromPublicKey(wrongTag),
      (e: unknown) => errors.invalidPubKey.is(e),
    );
  });

  test('rawAddressFromPublicKey: each call gets its own copy; keys sharing their first bytes get their own addresses', () => {
    const pub = publicKeyFromPrivate(privateKeyFromMnemonic(MNEMONIC));
    const want = fromBech32(addressFromPublicKey(pub)).data;
    const got = rawAddressFromPublicKey(pub);
    got.fill(0);
    assert.deepEqual(rawAddressFromPublicKey(pub), want);
    // the same x-coordinate prefix (the cache's slot), another key: not the cached address
    const other = Uint8Array.from(pub);
    other[0] = pub[0] === 2 ? 3 : 2;
    other[32] ^= 1;
    assert.notDeepEqual(rawAddressFromPublicKey(other), want);
    assert.deepEqual(rawAddressFromPublicKey(pub), want);
  });
});

describe('SIGN_MODE_DIRECT signatures', () => {
  test("CosmJS' signature verifies, and ours is byte-identical (RFC6979) and verifies too", async () => {
    const { wallet, account } = await cosmjsAccount(MNEMONIC);
    const { doc, bytes } = signDocFor(account.pubkey, account.address);
    assert.equal(hex(bytes), hex(SignDoc.encode(doc).finish()));
    const theirs = new Uint8Array(Buffer.from((await wallet.signDirect(account.address, doc)).signature.signature, 'base64'));
    assert.equal(theirs.length, 64);
    assert.equal(verifySignature(account.pubkey, bytes, theirs), true);

    const ours = signDirect(privateKeyFromMnemonic(MNEMONIC), bytes);
    assert.equal(hex(ours), hex(theirs));
    assert.equal(verifySignature(publicKeyFromPrivate(privateKeyFromMnemonic(MNEMONIC)), bytes, ours), true);
  });

  test('tampered doc, tampered signature, high-S, wrong key and malformed input → false, never a throw', () => {
    const key = privateKeyFromMnemonic(MNEMONIC);
    const pub = publicKeyFromPrivate(key);
    const { bytes } = signDocFor(pub, addressFromPublicKey(pub));
    const sig = signDirect(key, bytes);
    assert.equal(verifySignature(pub, bytes, sig), true);

    const doc2 = Uint8Array.from(bytes);
    doc2[doc2.length - 1] ^= 1;
    assert.equal(verifySignature(pub, doc2, sig), false, 'tampered doc');
    const sig2 = Uint8Array.from(sig);
    sig2[10] ^= 1;
    assert.equal(verifySignature(pub, bytes, sig2), false, 'tampered signature');

    // (r, n - s) is the same signature mathematically; the Cosmos SDK rejects it to stop malleability.
    const s = BigInt('0x' + hex(sig.subarray(32)));
    const highS = Uint8Array.from(sig);
    highS.set(Buffer.from((N - s).toString(16).padStart(64, '0'), 'hex'), 32);
    assert.equal(verifySignature(pub, bytes, highS), false, 'high-S');

    const other = publicKeyFromPrivate(privateKeyFromMnemonic(MNEMONIC, { index: 1 }));
    assert.equal(verifySignature(other, bytes, sig), false, 'wrong key');

    const notOnCurve = Uint8Array.from(pub);
    notOnCurve.fill(0xff, 1);
    const rTooBig = Uint8Array.from(sig);
    rTooBig.fill(0xff, 0, 32);
    const uncompressed = new Uint8Array(65);
    uncompressed[0] = 4;
    const malformed: [Uint8Array, Uint8Array, Uint8Array][] = [
      [pub.subarray(1), bytes, sig],
      [uncompressed, bytes, sig],
      [notOnCurve, bytes, sig],
      [pub, bytes, sig.subarray(1)],
      [pub, bytes, new Uint8Array(64)],
      [pub, bytes, rTooBig],
      [pub, bytes, new Uint8Array([...sig, 0])],
      ['x' as unknown as Uint8Array, bytes, sig],
      [pub, null as unknown as Uint8Array, sig],
      [pub, bytes, undefined as unknown as Uint8Array],
    ];
    for (const [p, d, g] of malformed) assert.equal(verifySignature(p, d, g), false);
  });

  test('signing or deriving from an invalid private key throws', () => {
    assert.throws(() => signDirect(new Uint8Array(32), new Uint8Array(1)), /invalid secp256k1 private key/);
    assert.throws(() => publicKeyFromPrivate(new Uint8Array(31).fill(1)), /invalid secp256k1 private key/);
    assert.throws(() => publicKeyFromPrivate(Buffer.from(N.toString(16), 'hex')), /invalid secp256k1 private key/);
  });
});

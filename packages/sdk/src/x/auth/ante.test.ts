import assert from 'node:assert/strict';
import { after, describe, test } from 'node:test';
import { DirectSecp256k1HdWallet, Registry, encodePubkey, makeAuthInfoBytes, makeSignDoc } from '@cosmjs/proto-signing';
import { MsgSend } from 'cosmjs-types/cosmos/bank/v1beta1/tx';
import { SignMode } from 'cosmjs-types/cosmos/tx/signing/v1beta1/signing';
import { AuthInfo, Fee, ModeInfo, TxBody, TxRaw } from 'cosmjs-types/cosmos/tx/v1beta1/tx';
import { Any } from 'cosmjs-types/google/protobuf/any';
import { CheckTxType, ResponseProcessProposal_ProposalStatus, type ExecTxResult } from 'cosmjs-types/tendermint/abci/types';
import { toHex } from '../../store/index.ts';
import { encodeSecp256k1PubKey, encodeTx, encodeTxParts, encodeTxRaw, signDocBytes, type TxSigner, type UnsignedTx } from '../../tx/index.ts';
import { publicKeyFromPrivate, signDirect } from '../../crypto/index.ts';
import { accountKey, FEE_COLLECTOR_NAME } from './keys.ts';
import { AUTH_CHAIN_ID as CHAIN_ID, DENOM, removeTmpDirs, sendMsg, testApp, testKey, type TestApp } from '@chaind/sdk/testing';

after(removeTmpDirs);

const MNEMONIC = 'surround miss nominee dream gap cross assault thank captain prosper drop duty group candy wealth weather scale put';
const alice = testKey(0);
const bob = testKey(1);
const carol = testKey(2); // never funded: no account
const GAS = 200_000n;
const FEE = [{ denom: DENOM, amount: '200' }];
const BALANCE = 1_000_000n;

const app = (o: Parameters<typeof testApp>[0] = {}): TestApp => testApp({ funded: [alice.address, bob.address], balance: BALANCE, ...o });
const unsigned = (o: Partial<UnsignedTx> = {}): UnsignedTx => ({
  msgs: [sendMsg(alice.address, bob.address, '10')],
  fee: { amount: FEE, gasLimit: GAS },
  ...o,
});
const signer = (k: typeof alice, o: Partial<TxSigner> = {}): TxSigner => ({ privateKey: k.privateKey, accountNumber: 0n, sequence: 0n, ...o });
const aliceTx = (o: Partial<UnsignedTx> = {}, s: Partial<TxSigner> = {}): Uint8Array => encodeTx(unsigned(o), [signer(alice, s)], CHAIN_ID);
const feeCollector = (t: TestApp): string => t.ak.moduleAddress(FEE_COLLECTOR_NAME);
const check = (t: TestApp, tx: Uint8Array): ExecTxResult => t.app.checkTx({ tx, type: CheckTxType.NEW }) as ExecTxResult;

/** An ante failure in a real block: the code, codespace and log, and not one byte of state changed. */
function assertAnteFailure(t: TestApp, tx: Uint8Array, code: number, log: string | RegExp, mode: 'finalize' | 'check' = 'finalize'): void {
  const before = t.dump();
  const res = mode === 'check' ? check(t, tx) : t.block([tx]).txResults[0];
  assert.equal(res.code, code, res.log);
  assert.equal(res.codespace, 'sdk');
  if (typeof log === 'string') assert.equal(res.log, log);
  else assert.match(res.log, log);
  assert.deepEqual(t.dump(), before, 'an ante failure leaves no state change');
  // nor does it leave anything in CheckTx state: alice's committed sequence is still next
  const sequence = t.account(alice.address)?.sequence ?? 0n;
  const next = check(t, aliceTx({ fee: { amount: [{ denom: DENOM, amount: '5000' }], gasLimit: GAS } }, { sequence, omitPubKey: sequence > 0n }));
  assert.equal(next.code, 0, next.log);
}

describe('signed transactions', () => {
  test("a tx signed by CosmJS' DirectSecp256k1HdWallet passes CheckTx and FinalizeBlock", async () => {
    const wallet = await DirectSecp256k1HdWallet.fromMnemonic(MNEMONIC, { prefix: 'chain' });
    const [acct] = await wallet.getAccounts();
    const t = app({ funded: [acct.address, alice.address] });
    const accountNumber = t.account(acct.address)?.accountNumber ?? -1n;
    assert.equal(accountNumber, 0n);
    const registry = new Registry();
    const bodyBytes = registry.encode({
      typeUrl: '/cosmos.tx.v1beta1.TxBody',
      value: {
        messages: [
          {
            typeUrl: '/cosmos.bank.v1beta1.MsgSend',
            value: MsgSend.fromPartial({ fromAddress: acct.address, toAddress: bob.address, amount: [{ denom: DENOM, amount: '1234' }] }),
          },
        ],
        memo: 'from cosmjs',
      },
    });
    const pubkey = encodePubkey({ type: 'tendermint/PubKeySecp256k1', value: Buffer.from(acct.pubkey).toString('base64') });
    const authInfoBytes = makeAuthInfoBytes([{ pubkey, sequence: 0 }], FEE, Number(GAS), undefined, undefined);
    const { signed, signature } = await wallet.signDirect(acct.address, makeSignDoc(bodyBytes, authInfoBytes, CHAIN_ID, Number(accountNumber)));
    const tx = TxRaw.encode({
      bodyBytes: signed.bodyBytes,
      authInfoBytes: signed.authInfoBytes,
      signatures: [Buffer.from(signature.signature, 'base64')],
    }).finish();

    const c = check(t, tx);
    assert.equal(c.code, 0, c.log);
    assert.ok(c.gasUsed > 1000n && c.gasUsed <= GAS);
    const res = t.block([tx]).txResults[0];
    assert.equal(res.code, 0, res.log);
    assert.equal(res.gasWanted, GAS);
    assert.equal(t.balance(acct.address), BALANCE - 1234n - 200n);
    assert.equal(t.balance(bob.address), 1234n);
    assert.equal(t.balance(feeCollector(t)), 200n);
    const acc = t.account(acct.address);
    assert.equal(acc?.sequence, 1n);
    assert.deepEqual(acc?.pubKey, pubkey, 'the public key is stored on first use');
    const attrs = res.events.filter((e) => e.type === 'tx').flatMap((e) => e.attributes.map((a) => `${a.key}=${a.value}`));
    assert.ok(attrs.includes(`fee=200${DENOM}`) && attrs.includes(`fee_payer=${acct.address}`) && attrs.includes(`acc_seq=${acct.address}/0`), attrs.join(' '));
    await t.close();
  });

  test('sequences advance in CheckTx state; a replayed tx is a sequence mismatch; a known key may be omitted', async () => {
    const t = app();
    const tx0 = aliceTx();
    const tx1 = aliceTx({}, { sequence: 1n, omitPubKey: true });
    assert.equal(check(t, tx0).code, 0);
    assert.equal(check(t, tx1).code, 0, 'sequence 1 is next in CheckTx state');
    const replay = check(t, tx0);
    assert.equal(replay.code, 32);
    assert.equal(replay.log, 'account sequence mismatch, expected 2, got 0: incorrect account sequence');
    assert.deepEqual(
      t.block([tx0, tx1, tx0]).txResults.map((r) => r.code),
      [0, 0, 32],
    );
    assert.equal(t.account(alice.address)?.sequence, 2n);
    assert.equal(t.balance(alice.address), BALANCE - 2n * 210n);
    await t.close();
  });

  test('a fee payer other than the first signer pays, and must sign', async () => {
    const t = app();
    const tx = encodeTx(unsigned({ fee: { amount: FEE, gasLimit: GAS, payer: bob.address } }), [signer(alice), signer(bob, { accountNumber: 1n })], CHAIN_ID);
    const res = t.block([tx]).txResults[0];
    assert.equal(res.code, 0, res.log);
    assert.equal(t.balance(alice.address), BALANCE - 10n);
    assert.equal(t.balance(bob.address), BALANCE + 10n - 200n);
    assert.equal(t.account(bob.address)?.sequence, 1n);
    const unsignedByPayer = encodeTx(unsigned({ fee: { amount: FEE, gasLimit: GAS, payer: bob.address } }), [signer(alice, { sequence: 1n })], CHAIN_ID);
    assertAnteFailure(t, unsignedByPayer, 4, 'wrong number of signers; expected 2, got 1: unauthorized');
    await t.close();
  });

  test('simulation (CosmJS: empty signature, unspecified sign mode, no fee) runs without signatures and changes nothing', async () => {
    const t = app();
    const { bodyBytes } = encodeTxParts(unsigned(), []);
    const authInfoBytes = AuthInfo.encode(
      AuthInfo.fromPartial({
        signerInfos: [{ publicKey: encodeSecp256k1PubKey(alice.publicKey), modeInfo: { single: { mode: SignMode.SIGN_MODE_UNSPECIFIED } }, sequence: 0n }],
        fee: {},
      }),
    ).finish();
    const before = t.dump();
    const sim = t.app.simulate(encodeTxRaw({ bodyBytes, authInfoBytes, signatures: [new Uint8Array(0)] }));
    assert.equal(sim.code, 0, sim.log);
    assert.ok(sim.gasUsed > 1000n, `gas used ${sim.gasUsed} includes signature verification`);
    // as the SDK, the estimate charges for the signature the tx will carry (112 bytes × 10 gas); the same tx
    // carrying a 64-byte signature pays only for its 64 more bytes (an empty one is encoded too)
    const withSignature = t.app.simulate(encodeTxRaw({ bodyBytes, authInfoBytes, signatures: [new Uint8Array(64).fill(1)] }));
    assert.equal(withSignature.code, 0, withSignature.log);
    assert.equal(sim.gasUsed - withSignature.gasUsed, 1120n - 640n);
    assert.deepEqual(t.dump(), before);
    await t.close();
  });
});

describe('ante errors: each its own code, nothing changed', () => {
  test('no signatures', async () => {
    const t = app();
    const parts = encodeTxParts(unsigned(), [signer(alice)]);
    assertAnteFailure(t, encodeTxRaw({ ...parts, signatures: [] }), 15, 'no signatures supplied');
    await t.close();
  });

  test('signature count differs from signer infos, or from the messages’ signers', async () => {
    const t = app();
    const parts = encodeTxParts(unsigned(), [signer(alice)]);
    const sig = signDirect(alice.privateKey, signDocBytes(parts, CHAIN_ID, 0n));
    assertAnteFailure(t, encodeTxRaw({ ...parts, signatures: [sig, sig] }), 4, 'wrong number of signers; expected 1, got 2: unauthorized');
    const extra = encodeTx(unsigned(), [signer(alice), signer(bob, { accountNumber: 1n })], CHAIN_ID);
    assertAnteFailure(t, extra, 4, 'wrong number of signers; expected 1, got 2: unauthorized');
    await t.close();
  });

  test('more signatures than tx_sig_limit', async () => {
    const t = app();
    const keys = Array.from({ length: 8 }, (_, i) => testKey(i + 10));
    const tx = encodeTx(
      unsigned({ msgs: keys.map((k) => sendMsg(k.address, alice.address, '1')) }),
      keys.map((k) => signer(k)),
      CHAIN_ID,
    );
    assertAnteFailure(t, tx, 14, 'signatures: 8, limit: 7: maximum number of signatures exceeded');
    await t.close();
  });

  test('timeout height passed', async () => {
    const t = app();
    assertAnteFailure(t, aliceTx({ timeoutHeight: 1n }), 30, 'block height: 2, timeout height: 1: tx timeout height');
    assert.equal(t.block([aliceTx({ timeoutHeight: 3n })]).txResults[0].code, 0, 'a timeout at the block height itself is still valid');
    await t.close();
  });

  test('memo too long', async () => {
    const t = app();
    assertAnteFailure(t, aliceTx({ memo: 'x'.repeat(300) }), 12, 'maximum number of characters is 256 but received 300 characters: memo too large');
    await t.close();
  });

  test('out of gas in the ante handler', async () => {
    const t = app();
    assertAnteFailure(t, aliceTx({ fee: { amount: FEE, gasLimit: 1500n } }), 11, /^out of gas in location: txSize; gasWanted: 1500, gasUsed: \d+: out of gas$/);
    await t.close();
  });

  test("fee below the node's minimum gas price: refused by CheckTx only", async () => {
    const t = app({ minGasPrices: [{ denom: DENOM, amount: '0.01' }] });
    assertAnteFailure(t, aliceTx(), 13, `insufficient fees; got: 200${DENOM} required: 2000${DENOM}: insufficient fee`, 'check');
    // (the helper has just checked that a fee of 5000stake is accepted)
    // a validator's minimum gas price is local policy: a block containing the tx executes it
    assert.equal(t.block([aliceTx()]).txResults[0].code, 0);
    await t.close();
  });

  test('payer cannot pay the fee', async () => {
    const t = app();
    const tx = aliceTx({ fee: { amount: [{ denom: DENOM, amount: '2000000' }], gasLimit: GAS } });
    assertAnteFailure(t, tx, 5, `spendable balance 1000000${DENOM} is smaller than 2000000${DENOM}: insufficient funds`);
    await t.close();
  });

  test('fee payer without an account, and a second signer without an account', async () => {
    const t = app();
    const fromCarol = encodeTx(unsigned({ msgs: [sendMsg(carol.address, alice.address, '1')] }), [signer(carol)], CHAIN_ID);
    assertAnteFailure(t, fromCarol, 9, `fee payer address: ${carol.address} does not exist: unknown address`);
    const both = encodeTx(
      unsigned({ msgs: [sendMsg(alice.address, bob.address, '1'), sendMsg(carol.address, alice.address, '1')] }),
      [signer(alice), signer(carol)],
      CHAIN_ID,
    );
    assertAnteFailure(t, both, 9, `account ${carol.address} does not exist: unknown address`);
    await t.close();
  });

  test("signer info key is not the signer's", async () => {
    const t = app();
    const tx = encodeTx(unsigned(), [signer(bob)], CHAIN_ID);
    assertAnteFailure(t, tx, 8, `pubKey does not match signer address ${alice.address} with signer index: 0: invalid pubkey`);
    await t.close();
  });

  test('no key in the signer info and none on the account', async () => {
    const t = app();
    assertAnteFailure(t, aliceTx({}, { omitPubKey: true }), 8, `pubkey on account ${alice.address} is not set: invalid pubkey`);
    await t.close();
  });

  test('signed for another chain id, or another account number', async () => {
    const t = app();
    const text = `signature verification failed; please verify account number (0), sequence (0) and chain-id (${CHAIN_ID}): unauthorized`;
    assertAnteFailure(t, encodeTx(unsigned(), [signer(alice)], 'other-chain'), 4, text);
    assertAnteFailure(t, aliceTx({}, { accountNumber: 5n }), 4, text);
    const parts = encodeTxParts(unsigned(), [signer(alice)]);
    const tampered = Uint8Array.from(signDirect(alice.privateKey, signDocBytes(parts, CHAIN_ID, 0n)));
    tampered[5] ^= 1;
    assertAnteFailure(t, encodeTxRaw({ ...parts, signatures: [tampered] }), 4, text);
    await t.close();
  });

  test('wrong sequence', async () => {
    const t = app();
    assertAnteFailure(t, aliceTx({}, { sequence: 3n }), 32, 'account sequence mismatch, expected 0, got 3: incorrect account sequence');
    await t.close();
  });

  test('sign modes other than SIGN_MODE_DIRECT and SIGN_MODE_LEGACY_AMINO_JSON; amino JSON of a message without an amino form', async () => {
    const t = app();
    const { bodyBytes } = encodeTxParts(unsigned(), []);
    const signedWith = (mode: SignMode): Uint8Array => {
      const authInfoBytes = makeAuthInfoBytes([{ pubkey: encodeSecp256k1PubKey(alice.publicKey), sequence: 0 }], FEE, Number(GAS), undefined, undefined, mode);
      return encodeTxRaw({ bodyBytes, authInfoBytes, signatures: [signDirect(alice.privateKey, signDocBytes({ bodyBytes, authInfoBytes }, CHAIN_ID, 0n))] });
    };
    assertAnteFailure(
      t,
      signedWith(SignMode.SIGN_MODE_TEXTUAL),
      37,
      'sign mode SIGN_MODE_TEXTUAL is not supported; only SIGN_MODE_DIRECT and SIGN_MODE_LEGACY_AMINO_JSON are: feature not supported',
    );
    // this app's MsgSend route gives no amino JSON form
    assertAnteFailure(
      t,
      signedWith(SignMode.SIGN_MODE_LEGACY_AMINO_JSON),
      37,
      '/cosmos.bank.v1beta1.MsgSend has no amino JSON form; sign it with SIGN_MODE_DIRECT: feature not supported',
    );
    await t.close();
  });

  test('unknown message type', async () => {
    const t = app();
    assertAnteFailure(
      t,
      aliceTx({ msgs: [{ typeUrl: '/nope.v1.MsgNope', value: new Uint8Array(0) }] }),
      6,
      'unrecognized message type: /nope.v1.MsgNope: unknown request',
    );
    await t.close();
  });

  test('critical extension options are refused', async () => {
    const t = app();
    const parts = encodeTxParts(unsigned(), [signer(alice)]);
    const b = TxBody.decode(parts.bodyBytes);
    const bodyBytes = TxBody.encode({ ...b, extensionOptions: [{ typeUrl: '/ethermint.types.v1.ExtensionOptionsWeb3Tx', value: new Uint8Array(0) }] }).finish();
    const sig = signDirect(alice.privateKey, signDocBytes({ bodyBytes, authInfoBytes: parts.authInfoBytes }, CHAIN_ID, 0n));
    assertAnteFailure(
      t,
      encodeTxRaw({ bodyBytes, authInfoBytes: parts.authInfoBytes, signatures: [sig] }),
      31,
      'unsupported extension option /ethermint.types.v1.ExtensionOptionsWeb3Tx: unknown extension options',
    );
    await t.close();
  });
});

test('undecodable tx bytes in a block are a tx parse error; the proposal with them is rejected', async () => {
  const t = app();
  const garbage = Uint8Array.from([0xff, 0xff, 0xff]);
  const proposal = {
    txs: [garbage],
    proposedLastCommit: { round: 0, votes: [] },
    misbehavior: [],
    hash: new Uint8Array(32),
    height: 2n,
    time: { seconds: 1n, nanos: 0 },
  };
  assert.equal(
    t.app.processProposal({ ...proposal, nextValidatorsHash: new Uint8Array(32), proposerAddress: new Uint8Array(20) }).status,
    ResponseProcessProposal_ProposalStatus.REJECT,
  );
  assertAnteFailure(t, garbage, 2, /^cannot decode TxRaw: .+: tx parse error$/);
  await t.close();
});

describe('unknown fields (the SDK tx decoder): no one can change a tx hash by adding fields', () => {
  const varint = (n: number): number[] => {
    const out: number[] = [];
    for (; n >= 0x80; n = Math.floor(n / 128)) out.push(n % 128 | 0x80);
    return [...out, n];
  };
  const lenField = (num: number, payload: Uint8Array): Uint8Array => Uint8Array.from([...varint(num * 8 + 2), ...varint(payload.length), ...payload]);
  const cat = (...parts: Uint8Array[]): Uint8Array => Uint8Array.from(Buffer.concat(parts));
  const extra = (num: number): Uint8Array => lenField(num, Uint8Array.of(0x41));
  const none = new Uint8Array(0);

  /** alice's send, signed, with `add.<level>` appended to that level's encoding (body and auth info are signed as sent). */
  function tx(add: {
    raw?: Uint8Array;
    body?: Uint8Array;
    authInfo?: Uint8Array;
    signerInfo?: Uint8Array;
    modeInfo?: Uint8Array;
    fee?: Uint8Array;
  }): Uint8Array {
    const bodyBytes = cat(TxBody.encode(TxBody.fromPartial({ messages: [sendMsg(alice.address, bob.address, '10')] })).finish(), add.body ?? none);
    const modeInfo = cat(ModeInfo.encode({ single: { mode: SignMode.SIGN_MODE_DIRECT } }).finish(), add.modeInfo ?? none);
    const signerInfo = cat(
      lenField(1, Any.encode(encodeSecp256k1PubKey(publicKeyFromPrivate(alice.privateKey))).finish()),
      lenField(2, modeInfo),
      add.signerInfo ?? none,
    );
    const fee = cat(Fee.encode({ amount: FEE, gasLimit: GAS, payer: '', granter: '' }).finish(), add.fee ?? none);
    const authInfoBytes = cat(lenField(1, signerInfo), lenField(2, fee), add.authInfo ?? none);
    const sig = signDirect(alice.privateKey, signDocBytes({ bodyBytes, authInfoBytes }, CHAIN_ID, 0n));
    return cat(encodeTxRaw({ bodyBytes, authInfoBytes, signatures: [sig] }), add.raw ?? none);
  }

  const refused = (t: TestApp, bytes: Uint8Array, log: string): void => {
    const proposal = {
      txs: [bytes],
      proposedLastCommit: { round: 0, votes: [] },
      misbehavior: [],
      hash: new Uint8Array(32),
      height: 2n,
      time: { seconds: 1n, nanos: 0 },
    };
    assert.equal(
      t.app.processProposal({ ...proposal, nextValidatorsHash: new Uint8Array(32), proposerAddress: new Uint8Array(20) }).status,
      ResponseProcessProposal_ProposalStatus.REJECT,
    );
    const c = check(t, bytes);
    assert.deepEqual([c.code, c.codespace, c.log], [2, 'sdk', `${log}: tx parse error`], 'CheckTx refuses it');
    assertAnteFailure(t, bytes, 2, `${log}: tx parse error`);
  };

  test('an unknown field at any level of TxRaw, AuthInfo, SignerInfo, ModeInfo, Fee, or a critical one in TxBody, is refused with code 2', async () => {
    const t = app();
    const ok = tx({});
    refused(t, cat(ok, extra(4)), 'errUnknownField "TxRaw": {TagNum: 4, WireType:"bytes"}');
    refused(t, cat(ok, extra(1030)), 'errUnknownField "TxRaw": {TagNum: 1030, WireType:"bytes"}');
    refused(t, cat(ok, Uint8Array.of(0x08, 0x00)), 'expected 2 wire type, got 0');
    refused(t, tx({ raw: Uint8Array.of(0x25, 1, 2, 3, 4) }), 'expected 2 wire type, got 5');
    refused(t, tx({ fee: Uint8Array.of(0x12, 0x00) }), 'proto: wrong wireType = 2 for field GasLimit');
    // ADR-027: TxRaw's fields in order, lengths in their shortest form
    const raw = TxRaw.decode(ok);
    const [body, auth, sig] = [lenField(1, raw.bodyBytes), lenField(2, raw.authInfoBytes), lenField(3, raw.signatures[0])];
    refused(t, cat(sig, body, auth), 'txRaw must follow ADR-027, got tagNum 1 after tagNum 3');
    const paddedLength = Uint8Array.from([0x0a, raw.bodyBytes.length % 128 | 0x80, Math.floor(raw.bodyBytes.length / 128) | 0x80, 0x00, ...raw.bodyBytes]);
    refused(t, cat(paddedLength, auth, sig), 'length prefix varint for tagNum 1 is not as short as possible, read 3, only need 2');
    assert.deepEqual(cat(body, auth, sig), ok, 'the same fields in order are the tx itself');
    refused(t, tx({ body: extra(6) }), 'errUnknownField "TxBody": {TagNum: 6, WireType:"bytes"}');
    refused(t, tx({ body: extra(1000) }), 'errUnknownField "TxBody": {TagNum: 1000, WireType:"bytes"}');
    refused(t, tx({ authInfo: extra(4) }), 'errUnknownField "AuthInfo": {TagNum: 4, WireType:"bytes"}');
    refused(t, tx({ authInfo: extra(1030) }), 'errUnknownField "AuthInfo": {TagNum: 1030, WireType:"bytes"}');
    refused(t, tx({ signerInfo: extra(4) }), 'errUnknownField "SignerInfo": {TagNum: 4, WireType:"bytes"}');
    refused(t, tx({ modeInfo: extra(3) }), 'errUnknownField "ModeInfo": {TagNum: 3, WireType:"bytes"}');
    refused(t, tx({ fee: extra(5) }), 'errUnknownField "Fee": {TagNum: 5, WireType:"bytes"}');
    const r = t.block([ok]).txResults[0];
    assert.equal(r.code, 0, `the tx itself is fine: ${r.log}`);
    await t.close();
  });

  test('a non-critical field (number with bit 11 set) in TxBody is allowed', async () => {
    const t = app();
    const r = t.block([tx({ body: extra(1030) })]).txResults[0];
    assert.equal(r.code, 0, r.log);
    assert.equal(t.balance(bob.address), BALANCE + 10n);
    await t.close();
  });
});

describe('a failing message keeps fee and sequence, and nothing else', () => {
  for (const [label, amount, code, codespace, log] of [
    ['handler error', '666', 2, 'authtest', 'the number of the beast: ledger refused'],
    ['insufficient funds in the message', '5000000', 5, 'sdk', `spendable balance 999800${DENOM} is smaller than 5000000${DENOM}: insufficient funds`],
  ] as const) {
    test(label, async () => {
      const t = app();
      const before = t.dump();
      const res = t.block([aliceTx({ msgs: [sendMsg(alice.address, carol.address, amount)] })]).txResults[0];
      assert.equal(res.code, code, res.log);
      assert.equal(res.codespace, codespace);
      assert.equal(res.log, log);
      assert.equal(t.balance(alice.address), BALANCE - 200n, 'the fee is paid');
      assert.equal(t.balance(feeCollector(t)), 200n);
      assert.equal(t.balance(carol.address), 0n, "the message's writes are gone");
      assert.equal(t.account(carol.address), undefined);
      const acc = t.account(alice.address);
      assert.equal(acc?.sequence, 1n, 'the sequence advanced');
      assert.deepEqual(acc?.pubKey, encodeSecp256k1PubKey(alice.publicKey));
      const after = t.dump();
      const changed = [...new Set([...before.keys(), ...after.keys()])].filter((k) => before.get(k) !== after.get(k)).sort();
      const ledger = (addr: string): string => `ledger/${toHex(Buffer.from(`bal/${addr}/${DENOM}`))}`;
      assert.deepEqual(changed, [`auth/${toHex(accountKey(t.ak.addressBytes(alice.address)))}`, ledger(alice.address), ledger(feeCollector(t))].sort());
      await t.close();
    });
  }
});

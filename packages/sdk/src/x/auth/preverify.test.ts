// What pre-verification derives for a tx (the signer's key, address, account number and sign bytes) is
// taken by the ante handler only while it still holds: a changed account number or chain id, or a key
// that is not the signer's, gets exactly the answer the ante handler gives without pre-verification.
import assert from 'node:assert/strict';
import { after, describe, test } from 'node:test';
import { BasicGasMeter, Context } from '../../app/index.ts';
import { VerifiedSignatures } from '../../crypto/index.ts';
import { ScratchMultiStore } from '../../store/index.ts';
import { decodeTx, encodeTx, type DecodedTx } from '../../tx/index.ts';
import type { Account } from './account.ts';
import { newAnteHandler } from './ante.ts';
import { preverifiedSigner, signaturesToPreverify } from './preverify.ts';
import { AUTH_CHAIN_ID as CHAIN_ID, DENOM, deductFee, removeTmpDirs, sendMsg, testApp, testKey, type TestApp } from '@chaind/sdk/testing';
import { errorMessage } from '@chaind/errors';

after(removeTmpDirs);

const alice = testKey(0);
const bob = testKey(1);
const GAS = 200_000n;

/** Alice's send, signed by `key` for `accountNumber`, decoded as CheckTx decodes a pre-verified tx. */
function preverified(t: TestApp, cache: VerifiedSignatures, key = alice, accountNumber = 0n): { tx: Uint8Array; decoded: DecodedTx } {
  const tx = encodeTx(
    { msgs: [sendMsg(alice.address, bob.address, '10')], fee: { amount: [{ denom: DENOM, amount: '200' }], gasLimit: GAS } },
    [{ privateKey: key.privateKey, accountNumber, sequence: 0n }],
    CHAIN_ID,
  );
  const decoded = decodeTx(tx);
  // as the worker pool does for a triple that verified
  for (const triple of t.app.withQueryContext((ctx) => signaturesToPreverify(ctx, t.ak, t.app.modules.msgRouter, decoded))) cache.add(triple);
  return { tx, decoded };
}

/** Runs the ante handler (with `cache`) on committed state, `edit` applied first; its error text, or its gas and events. */
function runAnte(
  t: TestApp,
  cache: VerifiedSignatures,
  tx: DecodedTx,
  o: { chainId?: string; mode?: 'check' | 'finalize'; edit?: (ctx: Context) => void } = {},
): string {
  const ante = newAnteHandler({ accountKeeper: t.ak, msgRouter: t.app.modules.msgRouter, deductFee: deductFee(t.ak), verifiedSignatures: cache });
  const snap = t.app.store.snapshot();
  try {
    const header = { chainId: o.chainId ?? CHAIN_ID, height: 2n, time: { seconds: 0n, nanos: 0 }, proposerAddress: new Uint8Array(0) };
    const ctx = new Context({ store: new ScratchMultiStore(snap), header, mode: o.mode ?? 'check', gasMeter: new BasicGasMeter(GAS) });
    o.edit?.(ctx);
    try {
      ante(ctx, tx, false);
    } catch (e) {
      return errorMessage(e);
    }
    return `ok: gas ${ctx.gasMeter.consumed()}, events ${JSON.stringify(ctx.events.events())}`;
  } finally {
    snap.release();
  }
}

/** `fn` on an app where Alice and Bob are funded, with an empty signature cache standing in for the pool's. */
async function onApp(fn: (t: TestApp, cache: VerifiedSignatures) => void): Promise<void> {
  const t = testApp({ funded: [alice.address, bob.address] });
  try {
    fn(t, new VerifiedSignatures());
  } finally {
    await t.close();
  }
}

describe('pre-verification derivations in the ante handler', () => {
  test('taken for the tx they were made for: the same gas and events as without them', () =>
    onApp((t, cache) => {
      const { tx, decoded } = preverified(t, cache);
      assert.notEqual(preverifiedSigner(decoded, 0), undefined);
      // an equal copy decoded afresh is not the tx they were made for
      const fresh = decodeTx(tx);
      assert.equal(preverifiedSigner(fresh, 0), undefined);
      const got = runAnte(t, cache, decoded);
      assert.match(got, /^ok: /);
      assert.equal(got, runAnte(t, new VerifiedSignatures(), fresh));
    }));

  test('a tx executed in a block frees its verified signature; CheckTx keeps it', () =>
    onApp((t, cache) => {
      const { decoded } = preverified(t, cache);
      assert.equal(cache.size, 1);
      assert.match(runAnte(t, cache, decoded), /^ok: /);
      assert.equal(cache.size, 1);
      // its sequence is spent once in a block: keeping the entry would only hold memory for every tx ever sent
      assert.match(runAnte(t, cache, decoded, { mode: 'finalize' }), /^ok: /);
      assert.equal(cache.size, 0);
      assert.equal(cache.bytes, 0);
    }));

  test('a signature CheckTx verified itself is remembered, and the block that executes its tx does not verify it again', () =>
    onApp((t, cache) => {
      const { tx } = preverified(t, new VerifiedSignatures());
      // decoded afresh: nothing pre-verified it (a validator's CheckTx behind CometBFT)
      assert.match(runAnte(t, cache, decodeTx(tx)), /^ok: /);
      assert.equal(cache.size, 1);
      assert.match(runAnte(t, cache, decodeTx(tx), { mode: 'finalize' }), /^ok: /);
      assert.equal(cache.size, 0, 'the block took it');
      // a signature that fails is never remembered
      const decoded = decodeTx(tx);
      const forged: DecodedTx = { ...decoded, signatures: [new Uint8Array(64).fill(1)] };
      assert.match(runAnte(t, cache, forged), /signature verification failed/);
      assert.equal(cache.size, 0);
    }));

  test('an account number changed since: the sign bytes are made again, and the old signature fails', () =>
    onApp((t, cache) => {
      const { decoded } = preverified(t, cache);
      const renumber = (ctx: Context): void => {
        const acc = t.ak.getAccount(ctx, alice.address) as Account;
        t.ak.setAccount(ctx, { ...acc, accountNumber: 7n });
      };
      // the cache holds the signature over account number 0's sign bytes: taking them would accept it
      assert.equal(
        runAnte(t, cache, decoded, { edit: renumber }),
        `signature verification failed; please verify account number (7), sequence (0) and chain-id (${CHAIN_ID}): unauthorized`,
      );
    }));

  test('another chain id: the sign bytes are made again, and the signature fails', () =>
    onApp((t, cache) => {
      const { decoded } = preverified(t, cache);
      assert.equal(
        runAnte(t, cache, decoded, { chainId: 'other-chain' }),
        'signature verification failed; please verify account number (0), sequence (0) and chain-id (other-chain): unauthorized',
      );
    }));

  test('a signer info whose key object was replaced after pre-verification: the key it holds now is checked', () =>
    onApp((t, cache) => {
      const { decoded } = preverified(t, cache);
      const bobs = decodeTx(preverified(t, cache, bob).tx).authInfo.signerInfos[0].publicKey;
      (decoded.authInfo.signerInfos[0] as { publicKey: unknown }).publicKey = bobs;
      assert.equal(runAnte(t, cache, decoded), `pubKey does not match signer address ${alice.address} with signer index: 0: invalid pubkey`);
    }));

  test("a signer info key that is not the signer's is not pre-verified, and refused as without", () =>
    onApp((t, cache) => {
      // Bob's key signs Alice's send: the ante handler refuses it before any signature, so nothing is verified ahead
      const { tx, decoded } = preverified(t, cache, bob, t.account(bob.address)?.accountNumber ?? -1n);
      assert.equal(preverifiedSigner(decoded, 0), undefined);
      assert.equal(cache.size, 0);
      const text = `pubKey does not match signer address ${alice.address} with signer index: 0: invalid pubkey`;
      assert.equal(runAnte(t, cache, decoded), text);
      assert.equal(runAnte(t, new VerifiedSignatures(), decodeTx(tx)), text);
    }));

  test('a tx with more signer infos than tx_sig_limit, or more than its messages have signers, costs nothing ahead', () =>
    onApp((t, cache) => {
      const { tx } = preverified(t, cache);
      assert.equal(cache.size, 1, 'the honest tx is pre-verified');
      // the attack: Alice's one signer info and signature repeated (a known key, existing account)
      const honest = decodeTx(tx);
      const repeat = (n: number): DecodedTx => {
        const d = decodeTx(tx);
        return {
          ...d,
          authInfo: { ...d.authInfo, signerInfos: Array.from({ length: n }, () => honest.authInfo.signerInfos[0]) },
          signatures: Array.from({ length: n }, () => honest.signatures[0]),
        };
      };
      const limit = Number(t.app.withQueryContext((ctx) => t.ak.getParams(ctx).txSigLimit));
      for (const n of [2, limit, limit + 1, 7000]) {
        const triples = t.app.withQueryContext((ctx) => signaturesToPreverify(ctx, t.ak, t.app.modules.msgRouter, repeat(n)));
        assert.deepEqual(triples, [], `${n} signer infos for one signer`);
      }
      // and the honest tx gives its one triple, over a 32-byte digest
      const [one] = t.app.withQueryContext((ctx) => signaturesToPreverify(ctx, t.ak, t.app.modules.msgRouter, decodeTx(tx)));
      assert.equal(one.digest.length, 32);
    }));
});

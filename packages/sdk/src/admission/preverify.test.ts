// The node's pre-verifier on real worker threads: a verified signature is cached as a 32-byte digest
// whatever the size of the tx, and a tx CheckTx refuses takes its signatures back out of the cache.
import assert from 'node:assert/strict';
import { after, test } from 'node:test';
import { nopLogger } from '../app/logger.ts';
import { encodeTx } from '../tx/index.ts';
import { signaturesToPreverify } from '../x/auth/preverify.ts';
import { AUTH_CHAIN_ID as CHAIN_ID, DENOM, removeTmpDirs, sendMsg, testApp, testKey } from '@chaind/sdk/testing';
import { Mempool } from './mempool.ts';
import { SignaturePreverifier } from './preverify.ts';

after(removeTmpDirs);

const alice = testKey(0);
const bob = testKey(1);

test('a tx CheckTx refuses leaves nothing in the verified-signature cache; an accepted one leaves its digest', async () => {
  const t = testApp({ funded: [alice.address, bob.address] });
  const pre = new SignaturePreverifier({
    threads: 1,
    logger: nopLogger,
    signaturesOf: (tx) => t.app.withQueryContext((ctx) => signaturesToPreverify(ctx, t.ak, t.app.modules.msgRouter, tx)),
  });
  const pool = new Mempool({ app: t.app, preverify: (b) => pre.preverify(b), refused: (b) => pre.refused(b) });
  try {
    const send = (memo: string, sequence: bigint): Uint8Array =>
      encodeTx(
        { msgs: [sendMsg(alice.address, bob.address, '1')], memo, fee: { amount: [{ denom: DENOM, amount: '200' }], gasLimit: 200_000n } },
        [{ privateKey: alice.privateKey, accountNumber: 0n, sequence }],
        CHAIN_ID,
      );
    // a correct signature on a tx the ante handler refuses after pre-verification (memo over 256 bytes)
    const refused = await pool.submit(send('x'.repeat(300), 0n));
    assert.equal(refused.code, 12, refused.log);
    assert.equal(pre.verified.size, 0, 'the refused tx took its signature back out');
    const accepted = await pool.submit(send('hello', 0n));
    assert.equal(accepted.code, 0, accepted.log);
    assert.equal(pre.verified.size, 1);
    assert.ok(pre.verified.bytes <= 500, `one cached signature takes ${pre.verified.bytes} bytes`);
  } finally {
    await pre.close();
    await t.close();
  }
});

test('a pre-verified tx the mempool itself refuses (full) leaves nothing behind either', async () => {
  const t = testApp({ funded: [alice.address, bob.address] });
  const pre = new SignaturePreverifier({
    threads: 1,
    logger: nopLogger,
    signaturesOf: (tx) => t.app.withQueryContext((ctx) => signaturesToPreverify(ctx, t.ak, t.app.modules.msgRouter, tx)),
  });
  const pool = new Mempool({ app: t.app, maxTxs: 1, preverify: (b) => pre.preverify(b), refused: (b) => pre.refused(b) });
  try {
    const send = (from: typeof alice, to: string, accountNumber: bigint): Uint8Array =>
      encodeTx(
        { msgs: [sendMsg(from.address, to, '1')], fee: { amount: [{ denom: DENOM, amount: '200' }], gasLimit: 200_000n } },
        [{ privateKey: from.privateKey, accountNumber, sequence: 0n }],
        CHAIN_ID,
      );
    // both arrive while the pool is empty: both are pre-verified, the second is refused in its turn
    const [first, second] = [pool.submit(send(alice, bob.address, 0n)), pool.submit(send(bob, alice.address, 1n))];
    assert.equal((await first).code, 0);
    await assert.rejects(second, /mempool is full/);
    assert.equal(pre.verified.size, 1, "the refused tx's signature went");
  } finally {
    await pre.close();
    await t.close();
  }
});

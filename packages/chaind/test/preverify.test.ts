// Signatures verified ahead of CheckTx on the worker pool (ChainApp.preverify): a tx so verified is
// accepted exactly as before, and nothing the pool remembers lets another tx through — a signature is
// only ever trusted with the exact public key and sign bytes it was verified with.
import assert from 'node:assert/strict';
import { after, describe, test } from 'node:test';
import { MsgSend } from 'cosmjs-types/cosmos/bank/v1beta1/tx';
import { CheckTxType } from 'cosmjs-types/tendermint/abci/types';
import { TxRaw } from 'cosmjs-types/cosmos/tx/v1beta1/tx';
import { ALICE, BOB, DENOM, newHome, removeTmpDirs, TestChain } from '@chaind/chaind/testing';

after(removeTmpDirs);

const send = (amount: string): { typeUrl: string; value: Uint8Array } => ({
  typeUrl: '/cosmos.bank.v1beta1.MsgSend',
  value: MsgSend.encode({ fromAddress: ALICE.address, toAddress: BOB.address, amount: [{ denom: DENOM, amount }] }).finish(),
});

describe('signatures verified ahead of CheckTx', () => {
  test('a pre-verified tx is accepted; its signature on other bytes, or a tampered one, is refused with code 4', async () => {
    const c = TestChain.open(newHome());
    try {
      const good = c.tx(ALICE, [send('5')]);
      await c.chain.preverify(good);
      const raw = TxRaw.decode(good);
      // the same (verified) signature over a different body: a replay of the cached signature
      const other = TxRaw.decode(c.tx(ALICE, [send('500000')]));
      const replay = TxRaw.encode({ ...other, signatures: raw.signatures }).finish();
      await c.chain.preverify(replay);
      const tampered = TxRaw.encode({ ...raw, signatures: [Uint8Array.from(raw.signatures[0], (b, i) => (i === 5 ? b ^ 1 : b))] }).finish();
      await c.chain.preverify(tampered);

      for (const bad of [replay, tampered]) {
        const r = c.app.checkTx({ tx: bad, type: CheckTxType.NEW });
        assert.equal(r.code, 4, r.log);
        assert.match(
          r.log,
          /^signature verification failed; please verify account number \(\d+\), sequence \(0\) and chain-id \(chain-test-1\): unauthorized$/,
        );
      }
      const ok = c.app.checkTx({ tx: good, type: CheckTxType.NEW });
      assert.equal(ok.code, 0, ok.log);
      // and the block executes it (the signature found verified again, or verified inline)
      const res = c.block([good]);
      assert.equal(res.txResults[0].code, 0, res.txResults[0].log);
    } finally {
      await c.close();
    }
  });

  test('bytes changed in place between pre-verification and CheckTx are checked as they are now', async () => {
    const c = TestChain.open(newHome());
    try {
      const good = c.tx(ALICE, [send('5')]);
      const bytes = Uint8Array.from(good);
      await c.chain.preverify(bytes);
      // the caller reuses its buffer: the last signature byte changes
      bytes[bytes.length - 1] ^= 1;
      const r = c.app.checkTx({ tx: bytes, type: CheckTxType.NEW });
      assert.equal(r.code, 4, r.log);
      // the untouched tx, pre-verified, is accepted with the same gas as without pre-verification
      const other = TestChain.open(newHome());
      try {
        await c.chain.preverify(good);
        const a = c.app.checkTx({ tx: good, type: CheckTxType.NEW });
        const b = other.app.checkTx({ tx: Uint8Array.from(good), type: CheckTxType.NEW });
        assert.equal(a.code, 0, a.log);
        assert.deepEqual([a.gasUsed, a.events], [b.gasUsed, b.events]);
      } finally {
        await other.close();
      }
    } finally {
      await c.close();
    }
  });

  test('bytes that are no tx pre-verify to nothing, and CheckTx gives the decode error (code 2)', async () => {
    const c = TestChain.open(newHome());
    try {
      await c.chain.preverify(new Uint8Array([1, 2, 3]));
      assert.equal(c.app.checkTx({ tx: new Uint8Array([1, 2, 3]), type: CheckTxType.NEW }).code, 2);
    } finally {
      await c.close();
    }
  });

  test('a closed app refuses CheckTx and queries with a clear error, and pre-verifies nothing', async () => {
    const c = TestChain.open(newHome());
    const tx = c.tx(ALICE, [send('5')]);
    await c.close();
    await c.chain.preverify(tx);
    assert.throws(() => c.app.checkTx({ tx, type: CheckTxType.NEW }), /^AppError: the app is closed: its committed state was released$/);
    assert.throws(() => c.app.withQueryContext(() => 0), /the app is closed/);
  });
});

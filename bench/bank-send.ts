// Bank-send throughput on one core: blocks of pre-signed MsgSend txs from many senders through
// FinalizeBlock + Commit, the time split into decode, signature verify, execute and commit, against the
// raw native verify rate of the same signatures (the physical ceiling: every tx needs one verify).
import { createHash } from 'node:crypto';
import { setFlagsFromString } from 'node:v8';
import { runInNewContext } from 'node:vm';
import { MsgSend } from 'cosmjs-types/cosmos/bank/v1beta1/tx';
import { addressFromPublicKey, publicKeyFromPrivate, secp256k1Implementation, signDirect, verifySignature } from '@chaind/sdk/crypto';
import { decodeTx, encodeTxParts, encodeTxRaw, signDocBytes } from '@chaind/sdk/tx';
import { CHAIN_ID, DENOM, GENESIS_SECONDS, TestChain } from '@chaind/chaind/testing';
import { chaindNodeFlags, cleanup, header, median, ms, row, runWithChaindNodeFlags, si, tempDir, timeMs } from './lib.ts';

// the node's code, timed in this process: under the Node flags chaind runs with
runWithChaindNodeFlags();

const SENDERS = 2000;
const BLOCK = 1000;
const WARMUP_BLOCKS = 2;
const BLOCKS = 8;
const GAS = 200_000n;

header(
  `bank send: ${BLOCKS} blocks of ${si(BLOCK)} signed MsgSend txs (${si(SENDERS)} senders, fee 200${DENOM}) through FinalizeBlock + Commit, one core`,
  'txs/s through FinalizeBlock + Commit, split into decode / signature verify / execute / commit; ratio to raw native verifies/s of the same signatures (the ceiling)',
);
console.log(`   Node flags as chaind's launcher sets them: ${chaindNodeFlags().join(' ') || "none (BENCH_NODE_DEFAULTS=1: Node's defaults)"}`);
console.log(
  `   secp256k1 backend: ${secp256k1Implementation}; ${WARMUP_BLOCKS} warm-up blocks not counted; decode and verify timed alone on the same txs (median of 3 passes)`,
);

const keys = Array.from({ length: SENDERS }, (_, i) => {
  const privateKey = createHash('sha256').update(`bank-send/${i}`).digest();
  const pubkey = publicKeyFromPrivate(privateKey);
  return { privateKey, pubkey, address: addressFromPublicKey(pubkey) };
});
const c = TestChain.open(tempDir('bank-send'), { extraAccounts: keys.map((k) => k.address) });
const accountNumbers = keys.map((k) => c.account(k.address).accountNumber);

interface Signed {
  readonly tx: Uint8Array;
  readonly pubkey: Uint8Array;
  readonly signDoc: Uint8Array;
  readonly signature: Uint8Array;
}

/** Tx `n` of the run: senders take turns, each at its next sequence; the pubkey rides only on a sender's first tx. */
function sign(n: number): Signed {
  const i = n % SENDERS;
  const sequence = BigInt(Math.floor(n / SENDERS));
  const k = keys[i];
  const msg = MsgSend.fromPartial({ fromAddress: k.address, toAddress: keys[(i + SENDERS / 2) % SENDERS].address, amount: [{ denom: DENOM, amount: '1' }] });
  const parts = encodeTxParts(
    {
      msgs: [{ typeUrl: '/cosmos.bank.v1beta1.MsgSend', value: MsgSend.encode(msg).finish() }],
      fee: { amount: [{ denom: DENOM, amount: '200' }], gasLimit: GAS },
    },
    [{ privateKey: k.privateKey, accountNumber: accountNumbers[i], sequence, omitPubKey: sequence > 0n }],
  );
  const signDoc = signDocBytes(parts, CHAIN_ID, accountNumbers[i]);
  const signature = signDirect(k.privateKey, signDoc);
  return { tx: encodeTxRaw({ ...parts, signatures: [signature] }), pubkey: k.pubkey, signDoc, signature };
}

// everything signed before any timing
const blocks: Signed[][] = Array.from({ length: WARMUP_BLOCKS + BLOCKS }, (_, b) => Array.from({ length: BLOCK }, (_, j) => sign(b * BLOCK + j)));

/** FinalizeBlock and Commit of one block, timed apart; every tx must succeed. */
function runBlock(txs: readonly Signed[]): { finalize: number; commit: number } {
  const height = c.height + 1n;
  let failed = '';
  const finalize = timeMs(() => {
    const res = c.app.finalizeBlock({
      txs: txs.map((s) => s.tx),
      decidedLastCommit: { round: 0, votes: [] },
      misbehavior: [],
      hash: new Uint8Array(32),
      height,
      time: { seconds: GENESIS_SECONDS + height, nanos: 0 },
      nextValidatorsHash: new Uint8Array(32),
      proposerAddress: new Uint8Array(20),
    });
    const bad = res.txResults.find((r) => r.code !== 0);
    if (bad !== undefined) failed = bad.log;
  });
  if (failed !== '') throw new Error(`a tx failed in block ${height}: ${failed}`);
  const commit = timeMs(() => c.app.commit());
  return { finalize, commit };
}

for (const b of blocks.slice(0, WARMUP_BLOCKS)) runBlock(b);
const measured = blocks.slice(WARMUP_BLOCKS);
const perBlock = measured.map(runBlock);
const all = measured.flat();
const n = all.length;

// the alone-passes start from a collected heap so they do not pay for the blocks' garbage
setFlagsFromString('--expose-gc');
const gc = runInNewContext('gc') as () => void;
const pass = (fn: () => void): number => {
  gc();
  return timeMs(fn);
};
const passes = (fn: () => void): number => median([pass(fn), pass(fn), pass(fn)]);
const decode = passes(() => all.forEach((s) => decodeTx(s.tx)));
const verify = passes(() => {
  for (const s of all) if (!verifySignature(s.pubkey, s.signDoc, s.signature)) throw new Error('raw verify failed');
});

const finalize = perBlock.reduce((a, x) => a + x.finalize, 0);
const commit = perBlock.reduce((a, x) => a + x.commit, 0);
const total = finalize + commit;
const execute = finalize - decode - verify;
const rate = (t: number): string => `${si((n / t) * 1000)}/s`;
const perTx = (t: number): string => `${((t / n) * 1000).toFixed(1)} µs/tx`;
const share = (t: number): string => `${((t / total) * 100).toFixed(0)}%`;

row(`FinalizeBlock + Commit (${si(n)} txs)`, ms(total), rate(total), perTx(total));
row('  per block of ' + si(BLOCK) + ': median finalize / commit', ms(median(perBlock.map((x) => x.finalize))), ms(median(perBlock.map((x) => x.commit))));
row('raw native verifySignature, same signatures', ms(verify), rate(verify), perTx(verify));
row('HEADLINE ratio txs/s ÷ raw verifies/s', `${(verify / total).toFixed(2)}x`);
console.log('   split of FinalizeBlock + Commit (µs/tx and share):');
row('  decode (decodeTx alone)', perTx(decode), share(decode));
row('  signature verify (raw verifySignature alone)', perTx(verify), share(verify));
row('  execute (finalize − decode − verify)', perTx(execute), share(execute));
row('  commit', perTx(commit), share(commit));

await c.close();
cleanup();

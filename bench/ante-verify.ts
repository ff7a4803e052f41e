// Signature verification through the ante handler: CheckTx of N distinct signed bank sends (one fresh
// signer each, sequence 0) vs raw native verifySignature calls on the same (pubkey, signDoc, signature)
// triples, plus a split of where CheckTx spends the rest of its time.
import { createHash } from 'node:crypto';
import { availableParallelism } from 'node:os';
import { setFlagsFromString } from 'node:v8';
import { runInNewContext } from 'node:vm';
import { sha256 } from '@noble/hashes/sha2.js';
import { MsgSend } from 'cosmjs-types/cosmos/bank/v1beta1/tx';
import { CheckTxType } from 'cosmjs-types/tendermint/abci/types';
import { Mempool, SignatureVerifyPool } from '@chaind/sdk/admission';
import { BasicGasMeter, Context, type BlockHeader } from '@chaind/sdk/app';
import {
  addressFromPublicKey,
  fromBech32,
  publicKeyFromPrivate,
  rawAddressFromPublicKey,
  secp256k1Implementation,
  signBytesDigest,
  signDirect,
  VerifiedSignatures,
  verifySignature,
} from '@chaind/sdk/crypto';
import { ScratchMultiStore } from '@chaind/sdk/store';
import { decodeTx, encodeSecp256k1PubKey, encodeTxParts, encodeTxRaw, signDocBytes, type DecodedTx } from '@chaind/sdk/tx';
import { fromProtoCoins } from '@chaind/sdk/types';
import { newAnteHandler, type Account } from '@chaind/sdk/x/auth';
import { FEE_COLLECTOR } from '@chaind/chaind/app';
import { checkTx as admitTx } from '@chaind/chaind/node';
import { BOB, CHAIN_ID, DENOM, TestChain } from '@chaind/chaind/testing';
import { chaindNodeFlags, cleanup, header, median, ms, row, runWithChaindNodeFlags, si, tempDir, timeMs } from './lib.ts';

// the node's code, timed in this process: under the Node flags chaind runs with
runWithChaindNodeFlags();

const N = 4000;
const ROUNDS = 7;
/** Txs run untimed after each forced GC, so no timed piece pays for re-optimising the code a full GC threw away. */
const WARM = 300;
/** As ChainApp chooses: one per core beyond the first, at most 4. */
const VERIFY_THREADS = Math.min(4, availableParallelism() - 1);
const GAS = 200_000n;

header(
  `ante verify: ${si(N)} distinct signed bank sends (fresh signers, sequence 0, fee 200${DENOM}) admitted as the node admits them, median of ${ROUNDS} rounds`,
  'signature verifications/s through the ante handler (node admission: decode, ante, CheckTx) >= 0.8x raw native verifySignature calls on the same triples',
);
console.log(`   Node flags as chaind's launcher sets them: ${chaindNodeFlags().join(' ') || "none (BENCH_NODE_DEFAULTS=1: Node's defaults)"}`);
console.log(`   secp256k1 backend: ${secp256k1Implementation}; each round runs on a fresh check state (an empty block is committed between rounds)`);
console.log(`   and on txs never seen before (a memo per round): no round finds the signatures of another verified;`);
console.log(`   the signers' accounts and balances were read in earlier rounds: they come from the inter-block cache, as for a sender`);
console.log(`   active in recent blocks (a sender the cache no longer holds costs two LMDB reads more: ~0.81x, the ratio before the cache)`);
console.log(`   node admission = the node's path: Mempool.inArrivalOrder with ChainApp.preverify (signatures verified on ${VERIFY_THREADS} worker`);
console.log('   thread(s), and by the main thread when it has nothing else to do; CheckTx in arrival order on the main thread, the ante');
console.log("   handler finding them verified), all txs broadcast at once, through the tx service's checkTx (what broadcast_tx_sync,");
console.log('   POST /cosmos/tx/v1beta1/txs and gRPC BroadcastTx call)');

interface Signed {
  readonly tx: Uint8Array;
  readonly pubkey: Uint8Array;
  readonly signDoc: Uint8Array;
  /** What the pool is given: the sign bytes' digest. */
  readonly digest: Uint8Array;
  readonly signature: Uint8Array;
}

const keys = Array.from({ length: N }, (_, i) => {
  const privateKey = createHash('sha256').update(`ante-verify/${i}`).digest();
  const pubkey = publicKeyFromPrivate(privateKey);
  return { privateKey, pubkey, address: addressFromPublicKey(pubkey) };
});
const c = TestChain.open(tempDir('ante'), { extraAccounts: keys.map((k) => k.address) });
const chain = c.chain;

// signed outside any timed section; the triples are exactly what the ante handler verifies. One set per
// round (and one to warm up with), told apart by the memo: the verified-signature cache never helps a round.
function signAll(memo: string): Signed[] {
  return keys.map((k) => {
    const msg = MsgSend.fromPartial({ fromAddress: k.address, toAddress: BOB.address, amount: [{ denom: DENOM, amount: '1' }] });
    const acc = c.account(k.address);
    const parts = encodeTxParts(
      {
        msgs: [{ typeUrl: '/cosmos.bank.v1beta1.MsgSend', value: MsgSend.encode(msg).finish() }],
        memo,
        fee: { amount: [{ denom: DENOM, amount: '200' }], gasLimit: GAS },
      },
      [{ privateKey: k.privateKey, accountNumber: acc.accountNumber, sequence: acc.sequence }],
    );
    const signDoc = signDocBytes(parts, CHAIN_ID, acc.accountNumber);
    const signature = signDirect(k.privateKey, signDoc);
    return { tx: encodeTxRaw({ ...parts, signatures: [signature] }), pubkey: k.pubkey, signDoc, digest: signBytesDigest(signDoc), signature };
  });
}
// A round's txs are signed just before it and dropped after it: the bench holds at most one round's
// txs besides the warm-up set, so the collector does not trace 24k txs of test data while the node's
// code runs (with every round's txs held from the start, admission measured 5-8% slower in two paired runs).
let warmSet: readonly Signed[] = signAll('warm-up');
/** The current round's txs decoded, for the pieces that time the ante handler alone. */
let decoded: DecodedTx[] = warmSet.map((s) => decodeTx(s.tx));
const accountNumbers = keys.map((k) => c.account(k.address).accountNumber);

// the app's ante handler, built as app.ts builds it, to time it without decode and (simulate) without signature checks
const ante = newAnteHandler({
  accountKeeper: chain.accounts,
  msgRouter: chain.app.modules.msgRouter,
  deductFee: chain.bank.deductFeeTo(FEE_COLLECTOR),
});

function checkTxAll(txs: readonly Signed[]): number {
  c.block(); // Commit resets the check state: every signer is back at sequence 0
  return timeMs(() => {
    for (const s of txs) {
      const r = chain.app.checkTx({ tx: s.tx, type: CheckTxType.NEW });
      if (r.code !== 0) throw new Error(`CheckTx failed: ${r.log}`);
    }
  });
}

/** The node's pre-verification hook: one function for the whole run, as the node makes one for its mempool. */
const preverify = (tx: Uint8Array): Promise<unknown> | undefined => chain.preverify(tx);
/** A broadcast's answer read as it arrives and dropped (the bench keeps none): the refusal's log, if any. */
const refusalLog = (r: { readonly code: number; readonly log: string }): string | undefined => (r.code === 0 ? undefined : r.log);

/**
 * The node's admission of every tx at once (many clients broadcasting): the tx service's own checkTx, as
 * the RPC, REST and gRPC broadcasts call it. Only long-lived functions run per tx, as in the node's
 * handlers: a closure made per round would lose its optimised code between rounds, a cost the node
 * does not pay.
 */
async function admitAll(txs: readonly Signed[]): Promise<number> {
  c.block();
  const node = { admission: new Mempool({ app: chain.app, maxTxs: txs.length, preverify }) };
  const answers = new Array<Promise<string | undefined>>(txs.length);
  // fresh bytes, as a node's arrivals are: the set itself was settled with the bench's other inputs
  const arrivals = txs.map((s) => s.tx.slice());
  const elu0 = performance.eventLoopUtilization();
  const t0 = performance.now();
  for (let i = 0; i < arrivals.length; i++) answers[i] = admitTx(node, arrivals[i]).then(refusalLog);
  const logs = await Promise.all(answers);
  const t = performance.now() - t0;
  const failed = logs.find((l) => l !== undefined);
  if (failed !== undefined) throw new Error(`admission failed: ${failed}`);
  if (txs.length === N) admitBusy.push(performance.eventLoopUtilization(elu0).utilization);
  return t;
}
/** Per timed admission round: the share of its time the main thread was busy (1: it was the limit, not the workers). */
const admitBusy: number[] = [];

function rawVerifyAll(txs: readonly Signed[]): number {
  return timeMs(() => {
    for (const s of txs) if (!verifySignature(s.pubkey, s.signDoc, s.signature)) throw new Error('raw verify failed');
  });
}

/** The worker pool alone on fresh triples: how fast one worker thread verifies, with or without the calling thread's help. */
async function poolAll(txs: readonly Signed[], helpInline: boolean): Promise<number> {
  const pool = new SignatureVerifyPool({ cache: new VerifiedSignatures({ capacity: txs.length }), threads: 1, helpInline });
  try {
    await pool.verify(txs.slice(0, 8)); // threads started
    const t0 = performance.now();
    const ok = await Promise.all(txs.map((s) => pool.verify([s])));
    const t = performance.now() - t0;
    if (!ok.every(([v]) => v)) throw new Error('pool verify failed');
    return t;
  } finally {
    await pool.close();
  }
}

/**
 * `fn` once per tx the way runTx's check path runs the ante handler, minus decode: a fresh check-like
 * store, a gas-metered context and a branch per tx, the branch written after.
 */
function perTxInBranch(n: number, fn: (ctx: Context, i: number) => void): number {
  const snap = chain.app.store.snapshot();
  const store = new ScratchMultiStore(snap);
  const hdr: BlockHeader = { chainId: CHAIN_ID, height: c.height + 1n, time: { seconds: 0n, nanos: 0 }, proposerAddress: new Uint8Array(0) };
  try {
    return timeMs(() => {
      for (let i = 0; i < n; i++) {
        const b = new Context({ store, header: hdr, mode: 'check', gasMeter: new BasicGasMeter(GAS) }).branch();
        fn(b.ctx, i);
        b.write();
      }
    });
  } finally {
    snap.release();
  }
}

const FEE = fromProtoCoins([{ denom: DENOM, amount: '200' }]);
/** Each piece: `set` is the round's set of txs (or the warm-up set), `n` how many to run. */
type Measure = (set: readonly Signed[], n: number) => number | Promise<number>;
const first = <T>(xs: readonly T[], n: number): readonly T[] => (n === xs.length ? xs : xs.slice(0, n));
const measures = {
  raw: (set, n) => rawVerifyAll(first(set, n)),
  check: (set, n) => checkTxAll(first(set, n)),
  admit: (set, n) => admitAll(first(set, n)),
  pool1: (set, n) => poolAll(first(set, n), false),
  pool1help: (set, n) => poolAll(first(set, n), true),
  ante: (_, n) => perTxInBranch(n, (ctx, i) => ante(ctx, decoded[i], false)),
  // simulate=true skips the key-to-address check, the stored key decode, the SignDoc encode and the verify
  anteSim: (_, n) => perTxInBranch(n, (ctx, i) => ante(ctx, decoded[i], true)),
  branch: (_, n) => perTxInBranch(n, () => undefined),
  fee: (_, n) => perTxInBranch(n, (ctx, i) => chain.bank.sendCoinsFromAccountToModule(ctx, keys[i].address, FEE_COLLECTOR, FEE)),
  accounts: (_, n) =>
    perTxInBranch(n, (ctx, i) => {
      // the ante's account traffic: params, hasAccount (fee payer), get, set (pubkey), set (sequence)
      chain.accounts.getParams(ctx);
      chain.accounts.hasAccount(ctx, keys[i].address);
      const acc = chain.accounts.getAccount(ctx, keys[i].address) as Account;
      chain.accounts.setAccount(ctx, { ...acc, pubKey: encodeSecp256k1PubKey(keys[i].pubkey) });
      chain.accounts.setAccount(ctx, { ...acc, pubKey: encodeSecp256k1PubKey(keys[i].pubkey), sequence: acc.sequence + 1n });
    }),
  decode: (set, n) => timeMs(() => first(set, n).forEach((s) => decodeTx(s.tx))),
  signDoc: (_, n) => timeMs(() => first(decoded, n).forEach((tx, i) => signDocBytes(tx, CHAIN_ID, accountNumbers[i]))),
  sha256: (set, n) => timeMs(() => first(set, n).forEach((s) => sha256(s.signDoc))),
  nodeSha256: (set, n) => timeMs(() => first(set, n).forEach((s) => createHash('sha256').update(s.signDoc).digest())),
  keyHash: (set, n) => timeMs(() => first(set, n).forEach((s) => rawAddressFromPublicKey(s.pubkey))),
  bech32: (_, n) => timeMs(() => first(keys, n).forEach((k) => fromBech32(k.address))),
} satisfies Record<string, Measure>;
type Name = keyof typeof measures;

// FORCE_GC=1: a full GC before each piece so none pays for the garbage of the piece before it. Off by
// default: a forced full GC also drops optimised code (V8 deoptimises code holding weak references), and
// the JS-heavy pieces (CheckTx, admission) then pay, for thousands of txs, a cost a running node does not
// (the admission figure moves from about 0.7x to 0.5x; the native verify barely moves). Each piece runs
// WARM txs untimed first either way; rounds are interleaved, so garbage left by one piece falls on all alike.
const FORCE_GC = process.env.FORCE_GC === '1';
setFlagsFromString('--expose-gc');
const gc = runInNewContext('gc') as (o?: { readonly type: 'major' | 'minor' }) => void;
/**
 * Moves what the young generation holds (a round's txs, their triples, their decoded copies: the bench's
 * inputs, not the node's) to the old one: two scavenges promote survivors. Otherwise the node's first
 * scavenges in a burst copy megabytes of test data that no node holds. A scavenge keeps optimised code.
 */
const settle = (): void => {
  gc({ type: 'minor' });
  gc({ type: 'minor' });
};
console.log(`   ${FORCE_GC ? 'FORCE_GC=1: a full GC before each timed piece' : 'no forced GC between pieces (FORCE_GC=1 forces one before each)'}`);

// warm-up (JIT), then interleaved rounds so drift hits every figure alike
for (const f of Object.values(measures)) await f(warmSet, N);
warmSet = warmSet.slice(0, WARM);
admitBusy.length = 0;
const t = Object.fromEntries(Object.keys(measures).map((k) => [k, [] as number[]])) as Record<Name, number[]>;
for (let r = 0; r < ROUNDS; r++) {
  const set = signAll(`round ${r}`);
  decoded = set.map((s) => decodeTx(s.tx));
  settle();
  for (const [k, f] of Object.entries(measures) as [Name, Measure][]) {
    if (FORCE_GC) gc();
    await f(warmSet, WARM);
    t[k].push(await f(set, N));
  }
}
const m = Object.fromEntries(Object.entries(t).map(([k, v]) => [k, median(v)])) as Record<Name, number>;
const rate = (x: number): string => `${si((N / x) * 1000)}/s`;
const perTx = (x: number): string => `${((x / N) * 1000).toFixed(1)} µs/tx`;
const share = (x: number): string => `${((x / m.check) * 100).toFixed(0)}%`;

row('raw native verifySignature (main thread)', ms(m.raw), rate(m.raw), perTx(m.raw));
row('node admission (workers verify, main checks)', ms(m.admit), rate(m.admit), perTx(m.admit));
row('HEADLINE ratio admitted/s ÷ raw verifies/s', `${(m.raw / m.admit).toFixed(2)}x`, m.raw / m.admit >= 0.8 ? 'goal met' : 'below goal');
row(
  '  main thread busy during admission (median)',
  `${(median(admitBusy) * 100).toFixed(0)}%`,
  `rounds ${admitBusy.map((u) => (u * 100).toFixed(0)).join(' ')}`,
);
row('app.checkTx alone (verifies inline)', ms(m.check), rate(m.check), perTx(m.check), `${(m.raw / m.check).toFixed(2)}x raw`);
row('for scale: the pool alone, 1 worker thread', ms(m.pool1), rate(m.pool1), perTx(m.pool1), `${(m.raw / m.pool1).toFixed(2)}x raw`);
row('  the same, the calling thread helping', ms(m.pool1help), rate(m.pool1help), perTx(m.pool1help), `${(m.raw / m.pool1help).toFixed(2)}x raw`);
console.log('   where CheckTx time goes: each piece timed alone on the same txs/keys (nested pieces overlap), µs/tx and share of checkTx:');
// differences are medians of per-round differences: rounds are interleaved, so pairs share the machine's load
const paired = (f: (r: number) => number): number => median(Array.from({ length: ROUNDS }, (_, r) => f(r)));
const sigChecks = paired((r) => t.ante[r] - t.anteSim[r]);
const rows: [string, number][] = [
  ['decodeTx (TxRaw, TxBody, AuthInfo)', m.decode],
  ['runTx rest (checkTx − decode − ante)', paired((r) => t.check[r] - t.decode[r] - t.ante[r])],
  ['ante handler (+ context, branch)', m.ante],
  ['  signature checks (ante − simulate)', sigChecks],
  ['    raw verifySignature (baseline)', m.raw],
  ['      of which sha256 (@noble/hashes)', m.sha256],
  ['      (sha256 by node:crypto instead)', m.nodeSha256],
  ['    SignDoc re-encode', m.signDoc],
  ['    pubkey -> address hash', m.keyHash],
  ['  the rest (ante, simulate=true)', m.anteSim],
  ['    context + branch + write only', m.branch],
  ['    fee deduction (bank send)', m.fee],
  ['    accounts: params,has,get,2x set', m.accounts],
  ['    one bech32 decode (several per tx)', m.bech32],
];
for (const [label, x] of rows) row(`  ${label}`, perTx(x), share(x));

await c.close();
cleanup();

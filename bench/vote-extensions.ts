// Issue 33 §5: what readiness attestations (ABCI 2.0 vote extensions) cost a validator per block. Two chain
// apps (createChainApp, LMDB homes) from the same genesis with the same ed25519 validator set (4, then 100
// validators, real keys) and the same upgrade plan scheduled through governance: one with vote extensions on
// (`abci.vote_extensions_enable_height` = 1), the baseline with them off. They run the same blocks of the same
// pre-signed bank sends, taking turns block by block, as a validator that did not propose sees a height:
//   - with: ProcessProposal of the proposal with the injected extended commit (every validator's extension a
//     real ReadinessAttestation, signed by its key over CometBFT's sign bytes), ExtendVote (this node's own),
//     FinalizeBlock (which checks the extended commit again and records the attestations) and Commit;
//   - without: ProcessProposal, FinalizeBlock and Commit of the same user txs.
// Each block's txs go through CheckTx first (not timed), on both apps, as on a validator whose mempool had
// them: FinalizeBlock then finds their signatures verified, as the node runs. VerifyVoteExtension of the
// other validators' precommits (CometBFT calls it once per other validator) is timed apart and reported beside.
import { createHash, createPrivateKey, createPublicKey, sign, verify, type KeyObject } from 'node:crypto';
import { readFileSync } from 'node:fs';
import { join } from 'node:path';
import { VoteOption } from 'cosmjs-types/cosmos/gov/v1/gov';
import { MsgSubmitProposal, MsgVote } from 'cosmjs-types/cosmos/gov/v1/tx';
import {
  CheckTxType,
  ResponseProcessProposal_ProposalStatus,
  ResponseVerifyVoteExtension_VerifyStatus,
  type CommitInfo,
  type ExtendedCommitInfo,
} from 'cosmjs-types/tendermint/abci/types';
import { BlockIDFlag } from 'cosmjs-types/tendermint/types/validator';
import { createChainApp, type ChainApp } from '@chaind/chaind/app';
import { ALICE, CHAIN_ID, GENESIS_SECONDS, PERIOD, committedAccount, signTx, softwareUpgrade, testGenesis } from '@chaind/chaind/testing';
import { checkExtendedCommit, decodeInjectedTx, encodeInjectedTx, MemoryLogger, verifyEd25519, voteExtensionSignBytes } from '@chaind/sdk/app';
import { addressFromPublicKey, publicKeyFromPrivate } from '@chaind/sdk/crypto';
import { QueryReadinessRequest, QueryReadinessResponse, SimulateResult } from '@chaind/sdk/gen/chain/upgrade/v1beta1/readiness';
import { toRequestInitChain } from '@chaind/sdk/genesis';
import { DENOM, sendMsg } from '@chaind/sdk/testing';
import { encodeTx } from '@chaind/sdk/tx';
import { parseAttestation } from '@chaind/sdk/x/upgrade';
import { consensusAddress } from '@chaind/sdk/x/validators';
import { upgradeInfoPath } from '@chaind/upgrade-plan';
import { chaindNodeFlags, cleanup, header, median, row, runWithChaindNodeFlags, si, tempDir } from './lib.ts';

// the node's code, timed in this process: under the Node flags chaind runs with
runWithChaindNodeFlags();

const VALIDATOR_COUNTS = [4, 100];
/** Block sizes (user txs), and blocks per app in a round: why these sizes is printed with the header. */
const PHASES: readonly { readonly txs: number; readonly blocks: number }[] = [
  { txs: 20, blocks: 20 },
  { txs: 200, blocks: 5 },
];
/** Rounds per phase, after one warm-up round not counted; a round gives each app the phase's blocks. */
const ROUNDS = Number(process.env.BENCH_ROUNDS ?? 9);
const SENDERS = 2000;
const FEE = [{ denom: DENOM, amount: '200' }];
const GAS = 200_000n;
const PLAN_NAME = 'v2';
/** Never reached: the plan stays scheduled for the whole run. */
const PLAN_HEIGHT = 1_000_000_000n;
/** A plan's info as `chaind tx upgrade software-upgrade` writes it: one binary with its checksum. */
const PLAN_INFO = JSON.stringify({
  binaries: { 'linux/amd64': `https://example.com/chaind-v2-linux-amd64.tar.gz?checksum=sha256:${'5e'.repeat(32)}` },
});
/** What this node's chainvisor says of the release: prepared and simulated (the attestation a ready validator makes). */
const READY = { releaseChecksum: `sha256:${'ab'.repeat(32)}`, simulate: SimulateResult.SIMULATE_RESULT_PASSED };
const POWER = 10n;

header(
  `vote extensions: readiness attestations per block with ${VALIDATOR_COUNTS.join(' and ')} validators, blocks of ${PHASES.map((p) => p.txs).join(' and ')} signed MsgSend`,
  'blocks/s with attestations (ExtendVote + ProcessProposal + FinalizeBlock + Commit) >= 0.95x the same blocks without vote extensions',
);
console.log(`   Node flags as chaind's launcher sets them: ${chaindNodeFlags().join(' ') || "none (BENCH_NODE_DEFAULTS=1: Node's defaults)"}`);
console.log('   two apps per validator set (vote extensions on at height 1 / off), same genesis, same plan scheduled by gov, same blocks;');
console.log('   each block CheckTx-ed first on both (not timed: FinalizeBlock finds the signatures verified, as on a validator whose mempool had');
console.log(`   the txs); the apps take turns block by block, the first rotating; ${ROUNDS} rounds per block size after a warm-up round`);
console.log("   block sizes: 20 txs, a lightly used chain's block (every height pays for the attestations however few txs it has),");
console.log("   and 200, a busy one (abci-throughput's blocks; comet-validator offers 500 tx/s at 1 s blocks): an empty block would");
console.log('   make any ratio meaningless, a block of thousands would hide the cost');

// ---- keys ----------------------------------------------------------------------------------------------

const seed = (tag: string): Buffer => createHash('sha256').update(`vote-extensions/${tag}`).digest();

interface AccountKey {
  readonly privateKey: Uint8Array;
  readonly address: string;
}
function accountKey(tag: string): AccountKey {
  const privateKey = seed(tag);
  return { privateKey, address: addressFromPublicKey(publicKeyFromPrivate(privateKey)) };
}

/** SPKI DER prefix of a raw 32-byte ed25519 public key (RFC 8410). */
const ED25519_SPKI_PREFIX = Buffer.from('302a300506032b6570032100', 'hex');
/** PKCS#8 DER prefix of a raw 32-byte ed25519 seed (RFC 8410). */
const PKCS8_ED25519_PREFIX = Buffer.from('302e020100300506032b657004220420', 'hex');

interface ValidatorKey {
  readonly operator: AccountKey;
  readonly signer: KeyObject;
  readonly pubKey: Uint8Array;
  readonly address: Uint8Array;
}
function validatorKey(i: number): ValidatorKey {
  const signer = createPrivateKey({ key: Buffer.concat([PKCS8_ED25519_PREFIX, seed(`consensus/${i}`)]), format: 'der', type: 'pkcs8' });
  const pubKey = new Uint8Array(createPublicKey(signer).export({ format: 'der', type: 'spki' }).subarray(12));
  return { operator: accountKey(`operator/${i}`), signer, pubKey, address: consensusAddress(pubKey) };
}

const senders = Array.from({ length: SENDERS }, (_, i) => accountKey(`sender/${i}`));

// ---- the apps ------------------------------------------------------------------------------------------

interface Node {
  readonly label: string;
  readonly chain: ChainApp;
  readonly logger: MemoryLogger;
  readonly ve: boolean;
}

/** A validator set of `n` in CometBFT's order (power descending, then address: all powers equal). */
function validatorSet(n: number): ValidatorKey[] {
  return Array.from({ length: n }, (_, i) => validatorKey(i)).sort((a, b) => Buffer.compare(Buffer.from(a.address), Buffer.from(b.address)));
}

function makeNode(label: string, vals: readonly ValidatorKey[], ve: boolean): Node {
  const home = tempDir('vote-ext');
  const logger = new MemoryLogger();
  const chain = createChainApp({
    dbPath: join(home, 'data', 'application.db'),
    upgradeInfoPath: upgradeInfoPath(home),
    chainId: CHAIN_ID,
    logger,
    upgrades: [],
    verifyThreads: 0,
    localReadiness: () => READY,
  });
  // the senders first: their account numbers are the same whatever the validator set
  const doc = testGenesis([...senders.map((s) => s.address), ...vals.map((v) => v.operator.address)]);
  doc.appState.validators = {
    validators: vals.map((v, i) => ({
      operator_address: v.operator.address,
      consensus_pubkey: { '@type': '/cosmos.crypto.ed25519.PubKey', key: Buffer.from(v.pubKey).toString('base64') },
      power: POWER.toString(),
      moniker: `validator-${i}`,
    })),
  };
  doc.consensusParams.abci = { voteExtensionsEnableHeight: ve ? 1n : 0n };
  chain.app.initChain(toRequestInitChain(doc));
  return { label, chain, logger, ve };
}

/** The last commit of the block at `h`: every validator voted COMMIT for the block before (none before block 1). */
function lastCommit(vals: readonly ValidatorKey[], h: bigint): CommitInfo {
  if (h === 1n) return { round: 0, votes: [] };
  return { round: 0, votes: vals.map((v) => ({ validator: { address: v.address, power: POWER }, blockIdFlag: BlockIDFlag.BLOCK_ID_FLAG_COMMIT })) };
}

/**
 * The first tx of the proposal at `h`: the extended commit of `h - 1`, every validator's extension `ext` (what
 * this node attested at `h - 1`: every validator attests the same plan and release) signed by its own key.
 */
function injectedTx(vals: readonly ValidatorKey[], h: bigint, ext: Uint8Array): Uint8Array {
  const ec: ExtendedCommitInfo = {
    round: 0,
    votes: vals.map((v) => ({
      validator: { address: v.address, power: POWER },
      voteExtension: ext,
      extensionSignature: new Uint8Array(sign(null, voteExtensionSignBytes(CHAIN_ID, h - 1n, 0n, ext), v.signer)),
      blockIdFlag: BlockIDFlag.BLOCK_ID_FLAG_COMMIT,
    })),
  };
  return encodeInjectedTx(ec);
}

interface Times {
  /** ProcessProposal, ExtendVote, FinalizeBlock, Commit (wall ms) */
  readonly pp: number;
  readonly ev: number;
  readonly fb: number;
  readonly commit: number;
  /** the main thread's ms on a core, and waiting runnable for one, over those four calls (Linux's schedstat) */
  readonly run: number;
  readonly wait: number;
  /** VerifyVoteExtension of the other validators' extensions (wall ms) */
  readonly vve: number;
}

/** Milliseconds this process's main thread has run, and waited runnable for a core (Linux's schedstat; zeros elsewhere). */
function schedstat(): readonly [number, number] {
  try {
    const [run, wait] = readFileSync(`/proc/${process.pid}/task/${process.pid}/schedstat`, 'utf8').split(' ').map(Number);
    return [run / 1e6, wait / 1e6];
  } catch {
    return [0, 0];
  }
}

/**
 * One height on `node`: ProcessProposal, ExtendVote (with vote extensions), FinalizeBlock and Commit, each
 * timed. Before them, VerifyVoteExtension of `others` (the other validators' extensions of this height, the
 * same bytes as this node's), timed apart: CometBFT calls it between ExtendVote and FinalizeBlock, over the
 * same committed state. Returns the times and this node's extension (empty without vote extensions).
 */
function height(
  node: Node,
  vals: readonly ValidatorKey[],
  h: bigint,
  userTxs: readonly Uint8Array[],
  injected: Uint8Array | undefined,
  seconds: bigint,
  others: Uint8Array | undefined,
): { t: Times; ext: Uint8Array } {
  const app = node.chain.app;
  if (app.lastBlockHeight + 1n !== h) throw new Error(`${node.label} is at ${app.lastBlockHeight}, not before ${h}`);
  const txs = injected === undefined ? [...userTxs] : [injected, ...userTxs];
  const lc = lastCommit(vals, h);
  const time = { seconds, nanos: 0 };
  const hash = createHash('sha256').update(`block ${h}`).digest();
  const proposerAddress = vals[Number(h % BigInt(vals.length))].address;
  const base = { hash, height: h, time, txs, misbehavior: [], nextValidatorsHash: new Uint8Array(32), proposerAddress };
  let ext: Uint8Array = new Uint8Array(0);
  let vveOk = true;
  const v0 = performance.now();
  if (node.ve && others !== undefined) {
    for (let i = 1; i < vals.length; i++) {
      const r = app.verifyVoteExtension({ hash, validatorAddress: vals[i].address, height: h, voteExtension: others });
      if (r.status !== ResponseVerifyVoteExtension_VerifyStatus.ACCEPT) vveOk = false;
    }
  }
  const v1 = performance.now();
  const s0 = schedstat();
  const t0 = performance.now();
  const pp = app.processProposal({ ...base, proposedLastCommit: lc });
  const t1 = performance.now();
  if (node.ve) ext = app.extendVote({ ...base, proposedLastCommit: lc }).voteExtension;
  const t2 = performance.now();
  const fb = app.finalizeBlock({ ...base, decidedLastCommit: lc });
  const t3 = performance.now();
  app.commit();
  const t4 = performance.now();
  const s1 = schedstat();
  if (pp.status !== ResponseProcessProposal_ProposalStatus.ACCEPT) throw new Error(`${node.label}: ProcessProposal refused block ${h}`);
  if (!vveOk) throw new Error(`${node.label}: VerifyVoteExtension refused an extension at ${h}`);
  const failed = fb.txResults.find((r) => r.code !== 0);
  if (failed !== undefined) throw new Error(`${node.label}: a tx failed in block ${h}: ${failed.log}`);
  const errors = node.logger.lines.filter((l) => l.level === 'error');
  if (errors.length > 0) throw new Error(`${node.label}: ${errors[0].msg} ${JSON.stringify(errors[0].fields)}`);
  node.logger.lines.length = 0;
  return {
    t: { pp: t1 - t0, ev: t2 - t1, fb: t3 - t2, commit: t4 - t3, run: s1[0] - s0[0], wait: s1[1] - s0[1], vve: v1 - v0 },
    ext,
  };
}

function checkTxs(node: Node, txs: readonly Uint8Array[]): void {
  for (const tx of txs) {
    const r = node.chain.app.checkTx({ tx, type: CheckTxType.NEW });
    if (r.code !== 0) throw new Error(`${node.label}: CheckTx refused a tx: ${r.log}`);
  }
}

/** The two apps of one validator set, at the same height; `ext` is the VE app's own extension of the last height. */
class Pair {
  readonly with: Node;
  readonly without: Node;
  private ext: Uint8Array = new Uint8Array(0);
  /** The last block's time (seconds); blocks are 1 s apart unless a setup block says otherwise. */
  private seconds = GENESIS_SECONDS;

  constructor(readonly vals: readonly ValidatorKey[]) {
    this.with = makeNode(`${vals.length} validators, with vote extensions`, vals, true);
    this.without = makeNode(`${vals.length} validators, without (baseline)`, vals, false);
  }

  get next(): bigint {
    return this.with.chain.app.lastBlockHeight + 1n;
  }

  /** A setup block on both apps, not timed; its injected tx signed here. */
  block(txs: readonly Uint8Array[], advance = 1n): void {
    const h = this.next;
    this.seconds += advance;
    checkTxs(this.with, txs);
    checkTxs(this.without, txs);
    this.ext = height(this.with, this.vals, h, txs, h === 1n ? undefined : injectedTx(this.vals, h, this.ext), this.seconds, undefined).ext;
    height(this.without, this.vals, h, txs, undefined, this.seconds, undefined);
  }

  /**
   * `blocks` heights on both apps, taking turns, the first rotating with `turn`; the injected txs signed
   * before any timing (this node's extension is the same at every height while the plan stands: checked).
   */
  round(blocks: readonly (readonly Uint8Array[])[], turn: number): { with: Times[]; without: Times[] } {
    const first = this.next;
    const ext = this.ext;
    const injected = blocks.map((_, b) => injectedTx(this.vals, first + BigInt(b), ext));
    const out = { with: [] as Times[], without: [] as Times[] };
    blocks.forEach((txs, b) => {
      const h = first + BigInt(b);
      const seconds = ++this.seconds;
      checkTxs(this.with, txs);
      checkTxs(this.without, txs);
      const runWith = (): void => {
        const r = height(this.with, this.vals, h, txs, injected[b], seconds, ext);
        if (!Buffer.from(r.ext).equals(Buffer.from(ext))) throw new Error(`the extension changed at height ${h}`);
        out.with.push(r.t);
      };
      const runWithout = (): void => {
        out.without.push(height(this.without, this.vals, h, txs, undefined, seconds, undefined).t);
      };
      if ((turn + b) % 2 === 0) {
        runWith();
        runWithout();
      } else {
        runWithout();
        runWith();
      }
    });
    return out;
  }

  get extension(): Uint8Array {
    return this.ext;
  }

  async close(): Promise<void> {
    await this.with.chain.close();
    await this.without.chain.close();
  }
}

// ---- the user txs: signed once, run by every pair from the same account state --------------------------

const txCount = PHASES.reduce((a, p) => a + (ROUNDS + 1) * p.blocks * p.txs, 0);
let accountNumbers: bigint[] = [];
const userTxs: Uint8Array[] = [];
/** Tx `n` of the run: senders take turns, each at its next sequence, sending 1 to another sender. */
function signUserTx(n: number): Uint8Array {
  const i = n % SENDERS;
  const signer = { privateKey: senders[i].privateKey, accountNumber: accountNumbers[i], sequence: BigInt(Math.floor(n / SENDERS)) };
  return encodeTx(
    { msgs: [sendMsg(senders[i].address, senders[(i + SENDERS / 2) % SENDERS].address, '1')], fee: { amount: FEE, gasLimit: GAS } },
    [signer],
    CHAIN_ID,
  );
}

// ---- the run -------------------------------------------------------------------------------------------

interface Figures {
  readonly n: number;
  readonly txs: number;
  readonly blocks: number;
  readonly rounds: { with: Times[]; without: Times[] }[];
  readonly injectedBytes: number;
}
const results: Figures[] = [];

/** The check of one extended commit of `n` votes timed alone (the main thread's µs on a core), and its parts. */
interface Alone {
  readonly n: number;
  readonly check: number;
  readonly verify: number;
  readonly verifyKeyObjects: number;
}
const alone: Alone[] = [];

/**
 * Where ProcessProposal's time goes: checkExtendedCommit of the injected tx of height `h` (keys from a Map,
 * not from state), verifyEd25519 of its signatures alone (a KeyObject made from the raw key per call, as the
 * check does), and node:crypto's verify with the KeyObjects made beforehand.
 */
function checkAlone(vals: readonly ValidatorKey[], h: bigint, ext: Uint8Array): Alone {
  const ec = decodeInjectedTx(injectedTx(vals, h, ext));
  const lc = lastCommit(vals, h);
  const keys = new Map(vals.map((v) => [Buffer.from(v.address).toString('hex'), v.pubKey]));
  const keyOf = (a: Uint8Array): Uint8Array | undefined => keys.get(Buffer.from(a).toString('hex'));
  const msg = voteExtensionSignBytes(CHAIN_ID, h - 1n, 0n, ext);
  const objects = vals.map((v) => createPublicKey({ key: Buffer.concat([ED25519_SPKI_PREFIX, v.pubKey]), format: 'der', type: 'spki' }));
  // a pass checks 800 votes' worth: schedstat counts at scheduler ticks, too coarse for one commit's check
  const reps = Math.ceil(800 / vals.length);
  /** The main thread's µs on a core per call (wall µs where Linux's schedstat is missing), median of 5 passes after 2. */
  const pass = (fn: () => boolean): number => {
    const ts: number[] = [];
    for (let i = 0; i < 7; i++) {
      const s0 = schedstat()[0];
      const t = performance.now();
      for (let r = 0; r < reps; r++) if (!fn()) throw new Error('a check alone failed');
      const wall = performance.now() - t;
      const run = schedstat()[0] - s0;
      ts.push((run > 0 ? run : wall) / reps);
    }
    return median(ts.slice(2)) * 1000;
  };
  return {
    n: vals.length,
    check: pass(() => checkExtendedCommit(ec, lc, { chainId: CHAIN_ID, height: h, keyOf }).ok),
    verify: pass(() => ec.votes.every((v, i) => verifyEd25519(vals[i].pubKey, msg, v.extensionSignature))),
    verifyKeyObjects: pass(() => ec.votes.every((v, i) => verify(null, msg, objects[i], v.extensionSignature))),
  };
}

for (const n of VALIDATOR_COUNTS) {
  const vals = validatorSet(n);
  const pair = new Pair(vals);
  pair.block([]);
  const numbers = senders.map((s) => committedAccount(pair.with.chain.app, s.address).accountNumber);
  if (accountNumbers.length === 0) {
    accountNumbers = numbers;
    const t = performance.now();
    for (let k = 0; k < txCount; k++) userTxs.push(signUserTx(k));
    console.log(`   ${si(txCount)} user txs signed in ${((performance.now() - t) / 1000).toFixed(1)} s (${SENDERS} senders funded at genesis)`);
  } else if (numbers.some((x, i) => x !== accountNumbers[i])) throw new Error('the senders have other account numbers with this validator set');

  // the plan, by governance: ALICE proposes, every validator's operator votes yes, the voting period ends
  const app = pair.with.chain.app;
  const proposal = MsgSubmitProposal.fromPartial({
    messages: [softwareUpgrade(PLAN_NAME, PLAN_HEIGHT, PLAN_INFO)],
    initialDeposit: [{ denom: DENOM, amount: '1000' }],
    proposer: ALICE.address,
    title: PLAN_NAME,
    summary: PLAN_NAME,
  });
  pair.block([signTx(app, ALICE, [{ typeUrl: '/cosmos.gov.v1.MsgSubmitProposal', value: MsgSubmitProposal.encode(proposal).finish() }])]);
  const vote = (v: ValidatorKey): Uint8Array =>
    signTx(app, { ...v.operator, publicKey: publicKeyFromPrivate(v.operator.privateKey) }, [
      {
        typeUrl: '/cosmos.gov.v1.MsgVote',
        value: MsgVote.encode({ proposalId: 1n, voter: v.operator.address, option: VoteOption.VOTE_OPTION_YES, metadata: '' }).finish(),
      },
    ]);
  pair.block(vals.map(vote));
  pair.block([], PERIOD); // the voting period ends: the plan is scheduled
  pair.block([]); // this node's first attestation (ExtendVote at the plan's first height) goes into this block's successor
  const a = parseAttestation(pair.extension);
  if (a === undefined || typeof a === 'string' || a.planName !== PLAN_NAME) throw new Error(`no attestation of the plan: ${String(a)}`);

  let used = 0;
  const take = (count: number): Uint8Array[] => {
    used += count;
    return userTxs.slice(used - count, used);
  };
  for (const p of PHASES) {
    const rounds: { with: Times[]; without: Times[] }[] = [];
    for (let r = 0; r <= ROUNDS; r++) {
      const blocks = Array.from({ length: p.blocks }, () => take(p.txs));
      const out = pair.round(blocks, r);
      if (r > 0) rounds.push(out);
    }
    results.push({ n, txs: p.txs, blocks: p.blocks, rounds, injectedBytes: injectedTx(vals, pair.next, pair.extension).length });
  }

  // every validator's attestation was recorded: the readiness query shows all the power ready
  const q = app.query({ path: '/chain.upgrade.v1beta1.Query/Readiness', data: QueryReadinessRequest.encode({}).finish(), height: 0n, prove: false });
  const rd = QueryReadinessResponse.decode(q.value);
  if (q.code !== 0 || rd.readyPower !== POWER * BigInt(n) || rd.validators.some((v) => v.attestedHeight !== app.lastBlockHeight))
    throw new Error(`readiness not recorded: ${q.log} ${rd.readyPower}/${rd.totalPower}`);
  console.log(`   ${n} validators: readiness query at height ${app.lastBlockHeight}: ${rd.readyPower}/${rd.totalPower} power ready (${rd.readyFraction})`);
  alone.push(checkAlone(vals, pair.next, pair.extension));
  await pair.close();
}

// ---- figures -------------------------------------------------------------------------------------------

type Round = { with: Times[]; without: Times[] };
const sum = (ts: readonly Times[], f: (t: Times) => number): number => ts.reduce((a, t) => a + f(t), 0);
const blockWith = (t: Times): number => t.pp + t.ev + t.fb + t.commit;
const blockWithout = (t: Times): number => t.pp + t.fb + t.commit;
const range = (xs: readonly number[]): string => {
  const s = [...xs].sort((x, y) => x - y);
  return `${s[0].toFixed(2)}-${s[s.length - 1].toFixed(2)}`;
};
let load = '';
try {
  load = readFileSync('/proc/loadavg', 'utf8').split(' ').slice(0, 3).join(' ');
} catch {
  load = 'unknown';
}

for (const f of results) {
  /** Median over rounds of a per-round total, per block, in µs. */
  const per = (fn: (r: Round) => number): number => (median(f.rounds.map(fn)) / f.blocks) * 1000;
  console.log(
    `-- ${f.n} validators, blocks of ${f.txs} txs (+ the extended commit: ${si(f.injectedBytes)} bytes): ${ROUNDS} rounds of ${f.blocks} blocks per app; µs per block, medians over rounds`,
  );
  row('', 'with', 'without', 'with − without');
  const line = (label: string, w: (t: Times) => number, wo: (t: Times) => number): void =>
    row(label, per((r) => sum(r.with, w)).toFixed(0), per((r) => sum(r.without, wo)).toFixed(0), per((r) => sum(r.with, w) - sum(r.without, wo)).toFixed(0));
  line(
    'ProcessProposal',
    (t) => t.pp,
    (t) => t.pp,
  );
  line(
    "ExtendVote (this node's own)",
    (t) => t.ev,
    () => 0,
  );
  line(
    'FinalizeBlock',
    (t) => t.fb,
    (t) => t.fb,
  );
  line(
    'Commit',
    (t) => t.commit,
    (t) => t.commit,
  );
  line('block: the four above (wall)', blockWith, blockWithout);
  line(
    '  main thread on a core',
    (t) => t.run,
    (t) => t.run,
  );
  line(
    '  main thread waiting for a core',
    (t) => t.wait,
    (t) => t.wait,
  );
  line(
    `VerifyVoteExtension x ${f.n - 1} (the others')`,
    (t) => t.vve,
    () => 0,
  );
  const ratios = f.rounds.map((r) => sum(r.without, blockWithout) / sum(r.with, blockWith));
  const cpuRatios = f.rounds.map((r) => sum(r.without, (t) => t.run) / sum(r.with, (t) => t.run));
  const allRatios = f.rounds.map((r) => sum(r.without, blockWithout) / sum(r.with, (t) => blockWith(t) + t.vve));
  const ratio = median(ratios);
  row(`HEADLINE ratio without / with, wall`, `${ratio.toFixed(3)}x`, `rounds ${range(ratios)}`, ratio >= 0.95 ? 'goal met' : 'goal NOT met');
  row('ratio, main thread on a core', `${median(cpuRatios).toFixed(3)}x`, `rounds ${range(cpuRatios)}`);
  row('ratio, wall, VerifyVoteExtension counted too', `${median(allRatios).toFixed(3)}x`);
}
console.log("-- one extended commit checked alone (the main thread's µs on a core per check, median of 5 passes of 800 votes after 2)");
for (const a of alone) {
  row(`${a.n} votes: checkExtendedCommit (keys from a Map)`, a.check.toFixed(0), `${(a.check / a.n).toFixed(1)} /vote`);
  row(`  verifyEd25519 alone (a KeyObject per call)`, a.verify.toFixed(0), `${(a.verify / a.n).toFixed(1)} /vote`);
  row(`  node:crypto verify, KeyObjects made before`, a.verifyKeyObjects.toFixed(0), `${(a.verifyKeyObjects / a.n).toFixed(1)} /vote`);
}
console.log("   (ratio = median over rounds of the baseline's time / the time with attestations, the same blocks in the same round;");
console.log("    with − without = median over rounds of the difference: the extension work per block; Commit includes LMDB's fsync,");
console.log('    which is neither on a core nor waiting for one; schedstat counts a running thread at scheduler ticks, so a small');
console.log(`    block's on-core figure is coarse and may exceed its wall time. Load average at the end: ${load})`);
cleanup();

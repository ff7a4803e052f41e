import assert from 'node:assert/strict';
import { generateKeyPairSync, sign } from 'node:crypto';
import { after, describe, test } from 'node:test';
import { sha256 } from '@noble/hashes/sha2.js';
import { ResponseProcessProposal_ProposalStatus, type CommitInfo, type ExtendedCommitInfo } from 'cosmjs-types/tendermint/abci/types';
import { BlockIDFlag } from 'cosmjs-types/tendermint/types/validator';
import { blockRequest, removeTmpDirs, tmpDir } from '@chaind/sdk/testing';
import { CommitMultiStore } from '../store/index.ts';
import { BaseApp } from './application.ts';
import { ModuleManager } from './manager.ts';
import {
  checkExtendedCommit,
  decodeInjectedTx,
  encodeInjectedTx,
  isInjectedTx,
  voteExtensionSignBytes,
  type VerifiedExtension,
  type VoteExtensionHandler,
} from './vote-extensions.ts';

after(removeTmpDirs);

const CHAIN = 'readiness-1';
const HEIGHT = 11n; // the proposal's height: the extensions are of height 10

function validator(power: bigint) {
  const { publicKey, privateKey } = generateKeyPairSync('ed25519');
  const pub = new Uint8Array(publicKey.export({ format: 'der', type: 'spki' }).subarray(12));
  return { pub, address: sha256(pub).subarray(0, 20), power, privateKey };
}

type V = ReturnType<typeof validator>;

function signed(v: V, ext: Uint8Array, height = HEIGHT - 1n, round = 0n) {
  return new Uint8Array(sign(null, voteExtensionSignBytes(CHAIN, height, round, ext), v.privateKey));
}

/** A set in CometBFT's order (power descending, then address), every validator voting COMMIT with its extension. */
function network(powers: bigint[]) {
  const vals = powers
    .map(validator)
    .sort((a, b) => (a.power !== b.power ? (a.power > b.power ? -1 : 1) : Buffer.compare(Buffer.from(a.address), Buffer.from(b.address))));
  const ext = (i: number): Uint8Array => Uint8Array.of(0xa0 + i);
  const ec: ExtendedCommitInfo = {
    round: 0,
    votes: vals.map((v, i) => ({
      validator: { address: v.address, power: v.power },
      voteExtension: ext(i),
      extensionSignature: signed(v, ext(i)),
      blockIdFlag: BlockIDFlag.BLOCK_ID_FLAG_COMMIT,
    })),
  };
  const lc: CommitInfo = {
    round: 0,
    votes: vals.map((v) => ({ validator: { address: v.address, power: v.power }, blockIdFlag: BlockIDFlag.BLOCK_ID_FLAG_COMMIT })),
  };
  const keyOf = (a: Uint8Array): Uint8Array | undefined => vals.find((v) => Buffer.from(v.address).equals(Buffer.from(a)))?.pub;
  return { vals, ec, lc, keyOf };
}

const check = (ec: ExtendedCommitInfo, lc: CommitInfo, keyOf: (a: Uint8Array) => Uint8Array | undefined) =>
  checkExtendedCommit(ec, lc, { chainId: CHAIN, height: HEIGHT, keyOf });

describe('vote extensions', () => {
  test("sign bytes: CanonicalVoteExtension length-delimited, zero fields left out, as CometBFT's VoteExtensionSignBytes", () => {
    const b = voteExtensionSignBytes('c', 2n, 1n, Uint8Array.of(7));
    // length, 0a 01 07 (extension), 11 + 8 bytes LE (height), 19 + 8 bytes LE (round), 22 01 63 (chain id)
    assert.deepEqual(Buffer.from(b).toString('hex'), '18' + '0a0107' + '11' + '0200000000000000' + '19' + '0100000000000000' + '220163');
    assert.deepEqual(Buffer.from(voteExtensionSignBytes('', 0n, 0n, new Uint8Array(0))).toString('hex'), '00');
  });

  test('the injected tx: a marker no protobuf message starts with, then the extended commit; round-trips', () => {
    const { ec } = network([10n, 20n]);
    const tx = encodeInjectedTx(ec);
    assert.equal(tx[0], 0);
    assert.ok(isInjectedTx(tx));
    assert.ok(!isInjectedTx(tx.subarray(1)));
    assert.deepEqual(decodeInjectedTx(tx), ec);
    assert.throws(() => decodeInjectedTx(Uint8Array.of(0x0a, 0x00)), /not an extended-commit tx/);
  });

  test('a whole, honest extended commit verifies, with every COMMIT vote and its power', () => {
    const { ec, lc, keyOf } = network([30n, 10n, 20n, 40n]);
    const r = check(ec, lc, keyOf);
    assert.ok(r.ok, r.ok ? '' : r.why);
    assert.equal(r.votes.length, 4);
    assert.deepEqual(
      r.votes.map((v) => v.power),
      [40n, 30n, 20n, 10n],
    );
  });

  test('a forged signature, a swapped extension, an overstated power, a dropped or added vote: refused', () => {
    const { vals, ec, lc, keyOf } = network([10n, 10n, 10n, 10n]);
    const forged = structuredClone(ec);
    forged.votes[1].extensionSignature = signed(vals[2], forged.votes[1].voteExtension);
    assert.match(fail(check(forged, lc, keyOf)), /failed to verify validator [0-9A-F]{40} vote extension signature/);

    const swapped = structuredClone(ec);
    [swapped.votes[0].voteExtension, swapped.votes[1].voteExtension] = [swapped.votes[1].voteExtension, swapped.votes[0].voteExtension];
    assert.match(fail(check(swapped, lc, keyOf)), /failed to verify/);

    const overstated = structuredClone(ec);
    overstated.votes[0].validator.power = 100n;
    assert.match(fail(check(overstated, lc, keyOf)), /is not the last commit's/);

    const dropped = structuredClone(ec);
    dropped.votes[3] = {
      ...dropped.votes[3],
      blockIdFlag: BlockIDFlag.BLOCK_ID_FLAG_ABSENT,
      voteExtension: new Uint8Array(0),
      extensionSignature: new Uint8Array(0),
    };
    assert.match(fail(check(dropped, lc, keyOf)), /has flag 1, the last commit 2/);

    const fewer = structuredClone(ec);
    fewer.votes.pop();
    assert.match(fail(check(fewer, lc, keyOf)), /extended commit has 3 votes, the last commit 4/);

    const unsigned = structuredClone(ec);
    unsigned.votes[2].extensionSignature = new Uint8Array(0);
    assert.match(fail(check(unsigned, lc, keyOf)), /empty vote extension signature/);

    const otherRound = structuredClone(ec);
    otherRound.round = 1;
    assert.match(fail(check(otherRound, lc, keyOf)), /round 1 does not match last commit round 0/);

    const stranger = structuredClone(ec);
    assert.match(
      fail(check(stranger, lc, (a) => (Buffer.from(a).equals(Buffer.from(vals[0].address)) ? undefined : keyOf(a)))),
      /no validator with consensus address/,
    );
  });

  test('a signature of another height or chain does not verify', () => {
    const { vals, ec, lc, keyOf } = network([10n, 10n]);
    const replayed = structuredClone(ec);
    replayed.votes[0].extensionSignature = signed(vals[0], replayed.votes[0].voteExtension, HEIGHT - 2n);
    assert.match(fail(check(replayed, lc, keyOf)), /failed to verify/);
  });

  test("at most 2/3 of the power signed: refused; the order must be CometBFT's", () => {
    const { ec, lc, keyOf } = network([10n, 10n, 10n]);
    const absent = (c: ExtendedCommitInfo, l: CommitInfo, i: number): void => {
      c.votes[i] = { ...c.votes[i], blockIdFlag: BlockIDFlag.BLOCK_ID_FLAG_ABSENT, voteExtension: new Uint8Array(0), extensionSignature: new Uint8Array(0) };
      l.votes[i] = { ...l.votes[i], blockIdFlag: BlockIDFlag.BLOCK_ID_FLAG_ABSENT };
    };
    const twoThirds = structuredClone(ec);
    const lc2 = structuredClone(lc);
    absent(twoThirds, lc2, 2);
    assert.match(fail(check(twoThirds, lc2, keyOf)), /insufficient cumulative voting power received to verify vote extensions; got: 20, expected: >=21/);

    const { ec: ec4, lc: lc4, keyOf: k4 } = network([10n, 10n, 10n, 10n]);
    absent(ec4, lc4, 3);
    assert.ok(check(ec4, lc4, k4).ok, '30 of 40 is more than 2/3');

    const unsorted = structuredClone(ec);
    const lcu = structuredClone(lc);
    unsorted.votes.reverse();
    lcu.votes.reverse();
    const r = check(unsorted, lcu, keyOf);
    assert.match(fail(r), /not sorted by voting power/);
  });
});

/**
 * A BaseApp with no modules whose handler records what FinalizeBlock passes on and counts the key look-ups (one
 * per signature checked), committed at HEIGHT - 1: the next block carries the extended commit of that height.
 */
function appAt(keyOf: (a: Uint8Array) => Uint8Array | undefined, path = tmpDir('chaind-ve-app-')) {
  const seen = { recorded: [] as (readonly VerifiedExtension[])[], lookups: 0 };
  const handler: VoteExtensionHandler = {
    initChain: () => undefined,
    onAt: (_ctx, h) => h >= HEIGHT,
    extendVote: () => new Uint8Array(0),
    verifyVoteExtension: () => true,
    consensusKey: (_ctx, a) => {
      seen.lookups++;
      return keyOf(a);
    },
    finalize: (_ctx, votes) => seen.recorded.push(votes),
  };
  const app = new BaseApp({
    name: 've',
    version: '0',
    store: CommitMultiStore.open(path),
    modules: new ModuleManager([]),
    txDecoder: () => {
      throw new Error('no user txs here');
    },
    chainId: CHAIN,
    voteExtensions: handler,
  });
  app.load();
  if (app.lastBlockHeight === 0n) {
    app.initChain({ time: { seconds: 0n, nanos: 0 }, chainId: CHAIN, validators: [], appStateBytes: new Uint8Array(0), initialHeight: HEIGHT - 1n });
    app.finalizeBlock(blockRequest(HEIGHT - 1n, 1n));
    app.commit();
  }
  const block = (tx: Uint8Array, lc: CommitInfo) => ({ ...blockRequest(HEIGHT, 2n, [tx]), decidedLastCommit: lc });
  const propose = (tx: Uint8Array, lc: CommitInfo) => app.processProposal({ ...block(tx, lc), proposedLastCommit: lc }).status;
  /** FinalizeBlock, then the block dropped: the same height may be tried again. */
  const finalize = (tx: Uint8Array, lc: CommitInfo): void => {
    app.finalizeBlock(block(tx, lc));
    app.abortBlock();
  };
  return { app, seen, propose, finalize, path };
}

describe('FinalizeBlock after ProcessProposal', () => {
  const ACCEPT = ResponseProcessProposal_ProposalStatus.ACCEPT;

  test('the extended commit ProcessProposal verified is not verified again; anything else is', async () => {
    const { vals, ec, lc, keyOf } = network([10n, 10n, 10n, 10n]);
    const { app, seen, propose, finalize, path } = appAt(keyOf);
    const good = encodeInjectedTx(ec);
    const forged = structuredClone(ec);
    forged.votes[1].extensionSignature = signed(vals[2], forged.votes[1].voteExtension);
    const bad = encodeInjectedTx(forged);

    assert.equal(propose(good, lc), ACCEPT);
    assert.equal(seen.lookups, 4);
    finalize(good, lc);
    assert.equal(seen.lookups, 4, 'the very bytes ProcessProposal verified: not verified again');
    assert.equal(seen.recorded.length, 1);
    const verified = check(ec, lc, keyOf);
    assert.deepEqual(seen.recorded[0], verified.ok ? verified.votes : undefined);

    // a forged extended commit decided after a valid one was processed: verified, refused, nothing recorded
    finalize(bad, lc);
    assert.ok(seen.lookups > 4, 'other bytes than those verified are verified');
    assert.equal(seen.recorded.length, 1);

    // the same bytes against another last commit (a vote the block's commit has absent): verified, and refused
    const lcAbsent = structuredClone(lc);
    lcAbsent.votes[3].blockIdFlag = BlockIDFlag.BLOCK_ID_FLAG_ABSENT;
    let before = seen.lookups;
    finalize(good, lcAbsent);
    assert.ok(seen.lookups > before);
    assert.equal(seen.recorded.length, 1);

    // the proposal's own array changed after ProcessProposal: what is compared is ProcessProposal's copy
    const reused = Uint8Array.from(good);
    assert.equal(propose(reused, lc), ACCEPT);
    assert.equal(bad.length, reused.length);
    reused.set(bad);
    before = seen.lookups;
    finalize(reused, lc);
    assert.ok(seen.lookups > before);
    assert.equal(seen.recorded.length, 1);

    // a refused proposal does not replace the one verified; a restart forgets it (block replay, block sync)
    assert.notEqual(propose(bad, lc), ACCEPT);
    before = seen.lookups;
    finalize(good, lc);
    assert.equal(seen.lookups, before);
    assert.equal(seen.recorded.length, 2);
    await app.store.close();
    const restarted = appAt(keyOf, path);
    restarted.finalize(good, lc);
    assert.equal(restarted.seen.lookups, 4, 'verified after a restart');
    restarted.finalize(bad, lc);
    assert.ok(restarted.seen.lookups > 4);
    assert.equal(restarted.seen.recorded.length, 1);
    await restarted.app.store.close();
  });
});

function fail(r: ReturnType<typeof checkExtendedCommit>): string {
  assert.equal(r.ok, false, 'expected a refusal');
  return r.ok ? '' : r.why;
}

// The block store over a real LMDB directory: round trip of every record, the tx index, contiguity, reopen.
import assert from 'node:assert/strict';
import { join } from 'node:path';
import { after, test } from 'node:test';
import { ResponseFinalizeBlock } from 'cosmjs-types/tendermint/abci/types';
import type { Block } from 'cosmjs-types/tendermint/types/block';
import { defaultConsensusParams } from '@chaind/sdk/genesis';
import { newHome, removeTmpDirs } from '@chaind/chaind/testing';
import { BlockStore, type BlockRecord } from './blockstore.ts';
import { emptyCommit, makeCommit } from './commit.ts';
import { dataHash, EMPTY_HASH, emptyBlockId, encodeBlock, txHash, validatorsHash } from './hash.ts';
import { encodeChainState, sortValidators, type ChainState } from './state.ts';

after(removeTmpDirs);

// decoded messages carry explicit `undefined` for absent optional fields: compare their protobuf bytes
const sameResults = (a: ResponseFinalizeBlock | undefined, b: ResponseFinalizeBlock): void =>
  assert.deepEqual(a === undefined ? undefined : ResponseFinalizeBlock.encode(a).finish(), ResponseFinalizeBlock.encode(b).finish());
const sameState = (a: ChainState | undefined, b: ChainState): void => assert.deepEqual(a === undefined ? undefined : encodeChainState(a), encodeChainState(b));
const utf8 = (s: string): Uint8Array => new Uint8Array(Buffer.from(s, 'utf8'));
const PUB = new Uint8Array(32).fill(4);
const VALS = sortValidators([{ pubKey: { ed25519: PUB }, power: 10n }]);
const STATE: ChainState = { lastValidators: VALS, validators: VALS, nextValidators: VALS, consensusParams: defaultConsensusParams(), appVersion: 3n };

/** A chain of synthetic blocks: each links to the previous id and carries `txsPer(h)` txs. */
function records(from: bigint, to: bigint, txsPer: (h: bigint) => Uint8Array[]): BlockRecord[] {
  const out: BlockRecord[] = [];
  let prevId = emptyBlockId();
  let lastCommit = emptyCommit();
  for (let h = from; h <= to; h++) {
    const txs = txsPer(h);
    const block: Block = {
      header: {
        version: { block: 11n, app: 3n },
        chainId: 'store-test',
        height: h,
        time: { seconds: 1_700_000_000n + h, nanos: 0 },
        lastBlockId: prevId,
        lastCommitHash: EMPTY_HASH,
        dataHash: dataHash(txs),
        validatorsHash: validatorsHash(VALS),
        nextValidatorsHash: validatorsHash(VALS),
        consensusHash: EMPTY_HASH,
        appHash: utf8(`app-${h - 1n}`),
        lastResultsHash: EMPTY_HASH,
        evidenceHash: EMPTY_HASH,
        proposerAddress: new Uint8Array(20).fill(1),
      },
      data: { txs },
      evidence: { evidence: [] },
      lastCommit,
    };
    const { blockId, bytes } = encodeBlock(block);
    const results: ResponseFinalizeBlock = {
      events: [{ type: 'block', attributes: [{ key: 'h', value: h.toString(), index: true }] }],
      txResults: txs.map((_, i) => ({
        code: i % 2,
        data: Uint8Array.of(i),
        log: `log ${i}`,
        info: '',
        gasWanted: 100n,
        gasUsed: BigInt(50 + i),
        events: [],
        codespace: i % 2 ? 'sdk' : '',
      })),
      validatorUpdates: [],
      consensusParamUpdates: h === 2n ? { version: { app: 4n } } : undefined,
      appHash: utf8(`app-${h}`),
    };
    const seenCommit = makeCommit({
      chainId: 'store-test',
      height: h,
      blockId,
      timestamp: { seconds: 1_700_000_000n + h, nanos: 5 },
      validators: [],
      key: { pubKey: PUB, address: new Uint8Array(20) },
      signer: undefined,
    });
    out.push({ block, blockId, blockBytes: bytes, seenCommit, results, state: { ...STATE, appVersion: h } });
    prevId = blockId;
    lastCommit = seenCommit;
  }
  return out;
}

const txsOf = (h: bigint): Uint8Array[] => Array.from({ length: Number(h % 3n) + 1 }, (_, i) => utf8(`tx ${h}/${i}`));

test('round trip of blocks, ids, commits, results, state and the tx index; survives a reopen', async () => {
  const path = join(newHome(), 'data', 'blockstore.db');
  const recs = records(1n, 5n, txsOf);
  let bs = BlockStore.open(path);
  assert.equal(bs.height, 0n);
  assert.equal(bs.base, 0n);
  assert.equal(bs.block(1n), undefined);
  for (const r of recs) bs.save(r);
  for (const reopen of [false, true]) {
    if (reopen) {
      await bs.close();
      bs = BlockStore.open(path);
    }
    assert.equal(bs.height, 5n);
    assert.equal(bs.base, 1n);
    for (const r of recs) {
      const h = r.block.header.height;
      assert.deepEqual(bs.block(h), r.block);
      assert.deepEqual(bs.blockBytes(h), r.blockBytes);
      assert.deepEqual(bs.blockId(h), r.blockId);
      assert.deepEqual(bs.seenCommit(h), r.seenCommit);
      sameResults(bs.results(h), r.results);
      sameState(bs.state(h), r.state);
      assert.equal(bs.state(h)?.appVersion, h);
      assert.equal(bs.heightByHash(r.blockId.hash), h);
      const meta = bs.blockMeta(h);
      assert.ok(meta !== undefined);
      assert.deepEqual(meta.blockId, r.blockId);
      assert.equal(meta.blockSize, BigInt(r.blockBytes?.length ?? -1));
      assert.equal(meta.numTxs, BigInt(r.block.data.txs.length));
      assert.deepEqual(bs.txsByHeight(h), r.block.data.txs.map(txHash));
      r.block.data.txs.forEach((tx, index) => {
        assert.deepEqual(bs.txLocation(txHash(tx)), { height: h, index });
        const rec = bs.txByHash(txHash(tx));
        assert.ok(rec !== undefined);
        assert.deepEqual(rec.tx, tx);
        assert.equal(rec.height, h);
        assert.equal(rec.index, index);
        assert.deepEqual(rec.result, r.results.txResults[index]);
      });
    }
    assert.equal(bs.block(6n), undefined);
    assert.equal(bs.block(0n), undefined);
    assert.equal(bs.txByHash(txHash(utf8('never'))), undefined);
    assert.deepEqual(bs.txsByHeight(6n), []);
    assert.equal(bs.heightByHash(new Uint8Array(32)), undefined);
  }
  await bs.close();
});

test('heights are contiguous; a record that does not hang together is refused and leaves nothing', async () => {
  const bs = BlockStore.open(join(newHome(), 'data', 'blockstore.db'));
  const recs = records(3n, 6n, txsOf);
  bs.save(recs[0]);
  assert.equal(bs.base, 3n, 'the first saved height is the base');
  assert.throws(() => bs.save(recs[2]), /cannot save block 5: the block store is at height 3/);
  assert.throws(() => bs.save(recs[0]), /cannot save block 3/);
  const short = { ...recs[1], results: { ...recs[1].results, txResults: [] } };
  assert.throws(() => bs.save(short), /txs but 0 tx results/);
  assert.throws(() => bs.save({ ...recs[1], seenCommit: recs[0].seenCommit }), /commit for height 3 saved with block 4/);
  assert.equal(bs.height, 3n);
  assert.equal(bs.block(4n), undefined);
  assert.equal(bs.txLocation(txHash(recs[1].block.data.txs[0])), undefined);
  bs.save(recs[1]);
  assert.equal(bs.height, 4n);
  await bs.close();
  assert.throws(() => bs.block(3n), /closed/);
});

test('replaceResults rewrites the latest block’s results and state only', async () => {
  const bs = BlockStore.open(join(newHome(), 'data', 'blockstore.db'));
  const recs = records(1n, 2n, txsOf);
  recs.forEach((r) => bs.save(r));
  const replayed = { ...recs[1].results, appHash: utf8('replayed'), events: [] };
  assert.throws(() => bs.replaceResults(1n, replayed, STATE), /only replace the results of the latest block 2/);
  bs.replaceResults(2n, replayed, STATE);
  sameResults(bs.results(2n), replayed);
  sameState(bs.state(2n), STATE);
  assert.deepEqual(bs.block(2n), recs[1].block, 'the block itself is untouched');
  sameResults(bs.results(1n), recs[0].results);
  await bs.close();
});

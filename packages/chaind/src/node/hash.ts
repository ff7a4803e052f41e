// CometBFT v0.38's hashing rules (shared/reference/cometbft-v038.md §2.3), byte for byte, so block ids,
// header hashes and tx hashes match what CometBFT, CosmJS and block explorers compute.
import { createHash } from 'node:crypto';
import { BinaryWriter } from 'cosmjs-types/binary';
import { Timestamp } from 'cosmjs-types/google/protobuf/timestamp';
import { ExecTxResult, type ValidatorUpdate } from 'cosmjs-types/tendermint/abci/types';
import { Block } from 'cosmjs-types/tendermint/types/block';
import { HashedParams, type ConsensusParams } from 'cosmjs-types/tendermint/types/params';
import { BlockID, CommitSig, type Commit, type Header, type PartSetHeader } from 'cosmjs-types/tendermint/types/types';
import { SimpleValidator } from 'cosmjs-types/tendermint/types/validator';
import { Consensus } from 'cosmjs-types/tendermint/version/types';
import { txHash as mempoolTxHash } from '@chaind/sdk/admission';

/** `types.BlockPartSizeBytes`: a block's protobuf bytes travel (and are hashed) in 64 KiB parts. */
export const BLOCK_PART_SIZE_BYTES = 65_536;

const EMPTY = new Uint8Array(0);

export function sha256(...chunks: readonly Uint8Array[]): Uint8Array {
  if (chunks.length === 1) return txHash(chunks[0]);
  const h = createHash('sha256');
  for (const c of chunks) h.update(c);
  return new Uint8Array(h.digest());
}

/** sha256 of nothing (E3B0C442…B855): the root of an empty tree, and of a block with no txs or no evidence. */
export const EMPTY_HASH: Uint8Array = sha256();

const LEAF_PREFIX = Uint8Array.of(0x00);
const INNER_PREFIX = Uint8Array.of(0x01);

/** RFC 6962 leaf: sha256(0x00 ‖ leaf) (`crypto/merkle/hash.go` leafHash). */
export function leafHash(leaf: Uint8Array): Uint8Array {
  return sha256(LEAF_PREFIX, leaf);
}

/** RFC 6962 inner node: sha256(0x01 ‖ left ‖ right) (`crypto/merkle/hash.go` innerHash). */
export function innerHash(left: Uint8Array, right: Uint8Array): Uint8Array {
  return sha256(INNER_PREFIX, left, right);
}

/** The largest power of two strictly less than n (n ≥ 2): where RFC 6962 splits a tree of n leaves. */
function splitPoint(n: number): number {
  let k = 1;
  while (k * 2 < n) k *= 2;
  return k;
}

function subtree(items: readonly Uint8Array[], lo: number, hi: number): Uint8Array {
  const n = hi - lo;
  if (n === 0) return EMPTY_HASH;
  if (n === 1) return leafHash(items[lo]);
  const k = splitPoint(n);
  return innerHash(subtree(items, lo, lo + k), subtree(items, lo + k, hi));
}

/** `merkle.HashFromByteSlices` (`crypto/merkle/tree.go`): the RFC 6962 root over `items` as leaves. */
export function merkleRoot(items: readonly Uint8Array[]): Uint8Array {
  return subtree(items, 0, items.length);
}

/** A tx's hash: the full 32-byte sha256 of its bytes (`crypto/tmhash`, `types.Tx.Hash`); the mempool's, as a plain Uint8Array. */
export function txHash(tx: Uint8Array): Uint8Array {
  const b = mempoolTxHash(tx);
  return new Uint8Array(b.buffer, b.byteOffset, b.byteLength);
}

/**
 * `data_hash`: the merkle root over the txs' *hashes*, not their bytes — v0.38 `types/tx.go`
 * `Txs.Hash()` hashes `txs.hashList()` (reference §2.3: "leaves are tx hashes"). E3B0… for no txs.
 */
export function dataHash(txs: readonly Uint8Array[]): Uint8Array {
  return merkleRoot(txs.map(txHash));
}

// `types/encoding_helper.go` cdcEncode: the gogoproto wrapper (field 1) of a value, or *no bytes at
// all* for an empty/zero value (not an empty wrapper).
function wrapString(s: string): Uint8Array {
  return s.length === 0 ? EMPTY : BinaryWriter.create().uint32(10).string(s).finish();
}
function wrapInt64(v: bigint): Uint8Array {
  return v === 0n ? EMPTY : BinaryWriter.create().uint32(8).int64(v).finish();
}
function wrapBytes(b: Uint8Array): Uint8Array {
  return b.length === 0 ? EMPTY : BinaryWriter.create().uint32(10).bytes(b).finish();
}

/**
 * `Header.Hash()` (`types/block.go`): the merkle root over the 14 fields in struct order — version as
 * proto Consensus, chain_id/height/hashes/address through cdcEncode, time as proto Timestamp,
 * last_block_id as proto BlockID (its part_set_header always present: gogoproto non-nullable).
 * Empty when validators_hash is empty, as CometBFT returns nil for such a header.
 */
export function headerHash(h: Header): Uint8Array {
  if (h.validatorsHash.length === 0) return EMPTY;
  return merkleRoot([
    Consensus.encode(h.version).finish(),
    wrapString(h.chainId),
    wrapInt64(h.height),
    Timestamp.encode(h.time).finish(),
    BlockID.encode(h.lastBlockId).finish(),
    wrapBytes(h.lastCommitHash),
    wrapBytes(h.dataHash),
    wrapBytes(h.validatorsHash),
    wrapBytes(h.nextValidatorsHash),
    wrapBytes(h.consensusHash),
    wrapBytes(h.appHash),
    wrapBytes(h.lastResultsHash),
    wrapBytes(h.evidenceHash),
    wrapBytes(h.proposerAddress),
  ]);
}

/** `Commit.Hash()`: the merkle root over each CommitSig's proto bytes (E3B0… for the empty commit of the first block). */
export function commitHash(c: Commit): Uint8Array {
  return merkleRoot(c.signatures.map((s) => CommitSig.encode(s).finish()));
}

/**
 * `ValidatorSet.Hash()`: the merkle root over each validator's proto SimpleValidator{pub_key, voting_power},
 * in the set's order (callers pass the canonical order: power descending, then address ascending).
 */
export function validatorsHash(vals: readonly ValidatorUpdate[]): Uint8Array {
  return merkleRoot(vals.map((v) => SimpleValidator.encode({ pubKey: v.pubKey, votingPower: v.power }).finish()));
}

/**
 * `last_results_hash` (`types/results.go` ABCIResults.Hash): the merkle root over each tx result reduced
 * by `deterministicExecTxResult` to {code, data, gas_wanted, gas_used} — log, info, events and codespace
 * are node-local and excluded.
 */
export function resultsHash(results: readonly ExecTxResult[]): Uint8Array {
  return merkleRoot(
    results.map((r) =>
      ExecTxResult.encode({ code: r.code, data: r.data, gasWanted: r.gasWanted, gasUsed: r.gasUsed, log: '', info: '', events: [], codespace: '' }).finish(),
    ),
  );
}

/** `consensus_hash` (`types/params.go` ConsensusParams.Hash): plain sha256 (not a merkle root) of proto HashedParams{block max_bytes, max_gas}. */
export function consensusHash(params: ConsensusParams): Uint8Array {
  return sha256(HashedParams.encode({ blockMaxBytes: params.block?.maxBytes ?? 0n, blockMaxGas: params.block?.maxGas ?? 0n }).finish());
}

/** `NewPartSetFromData`: the bytes cut into 64 KiB parts; total = the part count, hash = the merkle root over the raw parts. */
export function partSetHeader(bytes: Uint8Array, partSize = BLOCK_PART_SIZE_BYTES): PartSetHeader {
  const parts: Uint8Array[] = [];
  for (let off = 0; off < bytes.length; off += partSize) parts.push(bytes.subarray(off, Math.min(off + partSize, bytes.length)));
  return { total: parts.length, hash: merkleRoot(parts) };
}

export interface EncodedBlock {
  /** The proto `tendermint.types.Block` bytes: what is split into parts, and what the block store keeps. */
  readonly bytes: Uint8Array;
  readonly blockId: BlockID;
}

/** A block's id: {hash: header hash, parts: part set header of its proto bytes}, with those bytes. */
export function encodeBlock(block: Block): EncodedBlock {
  const bytes = Block.encode(block).finish();
  return { bytes, blockId: { hash: headerHash(block.header), partSetHeader: partSetHeader(bytes) } };
}

/** The zero BlockID: the last_block_id of the first block, and the block id of the empty first last-commit. */
export function emptyBlockId(): BlockID {
  return { hash: new Uint8Array(0), partSetHeader: { total: 0, hash: new Uint8Array(0) } };
}

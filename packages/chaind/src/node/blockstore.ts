// The node's block store and tx index (CometBFT's blockstore + state store + kv tx indexer, in one LMDB
// environment of its own, `<home>/data/solo-blocks.db`: SOLO_BLOCK_STORE). Everything of a block — the block, its id, the
// commit that finalized it, its FinalizeBlock response, the consensus state after it and its tx index
// entries — is written in one LMDB transaction. The block and its results are kept as consensus made them;
// the tx index holds the user txs only (user-txs.ts: not the extended commit a block may lead with), so a
// block without a user's tx costs a search one index read. Records are protobuf: tendermint.types.Block, BlockID,
// Commit, tendermint.abci.ResponseFinalizeBlock, ChainState (state.ts) and TxLocation (below).
import { ChaindError } from '@chaind/errors';
import { Buffer } from 'node:buffer';
import { BinaryReader, BinaryWriter } from 'cosmjs-types/binary';
import { ResponseFinalizeBlock, type ExecTxResult } from 'cosmjs-types/tendermint/abci/types';
import { Block } from 'cosmjs-types/tendermint/types/block';
import { BlockID, Commit, type BlockMeta } from 'cosmjs-types/tendermint/types/types';
import { open, type Database, type RootDatabase } from 'lmdb';
import { readU64be, u64be } from '@chaind/sdk/store';
import { txHash } from './hash.ts';
import { injectedTxCount, userTxCount } from './user-txs.ts';
import { decodeChainState, encodeChainState, type ChainState } from './state.ts';

type BinaryDB = Database<Buffer, Buffer>;

/** Where a tx sits: `message TxLocation { int64 height = 1; uint32 index = 2; }`, its index the place in the stored block. */
export interface TxLocation {
  readonly height: bigint;
  readonly index: number;
}

export interface TxRecord extends TxLocation {
  readonly hash: Uint8Array;
  readonly tx: Uint8Array;
  readonly result: ExecTxResult;
}

/** One block and everything the node learnt executing it. */
export interface BlockRecord {
  readonly block: Block;
  readonly blockId: BlockID;
  /** `block`'s protobuf bytes when the caller already has them (the block id was computed over them). */
  readonly blockBytes?: Uint8Array;
  /** The commit that finalized this block: the next block's last_commit (CometBFT's "seen commit"). */
  readonly seenCommit: Commit;
  readonly results: ResponseFinalizeBlock;
  /** The consensus state the next block is built from. */
  readonly state: ChainState;
}

export class BlockStoreError extends ChaindError<'block-store'> {
  override readonly name = 'BlockStoreError';
  constructor(message: string, options?: ErrorOptions) {
    super('block-store', message, options);
  }
}

const DBS = ['block', 'block_id', 'commit', 'results', 'state', 'block_hash', 'tx', 'height_tx'] as const;
type DbName = (typeof DBS)[number];

function encodeTxLocation(l: TxLocation): Uint8Array {
  const w = BinaryWriter.create();
  if (l.height !== 0n) w.uint32(8).int64(l.height);
  if (l.index !== 0) w.uint32(16).uint32(l.index);
  return w.finish();
}

function decodeTxLocation(b: Uint8Array): TxLocation {
  const r = new BinaryReader(b);
  let height = 0n;
  let index = 0;
  while (r.pos < r.len) {
    const tag = r.uint32();
    if (tag === 8) height = r.int64();
    else if (tag === 16) index = r.uint32();
    else r.skipType(tag & 7);
  }
  return { height, index };
}

const hkey = (h: bigint): Buffer => Buffer.from(u64be(h));
/** height_tx key: height ‖ u32be(index), so one height's txs are one key range, in block order. */
function heightTxKey(h: bigint, i: number): Buffer {
  const k = Buffer.alloc(12);
  k.set(u64be(h), 0);
  k.writeUInt32BE(i, 8);
  return k;
}

export class BlockStore {
  private readonly env: RootDatabase;
  private readonly dbs: Record<DbName, BinaryDB>;
  private top: bigint;
  private bottom: bigint;
  private closed = false;

  private constructor(path: string, readOnly: boolean) {
    // overlappingSync off: a block-store commit is on disk when save() returns, before the app commits
    // the block, so even a power loss can leave the app behind the block store (replayed) but never ahead
    this.env = open({ path, maxDbs: DBS.length + 1, overlappingSync: false, readOnly });
    const dbs = {} as Record<DbName, BinaryDB>;
    for (const name of DBS) dbs[name] = this.env.openDB({ name, keyEncoding: 'binary', encoding: 'binary' }) as unknown as BinaryDB;
    this.dbs = dbs;
    const first = [...dbs.block.getKeys({ limit: 1 })][0];
    const last = [...dbs.block.getKeys({ limit: 1, reverse: true })][0];
    this.bottom = first === undefined ? 0n : readU64be(first);
    this.top = last === undefined ? 0n : readU64be(last);
  }

  /** Opens (creating when absent) the block store in directory `path`. */
  static open(path: string): BlockStore {
    return new BlockStore(path, false);
  }

  /** Opens an existing block store to read only, beside the node that writes it (another process may). */
  static openReadOnly(path: string): BlockStore {
    return new BlockStore(path, true);
  }

  /** The latest stored height; 0 when empty. */
  get height(): bigint {
    return this.top;
  }

  /** The lowest stored height; 0 when empty. */
  get base(): bigint {
    return this.bottom;
  }

  private assertOpen(): void {
    if (this.closed) throw new BlockStoreError('block store is closed');
  }

  /** Stores the next block and everything of it, atomically. Heights are contiguous: the first one sets the base. */
  save(r: BlockRecord): void {
    this.assertOpen();
    const h = r.block.header.height;
    if (this.top !== 0n && h !== this.top + 1n) throw new BlockStoreError(`cannot save block ${h}: the block store is at height ${this.top}`);
    if (h < 1n) throw new BlockStoreError(`cannot save block ${h}: heights start at 1`);
    if (r.blockId.hash.length === 0) throw new BlockStoreError(`cannot save block ${h} without a block hash`);
    if (r.seenCommit.height !== h) throw new BlockStoreError(`commit for height ${r.seenCommit.height} saved with block ${h}`);
    const txs = r.block.data.txs;
    if (r.results.txResults.length !== txs.length) {
      throw new BlockStoreError(`block ${h} has ${txs.length} txs but ${r.results.txResults.length} tx results`);
    }
    const key = hkey(h);
    const bytes = r.blockBytes ?? Block.encode(r.block).finish();
    const { dbs } = this;
    const skip = injectedTxCount(txs);
    this.env.transactionSync(() => {
      dbs.block.putSync(key, Buffer.from(bytes));
      dbs.block_id.putSync(key, Buffer.from(BlockID.encode(r.blockId).finish()));
      dbs.commit.putSync(key, Buffer.from(Commit.encode(r.seenCommit).finish()));
      dbs.results.putSync(key, Buffer.from(ResponseFinalizeBlock.encode(r.results).finish()));
      dbs.state.putSync(key, Buffer.from(encodeChainState(r.state)));
      dbs.block_hash.putSync(Buffer.from(r.blockId.hash), key);
      txs.forEach((tx, index) => {
        if (index < skip) return;
        const hash = Buffer.from(txHash(tx));
        // the same tx bytes in a later block (a failed replay) take over the hash, as CometBFT's kv indexer does
        dbs.tx.putSync(hash, Buffer.from(encodeTxLocation({ height: h, index })));
        dbs.height_tx.putSync(heightTxKey(h, index), hash);
      });
    });
    if (this.top === 0n) this.bottom = h;
    this.top = h;
  }

  /**
   * Replaces the FinalizeBlock response and the following state of the latest block: a block replayed
   * after a crash between its save and the app's Commit was executed again, and that execution is the one
   * the app committed (its header, id and txs do not depend on it).
   */
  replaceResults(height: bigint, results: ResponseFinalizeBlock, state: ChainState): void {
    this.assertOpen();
    if (height !== this.top || height === 0n) throw new BlockStoreError(`can only replace the results of the latest block ${this.top}, not ${height}`);
    const key = hkey(height);
    this.env.transactionSync(() => {
      this.dbs.results.putSync(key, Buffer.from(ResponseFinalizeBlock.encode(results).finish()));
      this.dbs.state.putSync(key, Buffer.from(encodeChainState(state)));
    });
  }

  private get(db: DbName, height: bigint): Buffer | undefined {
    this.assertOpen();
    if (height < 1n) return undefined;
    return this.dbs[db].get(hkey(height)) ?? undefined;
  }

  /** The block's protobuf bytes (`tendermint.types.Block`), as split into parts for its id. */
  blockBytes(height: bigint): Uint8Array | undefined {
    const b = this.get('block', height);
    return b === undefined ? undefined : new Uint8Array(b);
  }

  block(height: bigint): Block | undefined {
    const b = this.get('block', height);
    return b === undefined ? undefined : Block.decode(b);
  }

  blockId(height: bigint): BlockID | undefined {
    const b = this.get('block_id', height);
    return b === undefined ? undefined : BlockID.decode(b);
  }

  /** The height of the block whose header hash is `hash`. */
  heightByHash(hash: Uint8Array): bigint | undefined {
    this.assertOpen();
    if (hash.length === 0) return undefined;
    const b = this.dbs.block_hash.get(Buffer.from(hash));
    return b === undefined ? undefined : readU64be(b);
  }

  /** CometBFT's BlockMeta: block id, size of the stored block's bytes, header, number of user txs (RPC `blockchain`). */
  blockMeta(height: bigint): BlockMeta | undefined {
    const bytes = this.get('block', height);
    const blockId = this.blockId(height);
    if (bytes === undefined || blockId === undefined) return undefined;
    const block = Block.decode(bytes);
    return { blockId, blockSize: BigInt(bytes.length), header: block.header, numTxs: BigInt(userTxCount(block.data.txs)) };
  }

  /** The commit that finalized block `height` (for the latest height, the one the next block will carry). */
  seenCommit(height: bigint): Commit | undefined {
    const b = this.get('commit', height);
    return b === undefined ? undefined : Commit.decode(b);
  }

  /** The FinalizeBlock response of block `height` (RPC `block_results`). */
  results(height: bigint): ResponseFinalizeBlock | undefined {
    const b = this.get('results', height);
    return b === undefined ? undefined : ResponseFinalizeBlock.decode(b);
  }

  /** The consensus state after block `height`. */
  state(height: bigint): ChainState | undefined {
    const b = this.get('state', height);
    return b === undefined ? undefined : decodeChainState(b);
  }

  /** Where the tx with this hash (sha256 of its bytes) was included. */
  txLocation(hash: Uint8Array): TxLocation | undefined {
    this.assertOpen();
    if (hash.length === 0) return undefined;
    const b = this.dbs.tx.get(Buffer.from(hash));
    return b === undefined ? undefined : decodeTxLocation(b);
  }

  /** The indexed tx with this hash, its place in the stored block and its result. */
  txByHash(hash: Uint8Array): TxRecord | undefined {
    const loc = this.txLocation(hash);
    if (loc === undefined) return undefined;
    const block = this.block(loc.height);
    const results = this.results(loc.height);
    if (block === undefined || results === undefined) return undefined;
    return { ...loc, hash: Uint8Array.from(hash), tx: block.data.txs[loc.index], result: results.txResults[loc.index] };
  }

  /** The hashes of block `height`'s indexed (user) txs, in block order. */
  txsByHeight(height: bigint): Uint8Array[] {
    this.assertOpen();
    if (height < 1n) return [];
    const out: Uint8Array[] = [];
    for (const { value } of this.dbs.height_tx.getRange({ start: heightTxKey(height, 0), end: hkey(height + 1n) })) out.push(new Uint8Array(value));
    return out;
  }

  async close(): Promise<void> {
    if (this.closed) return;
    this.closed = true;
    await this.env.close();
  }
}

// The solo validator's precommit and the commits built from it: canonical vote sign bytes
// (`types/canonical.go`, `types/vote.go` VoteSignBytes), ed25519 signatures over them, the Commit a
// block carries as last_commit, and the CommitInfo the app receives for it.
import { createPrivateKey, createPublicKey, sign, type KeyObject } from 'node:crypto';
import { BinaryWriter } from 'cosmjs-types/binary';
import { Timestamp } from 'cosmjs-types/google/protobuf/timestamp';
import type { CommitInfo, ExtendedCommitInfo, ValidatorUpdate } from 'cosmjs-types/tendermint/abci/types';
import type { BlockID, Commit, CommitSig } from 'cosmjs-types/tendermint/types/types';
import { BlockIDFlag } from 'cosmjs-types/tendermint/types/validator';
import { emptyBlockId, sha256 } from './hash.ts';
import { ADDRESS_LENGTH, validatorAddress } from './state.ts';

/** `SignedMsgType` PRECOMMIT: the vote a commit is made of. */
export const PRECOMMIT_TYPE = 2;

/** Go's zero time.Time as a proto Timestamp (0001-01-01T00:00:00Z): the timestamp of an absent CommitSig. */
export const GO_ZERO_TIME: Timestamp = { seconds: -62_135_596_800n, nanos: 0 };

export interface ValidatorKey {
  /** The raw 32-byte ed25519 public key. */
  readonly pubKey: Uint8Array;
  /** Its consensus address: sha256(pubKey)[:20]. */
  readonly address: Uint8Array;
  /**
   * The 32-byte ed25519 seed (priv_validator_key.json's first half). Without it, commit signatures are
   * 64 zero bytes: CosmJS and the RPC decoders never verify them, but a light client would reject them.
   */
  readonly privateKey?: Uint8Array;
}

/** PKCS#8 DER prefix of a raw 32-byte ed25519 seed (RFC 8410). */
const PKCS8_ED25519_PREFIX = Buffer.from('302e020100300506032b657004220420', 'hex');

/** Checks a validator key's parts agree; returns the signing key when there is one. */
export function signingKey(k: ValidatorKey): KeyObject | undefined {
  if (k.pubKey.length !== 32) throw new Error(`validator public key must be 32 bytes (ed25519), got ${k.pubKey.length}`);
  if (!Buffer.from(sha256(k.pubKey).subarray(0, ADDRESS_LENGTH)).equals(Buffer.from(k.address))) {
    throw new Error('validator address is not sha256(pubKey)[:20]');
  }
  if (k.privateKey === undefined) return undefined;
  if (k.privateKey.length !== 32) throw new Error(`validator private key must be a 32-byte ed25519 seed, got ${k.privateKey.length}`);
  const key = createPrivateKey({ key: Buffer.concat([PKCS8_ED25519_PREFIX, k.privateKey]), format: 'der', type: 'pkcs8' });
  // SPKI DER of an ed25519 key is a 12-byte header and the 32 key bytes
  const pub = createPublicKey(key).export({ format: 'der', type: 'spki' }).subarray(12);
  if (!pub.equals(Buffer.from(k.pubKey))) throw new Error('validator private key does not match its public key');
  return key;
}

export interface VoteToSign {
  readonly type: number;
  readonly height: bigint;
  readonly round: number;
  readonly blockId: BlockID;
  readonly timestamp: Timestamp;
}

function isZeroBlockId(b: BlockID): boolean {
  return b.hash.length === 0 && b.partSetHeader.total === 0 && b.partSetHeader.hash.length === 0;
}

/**
 * `VoteSignBytes`: protoio.MarshalDelimited(CanonicalVote{type=1, height=2 sfixed64, round=3 sfixed64,
 * block_id=4 CanonicalBlockID (absent for a nil vote), timestamp=5 (always), chain_id=6}); no vote
 * extension (disabled by consensus params).
 */
export function voteSignBytes(chainId: string, v: VoteToSign): Uint8Array {
  const w = BinaryWriter.create();
  if (v.type !== 0) w.uint32(8).int32(v.type);
  if (v.height !== 0n) w.uint32(17).sfixed64(v.height);
  if (v.round !== 0) w.uint32(25).sfixed64(BigInt(v.round));
  if (!isZeroBlockId(v.blockId)) {
    const b = w.uint32(34).fork();
    if (v.blockId.hash.length > 0) b.uint32(10).bytes(v.blockId.hash);
    const p = b.uint32(18).fork();
    if (v.blockId.partSetHeader.total !== 0) p.uint32(8).uint32(v.blockId.partSetHeader.total);
    if (v.blockId.partSetHeader.hash.length > 0) p.uint32(18).bytes(v.blockId.partSetHeader.hash);
    p.ldelim();
    b.ldelim();
  }
  Timestamp.encode(v.timestamp, w.uint32(42).fork()).ldelim();
  if (chainId.length > 0) w.uint32(50).string(chainId);
  const body = w.finish();
  return BinaryWriter.create().bytes(body).finish();
}

/** The first block's last_commit: height 0, zero block id, no signatures ("empty for height 1, but never nil"). */
export function emptyCommit(): Commit {
  return { height: 0n, round: 0, blockId: emptyBlockId(), signatures: [] };
}

const MS = 1_000_000;

export function timestampFromMs(ms: number): Timestamp {
  const whole = Math.floor(ms);
  const sec = Math.floor(whole / 1000);
  return { seconds: BigInt(sec), nanos: (whole - sec * 1000) * MS };
}

function compareTime(a: Timestamp, b: Timestamp): number {
  return a.seconds !== b.seconds ? (a.seconds < b.seconds ? -1 : 1) : a.nanos - b.nanos;
}

function addMs(t: Timestamp, ms: number): Timestamp {
  const nanos = t.nanos + ms * MS;
  return { seconds: t.seconds + BigInt(Math.floor(nanos / 1e9)), nanos: nanos % 1e9 };
}

/** `consensus/state.go` voteTime: now, but at least 1 ms after the block's time, so block times strictly increase. */
export function voteTime(now: Timestamp, blockTime: Timestamp): Timestamp {
  const min = addMs(blockTime, 1);
  return compareTime(now, min) > 0 ? now : min;
}

/**
 * The commit for block `height`: one CommitSig per validator of that height, in set order — ours a signed
 * precommit for `blockId` at `timestamp`, every other one absent (a solo node hears no one else).
 */
export function makeCommit(o: {
  readonly chainId: string;
  readonly height: bigint;
  readonly blockId: BlockID;
  readonly timestamp: Timestamp;
  readonly validators: readonly ValidatorUpdate[];
  readonly key: ValidatorKey;
  readonly signer: KeyObject | undefined;
}): Commit {
  const round = 0;
  const own = Buffer.from(o.key.address);
  const signatures: CommitSig[] = o.validators.map((v) => {
    const address = validatorAddress(v);
    if (!own.equals(Buffer.from(address))) {
      return { blockIdFlag: BlockIDFlag.BLOCK_ID_FLAG_ABSENT, validatorAddress: new Uint8Array(0), timestamp: GO_ZERO_TIME, signature: new Uint8Array(0) };
    }
    const msg = voteSignBytes(o.chainId, { type: PRECOMMIT_TYPE, height: o.height, round, blockId: o.blockId, timestamp: o.timestamp });
    const signature = o.signer === undefined ? new Uint8Array(64) : new Uint8Array(sign(null, msg, o.signer));
    return { blockIdFlag: BlockIDFlag.BLOCK_ID_FLAG_COMMIT, validatorAddress: address, timestamp: o.timestamp, signature };
  });
  return { height: o.height, round, blockId: o.blockId, signatures };
}

/**
 * `buildLastCommitInfo`: the app's view of a block's last_commit — each validator of the previous height
 * (aligned with the commit's signatures by index) with its power and whether it signed.
 */
export function commitInfo(commit: Commit, lastValidators: readonly ValidatorUpdate[]): CommitInfo {
  if (commit.signatures.length === 0) return { round: commit.round, votes: [] };
  if (commit.signatures.length !== lastValidators.length) {
    throw new Error(`commit has ${commit.signatures.length} signatures for ${lastValidators.length} validators`);
  }
  return {
    round: commit.round,
    votes: lastValidators.map((v, i) => ({ validator: { address: validatorAddress(v), power: v.power }, blockIdFlag: commit.signatures[i].blockIdFlag })),
  };
}

/** A validator's vote extension with CometBFT's signature of it (the solo node's own, kept until the next proposal). */
export interface SignedExtension {
  readonly height: bigint;
  readonly address: Uint8Array;
  readonly extension: Uint8Array;
  readonly signature: Uint8Array;
}

/** PrepareProposal's local_last_commit: the same votes, with `own`'s extension on its vote when it is of that commit. */
export function extendedCommitInfo(commit: Commit, lastValidators: readonly ValidatorUpdate[], own?: SignedExtension): ExtendedCommitInfo {
  const c = commitInfo(commit, lastValidators);
  const mine = own !== undefined && own.height === commit.height ? own : undefined;
  return {
    round: c.round,
    votes: c.votes.map((v) =>
      mine !== undefined && v.blockIdFlag === BlockIDFlag.BLOCK_ID_FLAG_COMMIT && Buffer.from(v.validator.address).equals(Buffer.from(mine.address))
        ? { ...v, voteExtension: mine.extension, extensionSignature: mine.signature }
        : { ...v, voteExtension: new Uint8Array(0), extensionSignature: new Uint8Array(0) },
    ),
  };
}

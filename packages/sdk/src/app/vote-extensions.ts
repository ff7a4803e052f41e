// ABCI 2.0 vote extensions as the Cosmos SDK v0.50 handles them (baseapp/abci_utils.go): the proposer puts the
// extended commit of the block before into its proposal as the first tx, and every validator checks it the way
// `ValidateVoteExtensions` does before the block may carry it into state.
import { createPublicKey, verify, type KeyObject } from 'node:crypto';
import { Buffer } from 'node:buffer';
import { BinaryWriter } from 'cosmjs-types/binary';
import { ExtendedCommitInfo, type CommitInfo, type ExtendedVoteInfo } from 'cosmjs-types/tendermint/abci/types';
import { BlockIDFlag } from 'cosmjs-types/tendermint/types/validator';
import type { Context } from './context.ts';

/**
 * CometBFT `VoteExtensionSignBytes` (types/vote.go): protoio.MarshalDelimited(CanonicalVoteExtension{
 * extension = 1 bytes, height = 2 sfixed64, round = 3 sfixed64, chain_id = 4 string }), proto3 zero fields left out.
 */
export function voteExtensionSignBytes(chainId: string, height: bigint, round: bigint, extension: Uint8Array): Uint8Array {
  const w = BinaryWriter.create();
  if (extension.length > 0) w.uint32(10).bytes(extension);
  if (height !== 0n) w.uint32(17).sfixed64(height);
  if (round !== 0n) w.uint32(25).sfixed64(round);
  if (chainId.length > 0) w.uint32(34).string(chainId);
  return BinaryWriter.create().bytes(w.finish()).finish();
}

/** The SPKI prefix of a raw 32-byte ed25519 key (RFC 8410): node:crypto reads keys in DER. */
const ED25519_SPKI_PREFIX = Buffer.from('302a300506032b6570032100', 'hex');

/** Parsed consensus keys: parsing costs as much as verifying, and a validator set's keys change rarely. */
const keyObjects = new Map<string, KeyObject>();
/** More keys than any validator set holds; past it the cache starts over (a key is only parsed again). */
const MAX_KEY_OBJECTS = 1024;

function ed25519Key(pubKey: Uint8Array): KeyObject {
  const id = Buffer.from(pubKey).toString('hex');
  let key = keyObjects.get(id);
  if (key === undefined) {
    if (keyObjects.size >= MAX_KEY_OBJECTS) keyObjects.clear();
    key = createPublicKey({ key: Buffer.concat([ED25519_SPKI_PREFIX, pubKey]), format: 'der', type: 'spki' });
    keyObjects.set(id, key);
  }
  return key;
}

export function verifyEd25519(pubKey: Uint8Array, message: Uint8Array, signature: Uint8Array): boolean {
  if (pubKey.length !== 32 || signature.length !== 64) return false;
  return verify(null, message, ed25519Key(pubKey), signature);
}

/**
 * The first tx of a proposal that carries an extended commit: this marker, then the protobuf ExtendedCommitInfo.
 * A leading 0x00 is field number 0, which no protobuf message (so no Cosmos TxRaw) can start with.
 */
export const INJECTED_TX_MARKER = Uint8Array.from(Buffer.from('\x00chaind/extended-commit/v1\x00', 'latin1'));

export function isInjectedTx(tx: Uint8Array): boolean {
  if (tx.length < INJECTED_TX_MARKER.length) return false;
  for (let i = 0; i < INJECTED_TX_MARKER.length; i++) if (tx[i] !== INJECTED_TX_MARKER[i]) return false;
  return true;
}

export function encodeInjectedTx(c: ExtendedCommitInfo): Uint8Array {
  const body = ExtendedCommitInfo.encode(c).finish();
  const out = new Uint8Array(INJECTED_TX_MARKER.length + body.length);
  out.set(INJECTED_TX_MARKER);
  out.set(body, INJECTED_TX_MARKER.length);
  return out;
}

/** The extended commit an injected tx carries; throws on bytes that are not one. */
export function decodeInjectedTx(tx: Uint8Array): ExtendedCommitInfo {
  if (!isInjectedTx(tx)) throw new Error('not an extended-commit tx');
  return ExtendedCommitInfo.decode(tx.subarray(INJECTED_TX_MARKER.length));
}

/** A validator's key and power as the app's state knows them, by consensus address. */
export type ConsensusKeyOf = (consensusAddress: Uint8Array) => Uint8Array | undefined;

export interface VerifiedExtension {
  readonly validatorAddress: Uint8Array;
  readonly power: bigint;
  readonly extension: Uint8Array;
}

export type ExtendedCommitCheck = { readonly ok: true; readonly votes: readonly VerifiedExtension[] } | { readonly ok: false; readonly why: string };

const hex = (b: Uint8Array): string => Buffer.from(b).toString('hex').toUpperCase();

/**
 * `validateExtendedCommitAgainstLastCommit`, then `ValidateVoteExtensions` (SDK v0.50 baseapp/abci_utils.go):
 * the extended commit has the round, validators, powers and flags of the block's last commit, in CometBFT's
 * order (power descending, then address); every COMMIT vote's extension is signed by that validator's
 * consensus key over the sign bytes of `height - 1`; and those votes hold more than 2/3 of the power. Also
 * the flags, which the SDK does not compare: relabelling a vote ABSENT would drop its extension unseen.
 */
export function checkExtendedCommit(
  ec: ExtendedCommitInfo,
  lastCommit: CommitInfo,
  o: { readonly chainId: string; readonly height: bigint; readonly keyOf: ConsensusKeyOf },
): ExtendedCommitCheck {
  const fail = (why: string): ExtendedCommitCheck => ({ ok: false, why });
  if (ec.round !== lastCommit.round) return fail(`extended commit round ${ec.round} does not match last commit round ${lastCommit.round}`);
  if (ec.votes.length !== lastCommit.votes.length) return fail(`extended commit has ${ec.votes.length} votes, the last commit ${lastCommit.votes.length}`);
  const seen = new Set<string>();
  let total = 0n;
  let signed = 0n;
  const votes: VerifiedExtension[] = [];
  for (let i = 0; i < ec.votes.length; i++) {
    const v: ExtendedVoteInfo = ec.votes[i];
    const lc = lastCommit.votes[i];
    const addr = v.validator.address;
    if (i > 0 && !sortedBefore(ec.votes[i - 1], v)) return fail('extended commit votes are not sorted by voting power');
    if (seen.has(hex(addr))) return fail(`extended commit vote address ${hex(addr)} is duplicated`);
    seen.add(hex(addr));
    if (!Buffer.from(addr).equals(Buffer.from(lc.validator.address)) || v.validator.power !== lc.validator.power)
      return fail(
        `extended commit vote ${i} (${hex(addr)}, power ${v.validator.power}) is not the last commit's (${hex(lc.validator.address)}, power ${lc.validator.power})`,
      );
    if (v.blockIdFlag !== lc.blockIdFlag) return fail(`extended commit vote of ${hex(addr)} has flag ${v.blockIdFlag}, the last commit ${lc.blockIdFlag}`);
    total += v.validator.power;
    if (v.blockIdFlag !== BlockIDFlag.BLOCK_ID_FLAG_COMMIT) continue;
    if (v.extensionSignature.length === 0)
      return fail(`vote extensions enabled; received empty vote extension signature of ${hex(addr)} at height ${o.height}`);
    const key = o.keyOf(addr);
    if (key === undefined) return fail(`no validator with consensus address ${hex(addr)}`);
    const bytes = voteExtensionSignBytes(o.chainId, o.height - 1n, BigInt(ec.round), v.voteExtension);
    if (!verifyEd25519(key, bytes, v.extensionSignature)) return fail(`failed to verify validator ${hex(addr)} vote extension signature`);
    signed += v.validator.power;
    votes.push({ validatorAddress: addr, power: v.validator.power, extension: v.voteExtension });
  }
  if (total <= 0n) return fail('the extended commit has no voting power');
  const required = (total * 2n) / 3n + 1n;
  if (signed < required) return fail(`insufficient cumulative voting power received to verify vote extensions; got: ${signed}, expected: >=${required}`);
  return { ok: true, votes };
}

function sortedBefore(a: ExtendedVoteInfo, b: ExtendedVoteInfo): boolean {
  if (a.validator.power !== b.validator.power) return a.validator.power > b.validator.power;
  return Buffer.compare(Buffer.from(a.validator.address), Buffer.from(b.validator.address)) <= 0;
}

/**
 * What an app does with vote extensions (the SDK's ExtendVoteHandler and VerifyVoteExtensionHandler, with the
 * PreBlocker that takes in the injected extended commit). BaseApp does the rest: injecting the extended commit
 * into the proposal, checking it in ProcessProposal and again in FinalizeBlock (a block replayed or synced
 * never went through ProcessProposal), and keeping it out of CheckTx and out of the txs the block runs.
 */
export interface VoteExtensionHandler {
  /** InitChain: keeps genesis's `abci.vote_extensions_enable_height` (0: off) in state. */
  initChain(ctx: Context, enableHeight: bigint): void;
  /** Whether the proposal at `height` carries the extended commit of the block before, by state. */
  onAt(ctx: Context, height: bigint): boolean;
  /** ExtendVote: this validator's extension for the block at `height`, over the last committed state. */
  extendVote(ctx: Context, height: bigint): Uint8Array;
  /** VerifyVoteExtension: whether another validator's extension is acceptable. */
  verifyVoteExtension(ctx: Context, extension: Uint8Array): boolean;
  /** A validator's ed25519 consensus key by its consensus address, from state. */
  consensusKey(ctx: Context, address: Uint8Array): Uint8Array | undefined;
  /** FinalizeBlock, before the pre-blockers: the verified extensions of the block before. */
  finalize(ctx: Context, votes: readonly VerifiedExtension[]): void;
}

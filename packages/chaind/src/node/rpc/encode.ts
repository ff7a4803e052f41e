// The JSON shapes of CometBFT v0.38's RPC results (shared/reference/cometbft-v038.md §2.2–2.4):
// cmtjson for CometBFT's own types (64-bit ints as strings, HexBytes as upper-case hex, []byte as
// base64, times as Go's RFC3339Nano, omitempty honoured) and jsonpb with EmitDefaults for the ABCI
// responses that override it (ResponseCheckTx, ExecTxResult, ResponseQuery, EventAttribute).
import { Buffer } from 'node:buffer';
import type { Timestamp } from 'cosmjs-types/google/protobuf/timestamp';
import type { PublicKey } from 'cosmjs-types/tendermint/crypto/keys';
import type { Event, EventAttribute, ExecTxResult, ResponseCheckTx, ResponseInfo, ResponseQuery, ValidatorUpdate } from 'cosmjs-types/tendermint/abci/types';
import type { Block } from 'cosmjs-types/tendermint/types/block';
import type { ConsensusParams } from 'cosmjs-types/tendermint/types/params';
import type { BlockID, BlockMeta, Commit, CommitSig, Header } from 'cosmjs-types/tendermint/types/types';
import { formatRFC3339 } from '@chaind/sdk/types';
import { validatorAddress } from '../state.ts';

export type Json = string | number | boolean | null | readonly Json[] | JsonObject;
export interface JsonObject {
  readonly [key: string]: Json | undefined;
}

/** HexBytes: upper-case hex, "" when empty. */
export const hex = (b: Uint8Array): string => Buffer.from(b).toString('hex').toUpperCase();
/** []byte: standard padded base64; Go's nil (what an empty proto field decodes to) is null. */
export const b64 = (b: Uint8Array | undefined): string | null => (b === undefined || b.length === 0 ? null : Buffer.from(b).toString('base64'));
/** time.Time: RFC3339Nano in UTC, trailing fraction zeros dropped. */
export const time = (t: Timestamp | undefined): string => formatRFC3339(t ?? { seconds: 0n, nanos: 0 });
/** int64/uint64/int: decimal strings. */
export const int = (v: bigint | number): string => v.toString();

/** A key as CometBFT's amino JSON registration writes it (`crypto.PubKey` in status, validators, genesis). */
export function pubKeyJSON(k: PublicKey): JsonObject {
  if (k.ed25519 !== undefined) return { type: 'tendermint/PubKeyEd25519', value: b64(k.ed25519) ?? '' };
  if (k.secp256k1 !== undefined) return { type: 'tendermint/PubKeySecp256k1', value: b64(k.secp256k1) ?? '' };
  throw new Error('a validator key is neither ed25519 nor secp256k1');
}

export function blockIdJSON(id: BlockID): JsonObject {
  return { hash: hex(id.hash), parts: { total: id.partSetHeader.total, hash: hex(id.partSetHeader.hash) } };
}

export function headerJSON(h: Header): JsonObject {
  return {
    // tendermint.version.Consensus is a proto struct with omitempty: app disappears when 0
    version: h.version.app === 0n ? { block: int(h.version.block) } : { block: int(h.version.block), app: int(h.version.app) },
    chain_id: h.chainId,
    height: int(h.height),
    time: time(h.time),
    last_block_id: blockIdJSON(h.lastBlockId),
    last_commit_hash: hex(h.lastCommitHash),
    data_hash: hex(h.dataHash),
    validators_hash: hex(h.validatorsHash),
    next_validators_hash: hex(h.nextValidatorsHash),
    consensus_hash: hex(h.consensusHash),
    app_hash: hex(h.appHash),
    last_results_hash: hex(h.lastResultsHash),
    evidence_hash: hex(h.evidenceHash),
    proposer_address: hex(h.proposerAddress),
  };
}

function commitSigJSON(s: CommitSig): JsonObject {
  return { block_id_flag: s.blockIdFlag, validator_address: hex(s.validatorAddress), timestamp: time(s.timestamp), signature: b64(s.signature) };
}

export function commitJSON(c: Commit): JsonObject {
  return { height: int(c.height), round: c.round, block_id: blockIdJSON(c.blockId), signatures: c.signatures.map(commitSigJSON) };
}

export function blockJSON(b: Block): JsonObject {
  return {
    header: headerJSON(b.header),
    data: { txs: b.data.txs.map((tx) => Buffer.from(tx).toString('base64')) },
    // the solo node records no evidence
    evidence: { evidence: [] },
    last_commit: b.lastCommit === undefined ? null : commitJSON(b.lastCommit),
  };
}

export function blockMetaJSON(m: BlockMeta): JsonObject {
  return { block_id: blockIdJSON(m.blockId), block_size: int(m.blockSize), header: headerJSON(m.header), num_txs: int(m.numTxs) };
}

// ---- ABCI (jsonpb, EmitDefaults, enums as ints) ----

function attributeJSON(a: EventAttribute): JsonObject {
  return { key: a.key, value: a.value, index: a.index };
}

/** An event inside a jsonpb response: every field present. */
function eventPbJSON(e: Event): JsonObject {
  return { type: e.type, attributes: e.attributes.map(attributeJSON) };
}

/** An event on its own (finalize_block_events): plain cmtjson, empty fields omitted. */
export function eventJSON(e: Event): JsonObject {
  return { type: e.type === '' ? undefined : e.type, attributes: e.attributes.length === 0 ? undefined : e.attributes.map(attributeJSON) };
}

export function execTxResultJSON(r: ExecTxResult): JsonObject {
  return {
    code: r.code,
    data: b64(r.data),
    log: r.log,
    info: r.info,
    gas_wanted: int(r.gasWanted),
    gas_used: int(r.gasUsed),
    events: r.events.map(eventPbJSON),
    codespace: r.codespace,
  };
}

/** ResponseCheckTx has the same fields (v0.38 dropped sender, priority and mempool_error). */
export const checkTxJSON = (r: ResponseCheckTx): JsonObject => execTxResultJSON(r);

/** The all-defaults ExecTxResult (broadcast_tx_commit when CheckTx failed). */
export const EMPTY_TX_RESULT: ExecTxResult = { code: 0, data: new Uint8Array(0), log: '', info: '', gasWanted: 0n, gasUsed: 0n, events: [], codespace: '' };

export function queryJSON(r: ResponseQuery): JsonObject {
  return {
    code: r.code,
    log: r.log,
    info: r.info,
    index: int(r.index),
    key: b64(r.key),
    value: b64(r.value),
    // the proto field has no json_name, so jsonpb writes it camel-cased
    proofOps: r.proofOps === undefined ? null : { ops: r.proofOps.ops.map((o) => ({ type: o.type, key: b64(o.key), data: b64(o.data) })) },
    height: int(r.height),
    codespace: r.codespace,
  };
}

/** ResponseInfo has no jsonpb override: cmtjson with omitempty. */
export function infoJSON(r: ResponseInfo): JsonObject {
  return {
    data: r.data === '' ? undefined : r.data,
    version: r.version === '' ? undefined : r.version,
    app_version: r.appVersion === 0n ? undefined : int(r.appVersion),
    last_block_height: r.lastBlockHeight === 0n ? undefined : int(r.lastBlockHeight),
    last_block_app_hash: b64(r.lastBlockAppHash) ?? undefined,
  };
}

/** ValidatorUpdate's key is the proto oneof, written as cmtjson writes a registered oneof wrapper. */
export function validatorUpdateJSON(v: ValidatorUpdate): JsonObject {
  const sum =
    v.pubKey.ed25519 !== undefined
      ? { type: 'tendermint.crypto.PublicKey_Ed25519', value: { ed25519: b64(v.pubKey.ed25519) } }
      : { type: 'tendermint.crypto.PublicKey_Secp256K1', value: { secp256k1: b64(v.pubKey.secp256k1) } };
  return { pub_key: { Sum: sum }, power: v.power === 0n ? undefined : int(v.power) };
}

/** A validator of a set (`types.Validator`). A solo node keeps no proposer priorities: 0, as a one-validator set has. */
export function validatorJSON(v: ValidatorUpdate): JsonObject {
  return { address: hex(validatorAddress(v)), pub_key: pubKeyJSON(v.pubKey), voting_power: int(v.power), proposer_priority: '0' };
}

const durationNs = (d: { seconds: bigint; nanos: number } | undefined): string => int(d === undefined ? 0n : d.seconds * 1_000_000_000n + BigInt(d.nanos));

/** `types.ConsensusParams` (consensus_params, genesis): every section, every field. */
export function consensusParamsJSON(p: ConsensusParams): JsonObject {
  return {
    block: { max_bytes: int(p.block?.maxBytes ?? 0n), max_gas: int(p.block?.maxGas ?? 0n) },
    evidence: {
      max_age_num_blocks: int(p.evidence?.maxAgeNumBlocks ?? 0n),
      max_age_duration: durationNs(p.evidence?.maxAgeDuration),
      max_bytes: int(p.evidence?.maxBytes ?? 0n),
    },
    validator: { pub_key_types: [...(p.validator?.pubKeyTypes ?? [])] },
    version: { app: int(p.version?.app ?? 0n) },
    abci: { vote_extensions_enable_height: int(p.abci?.voteExtensionsEnableHeight ?? 0n) },
  };
}

const nz = (v: bigint): string | undefined => (v === 0n ? undefined : int(v));

/** The proto ConsensusParams of an update (block_results): cmtjson omitempty, so absent sections and zero fields disappear. */
export function consensusParamUpdatesJSON(p: ConsensusParams): JsonObject {
  return {
    block: p.block && { max_bytes: nz(p.block.maxBytes), max_gas: nz(p.block.maxGas) },
    evidence: p.evidence && {
      max_age_num_blocks: nz(p.evidence.maxAgeNumBlocks),
      max_age_duration: p.evidence.maxAgeDuration && durationNs(p.evidence.maxAgeDuration),
      max_bytes: nz(p.evidence.maxBytes),
    },
    validator: p.validator && { pub_key_types: p.validator.pubKeyTypes.length === 0 ? undefined : [...p.validator.pubKeyTypes] },
    version: p.version && { app: nz(p.version.app) },
    abci: p.abci && { vote_extensions_enable_height: nz(p.abci.voteExtensionsEnableHeight) },
  };
}

// The consensus-side state the next block is built from (CometBFT's `state.State`, reduced to what a
// solo validator needs): validator sets, consensus params and the header's app version. Stored with
// every block, as protobuf (hand-encoded; no generated type exists):
//   message ChainState {
//     repeated tendermint.abci.ValidatorUpdate last_validators = 1;  // signed the block this state follows
//     repeated tendermint.abci.ValidatorUpdate validators = 2;       // sign the next block
//     repeated tendermint.abci.ValidatorUpdate next_validators = 3;  // sign the block after
//     tendermint.types.ConsensusParams consensus_params = 4;          // apply to the next block
//     uint64 app_version = 5;                                         // the next header's version.app
//   }
import { BinaryReader, BinaryWriter } from 'cosmjs-types/binary';
import { ValidatorUpdate, type ResponseFinalizeBlock } from 'cosmjs-types/tendermint/abci/types';
import { ConsensusParams } from 'cosmjs-types/tendermint/types/params';
import { sha256 } from './hash.ts';

export interface ChainState {
  readonly lastValidators: readonly ValidatorUpdate[];
  readonly validators: readonly ValidatorUpdate[];
  readonly nextValidators: readonly ValidatorUpdate[];
  readonly consensusParams: ConsensusParams;
  readonly appVersion: bigint;
}

/** `crypto.AddressSize`. */
export const ADDRESS_LENGTH = 20;

/** A validator's consensus address: the first 20 bytes of sha256 of its ed25519 key (`crypto/ed25519` Address). */
export function validatorAddress(v: ValidatorUpdate): Uint8Array {
  const key = v.pubKey.ed25519;
  // the chain's validators module accepts ed25519 keys only; secp256k1 would need RIPEMD-160 addresses
  if (key === undefined || key.length !== 32) throw new Error('only 32-byte ed25519 validator keys are supported');
  return sha256(key).subarray(0, ADDRESS_LENGTH);
}

function compareBytes(a: Uint8Array, b: Uint8Array): number {
  return Buffer.compare(a, b);
}

/** CometBFT's validator-set order (`ValidatorsByVotingPower`): power descending, then address ascending. */
export function sortValidators(vals: readonly ValidatorUpdate[]): ValidatorUpdate[] {
  return vals
    .map((v) => ({ v, a: validatorAddress(v) }))
    .sort((x, y) => (x.v.power !== y.v.power ? (x.v.power > y.v.power ? -1 : 1) : compareBytes(x.a, y.a)))
    .map((x) => x.v);
}

/** `ValidatorSet.UpdateWithChangeSet`, simplified: power 0 removes a validator, any other power sets it. */
export function applyValidatorUpdates(set: readonly ValidatorUpdate[], updates: readonly ValidatorUpdate[]): ValidatorUpdate[] {
  if (updates.length === 0) return [...set];
  const byAddr = new Map<string, ValidatorUpdate>();
  const key = (v: ValidatorUpdate): string => Buffer.from(validatorAddress(v)).toString('hex');
  for (const v of set) byAddr.set(key(v), v);
  for (const u of updates) {
    if (u.power < 0n) throw new Error(`validator update with negative power ${u.power}`);
    if (u.power === 0n) byAddr.delete(key(u));
    else byAddr.set(key(u), u);
  }
  if (byAddr.size === 0) throw new Error('validator updates would leave the validator set empty');
  return sortValidators([...byAddr.values()]);
}

/** `ConsensusParams.Update`: each section present in the update replaces the current one. */
export function updateConsensusParams(p: ConsensusParams, u: ConsensusParams | undefined): ConsensusParams {
  if (u === undefined) return p;
  return {
    block: u.block ?? p.block,
    evidence: u.evidence ?? p.evidence,
    validator: u.validator ?? p.validator,
    version: u.version ?? p.version,
    abci: u.abci ?? p.abci,
  };
}

/**
 * The state after InitChain (`consensus/replay.go`): the app's validators when it returned any, else
 * genesis's; the app's consensus params over genesis's, which also set the app version; otherwise the
 * app version Info reported.
 */
export function genesisState(o: {
  readonly validators: readonly ValidatorUpdate[];
  readonly consensusParams: ConsensusParams;
  readonly paramUpdates?: ConsensusParams;
  readonly infoAppVersion: bigint;
}): ChainState {
  if (o.validators.length === 0) throw new Error('validator set is nil in genesis and still empty after InitChain');
  const validators = sortValidators(o.validators);
  const consensusParams = updateConsensusParams(o.consensusParams, o.paramUpdates);
  return {
    lastValidators: [],
    validators,
    nextValidators: validators,
    consensusParams,
    appVersion: o.paramUpdates !== undefined ? (consensusParams.version?.app ?? 0n) : o.infoAppVersion,
  };
}

/**
 * The state after a block (`state/execution.go` updateState): validator updates of height H take effect
 * at H+2, consensus param updates at H+1; param updates also set the next header's app version.
 */
export function nextState(s: ChainState, res: ResponseFinalizeBlock): ChainState {
  const consensusParams = updateConsensusParams(s.consensusParams, res.consensusParamUpdates);
  return {
    lastValidators: s.validators,
    validators: s.nextValidators,
    nextValidators: applyValidatorUpdates(s.nextValidators, res.validatorUpdates),
    consensusParams,
    appVersion: res.consensusParamUpdates !== undefined ? (consensusParams.version?.app ?? 0n) : s.appVersion,
  };
}

export function encodeChainState(s: ChainState): Uint8Array {
  const w = BinaryWriter.create();
  for (const v of s.lastValidators) ValidatorUpdate.encode(v, w.uint32(10).fork()).ldelim();
  for (const v of s.validators) ValidatorUpdate.encode(v, w.uint32(18).fork()).ldelim();
  for (const v of s.nextValidators) ValidatorUpdate.encode(v, w.uint32(26).fork()).ldelim();
  ConsensusParams.encode(s.consensusParams, w.uint32(34).fork()).ldelim();
  if (s.appVersion !== 0n) w.uint32(40).uint64(s.appVersion);
  return w.finish();
}

export function decodeChainState(bytes: Uint8Array): ChainState {
  const r = new BinaryReader(bytes);
  const lastValidators: ValidatorUpdate[] = [];
  const validators: ValidatorUpdate[] = [];
  const nextValidators: ValidatorUpdate[] = [];
  let consensusParams: ConsensusParams = ConsensusParams.fromPartial({});
  let appVersion = 0n;
  while (r.pos < r.len) {
    const tag = r.uint32();
    switch (tag) {
      case 10:
        lastValidators.push(ValidatorUpdate.decode(r, r.uint32()));
        break;
      case 18:
        validators.push(ValidatorUpdate.decode(r, r.uint32()));
        break;
      case 26:
        nextValidators.push(ValidatorUpdate.decode(r, r.uint32()));
        break;
      case 34:
        consensusParams = ConsensusParams.decode(r, r.uint32());
        break;
      case 40:
        appVersion = r.uint64();
        break;
      default:
        r.skipType(tag & 7);
    }
  }
  return { lastValidators, validators, nextValidators, consensusParams, appVersion };
}

// What CometBFT v0.38 does with a genesis.json before it starts (`cometbft start` → node.go
// LoadStateFromDBOrGenesisDocProvider → types.GenesisDocFromJSON), written down here as CometBFT states
// it, independently of chaind's own genesis reader, so a test can hold chaind's files against it:
//   1. libs/json/decoder.go (cmtjson.Unmarshal): unknown fields ignored; int64/uint64 (and time.Duration,
//      an int64) only as JSON strings; time.Time a string ending in "Z" (then Go's RFC 3339); []byte
//      base64; HexBytes hex; interfaces (pub_key) as {"type","value"} of a registered type.
//   2. types/genesis.go GenesisDoc.ValidateAndComplete: chain_id non-empty and ≤ 50 bytes, initial_height
//      ≥ 0, consensus_params.ValidateBasic when present, each validator with power ≠ 0 and an address
//      (when given) equal to its public key's.
//   3. types/params.go ConsensusParams.ValidateBasic (v0.38.25).
// The messages are CometBFT's (fmt.Errorf texts), prefixed with the field where decoding failed.
import { createHash } from 'node:crypto';
import { errorMessage } from '@chaind/errors';

type Json = Record<string, unknown>;

/** types/params.go MaxBlockSizeBytes. */
const MAX_BLOCK_SIZE_BYTES = 104_857_600n;
/** types/genesis.go MaxChainIDLen. */
const MAX_CHAIN_ID_LEN = 50;
/** types/params.go ABCIPubKeyTypesToNames. */
const ABCI_PUB_KEY_TYPES = ['ed25519', 'secp256k1'];
/** crypto/ed25519 PubKeyName, the only validator key chaind has. */
const ED25519_PUB_KEY_NAME = 'tendermint/PubKeyEd25519';

const INT64_MIN = -(1n << 63n);
const INT64_MAX = (1n << 63n) - 1n;

const isObject = (v: unknown): v is Json => typeof v === 'object' && v !== null && !Array.isArray(v);

/** An int64 field as cmtjson decodes it: a JSON string, then strconv.ParseInt(s, 10, 64). Absent: 0. */
function int64(v: unknown, field: string, unsigned = false): bigint {
  if (v === undefined || v === null) return 0n;
  if (typeof v !== 'string') throw new Error(`${field}: invalid 64-bit integer encoding ${JSON.stringify(v)}, expected string`);
  if (!(unsigned ? /^\+?[0-9]+$/ : /^[+-]?[0-9]+$/).test(v)) throw new Error(`${field}: strconv.ParseInt: parsing ${JSON.stringify(v)}: invalid syntax`);
  const n = BigInt(v);
  if (unsigned ? n >= 1n << 64n : n < INT64_MIN || n > INT64_MAX)
    throw new Error(`${field}: strconv.ParseInt: parsing ${JSON.stringify(v)}: value out of range`);
  return n;
}

/** time.Time as cmtjson decodes it: a string ending in "Z", then time.RFC3339(Nano). */
function time(v: unknown, field: string): void {
  if (typeof v !== 'string') throw new Error(`${field}: JSON time must be an RFC3339 string, but got ${JSON.stringify(v)}`);
  if (!v.endsWith('Z')) throw new Error(`${field}: JSON time must be UTC and end with 'Z', but got ${JSON.stringify(v)}`);
  const m = /^(\d{4})-(\d{2})-(\d{2})T(\d{2}):(\d{2}):(\d{2})(\.\d+)?Z$/.exec(v);
  const [y, mo, d, h, mi, s] = (m ?? []).slice(1, 7).map(Number);
  const days = new Date(Date.UTC(y, mo, 0)).getUTCDate();
  if (m === null || mo < 1 || mo > 12 || d < 1 || d > days || h > 23 || mi > 59 || s > 59)
    throw new Error(`${field}: parsing time ${JSON.stringify(v)} as RFC 3339: cannot parse`);
}

function object(v: unknown, field: string): Json {
  if (v === undefined || v === null) return {};
  if (!isObject(v)) throw new Error(`${field}: json: cannot unmarshal ${Array.isArray(v) ? 'array' : typeof v} into a struct`);
  return v;
}

function hexBytes(v: unknown, field: string): Buffer {
  if (v === undefined || v === null) return Buffer.alloc(0);
  if (typeof v !== 'string' || !/^(?:[0-9a-fA-F]{2})*$/.test(v)) throw new Error(`${field}: invalid hex ${JSON.stringify(v)}`);
  return Buffer.from(v, 'hex');
}

/** The genesis document as CometBFT v0.38 reads it; throws CometBFT's error for the first problem. */
export function checkCometGenesis(text: string): void {
  let raw: unknown;
  try {
    raw = JSON.parse(text);
  } catch (e) {
    throw new Error(`genesis: invalid JSON: ${errorMessage(e)}`);
  }
  const g = object(raw, 'genesis');

  // 1. decoding, field by field (types/genesis.go GenesisDoc)
  time(g.genesis_time, 'genesis_time');
  if (g.chain_id !== undefined && typeof g.chain_id !== 'string') throw new Error('chain_id: json: cannot unmarshal into Go string');
  const chainId = typeof g.chain_id === 'string' ? g.chain_id : '';
  const initialHeight = int64(g.initial_height, 'initial_height');
  const hasParams = g.consensus_params !== undefined && g.consensus_params !== null;
  const p = object(g.consensus_params, 'consensus_params');
  const block = object(p.block, 'consensus_params.block');
  const evidence = object(p.evidence, 'consensus_params.evidence');
  const validator = object(p.validator, 'consensus_params.validator');
  const version = object(p.version, 'consensus_params.version');
  const abci = object(p.abci, 'consensus_params.abci');
  const params = {
    blockMaxBytes: int64(block.max_bytes, 'consensus_params.block.max_bytes'),
    blockMaxGas: int64(block.max_gas, 'consensus_params.block.max_gas'),
    evidenceMaxAgeNumBlocks: int64(evidence.max_age_num_blocks, 'consensus_params.evidence.max_age_num_blocks'),
    // time.Duration is an int64 of nanoseconds: a string too
    evidenceMaxAgeDuration: int64(evidence.max_age_duration, 'consensus_params.evidence.max_age_duration'),
    evidenceMaxBytes: int64(evidence.max_bytes, 'consensus_params.evidence.max_bytes'),
    pubKeyTypes: validator.pub_key_types ?? [],
    voteExtensionsEnableHeight: int64(abci.vote_extensions_enable_height, 'consensus_params.abci.vote_extensions_enable_height'),
  };
  int64(version.app, 'consensus_params.version.app', true);
  const types = params.pubKeyTypes;
  if (!Array.isArray(types) || !types.every((t) => typeof t === 'string'))
    throw new Error('consensus_params.validator.pub_key_types: json: cannot unmarshal into []string');

  const validators = g.validators === undefined || g.validators === null ? [] : g.validators;
  if (!Array.isArray(validators)) throw new Error('validators: json: cannot unmarshal into []GenesisValidator');
  const vals = validators.map((x, i) => {
    const v = object(x, `validators[${i}]`);
    const address = hexBytes(v.address, `validators[${i}].address`);
    const pk = object(v.pub_key, `validators[${i}].pub_key`);
    if (typeof pk.type !== 'string' || pk.type === '') throw new Error(`validators[${i}].pub_key: interface type cannot be empty`);
    if (pk.type !== ED25519_PUB_KEY_NAME) throw new Error(`validators[${i}].pub_key: unknown type ${JSON.stringify(pk.type)}`);
    const key = typeof pk.value === 'string' ? Buffer.from(pk.value, 'base64') : Buffer.alloc(0);
    if (key.length !== 32) throw new Error(`validators[${i}].pub_key: got ${key.length} bytes, expected 32`);
    if (v.name !== undefined && typeof v.name !== 'string') throw new Error(`validators[${i}].name: json: cannot unmarshal into Go string`);
    return { address, key, power: int64(v.power, `validators[${i}].power`) };
  });
  hexBytes(g.app_hash, 'app_hash');
  // app_state is a json.RawMessage: any JSON value

  // 2. GenesisDoc.ValidateAndComplete
  if (chainId === '') throw new Error('genesis doc must include non-empty chain_id');
  if (Buffer.byteLength(chainId, 'utf8') > MAX_CHAIN_ID_LEN) throw new Error(`chain_id in genesis doc is too long (max: ${MAX_CHAIN_ID_LEN})`);
  if (initialHeight < 0n) throw new Error(`initial_height cannot be negative (got ${initialHeight})`);

  // 3. ConsensusParams.ValidateBasic (absent params are CometBFT's defaults, valid by construction)
  if (hasParams) {
    if (params.blockMaxBytes === 0n) throw new Error('block.MaxBytes cannot be 0');
    if (params.blockMaxBytes < -1n) throw new Error(`block.MaxBytes must be -1 or greater than 0. Got ${params.blockMaxBytes}`);
    if (params.blockMaxBytes > MAX_BLOCK_SIZE_BYTES) throw new Error(`block.MaxBytes is too big. ${params.blockMaxBytes} > ${MAX_BLOCK_SIZE_BYTES}`);
    if (params.blockMaxGas < -1n) throw new Error(`block.MaxGas must be greater or equal to -1. Got ${params.blockMaxGas}`);
    if (params.evidenceMaxAgeNumBlocks <= 0n) throw new Error(`evidence.MaxAgeNumBlocks must be greater than 0. Got ${params.evidenceMaxAgeNumBlocks}`);
    if (params.evidenceMaxAgeDuration <= 0n) throw new Error(`evidence.MaxAgeDuration must be grater than 0 if provided, Got ${params.evidenceMaxAgeDuration}`);
    const maxBytes = params.blockMaxBytes === -1n ? MAX_BLOCK_SIZE_BYTES : params.blockMaxBytes;
    if (params.evidenceMaxBytes > maxBytes)
      throw new Error(`evidence.MaxBytesEvidence is greater than upper bound, ${params.evidenceMaxBytes} > ${params.blockMaxBytes}`);
    if (params.evidenceMaxBytes < 0n) throw new Error(`evidence.MaxBytes must be non negative. Got: ${params.evidenceMaxBytes}`);
    if (params.voteExtensionsEnableHeight < 0n)
      throw new Error(`ABCI.VoteExtensionsEnableHeight cannot be negative. Got: ${params.voteExtensionsEnableHeight}`);
    if (types.length === 0) throw new Error('len(Validator.PubKeyTypes) must be greater than 0');
    types.forEach((t, i) => {
      if (!ABCI_PUB_KEY_TYPES.includes(t as string)) throw new Error(`params.Validator.PubKeyTypes[${i}], ${String(t)}, is an unknown pubkey type`);
    });
  }

  for (const v of vals) {
    if (v.power === 0n) throw new Error('the genesis file cannot contain validators with no voting power');
    const want = createHash('sha256').update(v.key).digest().subarray(0, 20);
    if (v.address.length > 0 && !v.address.equals(want))
      throw new Error(`incorrect address for validator in the genesis file, should be ${want.toString('hex').toUpperCase()}`);
  }
}

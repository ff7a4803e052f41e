// genesis.json text → GenesisDoc. Only the form is checked here (JSON, types, formats); meaning
// (chain id length, heights, param ranges, app_state) is validateGenesis'.
import { Buffer } from 'node:buffer';
import type { Duration } from 'cosmjs-types/google/protobuf/duration';
import { defaultConsensusParams, GenesisError, type ConsensusParams, type GenesisDoc } from './doc.ts';
import { jsonFields } from './json.ts';
import { parseRFC3339 } from '../types/time.ts';
import { errorMessage } from '@chaind/errors';

type Obj = Record<string, unknown>;

const INT64_MIN = -(1n << 63n);
const INT64_MAX = (1n << 63n) - 1n;
const UINT64_MAX = (1n << 64n) - 1n;

const TOP_LEVEL = ['app_name', 'app_version', 'genesis_time', 'chain_id', 'initial_height', 'consensus_params', 'validators', 'app_hash', 'app_state'] as const;

const { object } = jsonFields({ fail: (detail) => new GenesisError(`genesis ${detail}`), objectNoun: 'a JSON object' });

/** An int64 as cmtjson writes it: a decimal string (strconv.ParseInt syntax). */
function int64(v: unknown, where: string, max = INT64_MAX, min = INT64_MIN): bigint {
  if (typeof v !== 'string' || !/^[+-]?[0-9]+$/.test(v))
    throw new GenesisError(`genesis ${where} must be an integer as a decimal string, got ${JSON.stringify(v) ?? 'nothing'}`);
  const n = BigInt(v);
  if (n < min || n > max) throw new GenesisError(`genesis ${where} is out of range: ${v}`);
  return n;
}

function section(params: Obj, name: string, keys: readonly string[], required: boolean): Obj | undefined {
  const v = params[name];
  if (v === undefined || v === null) {
    if (required) throw new GenesisError(`genesis consensus_params.${name} is missing`);
    return undefined;
  }
  return object(v, `consensus_params.${name}`, keys);
}

/** Nanoseconds (cmtjson time.Duration) → protobuf Duration (seconds and nanos of the same sign). */
function duration(ns: bigint): Duration {
  return { seconds: ns / 1_000_000_000n, nanos: Number(ns % 1_000_000_000n) };
}

/**
 * consensus_params, as CometBFT's types.ConsensusParams JSON. Absent: CometBFT's defaults. Present:
 * block, evidence and validator must be there (their zero values are invalid anyway); version and abci
 * default to zero as in Go.
 */
function consensusParams(v: unknown): ConsensusParams {
  if (v === undefined || v === null) return defaultConsensusParams();
  const p = object(v, 'consensus_params', ['block', 'evidence', 'validator', 'version', 'abci']);
  const block = section(p, 'block', ['max_bytes', 'max_gas'], true) as Obj;
  const evidence = section(p, 'evidence', ['max_age_num_blocks', 'max_age_duration', 'max_bytes'], true) as Obj;
  const validator = section(p, 'validator', ['pub_key_types'], true) as Obj;
  const version = section(p, 'version', ['app'], false);
  const abci = section(p, 'abci', ['vote_extensions_enable_height'], false);
  const types = validator.pub_key_types;
  if (!Array.isArray(types) || !types.every((t): t is string => typeof t === 'string')) {
    throw new GenesisError('genesis consensus_params.validator.pub_key_types must be an array of strings');
  }
  return {
    block: { maxBytes: int64(block.max_bytes, 'consensus_params.block.max_bytes'), maxGas: int64(block.max_gas, 'consensus_params.block.max_gas') },
    evidence: {
      maxAgeNumBlocks: int64(evidence.max_age_num_blocks, 'consensus_params.evidence.max_age_num_blocks'),
      maxAgeDuration: duration(int64(evidence.max_age_duration, 'consensus_params.evidence.max_age_duration')),
      maxBytes: int64(evidence.max_bytes, 'consensus_params.evidence.max_bytes'),
    },
    validator: { pubKeyTypes: [...types] },
    version: { app: version?.app === undefined ? 0n : int64(version.app, 'consensus_params.version.app', UINT64_MAX, 0n) },
    abci: {
      voteExtensionsEnableHeight:
        abci?.vote_extensions_enable_height === undefined
          ? 0n
          : int64(abci.vote_extensions_enable_height, 'consensus_params.abci.vote_extensions_enable_height'),
    },
  };
}

function appHash(v: unknown): Uint8Array {
  if (v === undefined || v === null) return new Uint8Array(0);
  if (typeof v !== 'string' || !/^(?:[0-9a-fA-F]{2})*$/.test(v)) throw new GenesisError(`genesis app_hash must be a hex string, got ${JSON.stringify(v)}`);
  return new Uint8Array(Buffer.from(v, 'hex'));
}

/** Parses genesis.json text. Errors (GenesisError) name the field and what is wrong with it. */
export function parseGenesis(text: string): GenesisDoc {
  let raw: unknown;
  try {
    raw = JSON.parse(text);
  } catch (e) {
    throw new GenesisError(`genesis is not valid JSON: ${errorMessage(e)}`);
  }
  const g = object(raw, 'document', TOP_LEVEL);

  if (typeof g.genesis_time !== 'string') throw new GenesisError('genesis genesis_time must be an RFC 3339 time string');
  const genesisTime = parseRFC3339(g.genesis_time);
  if (genesisTime === undefined) {
    throw new GenesisError(`genesis genesis_time "${g.genesis_time}" is not a valid RFC 3339 time such as "2024-01-02T15:04:05.123456789Z"`);
  }

  if (g.chain_id !== undefined && typeof g.chain_id !== 'string') throw new GenesisError('genesis chain_id must be a string');
  const initialHeight = int64(g.initial_height, 'initial_height');

  // the validator set is app state (app_state.validators); the app hands it to CometBFT in ResponseInitChain
  if (g.validators !== undefined && g.validators !== null && !(Array.isArray(g.validators) && g.validators.length === 0)) {
    throw new GenesisError('genesis must not list top-level "validators": the validator set is app_state.validators.validators');
  }

  const appState = g.app_state === undefined || g.app_state === null ? {} : g.app_state;
  if (typeof appState !== 'object' || Array.isArray(appState)) throw new GenesisError('genesis app_state must be a JSON object');

  for (const k of ['app_name', 'app_version'] as const) {
    if (g[k] !== undefined && g[k] !== null && typeof g[k] !== 'string') throw new GenesisError(`genesis ${k} must be a string`);
  }
  const appName = typeof g.app_name === 'string' && g.app_name !== '' ? g.app_name : undefined;
  const appVersion = typeof g.app_version === 'string' && g.app_version !== '' ? g.app_version : undefined;

  return {
    ...(appName === undefined ? {} : { appName }),
    ...(appVersion === undefined ? {} : { appVersion }),
    genesisTime,
    chainId: g.chain_id ?? '',
    initialHeight,
    consensusParams: consensusParams(g.consensus_params),
    appHash: appHash(g.app_hash),
    appState: appState as Record<string, unknown>,
  };
}

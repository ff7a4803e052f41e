import { Buffer } from 'node:buffer';
import type { ConsensusParams, GenesisDoc } from './doc.ts';
import type { ConsensusParamsJSON, GenesisDocJSON } from './json.ts';
import { formatRFC3339 } from '../types/time.ts';

function consensusParamsToJSON(p: ConsensusParams): ConsensusParamsJSON {
  const age = p.evidence?.maxAgeDuration;
  return {
    block: { max_bytes: String(p.block?.maxBytes ?? 0n), max_gas: String(p.block?.maxGas ?? 0n) },
    evidence: {
      max_age_num_blocks: String(p.evidence?.maxAgeNumBlocks ?? 0n),
      max_age_duration: String(age === undefined ? 0n : age.seconds * 1_000_000_000n + BigInt(age.nanos)),
      max_bytes: String(p.evidence?.maxBytes ?? 0n),
    },
    validator: { pub_key_types: [...(p.validator?.pubKeyTypes ?? [])] },
    version: { app: String(p.version?.app ?? 0n) },
    abci: { vote_extensions_enable_height: String(p.abci?.voteExtensionsEnableHeight ?? 0n) },
  };
}

/** The document as JSON: the Cosmos SDK's field order (app_name and app_version first, when known), app_state's modules sorted by name (as the SDK exports them). */
export function genesisToJSON(doc: GenesisDoc): GenesisDocJSON {
  const appState: Record<string, unknown> = {};
  for (const name of Object.keys(doc.appState).sort()) appState[name] = doc.appState[name];
  return {
    ...(doc.appName === undefined ? {} : { app_name: doc.appName }),
    ...(doc.appVersion === undefined ? {} : { app_version: doc.appVersion }),
    genesis_time: formatRFC3339(doc.genesisTime),
    chain_id: doc.chainId,
    initial_height: doc.initialHeight.toString(),
    consensus_params: consensusParamsToJSON(doc.consensusParams),
    app_hash: Buffer.from(doc.appHash).toString('hex').toUpperCase(),
    app_state: appState,
  };
}

/** Canonical genesis.json text: two-space indentation (as CometBFT's), a final newline. */
export function writeGenesis(doc: GenesisDoc): string {
  return `${JSON.stringify(genesisToJSON(doc), null, 2)}\n`;
}

// The genesis document's JSON shape (cmtjson: int64s as decimal strings, durations as nanosecond strings).
export interface ConsensusParamsJSON {
  block: { max_bytes: string; max_gas: string };
  evidence: { max_age_num_blocks: string; max_age_duration: string; max_bytes: string };
  validator: { pub_key_types: string[] };
  version: { app: string };
  abci: { vote_extensions_enable_height: string };
}

export interface GenesisDocJSON {
  genesis_time: string;
  chain_id: string;
  initial_height: string;
  consensus_params: ConsensusParamsJSON;
  app_hash: string;
  app_state: Record<string, unknown>;
}

// The genesis document's JSON shape (cmtjson: int64s as decimal strings, durations as nanosecond strings).
export interface ConsensusParamsJSON {
  block: { max_bytes: string; max_gas: string };
  evidence: { max_age_num_blocks: string; max_age_duration: string; max_bytes: string };
  validator: { pub_key_types: string[] };
  version: { app: string };
  abci: { vote_extensions_enable_height: string };
}

export interface GenesisDocJSON {
  app_name?: string;
  app_version?: string;
  genesis_time: string;
  chain_id: string;
  initial_height: string;
  consensus_params: ConsensusParamsJSON;
  app_hash: string;
  app_state: Record<string, unknown>;
}

/** The field checks genesis sections are read with; each error names the field (`where`). */
export interface JsonFields {
  /** An object with no field outside `keys`. */
  object(v: unknown, where: string, keys: readonly string[]): Record<string, unknown>;
  /** An array; absent (undefined, or null where null is absence) reads as empty. */
  array(v: unknown, where: string): unknown[];
  /** A string; absent reads as `dflt` when one is given. */
  string(v: unknown, where: string, dflt?: string): string;
  /** A boolean; absent reads as `dflt`. */
  boolean(v: unknown, where: string, dflt: boolean): boolean;
}

export interface JsonFieldsOptions {
  /** The error for a field, from its text ("<where> must be a string"): each module keeps its own error class. */
  readonly fail: (detail: string) => Error;
  /** What "must be …" calls an object; default "an object". */
  readonly objectNoun?: string;
  /** null reads as an absent array, as protojson reads it; default: null is not an array. */
  readonly nullIsAbsent?: boolean;
}

/** Field checks that fail with `o.fail`. */
export function jsonFields(o: JsonFieldsOptions): JsonFields {
  const { fail } = o;
  const objectNoun = o.objectNoun ?? 'an object';
  return {
    object(v, where, keys) {
      if (typeof v !== 'object' || v === null || Array.isArray(v)) throw fail(`${where} must be ${objectNoun}`);
      // unknown fields are refused, as protojson does, so a misspelt field is not silently dropped
      for (const k of Object.keys(v)) if (!keys.includes(k)) throw fail(`${where} has an unknown field "${k}"`);
      return v as Record<string, unknown>;
    },
    array(v, where) {
      if (v === undefined || (v === null && o.nullIsAbsent === true)) return [];
      if (!Array.isArray(v)) throw fail(`${where} must be an array`);
      return v;
    },
    string(v, where, dflt) {
      if (v === undefined && dflt !== undefined) return dflt;
      if (typeof v !== 'string') throw fail(`${where} must be a string`);
      return v;
    },
    boolean(v, where, dflt) {
      if (v === undefined) return dflt;
      if (typeof v !== 'boolean') throw fail(`${where} must be a boolean`);
      return v;
    },
  };
}

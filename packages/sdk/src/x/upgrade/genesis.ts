// The upgrade module's genesis: only its params (chaind's readiness gate); the spec's state starts empty.
import { paramsFromJSON, paramsToJSON, type ParamsJSON } from './params.ts';

/** The module's genesis: `{}` (the default params: the readiness gate off, as the spec) or its params. */
export interface UpgradeGenesisJSON {
  readonly params?: ParamsJSON;
}

export function parseGenesis(g: unknown): UpgradeGenesisJSON {
  if (typeof g !== 'object' || g === null || Array.isArray(g)) throw new Error('upgrade genesis must be a JSON object');
  const extra = Object.keys(g).find((k) => k !== 'params');
  if (extra !== undefined) throw new Error(`upgrade genesis: unknown field ${JSON.stringify(extra)}: its only state is "params"`);
  const p = (g as { params?: unknown }).params;
  return p === undefined ? {} : { params: paramsToJSON(paramsFromJSON(p)) };
}

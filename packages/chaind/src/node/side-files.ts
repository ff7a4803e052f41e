// The files other tools leave in the node's home and the node reads, never writes: chainvisor's status file and
// `upgrade simulate`'s last result. The dashboard shows them; the readiness attestation and the metrics use them.
import { readFileSync } from 'node:fs';
import { join } from 'node:path';
import { errorMessage, errnoCode } from '@chaind/errors';

/** chainvisor's status file, relative to the node's home ($DAEMON_HOME). */
export const VISOR_STATUS_FILE = join('cosmovisor', 'status.json');
/** `upgrade simulate`'s last result, relative to the node's home. */
export const SIMULATE_RESULT_FILE = join('data', 'upgrade-simulate.json');

/** A file another program writes: its JSON, null when absent, or why it cannot be read. */
export type SideFile = { readonly ok: true; readonly value: unknown } | { readonly ok: false; readonly error: string } | null;

/** `upgrade simulate`'s last result in `home`, if it left a readable one: which upgrade, and whether it passed. */
export function lastSimulation(home: string): { readonly name: string; readonly height: string; readonly passed: boolean } | undefined {
  const f = readSideFile(join(home, SIMULATE_RESULT_FILE));
  if (f === null || !f.ok) return undefined;
  const { name, height, passed } = f.value as { name?: unknown; height?: unknown; passed?: unknown };
  return typeof name === 'string' && typeof passed === 'boolean' ? { name, height: typeof height === 'string' ? height : '', passed } : undefined;
}

/** A JSON object file: null when absent, its value, or why it cannot be read. */
export function readSideFile(path: string): SideFile {
  let text: string;
  try {
    text = readFileSync(path, 'utf8');
  } catch (e) {
    if (errnoCode(e) === 'ENOENT') return null;
    return { ok: false, error: `cannot read ${path}: ${errorMessage(e)}` };
  }
  try {
    const value = JSON.parse(text) as unknown;
    if (typeof value !== 'object' || value === null || Array.isArray(value)) return { ok: false, error: `${path} is not a JSON object` };
    return { ok: true, value };
  } catch {
    return { ok: false, error: `${path} is not valid JSON` };
  }
}

// The chain's ModuleManager, for the commands that build or check a genesis: the very modules
// createChainApp wires (upgrades' modules included), so defaults and validation cannot drift from the app.
import type { ModuleManager } from '@chaind/sdk/app';

/** Runs `fn` with the chain's modules (no store is opened). */
export async function withChainModules<T>(fn: (mm: ModuleManager) => T | Promise<T>): Promise<T> {
  // imported here, not at the top: loading the app costs ~0.4 s that `keys` and `version` need not pay
  const { chainModules } = await import('../app.ts');
  return fn(chainModules().modules);
}

/** Every module's default genesis, by module name (the app_state `chaind init` writes). */
export function defaultAppState(mm: ModuleManager): Record<string, unknown> {
  const out: Record<string, unknown> = {};
  for (const m of mm.modules.values()) if (m.defaultGenesis !== undefined) out[m.name] = m.defaultGenesis();
  return out;
}

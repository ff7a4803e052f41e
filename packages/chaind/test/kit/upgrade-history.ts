// Test support: a chain at a release reached by replaying the upgrade history (each upgrade scheduled by
// governance, halted at by the binary before it, applied by the binary with it), and the check the
// upgrade guide requires of every upgrade: that chain has the module versions and state layout of a chain
// started from that release's genesis.
import assert from 'node:assert/strict';
import { QueryModuleVersionsRequest, QueryModuleVersionsResponse } from '@chaind/sdk/gen/chain/upgrade/v1beta1/query';
import { toHex } from '@chaind/sdk/store';
import { UpgradeHaltError } from '@chaind/sdk/x/upgrade';
import { chainModules, moduleVersions } from '../../src/app.ts';
import type { Upgrade } from '../../src/upgrades/index.ts';
import { newHome, PASSED, softwareUpgrade, TestChain } from './chain.ts';

/** Blocks between scheduling an upgrade and its height: room for the proposal, the vote and the voting period. */
export const UPGRADE_DELAY = 25n;

export interface UpgradedChain {
  /** The chain, open as the binary of the last upgrade (close it). */
  readonly chain: TestChain;
  /** The height each upgrade was applied at, by name. */
  readonly heights: Readonly<Record<string, bigint>>;
}

/**
 * A chain started by the genesis release (no upgrades) in `home` (default: a new temp home), then
 * upgraded through `upgrades` in order as a network would be: a governance plan UPGRADE_DELAY blocks
 * ahead, the binary without the upgrade halting at its height, the binary with it applying it there.
 */
export async function upgradedThrough(upgrades: readonly Upgrade[], home: string = newHome()): Promise<UpgradedChain> {
  const heights: Record<string, bigint> = {};
  let chain = TestChain.open(home);
  for (let i = 0; i < upgrades.length; i++) {
    const { name } = upgrades[i];
    const h = chain.height + UPGRADE_DELAY;
    const p = chain.pass([softwareUpgrade(name, h)]);
    if (p.status !== PASSED) throw new Error(`upgradedThrough: the proposal of upgrade "${name}" did not pass (status ${p.status})`);
    chain.blocksUntil(h - 1n);
    assert.throws(
      () => chain.block(),
      (e: Error) => e instanceof UpgradeHaltError && e.kind === 'upgrade-needed',
      `the binary before "${name}" halts at ${h}`,
    );
    await chain.close();
    chain = TestChain.open(home, { upgrades: upgrades.slice(0, i + 1) });
    chain.block();
    assert.equal(chain.height, h, `upgrade "${name}" applied at ${h}`);
    heights[name] = h;
  }
  return { chain, heights };
}

/** The module versions the chain reports (query upgrade module_versions), as decimal strings by module. */
export function queriedModuleVersions(c: TestChain): Record<string, string> {
  const r = c.query('/chain.upgrade.v1beta1.Query/ModuleVersions', QueryModuleVersionsRequest.encode({ moduleName: '' }).finish());
  if (r.code !== 0) throw new Error(r.log);
  return Object.fromEntries(QueryModuleVersionsResponse.decode(r.value).moduleVersions.map((m) => [m.name, m.version.toString()]));
}

/**
 * Records that are history, not layout: a chain upgraded through releases has them and one started from
 * genesis does not (chaininfo 0x02 ‖ name: the upgrades applied). Per store, the first key bytes to leave out.
 */
export const HISTORY_RECORDS: Readonly<Record<string, readonly number[]>> = { chaininfo: [0x02] };

/**
 * The stores `upgrades` touch (those of every module an upgrade declares, and every store added or
 * renamed) that the app still mounts, each with the first bytes its keys start with (the layout: which records exist), leaving out
 * the `history` records.
 */
export function storeLayout(
  c: TestChain,
  upgrades: readonly Upgrade[],
  history: Readonly<Record<string, readonly number[]>> = HISTORY_RECORDS,
): Record<string, string[]> {
  const { modules } = chainModules({ upgrades });
  const stores = new Set<string>();
  for (const u of upgrades) {
    for (const name of Object.keys(u.modules ?? {})) for (const s of modules.modules.get(name)?.storeKeys ?? []) stores.add(s);
    for (const s of u.storeUpgrades.added ?? []) stores.add(s);
    for (const r of u.storeUpgrades.renamed ?? []) stores.add(r.newKey);
  }
  // a store a later upgrade deleted or renamed is not there any more
  const mounted = new Set(modules.storeKeys());
  return c.app.withQueryContext((ctx) => {
    const out: Record<string, string[]> = {};
    for (const store of [...stores].filter((s) => mounted.has(s)).sort()) {
      const skip = history[store] ?? [];
      const firsts = new Set<string>();
      for (const e of ctx.kvStore(store).iterator()) if (!skip.includes(e.key[0])) firsts.add(toHex(e.key.subarray(0, 1)));
      out[store] = [...firsts].sort();
    }
    return out;
  });
}

/**
 * Asserts that `upgraded` (a chain upgraded through `upgrades`, e.g. by upgradedThrough) has the module
 * versions `upgrades` declare and the same versions and store layout (storeLayout) as a chain started
 * from the genesis of the release of `upgrades` — what the upgrade guide requires of every upgrade.
 */
export async function assertSameAsGenesis(
  upgraded: TestChain,
  upgrades: readonly Upgrade[],
  history: Readonly<Record<string, readonly number[]>> = HISTORY_RECORDS,
): Promise<void> {
  const declared = Object.fromEntries(Object.entries(moduleVersions(upgrades)).map(([m, v]) => [m, v.toString()]));
  assert.deepEqual(queriedModuleVersions(upgraded), declared, 'the upgraded chain has the module versions its upgrades declare');
  const fromGenesis = TestChain.open(newHome(), { upgrades });
  try {
    assert.deepEqual(queriedModuleVersions(fromGenesis), declared, 'a chain started from genesis has the same module versions');
    assert.deepEqual(
      storeLayout(fromGenesis, upgrades, history),
      storeLayout(upgraded, upgrades, history),
      'a chain started from genesis has the same store layout',
    );
  } finally {
    await fromGenesis.close();
  }
}

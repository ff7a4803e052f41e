// The chaininfo module (introduced by upgrade v2): what the chain records about itself, in store "chaininfo".
//   0x01               → u64be height at which the module started (v2's upgrade height, or the genesis height)
//   0x02 ‖ upgrade name → u64be height at which that upgrade was applied (the chain's upgrade history)
// Genesis: {"upgrades": [{"name": "v2", "height": "123"}]} (heights as decimal strings).
import { ChaindError } from '@chaind/errors';
import type { AppModule, Context } from '@chaind/sdk/app';
import { concatBytes, prefixEnd, readU64be, u64be, utf8 } from '@chaind/sdk/store';
import { DONE_PREFIX, STORE_KEY as UPGRADE_STORE_KEY } from '@chaind/sdk/x/upgrade';

export const CHAININFO = 'chaininfo';
export const STARTED_AT_KEY = Uint8Array.of(0x01);
export const UPGRADE_PREFIX = Uint8Array.of(0x02);

export function upgradeRecordKey(name: string): Uint8Array {
  return concatBytes(UPGRADE_PREFIX, utf8(name));
}

export interface UpgradeRecordJSON {
  name: string;
  height: string;
}

export interface ChainInfoGenesisJSON {
  upgrades: UpgradeRecordJSON[];
}

export class ChainInfoGenesisError extends ChaindError<'genesis'> {
  override readonly name = 'ChainInfoGenesisError';
  constructor(detail: string) {
    super('genesis', `chaininfo genesis: ${detail}`);
  }
}

function parseGenesis(raw: unknown): { name: string; height: bigint }[] {
  if (typeof raw !== 'object' || raw === null || Array.isArray(raw)) throw new ChainInfoGenesisError('must be an object');
  const o = raw as Record<string, unknown>;
  for (const k of Object.keys(o)) if (k !== 'upgrades') throw new ChainInfoGenesisError(`unknown field "${k}"`);
  const list = o.upgrades ?? [];
  if (!Array.isArray(list)) throw new ChainInfoGenesisError('upgrades must be an array');
  const seen = new Set<string>();
  return list.map((x: unknown, i) => {
    const r = x as Record<string, unknown> | null;
    if (typeof r?.name !== 'string' || r.name === '') throw new ChainInfoGenesisError(`upgrades[${i}].name must be a non-empty string`);
    if (typeof r.height !== 'string' || !/^[1-9][0-9]*$/.test(r.height))
      throw new ChainInfoGenesisError(`upgrades[${i}].height must be a positive integer as a decimal string`);
    if (seen.has(r.name)) throw new ChainInfoGenesisError(`upgrades[${i}]: upgrade "${r.name}" is listed twice`);
    seen.add(r.name);
    return { name: r.name, height: BigInt(r.height) };
  });
}

/** Records that `name` was applied at `height`: chaininfo's onEveryUpgrade hook, from v2 on. */
export function recordUpgrade(ctx: Context, name: string, height: bigint): void {
  ctx.kvStore(CHAININFO).set(upgradeRecordKey(name), u64be(height));
}

/** The upgrade history, in name byte order. */
export function upgradeHistory(ctx: Context): { name: string; height: bigint }[] {
  const out: { name: string; height: bigint }[] = [];
  for (const e of ctx.kvStore(CHAININFO).iterator(UPGRADE_PREFIX, prefixEnd(UPGRADE_PREFIX))) {
    out.push({ name: new TextDecoder().decode(e.key.subarray(1)), height: readU64be(e.value) });
  }
  return out;
}

export function chainInfoModule(): AppModule {
  return {
    name: CHAININFO,
    storeKeys: [CHAININFO],
    consensusVersion: 1n,
    defaultGenesis: (): ChainInfoGenesisJSON => ({ upgrades: [] }),
    validateGenesis(genesis) {
      parseGenesis(genesis);
    },
    // runs at genesis, or from runMigrations when an upgrade adds the module
    initGenesis(ctx, genesis) {
      const store = ctx.kvStore(CHAININFO);
      store.set(STARTED_AT_KEY, u64be(ctx.height));
      for (const u of parseGenesis(genesis)) store.set(upgradeRecordKey(u.name), u64be(u.height));
      // upgrades applied before this module existed are copied from the upgrade module's done records
      if (ctx.store.hasStore(UPGRADE_STORE_KEY)) {
        for (const e of ctx.kvStore(UPGRADE_STORE_KEY).iterator(DONE_PREFIX, prefixEnd(DONE_PREFIX))) {
          store.set(concatBytes(UPGRADE_PREFIX, e.key.subarray(DONE_PREFIX.length)), e.value);
        }
      }
    },
    exportGenesis: (ctx): ChainInfoGenesisJSON => ({ upgrades: upgradeHistory(ctx).map((u) => ({ name: u.name, height: u.height.toString() })) }),
  };
}

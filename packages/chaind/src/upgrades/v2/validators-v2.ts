// The validators module at consensus version 2: its store is "valset", and it keeps the set's total
// power in a record of its own (key 0x03), written by the 1 → 2 migration (on a chain that starts at v2
// too, right after InitGenesis). The set is fixed at genesis, so the record never goes stale.
import type { Context } from '@chaind/sdk/app';
import { u64be } from '@chaind/sdk/store';
import type { ValidatorsKeeper } from '@chaind/sdk/x/validators';

export const VALSET_STORE_KEY = 'valset';
/** 0x03 → u64be total voting power of the set. */
export const TOTAL_POWER_KEY = Uint8Array.of(0x03);

export function writeTotalPower(ctx: Context, k: ValidatorsKeeper): void {
  k.store(ctx).set(TOTAL_POWER_KEY, u64be(k.totalPower(ctx)));
}

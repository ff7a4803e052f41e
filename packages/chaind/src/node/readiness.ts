// What this validator attests in its vote extension: read from the files chainvisor and `upgrade simulate`
// leave in the home, never from the chain's state (docs/upgrade-module.md, "Readiness").
import { createHash } from 'node:crypto';
import { readFileSync, statSync } from 'node:fs';
import { join } from 'node:path';
import { readPlanRecordIn, upgradeFolderName } from '@chaind/upgrade-plan';
import { SimulateResult } from '@chaind/sdk/gen/chain/upgrade/v1beta1/readiness';
import type { Plan } from '@chaind/sdk/gen/chain/upgrade/v1beta1/upgrade';
import type { LocalReadiness } from '@chaind/sdk/x/upgrade';
import { lastSimulation } from './side-files.ts';

interface Hashed {
  readonly path: string;
  readonly mtimeMs: number;
  readonly size: number;
  readonly checksum: string;
}

/**
 * The release prepared for `plan` under `<home>/cosmovisor/upgrades/<folder>`: the checksum chainvisor verified
 * when the record there is of this very plan (name, and info byte for byte); a release without a record
 * (installed by `chainvisor add-upgrade`) by the sha256 of its binary; a record of another plan: nothing.
 * `upgrade simulate` counts when its last result is of this plan's name and height.
 */
export function localReadinessReader(home: string, daemonName = 'chaind'): (plan: Plan) => LocalReadiness {
  let hashed: Hashed | undefined;
  const binaryChecksum = (path: string): string => {
    const st = statSync(path, { throwIfNoEntry: false });
    if (st === undefined || !st.isFile()) return '';
    // ExtendVote runs every block: a binary is hashed again only when it changed
    if (hashed?.path === path && hashed.mtimeMs === st.mtimeMs && hashed.size === st.size) return hashed.checksum;
    const checksum = `sha256:${createHash('sha256').update(readFileSync(path)).digest('hex')}`;
    hashed = { path, mtimeMs: st.mtimeMs, size: st.size, checksum };
    return checksum;
  };
  return (plan) => {
    let folder: string;
    try {
      folder = upgradeFolderName(plan.name);
    } catch {
      return { releaseChecksum: '', simulate: SimulateResult.SIMULATE_RESULT_UNSPECIFIED };
    }
    const dir = join(home, 'cosmovisor', 'upgrades', folder);
    // chainvisor's record of the plan it installed the release for: the same info, as chainvisor matches it
    const record = readPlanRecordIn(dir);
    let releaseChecksum = '';
    if ('absent' in record) releaseChecksum = binaryChecksum(join(dir, 'bin', daemonName));
    else if (!('unreadable' in record) && record.name === plan.name && record.info === plan.info)
      releaseChecksum = record.checksum ?? binaryChecksum(join(dir, 'bin', daemonName));
    const sim = lastSimulation(home);
    const simulate =
      sim === undefined || sim.name !== plan.name || sim.height !== plan.height.toString()
        ? SimulateResult.SIMULATE_RESULT_UNSPECIFIED
        : sim.passed
          ? SimulateResult.SIMULATE_RESULT_PASSED
          : SimulateResult.SIMULATE_RESULT_FAILED;
    return { releaseChecksum, simulate };
  };
}

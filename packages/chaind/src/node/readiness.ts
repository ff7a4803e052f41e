// What this validator attests in its vote extension: read from the files chainvisor and `upgrade simulate`
// leave in the home, never from the chain's state (docs/upgrade-module.md, "Readiness").
import { createHash } from 'node:crypto';
import { readFileSync, statSync } from 'node:fs';
import { join } from 'node:path';
import { upgradeFolderName } from '@chaind/upgrade-plan';
import { SimulateResult } from '@chaind/sdk/gen/chain/upgrade/v1beta1/readiness';
import type { Plan } from '@chaind/sdk/gen/chain/upgrade/v1beta1/upgrade';
import type { LocalReadiness } from '@chaind/sdk/x/upgrade';
import { errnoCode } from '@chaind/errors';
import { lastSimulation } from './rest/dashboard.ts';

/** chainvisor's record of the plan a release was installed for (`upgrades/<folder>/chainvisor-plan.json`). */
const PLAN_RECORD = 'chainvisor-plan.json';

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
    const record = readRecord(join(dir, PLAN_RECORD));
    let releaseChecksum = '';
    if (record === 'absent') releaseChecksum = binaryChecksum(join(dir, 'bin', daemonName));
    // by name and info, as chainvisor matches its releases: the readiness gate may have moved the plan's height since
    else if (record !== 'unreadable' && record.name === plan.name && record.info === plan.info)
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

interface PlanRecord {
  readonly name: string;
  readonly height: string;
  readonly info: string;
  readonly checksum: string | null;
}

function readRecord(path: string): PlanRecord | 'absent' | 'unreadable' {
  let text: string;
  try {
    text = readFileSync(path, 'utf8');
  } catch (e) {
    return errnoCode(e) === 'ENOENT' ? 'absent' : 'unreadable';
  }
  try {
    const r = JSON.parse(text) as Partial<PlanRecord> | null;
    if (r === null || typeof r !== 'object' || typeof r.name !== 'string' || typeof r.height !== 'string' || typeof r.info !== 'string') return 'unreadable';
    return { name: r.name, height: r.height, info: r.info, checksum: typeof r.checksum === 'string' ? r.checksum : null };
  } catch {
    return 'unreadable';
  }
}

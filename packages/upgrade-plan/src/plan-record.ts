// The plan a downloaded release was installed for, kept beside it: a plan re-proposed under the same name with
// another release must never run the release prepared for the first one. chainvisor writes it; chainvisor and
// chaind's readiness attestation read it, by the one rule below (the same plan: the same info, byte for byte).
import { readFileSync } from 'node:fs';
import { join } from 'node:path';
import { errorMessage, errnoCode } from '@chaind/errors';
import type { ReleaseSource } from './resolve.ts';
import type { UpgradeInfoFile } from './upgrade-info.ts';

/** upgrades/<folder>/chainvisor-plan.json, written into the release folder before it is renamed into place. */
export const PLAN_RECORD = 'chainvisor-plan.json';

export interface PlanRecord {
  readonly name: string;
  readonly height: string;
  /** the plan's info, byte for byte: what a later plan is compared with */
  readonly info: string;
  readonly url: string;
  readonly checksum: string | null;
}

export function planRecordText(u: UpgradeInfoFile, src: ReleaseSource): string {
  const r: PlanRecord = {
    name: u.name,
    height: u.height.toString(),
    info: u.info,
    url: src.url,
    checksum: src.checksum ? `${src.checksum.algo}:${src.checksum.hex.toLowerCase()}` : null,
  };
  return `${JSON.stringify(r, null, 2)}\n`;
}

/** The record in `dir`: absent (a release installed by hand), or why it cannot be read, or the record. */
export function readPlanRecordIn(dir: string): PlanRecord | { readonly absent: true } | { readonly unreadable: string } {
  let text: string;
  try {
    text = readFileSync(join(dir, PLAN_RECORD), 'utf8');
  } catch (e) {
    if (errnoCode(e) === 'ENOENT') return { absent: true };
    return { unreadable: `its ${PLAN_RECORD} cannot be read (${errorMessage(e)})` };
  }
  let rec: unknown;
  try {
    rec = JSON.parse(text);
  } catch {
    return { unreadable: `its ${PLAN_RECORD} is not valid JSON` };
  }
  if (typeof rec !== 'object' || rec === null || typeof (rec as PlanRecord).info !== 'string') return { unreadable: `its ${PLAN_RECORD} names no plan info` };
  const r = rec as Partial<PlanRecord>;
  return {
    name: typeof r.name === 'string' ? r.name : '',
    height: typeof r.height === 'string' ? r.height : '',
    info: r.info as string,
    url: typeof r.url === 'string' ? r.url : '',
    checksum: typeof r.checksum === 'string' ? r.checksum : null,
  };
}

/**
 * Why the release installed in `dir` is not the one of the plan with `info`, or null when it is, or when it has
 * no record (installed by hand by the operator: trusted as is). An unreadable record counts as another plan's.
 */
export function staleRelease(dir: string, info: string): string | null {
  const r = readPlanRecordIn(dir);
  if ('absent' in r) return null;
  if ('unreadable' in r) return r.unreadable;
  if (r.info === info) return null;
  return `it was installed for the plan ${r.name} at height ${r.height} with another info (${r.checksum ?? 'no checksum'} from ${r.url})`;
}

/** The record of the release installed in `dir`; undefined when there is none or it cannot be read. */
export function readPlanRecord(dir: string): PlanRecord | undefined {
  const r = readPlanRecordIn(dir);
  return 'absent' in r || 'unreadable' in r ? undefined : r;
}

// chainvisor's status file, $DAEMON_HOME/cosmovisor/status.json: the state of the metrics (running, downloading,
// prepared, upgrading), the plan whose release is downloading or prepared with its checksum, and the download's
// progress. The node's upgrade dashboard reads it; it is replaced atomically, so a reader sees a whole file.
import { renameSync, rmSync, writeFileSync } from 'node:fs';
import { basename, dirname, join } from 'node:path';
import { leftoversIn } from '@chaind/upgrade-plan';
import { syncDirSync, syncFileSync } from './fsync.ts';
import type { Logger } from './log.ts';
import type { PlanRef, VisorMetrics, VisorState } from './metrics.ts';
import { errorMessage } from '@chaind/errors';

export const STATUS_FILE = 'status.json';

/** The file's JSON (heights and byte counts as numbers are safe: a height below 2^53, a download below its limit). */
export interface VisorStatus {
  readonly state: VisorState;
  /** the plan whose release is downloading or prepared (kept while upgrading); null when none */
  readonly plan: { readonly name: string; readonly height: string } | null;
  /** the prepared release's checksum, `algo:hex`; null while downloading, or when the plan gave none */
  readonly checksum: string | null;
  /** the current (or last) download: bytes received of total (null: the server did not say) */
  readonly download: { readonly bytes: number; readonly total: number | null } | null;
  /** when this was written (ISO 8601) */
  readonly updated: string;
  readonly pid: number;
}

export const DEFAULT_STATUS_PROGRESS_INTERVAL_MS = 500;

export function statusPath(cosmovisorDir: string): string {
  return join(cosmovisorDir, STATUS_FILE);
}

/**
 * A VisorMetrics that keeps the status file up to date: every state change is written at once, download progress at
 * most every `progressIntervalMs`. A failed write is logged once and never stops chainvisor.
 */
export function statusFileWriter(path: string, log: Logger, progressIntervalMs = DEFAULT_STATUS_PROGRESS_INTERVAL_MS): VisorMetrics {
  let s: VisorStatus = { state: 'running', plan: null, checksum: null, download: null, updated: '', pid: process.pid };
  let lastProgress = -Infinity;
  let warned = false;
  // temp files of runs killed before their rename: nothing else would ever remove them
  for (const n of leftoversIn(dirname(path), `${basename(path)}.tmp-`)) rmSync(join(dirname(path), n), { force: true });
  const write = (next: Partial<VisorStatus>): void => {
    s = { ...s, ...next, updated: new Date().toISOString() };
    const tmp = `${path}.tmp-${process.pid}`;
    try {
      writeFileSync(tmp, `${JSON.stringify(s, null, 2)}\n`);
      syncFileSync(tmp);
      renameSync(tmp, path);
      syncDirSync(dirname(path));
      warned = false;
    } catch (e) {
      if (!warned) log.warn(`cannot write the status file ${path}: ${errorMessage(e)}`);
      warned = true;
    }
  };
  return {
    state(state: VisorState, plan?: PlanRef) {
      if (state === 'running') write({ state, plan: null, checksum: null, download: null });
      else if (plan === undefined) write({ state });
      else
        write({
          state,
          plan: { name: plan.name, height: plan.height.toString() },
          checksum: plan.checksum ?? null,
          ...(state === 'downloading' ? { download: null } : {}),
        });
    },
    download(bytes, total) {
      const now = performance.now();
      const done = total !== null && bytes >= total;
      s = { ...s, download: { bytes, total } };
      if (done || now - lastProgress >= progressIntervalMs) {
        lastProgress = now;
        write({});
      }
    },
    prepared() {},
    upgraded() {},
    restarted() {},
  };
}

/** Both: every call goes to each. */
export function bothMetrics(a: VisorMetrics, b: VisorMetrics): VisorMetrics {
  return {
    state: (s, p) => (a.state(s, p), b.state(s, p)),
    download: (x, t) => (a.download(x, t), b.download(x, t)),
    prepared: (n) => (a.prepared(n), b.prepared(n)),
    upgraded: (n, d, p) => (a.upgraded(n, d, p), b.upgraded(n, d, p)),
    restarted: () => (a.restarted(), b.restarted()),
  };
}

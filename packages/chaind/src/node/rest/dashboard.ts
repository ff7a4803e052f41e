// The upgrade dashboard (issue 21): GET /upgrade serves dashboard.html as is (one self-contained page), and
// GET /upgrade/status the JSON it needs besides the gateway routes: chain id, height, block time and the recent
// block interval, the applied-upgrade history with times, chainvisor's status file and `upgrade simulate`'s
// last result. The page fetches the plan, proposals, tallies and module versions from the gateway routes.
// Every time is a block header's (the driver's blockTime: the block store in solo mode, FinalizeBlock's time
// or CometBFT's RPC behind CometBFT), never when this node happened to see the block.
import { readFileSync } from 'node:fs';
import { join } from 'node:path';
import type { FastifyInstance } from 'fastify';
import type { Timestamp } from 'cosmjs-types/google/protobuf/timestamp';
import { formatRFC3339 } from '@chaind/sdk/types';
import type { LocalReadiness } from '@chaind/sdk/x/upgrade';
import { CHAIND_VERSION } from '../../version.ts';
import type { ConsensusDriver } from '../driver.ts';
import { secondsBetween } from '../metrics/metrics.ts';
import { status } from '../grpc-status.ts';
import { NO_STATE_YET } from '../query/query.ts';
import { readSideFile, SIMULATE_RESULT_FILE, VISOR_STATUS_FILE, type SideFile } from '../side-files.ts';

export const DASHBOARD_PATH = '/upgrade';
export const DASHBOARD_STATUS_PATH = '/upgrade/status';
/** Blocks the recent block interval is averaged over. */
export const DEFAULT_DASHBOARD_INTERVAL_BLOCKS = 20;

const PAGE = new URL('./dashboard.html', import.meta.url);

export interface DashboardSource {
  readonly home: string;
  readonly driver: ConsensusDriver;
  /** The applied upgrades by height, at the latest committed state. */
  history(): { name: string; height: bigint }[];
  /** What this node attests of the scheduled plan's release (its vote extension's source); null without a plan. */
  ownReadiness?(): LocalReadiness | null;
  /** Blocks the recent interval is averaged over (default 20). */
  readonly intervalBlocks?: number;
}

export interface AppliedUpgrade {
  readonly name: string;
  readonly height: string;
  /** the header time of the block at that height (RFC 3339, to the nanosecond); null when it cannot be had */
  readonly time: string | null;
}

export interface DashboardStatus {
  readonly chain_id: string;
  readonly node_version: string;
  readonly height: string;
  /** the latest committed block's header time (RFC 3339, to the nanosecond, as CometBFT writes it); null when it cannot be had */
  readonly block_time: string | null;
  /** mean time between the recent blocks' header times, ms; null before two blocks */
  readonly block_interval_ms: number | null;
  readonly history: readonly AppliedUpgrade[];
  readonly chainvisor: SideFile;
  readonly simulate: SideFile;
  /** this node's release for the scheduled plan, by the rule of its vote extension: its checksum ("" when none prepared); null without a plan */
  readonly release: { readonly checksum: string } | null;
}

function ownRelease(src: DashboardSource): { readonly checksum: string } | null {
  const r = src.ownReadiness?.();
  return r === undefined || r === null ? null : { checksum: r.releaseChecksum };
}

/** A header time, or undefined when the driver has none or cannot get it (CometBFT's RPC down): shown as null. */
async function timeOf(driver: ConsensusDriver, height: bigint): Promise<Timestamp | undefined> {
  try {
    return await driver.blockTime(height);
  } catch {
    return undefined;
  }
}

/** Serves the page and its status JSON; returns the function that stops watching blocks. */
export function registerDashboard(f: FastifyInstance, src: DashboardSource): () => void {
  const n = src.intervalBlocks ?? DEFAULT_DASHBOARD_INTERVAL_BLOCKS;
  if (!Number.isSafeInteger(n) || n < 1) throw new Error(`dashboard interval blocks must be a positive integer, got ${n}`);
  // the header times of the last blocks committed: the interval's far end when the driver no longer has it
  const recent: { height: bigint; time: Timestamp }[] = [];
  const unsubscribe = src.driver.onBlock((b) => {
    recent.push({ height: b.height, time: b.time });
    if (recent.length > n + 1) recent.shift();
  });

  f.get(DASHBOARD_PATH, { schema: { summary: 'The upgrade dashboard: a self-contained HTML page.', tags: ['chaind'] } }, async (_req, reply) => {
    // read per request: a few KB, and an edited page shows without a restart
    return reply.type('text/html; charset=utf-8').header('cache-control', 'no-store').send(readFileSync(PAGE, 'utf8'));
  });
  f.get(
    DASHBOARD_STATUS_PATH,
    {
      schema: {
        summary:
          "What the upgrade dashboard needs besides the gateway routes: height, block times, upgrade history, chainvisor's status, the last upgrade simulation.",
        tags: ['chaind'],
      },
    },
    async (_req, reply) => {
      const height = src.driver.height;
      if (height === 0n)
        return reply
          .code(503)
          .header('cache-control', 'no-store')
          .type('application/json; charset=utf-8')
          .send(JSON.stringify({ code: status.UNAVAILABLE, message: NO_STATE_YET, details: [] }));
      const back = height - BigInt(n) > 0n ? height - BigInt(n) : 1n;
      const history = src.history();
      // one await for all: behind CometBFT each may be a call to its RPC (bounded by its timeout)
      const [latest, backTime, ...historyTimes] = await Promise.all([
        timeOf(src.driver, height),
        timeOf(src.driver, back),
        ...history.map((u) => timeOf(src.driver, u.height)),
      ]);
      let first = backTime;
      let from = back;
      const oldest = recent.at(0);
      if (first === undefined && oldest !== undefined && oldest.height < height) {
        first = oldest.time;
        from = oldest.height;
      }
      const interval = latest !== undefined && first !== undefined && height > from ? (secondsBetween(first, latest) * 1000) / Number(height - from) : null;
      const rfc3339 = (t: Timestamp | undefined): string | null => (t === undefined ? null : formatRFC3339(t));
      const body: DashboardStatus = {
        chain_id: src.driver.chainId,
        node_version: CHAIND_VERSION,
        height: height.toString(),
        block_time: rfc3339(latest),
        block_interval_ms: interval === null ? null : Math.round(interval),
        history: history.map((u, i) => ({ name: u.name, height: u.height.toString(), time: rfc3339(historyTimes[i]) })),
        chainvisor: readSideFile(join(src.home, VISOR_STATUS_FILE)),
        simulate: readSideFile(join(src.home, SIMULATE_RESULT_FILE)),
        release: ownRelease(src),
      };
      return reply.header('cache-control', 'no-store').type('application/json; charset=utf-8').send(JSON.stringify(body));
    },
  );
  return unsubscribe;
}

// chainvisor's Prometheus metrics (DAEMON_METRICS_ADDRESS): every definition here, behind the
// VisorMetrics interface run, prepare and the installer call (nopVisorMetrics when off), and the
// /metrics endpoint itself.
import { createServer, type Server } from 'node:http';
import type { AddressInfo } from 'node:net';
import { Counter, Gauge, Registry } from 'prom-client';
import { ChainvisorError, EXIT } from './exit-codes.ts';

export const VISOR_STATES = ['running', 'downloading', 'prepared', 'upgrading'] as const;
export type VisorState = (typeof VISOR_STATES)[number];

/** The steps of an upgrade's downtime, in seconds: halt seen → the new binary's first block. */
export interface DowntimePhases {
  readonly stop: number;
  readonly delay: number;
  readonly backup: number;
  readonly script: number;
  readonly binary: number;
  readonly preUpgrade: number;
  readonly switch: number;
  /** the new binary's start → its first block */
  readonly start: number;
}

/** The plan a state is about (downloading, prepared): its release's checksum once prepared. */
export interface PlanRef {
  readonly name: string;
  readonly height: bigint;
  readonly checksum?: string | null;
}

export interface VisorMetrics {
  /** `plan`: the plan being downloaded or prepared (the status file shows it; the metrics need only the state). */
  state(s: VisorState, plan?: PlanRef): void;
  /** A download's progress: bytes received, of `total` (null: unknown). */
  download(bytes: number, total: number | null): void;
  /** The release of plan `name` is installed ahead of its halt. */
  prepared(name: string): void;
  /** An upgrade finished: its downtime (undefined: the first block was never seen) and phases, in seconds. */
  upgraded(name: string, downtime: number | undefined, phases: DowntimePhases): void;
  /** The daemon was launched again (after an upgrade). */
  restarted(): void;
}

export const nopVisorMetrics: VisorMetrics = { state() {}, download() {}, prepared() {}, upgraded() {}, restarted() {} };

export function createVisorMetrics(): { readonly metrics: VisorMetrics; readonly registry: Registry } {
  const registry = new Registry();
  const registers = [registry];
  const state = new Gauge({
    name: 'chainvisor_state',
    help: "1 for chainvisor's current state (running, downloading, prepared, upgrading), 0 for the others.",
    labelNames: ['state'],
    registers,
  });
  const dlBytes = new Gauge({ name: 'chainvisor_download_bytes', help: 'Bytes received of the current (or last) release download.', registers });
  const dlTotal = new Gauge({
    name: 'chainvisor_download_size_bytes',
    help: 'Size of the current (or last) release download; 0 when the server did not say.',
    registers,
  });
  const prepared = new Gauge({
    name: 'chainvisor_upgrade_prepared',
    help: '1 when the release of the scheduled plan `name` is installed ahead of its height.',
    labelNames: ['name'],
    registers,
  });
  const downtime = new Gauge({
    name: 'chainvisor_last_upgrade_downtime_seconds',
    help: "The last upgrade's downtime: the halt seen to the new binary's first block.",
    labelNames: ['name'],
    registers,
  });
  const phase = new Gauge({
    name: 'chainvisor_last_upgrade_phase_seconds',
    help: "The last upgrade's downtime by step.",
    labelNames: ['name', 'phase'],
    registers,
  });
  const upgrades = new Counter({ name: 'chainvisor_upgrades_total', help: 'Upgrades carried out since chainvisor started.', registers });
  const restarts = new Counter({ name: 'chainvisor_restarts_total', help: 'Launches of the daemon after the first (after each upgrade).', registers });
  for (const s of VISOR_STATES) state.set({ state: s }, 0);
  dlBytes.set(0);
  dlTotal.set(0);
  return {
    registry,
    metrics: {
      state(s) {
        for (const x of VISOR_STATES) state.set({ state: x }, x === s ? 1 : 0);
      },
      download(bytes, total) {
        dlBytes.set(bytes);
        dlTotal.set(total ?? 0);
      },
      prepared(name) {
        prepared.reset();
        prepared.set({ name }, 1);
      },
      upgraded(name, d, p) {
        prepared.reset();
        upgrades.inc();
        downtime.reset();
        phase.reset();
        if (d !== undefined) downtime.set({ name }, d);
        const phases: Record<string, number> = {
          stop: p.stop,
          delay: p.delay,
          backup: p.backup,
          script: p.script,
          binary: p.binary,
          pre_upgrade: p.preUpgrade,
          switch: p.switch,
          start_to_first_block: p.start,
        };
        for (const [k, v] of Object.entries(phases)) phase.set({ name, phase: k }, v);
      },
      restarted: () => restarts.inc(),
    },
  };
}

/** `host:port` (an IPv6 host in brackets); undefined when it is not one. */
export function parseMetricsAddress(s: string): { host: string; port: number } | undefined {
  const m = /^(?:\[([^\]]+)\]|([^:[\]\s]+)):(\d{1,5})$/.exec(s);
  if (m === null || Number(m[3]) > 65535) return undefined;
  return { host: m[1] ?? m[2], port: Number(m[3]) };
}

export interface VisorMetricsServer {
  readonly url: string;
  close(): Promise<void>;
}

/** Serves /metrics on DAEMON_METRICS_ADDRESS with at most `maxConnections` open (0: no limit). */
export async function serveVisorMetrics(address: string, maxConnections: number, registry: Registry): Promise<VisorMetricsServer> {
  const a = parseMetricsAddress(address);
  if (a === undefined) throw new ChainvisorError(EXIT.CONFIG, `DAEMON_METRICS_ADDRESS: expected host:port, got ${JSON.stringify(address)}`);
  const server: Server = createServer((req, res) => {
    if ((req.url ?? '/').split('?')[0] !== '/metrics' || (req.method !== 'GET' && req.method !== 'HEAD')) {
      res.writeHead(404, { 'content-type': 'text/plain' }).end('404 page not found\n');
      return;
    }
    registry.metrics().then(
      (text) => res.writeHead(200, { 'content-type': registry.contentType }).end(req.method === 'HEAD' ? undefined : text),
      (e: unknown) => res.writeHead(500, { 'content-type': 'text/plain' }).end(`${String(e)}\n`),
    );
  });
  if (maxConnections > 0) server.maxConnections = maxConnections;
  server.requestTimeout = 10_000;
  server.headersTimeout = 10_000;
  server.keepAliveTimeout = 5_000;
  await new Promise<void>((resolve, reject) => {
    server.once('error', (e) => reject(new ChainvisorError(EXIT.CONFIG, `DAEMON_METRICS_ADDRESS ${address}: ${e.message}`)));
    server.listen(a.port, a.host, () => resolve());
  });
  const bound = server.address() as AddressInfo;
  // the daemon must not wait on it: chainvisor exits when the daemon's work is done
  server.unref();
  return {
    url: `http://${bound.family === 'IPv6' ? `[${bound.address}]` : bound.address}:${bound.port}/metrics`,
    close: () =>
      new Promise<void>((resolve) => {
        server.close(() => resolve());
        server.closeAllConnections();
      }),
  };
}

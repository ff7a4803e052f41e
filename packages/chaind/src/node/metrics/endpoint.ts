// Which /metrics endpoint a node serves: config.toml's [instrumentation] in solo mode (chaind is the
// whole node); app.toml's [instrumentation] behind CometBFT, which serves its own on config.toml's.
import { ConfigError, hostPort, type Instrumentation, type LoadedConfig } from '../../config/index.ts';

const anyHost = (h: string): boolean => h === '0.0.0.0' || h === '::';

/**
 * The endpoint to serve (undefined: none), and warnings. Behind CometBFT, app.toml's endpoint on the port
 * CometBFT's Prometheus server takes is refused with a ConfigError: one of the two would fail to listen.
 */
export function metricsEndpoint(c: LoadedConfig, solo: boolean): { endpoint: Instrumentation | undefined; warnings: string[] } {
  const comet = c.node.instrumentation;
  const ours = c.app.instrumentation;
  if (solo) {
    const warnings = ours.prometheus
      ? ["app.toml [instrumentation] prometheus = true is for a node behind CometBFT (`chaind start`) only: a solo node serves config.toml's [instrumentation]"]
      : [];
    return { endpoint: comet.prometheus ? comet : undefined, warnings };
  }
  if (!ours.prometheus) return { endpoint: undefined, warnings: [] };
  const a = ours.listenAddr;
  const b = comet.listenAddr;
  if (comet.prometheus && a.port === b.port && (a.host === b.host || anyHost(a.host) || anyHost(b.host))) {
    throw new ConfigError(
      `app.toml [instrumentation] prometheus-listen-addr = "${hostPort(a)}" is the address of CometBFT's own metrics (config.toml [instrumentation] prometheus_listen_addr = "${hostPort(b)}", prometheus = true): give chaind's metrics another port`,
    );
  }
  return { endpoint: ours, warnings: [] };
}

import { formatGoLayout, localWallTime, TIME_LAYOUTS } from './log-time.ts';

/**
 * chainvisor's own log lines. They go to stderr with a `[chainvisor]` prefix, so the node's stdout
 * (JSON logs, query output) is never interleaved with ours (cosmovisor #11555).
 */
export type Level = 'INF' | 'WRN' | 'ERR';

export interface Logger {
  info(msg: string): void;
  warn(msg: string): void;
  /** Errors are printed even with COSMOVISOR_DISABLE_LOGS: they explain a non-zero exit. */
  error(msg: string): void;
}

export interface LogOptions {
  readonly disabled: boolean;
  readonly color: boolean;
  /** one of TIME_LAYOUTS' keys; '' (cosmovisor's) or 'none' = no timestamp */
  readonly timeFormat: string;
  readonly write?: (line: string) => void;
  readonly isTTY?: boolean;
  readonly now?: () => Date;
}

const COLORS: Record<Level, string> = { INF: '\x1b[32m', WRN: '\x1b[33m', ERR: '\x1b[31m' };

export function createLogger(o: LogOptions): Logger {
  const write = o.write ?? ((line: string): void => void process.stderr.write(line + '\n'));
  // colour only on a terminal: escape codes in a log file are noise
  const color = o.color && (o.isTTY ?? process.stderr.isTTY === true);
  const layout = o.timeFormat === '' || o.timeFormat === 'none' ? undefined : TIME_LAYOUTS[o.timeFormat];
  const now = o.now ?? ((): Date => new Date());
  const emit = (level: Level, msg: string): void => {
    const lvl = color ? `${COLORS[level]}${level}\x1b[0m` : level;
    const ts = layout !== undefined ? `${formatGoLayout(layout, localWallTime(now()))} ` : '';
    write(`[chainvisor] ${ts}${lvl} ${msg}`);
  };
  return {
    info: (m) => (o.disabled ? undefined : emit('INF', m)),
    warn: (m) => (o.disabled ? undefined : emit('WRN', m)),
    error: (m) => emit('ERR', m),
  };
}

/** Milliseconds as a short human duration: `850ms`, `1.234s`. */
export function ms(n: number): string {
  return n < 1000 ? `${Math.round(n)}ms` : `${(n / 1000).toFixed(3)}s`;
}

import type { Logger } from '@chaind/sdk/app';

export type LogLevel = 'debug' | 'info' | 'warn' | 'error';
const RANK: Record<LogLevel, number> = { debug: 0, info: 1, warn: 2, error: 3 };
const TAG: Record<LogLevel, string> = { debug: 'DBG', info: 'INF', warn: 'WRN', error: 'ERR' };

export function isLogLevel(s: string): s is LogLevel {
  return Object.hasOwn(RANK, s);
}

function render(v: unknown): string {
  const s = typeof v === 'string' ? v : typeof v === 'bigint' ? v.toString() : JSON.stringify(v);
  return /[\s"=]/.test(s) ? JSON.stringify(s) : s;
}

/**
 * The node's log: one line per entry on stderr, `<time> <LVL> <message> key=value…`. The message is
 * written verbatim so sidecars that scan for `UPGRADE "<name>" NEEDED at height:` find it.
 */
export function lineLogger(level: LogLevel = 'info', write: (line: string) => void = (l) => process.stderr.write(l)): Logger {
  const at =
    (lvl: LogLevel) =>
    (msg: string, fields?: Readonly<Record<string, unknown>>): void => {
      if (RANK[lvl] < RANK[level]) return;
      const kv =
        fields === undefined
          ? ''
          : Object.entries(fields)
              .map(([k, v]) => ` ${k}=${render(v)}`)
              .join('');
      write(`${new Date().toISOString()} ${TAG[lvl]} ${msg}${kv}\n`);
    };
  return { debug: at('debug'), info: at('info'), warn: at('warn'), error: at('error'), debugEnabled: level === 'debug' };
}

/** The logger the framework writes to; the node plugs in its own (pino). Fields are plain key/values. */
export interface Logger {
  debug(msg: string, fields?: Readonly<Record<string, unknown>>): void;
  info(msg: string, fields?: Readonly<Record<string, unknown>>): void;
  warn(msg: string, fields?: Readonly<Record<string, unknown>>): void;
  error(msg: string, fields?: Readonly<Record<string, unknown>>): void;
  /** False when debug lines are dropped: callers may then skip the work of producing them (per-request logs). */
  readonly debugEnabled?: boolean;
}

export const nopLogger: Logger = { debug() {}, info() {}, warn() {}, error() {}, debugEnabled: false };

/** A logger that keeps every line, for tests and tools that assert on exact log texts. */
export class MemoryLogger implements Logger {
  readonly lines: { level: string; msg: string; fields?: Readonly<Record<string, unknown>> }[] = [];
  debug(msg: string, fields?: Readonly<Record<string, unknown>>): void {
    this.lines.push({ level: 'debug', msg, fields });
  }
  info(msg: string, fields?: Readonly<Record<string, unknown>>): void {
    this.lines.push({ level: 'info', msg, fields });
  }
  warn(msg: string, fields?: Readonly<Record<string, unknown>>): void {
    this.lines.push({ level: 'warn', msg, fields });
  }
  error(msg: string, fields?: Readonly<Record<string, unknown>>): void {
    this.lines.push({ level: 'error', msg, fields });
  }
}

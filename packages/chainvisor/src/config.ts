import { readFileSync } from 'node:fs';
import { isAbsolute, join, relative, resolve } from 'node:path';
import { parse as parseToml, TomlError } from 'smol-toml';
import { ChainvisorError, EXIT } from './exit-codes.ts';
import { TIME_LAYOUTS } from './log-time.ts';
import { parseMetricsAddress } from './metrics.ts';
import {
  clip,
  DEFAULT_EXTRACT_LIMITS,
  DEFAULT_UPGRADE_INFO_MAX_BYTES,
  durationMs,
  durationNs,
  folderNameProblem,
  formatGoDuration,
  parseGoDuration,
  quote,
  type ParsedGoDuration,
  type UpgradeInfoLimit,
} from '@chaind/upgrade-plan';
import { errorMessage } from '@chaind/errors';

type Kind = 'string' | 'bool' | 'duration' | 'uint' | 'path';

/** What a setting of each kind resolves to: durations in milliseconds. */
interface KindValue {
  readonly string: string;
  readonly bool: boolean;
  readonly duration: number;
  readonly uint: number;
  readonly path: string;
}

export interface Setting {
  readonly env: string;
  /** its name in Config */
  readonly field: string;
  readonly kind: Kind;
  /** the default as the user would write it; undefined = required */
  readonly def?: string;
  /** what it does (Markdown: docs/chainvisor.md's table is made from it) */
  readonly doc: string;
  /** `same`, or how it differs from cosmovisor (*differs*) or is not in cosmovisor (*ours*), and why */
  readonly cosmovisor: string;
}

/**
 * The settings: env var (config.toml key = lower-case name), type, default, doc. Adding a setting is one entry here;
 * docs/chainvisor.md's table is generated from it (`npm run docs:settings`, checked by settings-doc.test.ts).
 */
export const SETTINGS = [
  { env: 'DAEMON_HOME', field: 'home', kind: 'path', doc: 'node home, absolute; holds `cosmovisor/` and `data/`', cosmovisor: 'same' },
  { env: 'DAEMON_NAME', field: 'daemonName', kind: 'string', doc: 'binary file name in each `bin/`', cosmovisor: 'same' },
  {
    env: 'DAEMON_ALLOW_DOWNLOAD_BINARIES',
    field: 'allowDownloadBinaries',
    kind: 'bool',
    def: 'false',
    doc: "download a missing release from the plan's info",
    cosmovisor: 'same',
  },
  {
    env: 'DAEMON_DOWNLOAD_MUST_HAVE_CHECKSUM',
    field: 'downloadMustHaveChecksum',
    kind: 'bool',
    def: 'true',
    doc: 'refuse a download without a `checksum=sha256:…`/`sha512:…` (md5 and sha1 are always refused); `false` is the explicit opt-out',
    cosmovisor: '*differs* (cosmovisor: false): an unverified binary would run as the validator',
  },
  {
    env: 'DAEMON_ALLOW_INSECURE_HTTP',
    field: 'allowInsecureHttp',
    kind: 'bool',
    def: 'false',
    doc: 'allow plain `http://` from non-loopback hosts (not from loopback: that is DAEMON_ALLOW_LOOPBACK_HTTP)',
    cosmovisor: '*ours*: cosmovisor allows any scheme',
  },
  {
    env: 'DAEMON_ALLOW_LOOPBACK_HTTP',
    field: 'allowLoopbackHttp',
    kind: 'bool',
    def: 'false',
    doc: "allow a local mirror: plain `http://` from a loopback host (127.0.0.0/8, ::1, `localhost`), and redirects to loopback or private addresses (127/8, 10/8, 172.16/12, 192.168/16, 169.254/16, 0/8, 100.64/10, ::1, ::, fc00::/7, fe80::/10, IPv4-mapped forms, `*.localhost`). Without it such a redirect is refused whatever its scheme, so a mirror cannot bounce chainvisor to a service on the node's host or network (a cloud metadata address, an admin port). Checked on the URL's literal host: a DNS name that resolves to a private address is not caught",
    cosmovisor: '*ours*',
  },
  {
    env: 'DAEMON_DOWNLOAD_MAX_BYTES',
    field: 'downloadMaxBytes',
    kind: 'uint',
    def: String(2 * 1024 ** 3),
    doc: 'size cap of a download',
    cosmovisor: '*ours*',
  },
  {
    env: 'DAEMON_DOWNLOAD_STALL_TIMEOUT',
    field: 'downloadStallTimeoutMs',
    kind: 'duration',
    def: '60s',
    doc: 'fail a download (release or info document) when the server sends nothing for this long: no response after the request, or no body data mid-download; must be greater than 0',
    cosmovisor: '*ours*',
  },
  {
    env: 'DAEMON_MAX_EXTRACT_BYTES',
    field: 'maxExtractBytes',
    kind: 'uint',
    def: String(DEFAULT_EXTRACT_LIMITS.maxBytes),
    doc: "cap on the bytes a release archive unpacks to (the sum of its files' sizes, counted from the tar headers as it streams); past it the install fails with nothing installed; must be greater than 0. The default equals the download cap: a node release unpacks to a few hundred MB",
    cosmovisor: '*ours*',
  },
  {
    env: 'DAEMON_MAX_EXTRACT_ENTRIES',
    field: 'maxExtractEntries',
    kind: 'uint',
    def: String(DEFAULT_EXTRACT_LIMITS.maxEntries),
    doc: 'cap on the entries (files, folders, links) of a release archive; must be greater than 0. A packaged Node.js release has tens of thousands of files',
    cosmovisor: '*ours*',
  },
  {
    env: 'DAEMON_RESTART_AFTER_UPGRADE',
    field: 'restartAfterUpgrade',
    kind: 'bool',
    def: 'true',
    doc: 'relaunch with the same args after an upgrade; `false`: exit 0',
    cosmovisor: 'same',
  },
  {
    env: 'DAEMON_RESTART_DELAY',
    field: 'restartDelayMs',
    kind: 'duration',
    def: '0s',
    doc: "pause between the node's stop and the backup",
    cosmovisor: 'same',
  },
  {
    env: 'DAEMON_SHUTDOWN_GRACE',
    field: 'shutdownGraceMs',
    kind: 'duration',
    def: '0s',
    doc: 'when chainvisor has to stop the node (still running DAEMON_HALT_EXIT_WAIT after the upgrade is seen): SIGTERM, then SIGKILL after this long; 0: SIGKILL alone, at once',
    cosmovisor:
      '*differs*: SIGTERM instead of SIGINT, and the node gets DAEMON_HALT_EXIT_WAIT to exit by itself first. chaind stops by itself at the halt, so this only matters for a node that does not',
  },
  {
    env: 'DAEMON_HALT_EXIT_WAIT',
    field: 'haltExitWaitMs',
    kind: 'duration',
    def: '1s',
    doc: "how long a node that wrote `data/upgrade-info.json` gets to exit by itself before chainvisor stops it (never less than DAEMON_POLL_INTERVAL). A file written ahead of its height (a batch entry, `add-upgrade --upgrade-height`) brings no halt of the node's own: the node is stopped one DAEMON_POLL_INTERVAL after it reaches the height before, as before. chaind leaves its CometBFT running for app.toml `[abci] halt-linger` (500ms) after writing the file, so that peers still missing block H's precommits get them, then exits with code 10",
    cosmovisor:
      '*ours*: cosmovisor stops the node as soon as it sees the file (a Cosmos SDK node does not exit by itself at the halt: set this to DAEMON_POLL_INTERVAL for one)',
  },
  {
    env: 'DAEMON_POLL_INTERVAL',
    field: 'pollIntervalMs',
    kind: 'duration',
    def: '300ms',
    doc: 'poll period of `data/upgrade-info.json`; file events trigger a check too',
    cosmovisor: '*differs*: events + polling',
  },
  {
    env: 'DAEMON_UPGRADE_INFO_MAX_BYTES',
    field: 'upgradeInfoMaxBytes',
    kind: 'uint',
    def: String(DEFAULT_UPGRADE_INFO_MAX_BYTES),
    doc: "the largest `data/upgrade-info.json` read (checked on the open file's size, and at most one byte past it is read, so a growing file is caught too); a larger one is refused unread: while the node runs it is logged once as invalid and the node keeps running, at the node's exit it is an invalid file (exit 6). The node writes far less: a plan comes in a tx (`max_tx_bytes`, 1 MiB by default) and JSON escaping grows its info at most sixfold; must be greater than 0",
    cosmovisor: '*ours*: cosmovisor reads the file whole, every poll',
  },
  { env: 'UNSAFE_SKIP_BACKUP', field: 'unsafeSkipBackup', kind: 'bool', def: 'false', doc: 'skip the backup of `data/`', cosmovisor: 'same' },
  {
    env: 'DAEMON_DATA_BACKUP_DIR',
    field: 'dataBackupDir',
    kind: 'path',
    def: '$DAEMON_HOME',
    doc: 'where `data-backup-<name>-<height>` goes; must not be inside `data/`',
    cosmovisor: '*differs*: named by upgrade, not date',
  },
  {
    env: 'DAEMON_PREUPGRADE_MAX_RETRIES',
    field: 'preupgradeMaxRetries',
    kind: 'uint',
    def: '0',
    doc: 'retries of `<daemon> pre-upgrade` after exit code 31',
    cosmovisor: 'same',
  },
  { env: 'DAEMON_GRPC_ADDRESS', field: 'grpcAddress', kind: 'string', def: 'localhost:9090', doc: 'node gRPC for `prepare-upgrade`', cosmovisor: 'same' },
  {
    env: 'DAEMON_RPC_ADDRESS',
    field: 'rpcAddress',
    kind: 'string',
    def: 'http://127.0.0.1:26657',
    doc: 'node CometBFT JSON-RPC: the chain height (see detection) and the first block after an upgrade (downtime)',
    cosmovisor: '*ours*',
  },
  {
    env: 'DAEMON_PREPARE_UPGRADE',
    field: 'prepareUpgrade',
    kind: 'bool',
    def: 'false',
    doc: '`run` polls CurrentPlan every 3 s while the node runs and prepares the release as soon as a plan is scheduled, and again when a plan is re-proposed with other info',
    cosmovisor: '*ours*',
  },
  {
    env: 'DAEMON_WARM_START',
    field: 'warmStart',
    kind: 'bool',
    def: 'true',
    doc: "`run` starts the scheduled release's installed binary as `<daemon> standby -- <args>` once the chain is within DAEMON_WARM_START_BLOCKS of the plan's height; at the halt its pre-upgrade runs in that process and it becomes the node (see [Warm start](#warm-start)). A binary without the `standby` command exits at once and is started cold",
    cosmovisor: '*ours*',
  },
  {
    env: 'DAEMON_WARM_START_BLOCKS',
    field: 'warmStartBlocks',
    kind: 'uint',
    def: '10',
    doc: "how many blocks before the plan's height the standby is started; it holds that release's memory (about 90 MB for chaind) until the halt",
    cosmovisor: '*ours*',
  },
  {
    env: 'DAEMON_METRICS_ADDRESS',
    field: 'metricsAddress',
    kind: 'string',
    def: '',
    doc: '`host:port` where `run` serves Prometheus metrics at `/metrics` (see [Metrics](#metrics)), e.g. `127.0.0.1:26670`; empty: off. A port in use stops `run` with exit code 2',
    cosmovisor: '*ours*',
  },
  {
    env: 'DAEMON_METRICS_MAX_CONNECTIONS',
    field: 'metricsMaxConnections',
    kind: 'uint',
    def: '3',
    doc: "connections the metrics endpoint serves at once (CometBFT's `max_open_connections` default); 0: no limit",
    cosmovisor: '*ours*',
  },
  {
    env: 'COSMOVISOR_DISABLE_LOGS',
    field: 'disableLogs',
    kind: 'bool',
    def: 'false',
    doc: "silence chainvisor's info and warning lines; the one error line of a failure is still printed",
    cosmovisor: '*differs*: errors stay visible',
  },
  {
    env: 'COSMOVISOR_COLOR_LOGS',
    field: 'colorLogs',
    kind: 'bool',
    def: 'true',
    doc: 'colour the level — only when stderr is a terminal',
    cosmovisor: '*differs*: no escape codes in log files',
  },
  {
    env: 'COSMOVISOR_TIMEFORMAT_LOGS',
    field: 'timeFormatLogs',
    kind: 'string',
    def: 'kitchen',
    doc: "timestamp of chainvisor's lines, in the process's local time (TZ): cosmovisor's names for Go's layouts, case-sensitive — `layout` (01/02 03:04:05PM '06 -0700), `ansic` (Mon Jan _2 15:04:05 2006), `unixdate` (Mon Jan _2 15:04:05 MST 2006), `rubydate` (Mon Jan 02 15:04:05 -0700 2006), `rfc822` (02 Jan 06 15:04 MST), `rfc822z` (02 Jan 06 15:04 -0700), `rfc850` (Monday, 02-Jan-06 15:04:05 MST), `rfc1123` (Mon, 02 Jan 2006 15:04:05 MST), `rfc1123z` (Mon, 02 Jan 2006 15:04:05 -0700), `rfc3339` (2006-01-02T15:04:05Z07:00), `rfc3339nano` (2006-01-02T15:04:05.999999999Z07:00), `kitchen` (3:04PM); also `datetime` (2006-01-02 15:04:05) and `timeonly` (15:04:05). Set but empty (or `none`): no timestamp; unset: the default",
    cosmovisor:
      "same names and empty; *differs*: fractions are milliseconds at most; `MST` is the abbreviation the platform's time-zone data gives in English (UTC, CET, EST), else the offset as `+0530` (Go would print e.g. IST); `datetime`, `timeonly`, `none` are ours",
  },
  {
    env: 'COSMOVISOR_CUSTOM_PREUPGRADE',
    field: 'customPreupgrade',
    kind: 'string',
    def: '',
    doc: 'script run as `<script> <name> <height>` before the switch; a relative path is relative to `$DAEMON_HOME/cosmovisor`; a script without any execute bit gets them added (logged), as cosmovisor does; non-zero exit aborts',
    cosmovisor: 'same',
  },
  {
    env: 'COSMOVISOR_DISABLE_RECASE',
    field: 'disableRecase',
    kind: 'bool',
    def: 'false',
    doc: "keep the upgrade name's case for its folder",
    cosmovisor: 'same',
  },
] as const satisfies readonly Setting[];

/**
 * Every setting, resolved: one field per SETTINGS entry, of its kind's type (DAEMON_HALT_EXIT_WAIT is
 * never below DAEMON_POLL_INTERVAL; paths are absolute), and what loading found besides.
 */
export type Config = { readonly [S in (typeof SETTINGS)[number] as S['field']]: KindValue[S['kind']] } & {
  /** the config file read, if any */
  readonly configFile?: string;
  /** problems that do not stop chainvisor (unknown config.toml keys), for the caller to log */
  readonly warnings: readonly string[];
};

/**
 * The longest duration: 596h, under Node's longest timer (2^31-1 ms); a longer delay fires after 1 ms, so a
 * grace of 1000h would kill the node at once and a poll interval of 1000h would poll without pause.
 */
export const MAX_DURATION_MS = 596 * 3_600_000;

/** Where a raw value came from, for error messages. */
interface Raw {
  readonly value: string | number | boolean;
  readonly from: string;
}

/** A config.toml value: strings as is, TOML booleans/integers accepted; integers for durations are nanoseconds (Go's encoding). */
function fromFile(doc: Record<string, unknown>, key: string, file: string): Raw | undefined {
  const v = doc[key];
  if (v === undefined) return undefined;
  const from = `${key} in ${file}`;
  if (typeof v === 'string' || typeof v === 'boolean') return { value: v, from };
  if (typeof v === 'bigint') return { value: Number(v), from };
  if (typeof v === 'number') return { value: v, from };
  return { value: JSON.stringify(v), from };
}

export interface LoadOptions {
  readonly env: NodeJS.ProcessEnv;
  /** --cosmovisor-config */
  readonly configFile?: string;
}

/**
 * Resolves every setting: the config file's lower-case keys, overridden by the environment.
 * Collects every problem and throws them all at once (exit code CONFIG), each naming its variable.
 */
export function loadConfig(o: LoadOptions): Config {
  const errors: string[] = [];
  const warnings: string[] = [];
  let file: Record<string, unknown> = {};
  if (o.configFile !== undefined) {
    try {
      file = parseToml(readFileSync(o.configFile, 'utf8')) as Record<string, unknown>;
    } catch (e) {
      // the parser's message carries a code frame over several lines: the first line says what is wrong
      throw new ChainvisorError(
        EXIT.CONFIG,
        `cannot read config file ${o.configFile}: ${clip(errorMessage(e).split('\n')[0])}${e instanceof TomlError ? ` (line ${e.line}, column ${e.column})` : ''}`,
      );
    }
    const known = new Set(SETTINGS.map((s) => s.env.toLowerCase()));
    // a warning, as cosmovisor ignores unknown keys: a file written for it (or a newer chainvisor) still loads
    for (const k of Object.keys(file)) if (!known.has(k)) warnings.push(`${k} in ${o.configFile}: unknown setting, ignored`);
  }
  const raw = (s: Setting): Raw | undefined => {
    const e = o.env[s.env];
    if (e !== undefined) return { value: e, from: s.env };
    return o.configFile === undefined ? undefined : fromFile(file, s.env.toLowerCase(), o.configFile);
  };
  const values = new Map<string, string | number | boolean>();
  for (const s of SETTINGS as readonly Setting[]) {
    const r = raw(s);
    const where = r?.from ?? s.env;
    // an empty value means "the default", as cosmovisor's booleans; but an empty time format means no timestamp, as in cosmovisor
    const v = r === undefined || (r.value === '' && s.env !== 'COSMOVISOR_TIMEFORMAT_LOGS') ? s.def : r.value;
    if (v === undefined) {
      errors.push(`${s.env} is required`);
      continue;
    }
    switch (s.kind) {
      case 'bool': {
        // cosmovisor lower-cases the value and accepts only true/false: units with `True` keep working
        const lower = typeof v === 'string' ? v.toLowerCase() : v;
        if (lower === true || lower === 'true') values.set(s.env, true);
        else if (lower === false || lower === 'false') values.set(s.env, false);
        else errors.push(`${where}: expected true, false (any case) or empty, got ${quote(v)}`);
        break;
      }
      case 'duration': {
        // in the file an integer is nanoseconds, as cosmovisor writes a time.Duration
        const parsed: ParsedGoDuration | undefined =
          typeof v === 'number' ? (Number.isInteger(v) ? { ok: true, ns: BigInt(v) } : undefined) : typeof v === 'string' ? parseGoDuration(v) : undefined;
        if (parsed?.ok !== true) errors.push(`${where}: expected a duration such as 300ms or 1m30s, got ${quote(v)}`);
        // Go reads a sign; no interval here can be negative
        else if (parsed.ns < 0n) errors.push(`${where}: must not be negative, got ${quote(v)}`);
        else if (parsed.ns > durationNs(MAX_DURATION_MS)) errors.push(`${where}: must be at most 596h, got ${quote(v)}`);
        else values.set(s.env, durationMs(parsed.ns));
        break;
      }
      case 'uint': {
        const n = typeof v === 'number' ? v : typeof v === 'string' && /^\d+$/.test(v) ? Number(v) : NaN;
        if (!Number.isSafeInteger(n) || n < 0) errors.push(`${where}: expected a non-negative integer, got ${quote(v)}`);
        else values.set(s.env, n);
        break;
      }
      default:
        if (typeof v !== 'string') errors.push(`${where}: expected a string, got ${quote(v)}`);
        else values.set(s.env, v);
    }
  }
  const str = (k: string): string => values.get(k) as string;
  const home = values.has('DAEMON_HOME') ? str('DAEMON_HOME') : undefined;
  if (home !== undefined && !isAbsolute(home)) errors.push(`DAEMON_HOME: must be an absolute path, got ${quote(home)}`);
  if (values.has('DAEMON_NAME')) {
    const why = folderNameProblem(str('DAEMON_NAME'));
    if (why !== undefined) errors.push(`DAEMON_NAME: ${quote(str('DAEMON_NAME'))} ${why}`);
  }
  let backup = values.get('DAEMON_DATA_BACKUP_DIR') as string | undefined;
  const backupDefault = backup === '$DAEMON_HOME';
  if (backupDefault) backup = home;
  if (backup !== undefined && !backupDefault && !isAbsolute(backup)) errors.push(`DAEMON_DATA_BACKUP_DIR: must be an absolute path, got ${quote(backup)}`);
  else if (backup !== undefined && home !== undefined && isAbsolute(home)) {
    const rel = relative(join(home, 'data'), backup);
    // a backup inside data/ would copy itself
    if (rel === '' || (!rel.startsWith('..') && !isAbsolute(rel))) errors.push(`DAEMON_DATA_BACKUP_DIR: must not be inside ${join(home, 'data')}`);
  }
  if (values.get('DAEMON_POLL_INTERVAL') === 0) errors.push('DAEMON_POLL_INTERVAL: must be greater than 0');
  if (values.has('COSMOVISOR_TIMEFORMAT_LOGS')) {
    const tf = str('COSMOVISOR_TIMEFORMAT_LOGS');
    if (tf !== '' && tf !== 'none' && TIME_LAYOUTS[tf] === undefined)
      errors.push(`COSMOVISOR_TIMEFORMAT_LOGS: expected one of ${Object.keys(TIME_LAYOUTS).join(', ')}, none or empty, got ${quote(tf)}`);
  }
  if (values.has('DAEMON_GRPC_ADDRESS') && !/^[^\s/]+:\d+$/.test(str('DAEMON_GRPC_ADDRESS').replace(/^(https?|dns|ipv4|ipv6):\/*/, '')))
    errors.push(`DAEMON_GRPC_ADDRESS: expected host:port, got ${quote(str('DAEMON_GRPC_ADDRESS'))}`);
  if (values.has('DAEMON_RPC_ADDRESS') && !/^https?:\/\/[^\s/]+/.test(str('DAEMON_RPC_ADDRESS')))
    errors.push(`DAEMON_RPC_ADDRESS: expected an http:// or https:// URL, got ${quote(str('DAEMON_RPC_ADDRESS'))}`);
  if (values.has('DAEMON_METRICS_ADDRESS') && str('DAEMON_METRICS_ADDRESS') !== '' && parseMetricsAddress(str('DAEMON_METRICS_ADDRESS')) === undefined)
    errors.push(`DAEMON_METRICS_ADDRESS: expected host:port such as 127.0.0.1:26670, or empty, got ${quote(str('DAEMON_METRICS_ADDRESS'))}`);
  for (const k of ['DAEMON_DOWNLOAD_MAX_BYTES', 'DAEMON_MAX_EXTRACT_BYTES', 'DAEMON_MAX_EXTRACT_ENTRIES', 'DAEMON_UPGRADE_INFO_MAX_BYTES'])
    if (values.get(k) === 0) errors.push(`${k}: must be greater than 0`);
  // 0 would fail every download at once rather than mean "no timeout"
  if (values.get('DAEMON_DOWNLOAD_STALL_TIMEOUT') === 0) errors.push('DAEMON_DOWNLOAD_STALL_TIMEOUT: must be greater than 0');

  if (errors.length > 0) throw new ConfigError(errors);
  const n = (k: string): number => values.get(k) as number;
  // every setting under its field, then the few whose value depends on another or is normalised
  const fields = Object.fromEntries(SETTINGS.map((s) => [s.field, values.get(s.env)])) as Omit<Config, 'configFile' | 'warnings'>;
  return {
    ...fields,
    home: resolve(home as string),
    haltExitWaitMs: Math.max(n('DAEMON_HALT_EXIT_WAIT'), n('DAEMON_POLL_INTERVAL')),
    dataBackupDir: resolve(backup as string),
    rpcAddress: str('DAEMON_RPC_ADDRESS').replace(/\/+$/, ''),
    ...(o.configFile !== undefined ? { configFile: o.configFile } : {}),
    warnings,
  };
}

/**
 * All invalid settings at once; the message lists each on its own line. Not chaind's ConfigError: that
 * one is a node's bad config.toml/app.toml, this one chainvisor's settings, ending it with EXIT.CONFIG.
 */
export class ConfigError extends ChainvisorError {
  constructor(readonly problems: readonly string[]) {
    super(EXIT.CONFIG, `invalid configuration (${problems.length} problem${problems.length === 1 ? '' : 's'}):\n  ${problems.join('\n  ')}`);
  }
}

/** How much of an upgrade-info.json chainvisor reads, for the readers of @chaind/upgrade-plan. */
export function upgradeInfoLimit(c: Config): UpgradeInfoLimit {
  return { maxBytes: c.upgradeInfoMaxBytes, setting: 'DAEMON_UPGRADE_INFO_MAX_BYTES' };
}

/** The settings as config.toml text (what `init` writes and `config` prints): every SETTINGS entry, in its order. */
export function toToml(c: Config): string {
  const line = (s: (typeof SETTINGS)[number]): string => {
    const v = c[s.field];
    // a duration as the same nanoseconds parseGoDuration read ("1m30s", "1ms500us")
    const text = s.kind === 'duration' ? JSON.stringify(formatGoDuration(durationNs(v as number))) : typeof v === 'string' ? JSON.stringify(v) : String(v);
    return `${s.env.toLowerCase()} = ${text}`;
  };
  return SETTINGS.map(line).join('\n') + '\n';
}

// config.toml's and app.toml's settings are each declared once, in a table (node-settings.ts,
// app-settings.ts): key, kind (type and bounds), default, one-line doc, whose key it is, the flag that
// overrides it. Parsing and its errors, the parsed config's type, the commented file `chaind init` writes,
// the flag overrides and docs/operator-guide.md's tables are all made here from the tables.
import { ChaindError } from '@chaind/errors';
import { stringify, TomlDate } from 'smol-toml';
import { durationMs, durationNs, formatGoDuration, parseGoDuration } from '@chaind/upgrade-plan';
import { hostPort, parseListenAddress, tcpAddress, type ListenAddress } from './address.ts';

export class ConfigError extends ChaindError<'config'> {
  override readonly name = 'ConfigError';
  constructor(message: string, options?: ErrorOptions) {
    super('config', message, options);
  }
}

/** Why a value is refused: `why` completes "key = value: …"; `expected`, when given, replaces the kind's form. */
export class Refused {
  constructor(
    readonly why?: string,
    readonly expected?: string,
  ) {}
}

/** A setting's type: how a TOML value (integers as bigint) is read and checked, and written back. */
export interface Kind<T> {
  /** the form a value must have, as the errors and the docs say it */
  readonly expected: string;
  /** the placeholder of a flag taking it, in `--help` */
  readonly arg?: string;
  read(v: unknown): T | Refused;
  /** the value as TOML text */
  toml(v: T): string;
  /** the value as a flag or an example writes it */
  text(v: T): string;
  /** a flag's text read as the value (default: as the file's string) */
  flag?(s: string): T | Refused;
}

/** Whose key it is: CometBFT's and the SDK's keep their meaning and defaults; chaind's are its own. */
export type Origin = 'CometBFT' | 'Cosmos SDK' | 'chaind';

export interface Setting<T, F extends string = string> {
  /** the TOML key, in its section */
  readonly key: string;
  readonly kind: Kind<T>;
  /** absent: the key is required */
  readonly def?: NoInfer<T>;
  /** one line (Markdown): the comment `chaind init` writes above the key, and its row in the docs */
  readonly doc: string;
  readonly from: Origin;
  /** the `chaind start` flag that overrides it, and the flag's help */
  readonly flag?: { readonly name: F; readonly doc: string };
  /** an integer setting that may not exceed, or fall below, another of the same file ("section.key") */
  readonly atMost?: string;
  readonly atLeast?: string;
}

/** A key `chaind init` writes for CometBFT and chaind does not read (CometBFT's, accepted as it is). */
export interface Written {
  readonly key: string;
  /** its TOML text */
  readonly written: string;
  readonly doc: string;
  readonly from: Origin;
}

export type Entry = Setting<unknown> | Written;

export interface Section<S extends Readonly<Record<string, Entry>> = Readonly<Record<string, Entry>>> {
  readonly section: string;
  /** the comment under the section's header */
  readonly doc: string;
  readonly settings: S;
}

export type SettingsTable = Readonly<Record<string, Entry | Section>>;

/** A table's entry: T is the kind's, the default is checked against it, a flag's name kept as a literal. */
export function setting<T, const F extends string = never>(s: Setting<T, F>): Setting<T, F> {
  return s;
}

export function section<const S extends Readonly<Record<string, Entry>>>(name: string, doc: string, settings: S): Section<S> {
  return { section: name, doc, settings };
}

/** The parsed config of a table: one field per setting, of its kind's type; a section is a nested object. */
export type ConfigOf<S> = {
  readonly [K in keyof S as S[K] extends Written ? never : K]: S[K] extends Section<infer I> ? ConfigOf<I> : S[K] extends Setting<infer T> ? T : never;
};

type FlagEntry<E> =
  E extends Section<infer I>
    ? FlagEntry<I[keyof I]>
    : E extends Setting<infer T, infer F>
      ? F extends string
        ? { readonly name: F; readonly value: T extends boolean ? boolean : string }
        : never
      : never;
/** A table's flags by name, as commander hands them over: a boolean setting's already read, any other's as written. */
export type FlagValuesOf<S> = { readonly [E in FlagEntry<S[keyof S]> as E['name']]?: E['value'] };

const isSection = (e: Entry | Section): e is Section => 'section' in e;
const isWritten = (e: Entry): e is Written => 'written' in e;

// ---- kinds

/** A TOML string literal, escaped by the TOML library rather than by hand. */
export const tomlString = (s: string): string => stringify({ v: s }).trim().slice('v = '.length);

export function stringKind<T extends string = string>(expected: string, check: (s: string) => string | undefined = () => undefined): Kind<T> {
  return {
    expected,
    read: (v) => {
      if (typeof v !== 'string') return new Refused('not a string');
      const why = check(v);
      return why === undefined ? (v as T) : new Refused(why);
    },
    toml: tomlString,
    text: (v) => v,
  };
}

function readInt(v: unknown, min: bigint, max: bigint): bigint | Refused {
  if (typeof v !== 'bigint') return new Refused(typeof v === 'number' ? 'not an integer' : undefined);
  return v < min || v > max ? new Refused('out of range') : v;
}

/** `k` with its values held as another type: `to` after reading, `from` before writing. */
function mapKind<A, B>(k: Kind<A>, to: (a: A) => B, from: (b: B) => A): Kind<B> {
  return {
    ...k,
    read: (v) => {
      const r = k.read(v);
      return r instanceof Refused ? r : to(r);
    },
    toml: (b) => k.toml(from(b)),
    text: (b) => k.text(from(b)),
    // a flag's text is read as the file's string, then held as B
    flag: undefined,
  };
}

/** An integer from min to max, as a number (max at most 2^53 - 1). */
export function intKind(min: bigint | number, max: bigint | number): Kind<number> {
  return mapKind(bigintKind(min, max), Number, BigInt);
}

/** An integer from min to max; with `digits`, also a string of digits (the SDK's template quotes some, e.g. query-gas-limit = "0"). */
export function bigintKind(min: bigint | number, max: bigint | number, digits = false): Kind<bigint> {
  const [lo, hi] = [BigInt(min), BigInt(max)];
  return {
    expected: `an integer from ${lo} to ${hi}`,
    read: (v) => readInt(digits && typeof v === 'string' && /^[0-9]{1,19}$/.test(v) ? BigInt(v) : v, lo, hi),
    toml: String,
    text: String,
  };
}

/** Go's strconv.ParseBool, what the SDK's boolean flags take. */
export function goBool(s: string): boolean | undefined {
  if (['1', 't', 'T', 'TRUE', 'true', 'True'].includes(s)) return true;
  if (['0', 'f', 'F', 'FALSE', 'false', 'False'].includes(s)) return false;
  return undefined;
}

export const boolKind: Kind<boolean> = {
  expected: 'true or false (unquoted)',
  arg: 'bool',
  read: (v) => (typeof v === 'boolean' ? v : new Refused()),
  toml: String,
  text: String,
  flag: (s) => goBool(s) ?? new Refused(undefined, 'true or false'),
};

const formatDuration = (ms: number): string => formatGoDuration(durationNs(ms));

/** A Go duration string, in milliseconds; never negative; with `positive`, never zero; `check` adds a rule. */
export function durationKind(positive: boolean, check?: (ms: number) => Refused | undefined): Kind<number> {
  const expected = `a ${positive ? 'positive ' : ''}duration such as "1s" or "500ms"`;
  return {
    expected,
    read: (v) => {
      if (typeof v !== 'string') return new Refused(typeof v === 'bigint' || typeof v === 'number' ? 'a number has no unit' : undefined);
      const d = parseGoDuration(v);
      if (!d.ok) return new Refused();
      // Go reads a sign; no interval here can be negative
      if (d.ns < 0n) return new Refused('must not be negative');
      if (positive && d.ns === 0n) return new Refused('must be more than zero');
      const ms = durationMs(d.ns);
      return check?.(ms) ?? ms;
    },
    toml: (ms) => tomlString(formatDuration(ms)),
    text: formatDuration,
  };
}

/** Whole seconds from min to max (the SDK's rpc-read-timeout), in milliseconds. */
export function secondsKind(min: number, max: number): Kind<number> {
  return mapKind(
    intKind(min, max),
    (s) => s * 1000,
    (ms) => ms / 1000,
  );
}

export function stringListKind(expected: string): Kind<readonly string[]> {
  return {
    expected,
    read: (v) => (Array.isArray(v) && v.every((x): x is string => typeof x === 'string' && x.trim() !== '') ? v : new Refused()),
    toml: (l) => `[${l.map(tomlString).join(', ')}]`,
    text: (l) => l.join(','),
  };
}

/**
 * A TCP listen address, written with the scheme as CometBFT and the SDK's REST do ("tcp://…"), or
 * without it as gRPC's; with `goPort`, Go's ":port" (every interface, as CometBFT's prometheus_listen_addr default) too.
 */
export function listenKind(form: 'tcp' | 'host:port', example: string, goPort = false): Kind<ListenAddress> {
  const text = form === 'tcp' ? tcpAddress : hostPort;
  return {
    expected: `a TCP listen address such as "${example}"`,
    arg: 'address',
    read: (v) => {
      if (typeof v !== 'string') return new Refused();
      const a = parseListenAddress(goPort && /^:\d{1,5}$/.test(v) ? `0.0.0.0${v}` : v);
      return typeof a === 'string' ? new Refused(a) : a;
    },
    toml: (a) => tomlString(text(a)),
    text,
  };
}

/** A Prometheus namespace: a metric name's first part. */
export const namespaceKind: Kind<string> = stringKind('a name of letters, digits and underscores such as "cometbft"', (s) =>
  /^[a-zA-Z_][a-zA-Z0-9_]*$/.test(s) ? undefined : 'not a Prometheus name',
);

// ---- reading

type Toml = Record<string, unknown>;
const isTomlTable = (v: unknown): v is Toml => typeof v === 'object' && v !== null && !Array.isArray(v) && !(v instanceof TomlDate);

/** How a TOML value reads in an error message. */
function show(v: unknown): string {
  if (typeof v === 'string') return JSON.stringify(v);
  if (typeof v === 'bigint' || typeof v === 'number' || typeof v === 'boolean') return String(v);
  if (v instanceof TomlDate) return v.toISOString();
  if (Array.isArray(v)) return 'an array';
  return 'a table';
}

function refuse(file: string, key: string, v: unknown, expected: string, why?: string): never {
  throw new ConfigError(`${file}: ${key} = ${show(v)}: ${why === undefined ? '' : `${why}; `}expected ${expected}`);
}

/** Every setting of a table with its path ("key", "section.key"), in the table's order. */
function entries(table: SettingsTable): { path: string; entry: Entry; section?: Section }[] {
  return Object.values(table).flatMap((e) =>
    isSection(e) ? Object.values(e.settings).map((entry) => ({ path: `${e.section}.${entry.key}`, entry, section: e })) : [{ path: e.key, entry: e }],
  );
}

/**
 * A parsed TOML file's settings: a missing key takes its default; the first bad value is a ConfigError naming
 * the file, the key, the value and the form expected. Warnings: one per key present that is neither the
 * table's nor in `known` ("key", "section", "section.key").
 */
export function readSettings<S extends SettingsTable>(
  table: S,
  root: Toml,
  file: string,
  known: ReadonlySet<string> = new Set(),
): { config: ConfigOf<S>; warnings: string[] } {
  const used = new Set<string>();
  const values = new Map<string, unknown>();
  const read = (t: Toml, path: string, e: Setting<unknown>): unknown => {
    const raw = t[e.key];
    if (raw === undefined) {
      if (e.def === undefined) throw new ConfigError(`${file}: ${path} is missing; expected ${e.kind.expected}`);
      return e.def;
    }
    const v = e.kind.read(raw);
    if (v instanceof Refused) refuse(file, path, raw, v.expected ?? e.kind.expected, v.why);
    return v;
  };
  const readAll = (settings: Readonly<Record<string, Entry | Section>>, t: Toml, prefix: string): Record<string, unknown> => {
    const out: Record<string, unknown> = {};
    for (const [field, e] of Object.entries(settings)) {
      if (isSection(e)) {
        const sub = root[e.section];
        if (sub !== undefined && !isTomlTable(sub)) throw new ConfigError(`${file}: ${e.section} = ${show(sub)}: expected a table [${e.section}]`);
        used.add(e.section);
        out[field] = readAll(e.settings, sub ?? {}, `${e.section}.`);
        continue;
      }
      const path = prefix + e.key;
      used.add(path);
      if (isWritten(e)) continue;
      out[field] = read(t, path, e);
      values.set(path, out[field]);
    }
    return out;
  };
  const config = readAll(table, root, '');
  for (const { path, entry } of entries(table)) {
    if (isWritten(entry)) continue;
    const v = values.get(path) as number;
    if (entry.atMost !== undefined && v > (values.get(entry.atMost) as number)) refuse(file, path, v, `at most ${entry.atMost} (${values.get(entry.atMost)})`);
    if (entry.atLeast !== undefined && v < (values.get(entry.atLeast) as number))
      refuse(file, path, v, `at least ${entry.atLeast} (${values.get(entry.atLeast)})`);
  }
  const isKnown = (k: string): boolean => used.has(k) || known.has(k);
  const warnings: string[] = [];
  for (const [k, v] of Object.entries(root)) {
    if (!isKnown(k)) {
      warnings.push(`${file}: unknown ${isTomlTable(v) ? `section [${k}]` : `key "${k}"`} ignored`);
      continue;
    }
    if (!isTomlTable(v)) continue;
    for (const sub of Object.keys(v)) if (!isKnown(`${k}.${sub}`)) warnings.push(`${file}: unknown key "${k}.${sub}" ignored`);
  }
  return { config: config as ConfigOf<S>, warnings };
}

/** A table's defaults; a required setting (no default) is left out. */
export function defaultsOf<S extends SettingsTable>(table: S): Partial<ConfigOf<S>> {
  const walk = (settings: Readonly<Record<string, Entry | Section>>): Record<string, unknown> => {
    const out: Record<string, unknown> = {};
    for (const [field, e] of Object.entries(settings)) {
      if (isSection(e)) out[field] = walk(e.settings);
      else if (!isWritten(e) && e.def !== undefined) out[field] = e.def;
    }
    return out;
  };
  return walk(table) as Partial<ConfigOf<S>>;
}

// ---- writing

/** `text` as `# ` comment lines of at most 110 columns. */
function comment(text: string): string[] {
  const lines: string[] = [];
  let line = '#';
  for (const word of text.split(/\s+/)) {
    if (line.length + 1 + word.length > 110 && line !== '#') {
      lines.push(line);
      line = '#';
    }
    line += ` ${word}`;
  }
  return [...lines, line];
}

const flagNote = (e: Setting<unknown>): string => (e.flag === undefined ? '' : ` (flag: --${e.flag.name})`);

/** The file `chaind init` writes: `header` (comment lines), then every setting with its doc as a comment above it. */
export function renderSettings<S extends SettingsTable>(table: S, c: ConfigOf<S>, header: string): string {
  const out = [...comment(header)];
  const line = (e: Entry, v: unknown): string[] => [
    // a sentence above the key; the docs' table cell starts lower-case
    ...comment(e.doc.charAt(0).toUpperCase() + e.doc.slice(1) + (isWritten(e) ? '' : flagNote(e))),
    `${e.key} = ${isWritten(e) ? e.written : e.kind.toml(v)}`,
  ];
  const values = c as Record<string, unknown>;
  for (const [field, e] of Object.entries(table)) {
    if (!isSection(e)) {
      out.push('', ...line(e, values[field]));
      continue;
    }
    // the section's comment apart from its first key's
    out.push('', `[${e.section}]`, ...comment(e.doc), '#');
    const sub = values[field] as Record<string, unknown>;
    for (const [f, s] of Object.entries(e.settings)) out.push(...line(s, sub[f]));
  }
  return `${out.join('\n')}\n`;
}

// ---- flags

/** A flag overriding a setting, for registering it on a command. */
export interface SettingFlag {
  readonly flag: string;
  /** "config.toml rpc.laddr" */
  readonly setting: string;
  readonly description: string;
  readonly example: string;
  /** the placeholder in `--help`: "address", "bool", "value" */
  readonly arg: string;
}

export function flagsOf(table: SettingsTable, file: string): SettingFlag[] {
  return entries(table).flatMap(({ path, entry: e }) =>
    isWritten(e) || e.flag === undefined
      ? []
      : [
          {
            flag: e.flag.name,
            setting: `${file} ${path}`,
            description: e.flag.doc,
            example: e.def === undefined ? '' : e.kind.text(e.def),
            arg: e.kind.arg ?? 'value',
          },
        ],
  );
}

/** Flag values by flag name (a boolean flag's already read, as commander hands it over); absent = not given. */
export type FlagValues = { readonly [flag: string]: string | boolean | undefined };

/** `c` with every setting whose flag is given set from the flag; a bad value is a ConfigError naming the flag. */
export function withFlags<S extends SettingsTable>(table: S, c: ConfigOf<S>, o: FlagValues): ConfigOf<S> {
  const walk = (settings: Readonly<Record<string, Entry | Section>>, values: Record<string, unknown>): Record<string, unknown> => {
    const out = { ...values };
    for (const [field, e] of Object.entries(settings)) {
      if (isSection(e)) {
        out[field] = walk(e.settings, values[field] as Record<string, unknown>);
        continue;
      }
      if (isWritten(e) || e.flag === undefined) continue;
      const given = o[e.flag.name];
      if (given === undefined) continue;
      const v = typeof given === 'boolean' ? given : (e.kind.flag ?? e.kind.read)(given);
      if (v instanceof Refused)
        throw new ConfigError(
          `invalid --${e.flag.name} ${JSON.stringify(given)}: ${v.why === undefined ? '' : `${v.why}; `}expected ${v.expected ?? e.kind.expected}`,
        );
      out[field] = v;
    }
    return out;
  };
  return walk(table, c as Record<string, unknown>) as ConfigOf<S>;
}

// ---- docs

const cell = (s: string): string => s.replace(/\|/g, '\\|');

/** A table's Markdown reference: one row per key, in the file's order. */
export function settingsTable(table: SettingsTable): string {
  const rows = entries(table).flatMap(({ entry: e, section: s }, i, all) => {
    // a section's doc heads its rows
    const head = s !== undefined && all[i - 1]?.section !== s ? [`| \`[${s.section}]\` | | | ${cell(s.doc)} | | |`] : [];
    const key = s === undefined ? `\`${e.key}\`` : `\`[${s.section}] ${e.key}\``;
    const def = isWritten(e) ? `\`${e.written}\`` : e.def === undefined ? 'required' : `\`${e.kind.toml(e.def)}\``;
    const bounds = isWritten(e) ? [] : [e.atLeast === undefined ? [] : [`at least ${e.atLeast}`], e.atMost === undefined ? [] : [`at most ${e.atMost}`]].flat();
    const allowed = isWritten(e) ? "CometBFT's" : [e.kind.expected, ...bounds].join('; ');
    const flag = isWritten(e) || e.flag === undefined ? '' : `\`--${e.flag.name}\``;
    return [...head, `| ${key} | ${cell(def)} | ${cell(allowed)} | ${cell(e.doc)} | ${e.from} | ${flag} |`];
  });
  return ['| key | default | allowed | meaning | whose | flag |', '|---|---|---|---|---|---|', ...rows].join('\n');
}

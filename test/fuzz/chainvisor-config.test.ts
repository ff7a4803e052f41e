// Fuzz: chainvisor's settings through its one loader (loadConfig): DAEMON_* and COSMOVISOR_* variables with
// random strings, numbers out of range, durations and booleans in odd forms, required ones missing; the
// same values in config.toml (any TOML type), and damaged config.toml files.
// Invariants: a valid Config, whose config.toml (toToml, what `init` writes) loads back to the same Config;
// or one ConfigError (exit code CONFIG) listing each problem on its own line, each naming its variable;
// never a TypeError/RangeError, never a hang.
import assert from 'node:assert/strict';
import { mkdtempSync, rmSync, writeFileSync } from 'node:fs';
import { tmpdir } from 'node:os';
import { join } from 'node:path';
import { after, before, describe, test } from 'node:test';
import fc from 'fast-check';
import { ChaindError } from '@chaind/errors';
import { ConfigError, loadConfig, SETTINGS, toToml, type Config, type Setting } from '@chaind/chainvisor/config';
import { fuzzParameters } from '../kit/fuzz.ts';

/** Cases per CI run (× FUZZ_SCALE under `npm run fuzz`). */
const RUNS = { env: 600, file: 300, damaged: 150 };

/** The exit code of a configuration error (docs/chainvisor.md). */
const EXIT_CONFIG = 2;
/** The longest timer Node keeps: a longer delay fires after 1 ms. */
const MAX_TIMER_MS = 2 ** 31 - 1;

let dir: string;
before(() => {
  dir = mkdtempSync(join(tmpdir(), 'fuzz-chainvisor-config-'));
});
after(() => rmSync(dir, { recursive: true, force: true }));

const kindOf = new Map<string, Setting['kind']>(SETTINGS.map((s) => [s.env, s.kind]));
const names = SETTINGS.map((s) => s.env);

const digits = (max: number): fc.Arbitrary<string> => fc.string({ unit: fc.constantFrom(...'0123456789'), minLength: 1, maxLength: max });
const durations = fc.oneof(
  fc
    .tuple(
      fc.oneof(
        digits(4),
        digits(25),
        fc.tuple(digits(3), digits(12)).map(([a, b]) => `${a}.${b}`),
      ),
      fc.constantFrom('ns', 'us', 'µs', 'ms', 's', 'm', 'h', 'd', 'S', ''),
    )
    .map(([n, u]) => `${n}${u}`),
  fc.array(fc.tuple(digits(3), fc.constantFrom('h', 'm', 's', 'ms')), { minLength: 2, maxLength: 4 }).map((a) => a.map(([n, u]) => `${n}${u}`).join('')),
  fc.constantFrom(
    '0',
    '0s',
    '-1s',
    '1.s',
    '.5s',
    '1e3ms',
    '+1s',
    '1 s',
    ' 1s',
    '1h-1m',
    '1000000h',
    '596h',
    '597h',
    '0.0000001ns',
    '0.1ns',
    'Infinityms',
    'NaNs',
    '1_000ms',
    '２s',
  ),
);
const bools = fc.constantFrom('true', 'false', 'TRUE', 'False', 'tRuE', '1', '0', 'yes', 'no', 'on', 't', 'f', ' true', 'true ', '');
const uints = fc.oneof(
  fc.nat().map(String),
  digits(30),
  fc.constantFrom('0', '-1', '1.5', '1e6', '0x10', '9007199254740991', '9007199254740992', '18446744073709551616', ' 5', '5 ', '٣'),
);
const paths = fc.oneof(
  fc.constantFrom('/srv/node', '/srv/node/data', '/srv/node/data/b', '/', '//x', '/srv/node/../node/data', 'relative', '', '~/x', '$DAEMON_HOME', '/a\nb'),
  fc.string({ maxLength: 12 }).map((s) => `/${s}`),
);
const addresses = fc.oneof(
  fc.constantFrom(
    'localhost:9090',
    '127.0.0.1:26670',
    '[::1]:1',
    'http://127.0.0.1:26657',
    'https://x',
    'dns:///x:1',
    'x:99999',
    ':1',
    'host',
    'a b:1',
    '',
    'http://',
    'none',
  ),
  fc.tuple(fc.constantFrom('', 'http://', 'https://', 'ftp://'), fc.domain(), fc.integer({ min: -1, max: 70000 })).map(([s, h, p]) => `${s}${h}:${p}`),
);
const anyString = fc.oneof(fc.string({ maxLength: 20 }), fc.string({ unit: 'binary', maxLength: 10 }), fc.constant('x'.repeat(5000)));

/** A value aimed at the setting's kind, or anything. */
function valueFor(name: string): fc.Arbitrary<string> {
  const k = kindOf.get(name);
  const aimed =
    name === 'DAEMON_NAME'
      ? fc.oneof(fc.constantFrom('chaind', 'a/b', '..', '.', ' ', 'a\u0000b', 'x'.repeat(129)), fc.string({ minLength: 1, maxLength: 12 }))
      : name === 'COSMOVISOR_TIMEFORMAT_LOGS'
        ? fc.constantFrom('kitchen', 'rfc3339', 'rfc3339nano', 'none', '', 'Kitchen', 'unix', 'x')
        : /ADDRESS/.test(name)
          ? addresses
          : k === 'bool'
            ? bools
            : k === 'duration'
              ? durations
              : k === 'uint'
                ? uints
                : k === 'path'
                  ? paths
                  : anyString;
  return fc.oneof({ arbitrary: aimed, weight: 5 }, { arbitrary: anyString, weight: 1 });
}

const envs = fc
  .tuple(
    fc.subarray(names, { maxLength: 6 }).chain((picked) => fc.tuple(...picked.map((n) => valueFor(n).map((v) => [n, v] as const)))),
    fc.subarray(['DAEMON_HOME', 'DAEMON_NAME'], { maxLength: 2 }),
  )
  .map(([pairs, missing]) => {
    const env: Record<string, string> = { DAEMON_HOME: '/srv/node', DAEMON_NAME: 'chaind' };
    for (const [n, v] of pairs) env[n] = v;
    for (const m of missing) if (!pairs.some(([n]) => n === m)) delete env[m];
    return env;
  });

/** What the loader said, checked against every invariant. */
function outcome(load: () => Config, known: readonly string[]): Config | ConfigError {
  let c: Config;
  try {
    c = load();
  } catch (e) {
    assert.ok(e instanceof ChaindError, `loadConfig threw ${e instanceof Error ? `${e.name}: ${e.message}` : String(e)}`);
    assert.equal(e.code, EXIT_CONFIG);
    if (!(e instanceof ConfigError)) {
      // the config file itself could not be read or parsed: one line naming the file
      assert.ok(!/[\r\n]/.test(e.message) && e.message.startsWith('cannot read config file '), e.message.slice(0, 300));
      return e as ConfigError;
    }
    assert.ok(e.problems.length > 0);
    for (const p of e.problems) {
      assert.ok(!/[\r\n]/.test(p), `a problem over several lines: ${JSON.stringify(p.slice(0, 300))}`);
      assert.ok(p.length <= 600, `a ${p.length}-character problem: ${JSON.stringify(p.slice(0, 300))}`);
      assert.ok(
        known.some((n) => p.startsWith(`${n} `) || p.startsWith(`${n}:`) || p.startsWith(`${n.toLowerCase()} in `)),
        `a problem that names no variable: ${p}`,
      );
    }
    return e;
  }
  for (const [k, v] of Object.entries(c)) {
    if (typeof v === 'number') {
      assert.ok(Number.isFinite(v) && v >= 0, `${k} = ${v}`);
      if (k.endsWith('Ms')) assert.ok(v <= MAX_TIMER_MS, `${k} = ${v} ms: a timer that long fires at once`);
    }
  }
  return c;
}

let fileNo = 0;
/** The config's own config.toml, loaded back with no environment: the same settings. */
function roundTrip(c: Config): void {
  const file = join(dir, `rt-${++fileNo % 8}.toml`);
  writeFileSync(file, toToml(c));
  const again = outcome(() => loadConfig({ env: {}, configFile: file }), names);
  assert.ok(!(again instanceof Error), `config.toml written by toToml does not load: ${again instanceof Error ? again.message : ''}\n${toToml(c)}`);
  const strip = ({ configFile: _f, warnings: _w, ...rest }: Config): Omit<Config, 'configFile' | 'warnings'> => rest;
  assert.deepEqual(strip(again), strip(c));
}

function checkEnv(env: Record<string, string>): void {
  const c = outcome(() => loadConfig({ env }), names);
  if (!(c instanceof Error)) roundTrip(c);
}

/** A TOML value of any type, written as TOML text. */
const tomlValues = fc.oneof(
  fc.string({ maxLength: 12 }).map((s) => JSON.stringify(s)),
  fc.constantFrom(
    'true',
    'false',
    '0',
    '-1',
    '1.5',
    'inf',
    'nan',
    '9223372036854775807',
    '300000000',
    '1_000',
    '0x10',
    '1979-05-27',
    '07:32:00',
    '1979-05-27T07:32:00Z',
    '[]',
    '["a"]',
    '[1, 2]',
    '{}',
    '{ a = 1 }',
    "'lit'",
    '"""multi\nline"""',
  ),
  fc.integer().map(String),
  fc.double({ noNaN: true, noDefaultInfinity: true }).map((d) => (Number.isInteger(d) ? `${d}.0` : String(d)).replace('e', 'E')),
);
const tomlFiles = fc
  .tuple(
    fc.subarray(names, { maxLength: 6 }).chain((picked) =>
      fc.tuple(
        ...picked.map((n) =>
          fc
            .oneof(
              valueFor(n).map((v) => JSON.stringify(v)),
              tomlValues,
            )
            .map((v) => [n, v] as const),
        ),
      ),
    ),
    fc.boolean(),
  )
  .map(([pairs, unknownKey]) => {
    const rows = [`daemon_home = "/srv/node"`, `daemon_name = "chaind"`];
    for (const [n, v] of pairs) rows.push(`${n.toLowerCase()} = ${v}`);
    if (unknownKey) rows.push('some_other_tool = 1');
    // a key given twice is a TOML error: keep the last
    const seen = new Map<string, string>();
    for (const r of rows) seen.set(r.split(' = ')[0], r);
    return [...seen.values()].join('\n') + '\n';
  });

function checkFile(text: string | Buffer, env: Record<string, string> = {}): void {
  const file = join(dir, `c-${++fileNo % 8}.toml`);
  writeFileSync(file, text);
  const c = outcome(() => loadConfig({ env, configFile: file }), names);
  if (!(c instanceof Error)) roundTrip(c);
}

describe('fuzz: chainvisor settings through the one loader', () => {
  test(`DAEMON_* and COSMOVISOR_* variables with odd values, required ones missing (${RUNS.env} cases)`, () => {
    fc.assert(fc.property(envs, checkEnv), fuzzParameters(RUNS.env));
  });

  test(`config.toml with values of every TOML type (${RUNS.file} cases)`, () => {
    fc.assert(
      fc.property(tomlFiles, (t) => checkFile(t)),
      fuzzParameters(RUNS.file),
    );
  });

  test(`damaged config.toml: truncated, bit-flipped, random bytes (${RUNS.damaged} cases)`, () => {
    const damaged = fc.oneof(
      fc.tuple(tomlFiles, fc.nat()).map(([t, n]) => t.slice(0, n % (t.length + 1))),
      fc.tuple(tomlFiles, fc.array(fc.tuple(fc.nat(), fc.integer({ min: 0, max: 7 })), { minLength: 1, maxLength: 3 })).map(([t, flips]) => {
        const b = Buffer.from(t);
        for (const [at, bit] of flips) b[at % b.length] ^= 1 << bit;
        return b;
      }),
      fc.uint8Array({ maxLength: 100 }).map((a) => Buffer.from(a)),
    );
    fc.assert(
      fc.property(damaged, (t) => checkFile(t)),
      fuzzParameters(RUNS.damaged),
    );
  });

  test('regression: a long value is quoted short in its problem line', () => {
    checkEnv({ DAEMON_HOME: '/srv/node', DAEMON_NAME: 'chaind', DAEMON_GRPC_ADDRESS: 'x'.repeat(5000) });
  });

  test('regression: a duration past 596h is refused (Node fires a longer timer after 1 ms: a 1000h grace killed the node at once)', () => {
    checkEnv({ DAEMON_HOME: '/srv/node', DAEMON_NAME: 'chaind', DAEMON_SHUTDOWN_GRACE: '1000h' });
    checkFile('daemon_home = "/srv/node"\ndaemon_name = "chaind"\ndaemon_restart_delay = 4045053546958303.0\n');
    assert.throws(
      () => loadConfig({ env: { DAEMON_HOME: '/srv/node', DAEMON_NAME: 'chaind', DAEMON_POLL_INTERVAL: '597h' } }),
      /DAEMON_POLL_INTERVAL: must be at most 596h, got "597h"/,
    );
    assert.equal(loadConfig({ env: { DAEMON_HOME: '/srv/node', DAEMON_NAME: 'chaind', DAEMON_POLL_INTERVAL: '596h' } }).pollIntervalMs, 596 * 3_600_000);
  });

  test('regression: a config.toml that does not parse is one line, with where', () => {
    checkFile('d');
    assert.throws(
      () => checkFileStrict('daemon_home = "/srv/node"\nd'),
      /^ChainvisorError: cannot read config file .*: Invalid TOML document: .* \(line 2, column 1\)$/,
    );
  });

  test('regression: a sub-millisecond duration is written back by toToml as read (0.1ns, 1.5us)', () => {
    checkEnv({ DAEMON_HOME: '/srv/node', DAEMON_NAME: 'chaind', DAEMON_RESTART_DELAY: '0.1ns' });
    checkEnv({ DAEMON_HOME: '/srv/node', DAEMON_NAME: 'chaind', DAEMON_RESTART_DELAY: '1.5us', DAEMON_SHUTDOWN_GRACE: '0.0000001ns' });
  });
});

/** loadConfig on this config.toml text, errors thrown as they are. */
function checkFileStrict(text: string): Config {
  const file = join(dir, 'strict.toml');
  writeFileSync(file, text);
  return loadConfig({ env: {}, configFile: file });
}

// Test support: real validators on CometBFT v0.38. The pinned cometbft binary (or why there is none),
// `chaind start` and `chainvisor run start` as child processes, each in a process group of its own that
// `killAllGroups` kills (CometBFT, chaind's child, goes with it), and a node's endpoints read from its home.
import { spawn, type ChildProcess } from 'node:child_process';
import { readFileSync, writeFileSync } from 'node:fs';
import { fileURLToPath } from 'node:url';
import { Comet38Client } from '@cosmjs/tendermint-rpc';
import { checkCometBinary, locateCometBinary } from '../../src/comet/binary.ts';
import { COMETBFT_VERSION } from '../../src/comet/version.ts';
import { configPaths, loadConfig } from '../../src/config/index.ts';
import { setTomlValue } from '../../src/config/toml-edit.ts';
import { freeLoopbackPorts } from '../../src/cli/testnet/layout.ts';
import { BIN, childEnv } from './cli.ts';
import { makeNetworkHomes } from './homes.ts';
import { errorMessage } from '@chaind/errors';
import { runInGroup, type GroupRun } from '@chaind/upgrade-plan/testing';

export const CHAINVISOR_BIN = fileURLToPath(new URL('../../../chainvisor/bin/chainvisor.js', import.meta.url));

/** The cometbft binary the tests run, or why they skip. CI (CI=true, CHAIND_REQUIRE_COMETBFT=1) never skips: the tests run and fail. */
export interface CometForTests {
  readonly bin: string | undefined;
  /** The reason for node:test's `skip`, or false. */
  readonly skip: string | false;
}

function findCometForTests(): CometForTests {
  const required = process.env.CI === 'true' || process.env.CHAIND_REQUIRE_COMETBFT === '1';
  try {
    const b = locateCometBinary();
    if (b === undefined) throw new Error(`no cometbft binary (npm run cometbft:install installs CometBFT ${COMETBFT_VERSION} with Go, or set COMETBFT_BIN)`);
    return { bin: checkCometBinary(b).path, skip: false };
  } catch (e) {
    const why = errorMessage(e);
    if (required) return { bin: undefined, skip: false };
    process.stderr.write(`\n*** SKIPPING the CometBFT tests: ${why} ***\n\n`);
    return { bin: undefined, skip: why };
  }
}

let found: CometForTests | undefined;
/** Looked up once, when a test first asks. */
export function cometForTests(): CometForTests {
  found ??= findCometForTests();
  return found;
}

/** The binary, or the failure a test that needs CometBFT reports where it may not skip. */
export function cometbftBin(): string {
  const c = cometForTests();
  if (c.bin === undefined)
    throw new Error(
      `CometBFT ${COMETBFT_VERSION} is required here (CI=true or CHAIND_REQUIRE_COMETBFT=1) and none was found: npm run cometbft:install, or set COMETBFT_BIN`,
    );
  return c.bin;
}

const OUTPUT_KEPT = 4_000_000;

export interface GroupExit {
  readonly code: number | null;
  readonly signal: NodeJS.Signals | null;
}

/** A child process leading a process group of its own, its output kept. */
export class GroupChild {
  private static readonly all = new Set<GroupChild>();
  readonly exited: Promise<GroupExit>;
  /** The output's latest chunks, at most OUTPUT_KEPT bytes: copying one string per chunk cost the test process so much CPU that it read its children's pipes too late and stalled them. */
  private readonly chunks: string[] = [];
  private kept = 0;

  private constructor(
    readonly child: ChildProcess,
    readonly what: string,
  ) {
    const keep = (d: Buffer): void => {
      const text = d.toString();
      this.chunks.push(text);
      this.kept += text.length;
      while (this.kept > OUTPUT_KEPT && this.chunks.length > 1) this.kept -= (this.chunks.shift() ?? '').length;
    };
    child.stdout?.on('data', keep);
    child.stderr?.on('data', keep);
    this.exited = new Promise((res) => child.once('close', (code, signal) => res({ code, signal })));
    GroupChild.all.add(this);
  }

  /** `node <args>` (this Node) in a group of its own. */
  static spawn(args: readonly string[], env: NodeJS.ProcessEnv, what: string): GroupChild {
    return GroupChild.spawnProgram(process.execPath, args, env, what);
  }

  /** `cmd <args>` run as a program (a launcher's shebang and its Node flags obeyed) in a group of its own. */
  static spawnProgram(cmd: string, args: readonly string[], env: NodeJS.ProcessEnv, what: string, cwd?: string): GroupChild {
    const child = spawn(cmd, [...args], { env, stdio: ['ignore', 'pipe', 'pipe'], detached: true, ...(cwd === undefined ? {} : { cwd }) });
    return new GroupChild(child, what);
  }

  get pid(): number {
    return this.child.pid ?? -1;
  }

  get running(): boolean {
    return this.child.exitCode === null && this.child.signalCode === null;
  }

  log(): string {
    return this.chunks.join('');
  }

  /** Resolves with the first match of `re` in the output; rejects after `ms` or when the process ends first. */
  async waitForLog(re: RegExp, ms = 60_000): Promise<RegExpExecArray> {
    const end = Date.now() + ms;
    for (;;) {
      const m = re.exec(this.log());
      if (m) return m;
      if (!this.running) throw new Error(`${this.what} exited before logging ${re}:\n${this.log().slice(-4000)}`);
      if (Date.now() > end) throw new Error(`${this.what}: no ${re} within ${ms} ms:\n${this.log().slice(-4000)}`);
      await new Promise((r) => setTimeout(r, 250));
    }
  }

  /** `signal` to the leader alone (as an operator's kill <pid>). */
  signal(signal: NodeJS.Signals): void {
    if (this.running) this.child.kill(signal);
  }

  /** SIGKILL to the whole group, then the leader's exit. */
  async killGroup(): Promise<GroupExit> {
    try {
      process.kill(-this.pid, 'SIGKILL');
    } catch {
      // the group is gone
    }
    return this.exited;
  }

  static async killAllGroups(): Promise<void> {
    await Promise.all([...GroupChild.all].map((c) => c.killGroup()));
    GroupChild.all.clear();
  }
}

/** `chaind start` (CometBFT as its child) over `home` as release `release` (default: the newest). */
export function startValidator(home: string, release?: string, extra: readonly string[] = []): GroupChild {
  const env = childEnv({ COMETBFT_BIN: cometbftBin(), ...(release === undefined ? {} : { CHAIND_RELEASE: release }) });
  return GroupChild.spawn([BIN, 'start', '--home', home, ...extra], env, `chaind start over ${home}`);
}

/** cosmovisor's settings for `home`, as the tests run chainvisor (`env` added). */
function visorEnv(home: string, env: Readonly<Record<string, string>>): NodeJS.ProcessEnv {
  return childEnv({
    COMETBFT_BIN: cometbftBin(),
    DAEMON_HOME: home,
    DAEMON_NAME: 'chaind',
    DAEMON_POLL_INTERVAL: '100ms',
    DAEMON_RESTART_AFTER_UPGRADE: 'true',
    UNSAFE_SKIP_BACKUP: 'true',
    COSMOVISOR_COLOR_LOGS: 'false',
    COSMOVISOR_TIMEFORMAT_LOGS: 'none',
    ...env,
  });
}

/** `chainvisor run start --home <home>` with cosmovisor's settings for that home (`env` added). */
export function startVisor(home: string, env: Readonly<Record<string, string>> = {}): GroupChild {
  return GroupChild.spawn([CHAINVISOR_BIN, 'run', 'start', '--home', home], visorEnv(home, env), `chainvisor run start over ${home}`);
}

/** One chainvisor command (`prepare-upgrade`, `add-upgrade` …) over `home`, to its end. */
export function visorCommand(home: string, args: readonly string[], env: Readonly<Record<string, string>> = {}): Promise<GroupRun> {
  return runInGroup(CHAINVISOR_BIN, args, { env: visorEnv(home, env), timeoutMs: 120_000 });
}

/** Where a validator's home says it serves: CometBFT's JSON-RPC, chaind's REST and gRPC. */
export interface ValidatorEndpoints {
  readonly rpc: string;
  readonly rest: string;
  readonly grpc: string;
}

export async function endpointsOf(home: string): Promise<ValidatorEndpoints> {
  const c = await loadConfig(home);
  const host = (h: string): string => (h === '0.0.0.0' || h === '' ? '127.0.0.1' : h);
  return {
    rpc: `http://${host(c.node.rpc.laddr.host)}:${c.node.rpc.laddr.port}`,
    rest: `http://${host(c.app.api.address.host)}:${c.app.api.address.port}`,
    grpc: `${host(c.app.grpc.address.host)}:${c.app.grpc.address.port}`,
  };
}

/** The latest height CometBFT's RPC reports, or undefined while it does not answer. */
export async function cometHeight(rpc: string): Promise<bigint | undefined> {
  try {
    const r = await fetch(`${rpc}/status`, { signal: AbortSignal.timeout(3_000) });
    const s = (await r.json()) as { result: { sync_info: { latest_block_height: string } } };
    return BigInt(s.result.sync_info.latest_block_height);
  } catch {
    return undefined;
  }
}

/** Resolves once the node (CometBFT or chaind dev) at `rpc` reports height `h` or more; fails after `ms`. */
export async function waitForRpcHeight(rpc: string, h: bigint | number, ms = 60_000): Promise<bigint> {
  return eventually(
    `height ${h} at ${rpc}`,
    async () => {
      const now = await cometHeight(rpc);
      return now !== undefined && now >= BigInt(h) ? now : undefined;
    },
    ms,
  );
}

/** A CosmJS client of CometBFT's RPC (call disconnect()). */
export function cometClient(rpc: string): Promise<Comet38Client> {
  return Comet38Client.connect(rpc);
}

/** Polls `probe` until it gives a value; the last error in the timeout's message. */
export async function eventually<T>(what: string, probe: () => Promise<T | undefined>, ms = 60_000): Promise<T> {
  const end = Date.now() + ms;
  let last: unknown;
  for (;;) {
    try {
      const v = await probe();
      if (v !== undefined) return v;
    } catch (e) {
      last = e;
    }
    if (Date.now() > end) throw new Error(`timed out after ${ms} ms waiting for ${what}${last instanceof Error ? `: ${last.message}` : ''}`);
    await new Promise((r) => setTimeout(r, 250));
  }
}

/** `n` free loopback ports, all held open until each is chosen so none repeats (the testnet's own chooser). */
export const freePorts = freeLoopbackPorts;

/** Whether a process is still alive (signal 0 checks without sending). */
export function alive(pid: number): boolean {
  try {
    process.kill(pid, 0);
    return true;
  } catch {
    return false;
  }
}

export interface OneValidator {
  readonly home: string;
  readonly ends: ValidatorEndpoints;
  /** chaind's own /metrics (app.toml [instrumentation], namespace chaind). */
  readonly metrics: string;
  /** The validator's operator key name in the home's test keyring. */
  readonly operator: string;
}

/**
 * A one-validator CometBFT home as docs/operator-guide.md "A single-validator chain, step by step" makes it
 * (init, keys add, genesis add-account, add-validator: makeNetworkHomes), on free loopback ports: CometBFT's
 * RPC and P2P, chaind's REST, gRPC and metrics; blocks `timeoutCommit` apart.
 */
export async function oneValidatorHome(o: { readonly chainId: string; readonly govPeriod?: string; readonly timeoutCommit?: string }): Promise<OneValidator> {
  const { homes } = await makeNetworkHomes({ chainId: o.chainId, nodes: 1, govPeriod: o.govPeriod });
  const home = homes[0];
  const [rpc, p2p, api, grpc, metrics] = await freePorts(5);
  const paths = configPaths(home);
  let node = readFileSync(paths.node, 'utf8');
  node = setTomlValue(node, 'rpc', 'laddr', `tcp://127.0.0.1:${rpc}`);
  node = setTomlValue(node, 'p2p', 'laddr', `tcp://127.0.0.1:${p2p}`);
  node = setTomlValue(node, 'consensus', 'timeout_commit', o.timeoutCommit ?? '300ms');
  writeFileSync(paths.node, node);
  let app = readFileSync(paths.app, 'utf8');
  app = setTomlValue(app, 'api', 'enable', true);
  app = setTomlValue(app, 'api', 'address', `tcp://127.0.0.1:${api}`);
  app = setTomlValue(app, 'grpc', 'enable', true);
  app = setTomlValue(app, 'grpc', 'address', `127.0.0.1:${grpc}`);
  app = setTomlValue(app, 'instrumentation', 'prometheus', true);
  app = setTomlValue(app, 'instrumentation', 'prometheus-listen-addr', `127.0.0.1:${metrics}`);
  writeFileSync(paths.app, app);
  return { home, ends: await endpointsOf(home), metrics: `http://127.0.0.1:${metrics}/metrics`, operator: 'operator' };
}

/** CometBFT's `/block` header time at `height`, as its RPC writes it (RFC 3339 to the nanosecond). */
export async function cometHeaderTime(rpc: string, height: bigint): Promise<string> {
  const r = await fetch(`${rpc}/block?height=${height}`, { signal: AbortSignal.timeout(5_000) });
  const b = (await r.json()) as { result?: { block: { header: { time: string } } }; error?: unknown };
  if (b.result === undefined) throw new Error(`CometBFT has no block ${height}: ${JSON.stringify(b.error)}`);
  return b.result.block.header.time;
}

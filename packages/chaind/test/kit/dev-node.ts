// `chaind dev` as a child process for process tests: its own process group (killed with it, always), its log kept,
// and the addresses its servers report once they listen.
import { childEnv, BIN } from './cli.ts';
import { GroupChild } from './validator.ts';

/** The flags for a node serving JSON-RPC alone, on a free loopback port. */
export const RPC_ONLY: readonly string[] = ['--api.enable', 'false', '--grpc.enable', 'false', '--rpc.laddr', 'tcp://127.0.0.1:0'];

export interface DevNode {
  readonly proc: GroupChild;
  /** JSON-RPC's url (http://127.0.0.1:port) */
  readonly rpc: string;
  /** REST's url and gRPC's host:port, when `rest` and `grpc` were asked for */
  readonly rest?: string;
  readonly grpc?: string;
  /** SIGTERM to the node (as an operator's Ctrl-C), then its exit; the group killed if it has not stopped within 30 s */
  stop(): Promise<number | null>;
}

export interface DevNodeOptions {
  /** the launcher to run (a copy's, e.g. `sourcesWithNextRelease(…).bin`); default BIN */
  readonly bin?: string;
  /** an extracted release's launcher, run as a program in `cwd` with exactly `env` (nothing leading back to the repo); `bin` and `release` then unused */
  readonly program?: { readonly path: string; readonly cwd: string; readonly env: NodeJS.ProcessEnv };
  /** more flags for `chaind dev` (the servers' addresses are set already: free loopback ports) */
  readonly args?: readonly string[];
  /** CHAIND_RELEASE of the binary (default: the latest release) */
  readonly release?: string;
  /** serve REST and gRPC too, and wait for both (default: JSON-RPC only) */
  readonly servers?: boolean;
  readonly timeoutMs?: number;
}

/** Spawns `chaind dev --home <home>` without waiting for it: for a node a test expects to exit before it listens. */
export function spawnDevNode(home: string, o: DevNodeOptions = {}): GroupChild {
  const serve = o.servers ? ['--rpc.laddr', 'tcp://127.0.0.1:0', '--api.address', 'tcp://127.0.0.1:0', '--grpc.address', '127.0.0.1:0'] : RPC_ONLY;
  const env = childEnv(o.release === undefined ? {} : { CHAIND_RELEASE: o.release });
  const what = `chaind dev${o.release === undefined ? '' : ` (${o.release})`} over ${home}`;
  const args = ['dev', '--home', home, ...serve, ...(o.args ?? [])];
  if (o.program !== undefined) return GroupChild.spawnProgram(o.program.path, args, o.program.env, `${o.program.path} dev over ${home}`, o.program.cwd);
  return GroupChild.spawn([o.bin ?? BIN, ...args], env, what);
}

/** Starts `chaind dev --home <home>` and resolves once its servers listen. */
export async function startDevNode(home: string, o: DevNodeOptions = {}): Promise<DevNode> {
  const proc = spawnDevNode(home, o);
  const ms = o.timeoutMs ?? 60_000;
  const rpc = (await proc.waitForLog(/RPC server listening url=(\S+)/, ms))[1];
  const rest = o.servers ? (await proc.waitForLog(/REST server listening url=(\S+)/, ms))[1] : undefined;
  const grpc = o.servers ? (await proc.waitForLog(/gRPC server listening address=(\S+)/, ms))[1] : undefined;
  return {
    proc,
    rpc,
    ...(rest === undefined ? {} : { rest }),
    ...(grpc === undefined ? {} : { grpc }),
    async stop() {
      proc.signal('SIGTERM');
      const timer = setTimeout(() => void proc.killGroup(), 30_000);
      const e = await proc.exited;
      clearTimeout(timer);
      await proc.killGroup(); // anything the node left in its group
      return e.code;
    },
  };
}

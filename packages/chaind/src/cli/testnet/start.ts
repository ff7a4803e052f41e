// `chaind testnet start DIR`: every node of `testnet init` under its own `chainvisor run start`, each in a
// process group of its own (chainvisor, chaind, CometBFT), restarted when it exits as systemd's
// Restart=always would (after a short backoff), its lines prefixed with its name; DIR/testnet.json says
// where each node serves. SIGINT/SIGTERM stop every node (SIGTERM, then SIGKILL of the group after a grace).
import { spawn, type ChildProcess } from 'node:child_process';
import { existsSync, readdirSync, readFileSync, writeFileSync } from 'node:fs';
import { join, resolve } from 'node:path';
import { createInterface } from 'node:readline';
import { findCometBinary } from '../../comet/binary.ts';
import { loadConfig } from '../../config/index.ts';
import { UserError } from '../common.ts';
import { chainvisorBin } from './layout.ts';

/** Backoff before a node that exited is started again: doubled per quick exit, up to the maximum. */
export const RESTART_BACKOFF_MS = { first: 1_000, max: 10_000 } as const;
/** How long a stop waits for a node's chainvisor after SIGTERM before it kills the group. */
export const STOP_GRACE_MS = 20_000;

export interface TestnetNodeInfo {
  readonly name: string;
  readonly home: string;
  readonly rpc: string;
  readonly rest: string;
  readonly grpc: string;
  readonly key: string;
}

/** What DIR/testnet.json holds. */
export interface TestnetFile {
  readonly chain_id: string;
  readonly nodes: readonly TestnetNodeInfo[];
}

export async function readTestnet(dir: string): Promise<TestnetFile> {
  const names = existsSync(dir)
    ? readdirSync(dir)
        .filter((n) => /^node\d+$/.test(n))
        .sort((a, b) => Number(a.slice(4)) - Number(b.slice(4)))
    : [];
  if (names.length === 0) throw new UserError(`${dir} holds no testnet (no node0, node1, …): make one with \`chaind testnet init --output ${dir}\``);
  let chainId = '';
  const nodes = await Promise.all(
    names.map(async (name) => {
      const home = join(dir, name);
      const c = await loadConfig(home);
      const genesis = JSON.parse(readFileSync(join(home, 'config', 'genesis.json'), 'utf8')) as { chain_id: string };
      chainId = genesis.chain_id;
      return {
        name,
        home,
        rpc: `http://${c.node.rpc.laddr.host}:${c.node.rpc.laddr.port}`,
        rest: `http://${c.app.api.address.host}:${c.app.api.address.port}`,
        grpc: `${c.app.grpc.address.host}:${c.app.grpc.address.port}`,
        key: `validator${name.slice(4)}`,
      };
    }),
  );
  return { chain_id: chainId, nodes };
}

/** Runs the testnet until SIGINT/SIGTERM; resolves with the exit code once every node is stopped. */
export async function testnetStart(dirArg: string, log: (line: string) => void): Promise<number> {
  const dir = resolve(dirArg);
  const net = await readTestnet(dir);
  const comet = findCometBinary().path;
  writeFileSync(join(dir, 'testnet.json'), JSON.stringify(net, null, 2) + '\n');
  log(`testnet ${net.chain_id}: ${net.nodes.length} validators, ${join(dir, 'testnet.json')}`);
  for (const n of net.nodes) log(`  ${n.name}  rpc ${n.rpc}  rest ${n.rest}  grpc ${n.grpc}  key ${n.key}`);
  let stopping = false;
  const running = new Map<string, ChildProcess>();
  const finished: Promise<void>[] = [];

  const supervise = async (n: TestnetNodeInfo): Promise<void> => {
    let backoff: number = RESTART_BACKOFF_MS.first;
    while (!stopping) {
      const child = spawn(process.execPath, [chainvisorBin(), 'run', 'start', '--home', n.home], {
        env: {
          ...process.env,
          COMETBFT_BIN: comet,
          DAEMON_HOME: n.home,
          DAEMON_NAME: 'chaind',
          DAEMON_RESTART_AFTER_UPGRADE: 'true',
          DAEMON_RPC_ADDRESS: n.rpc,
          DAEMON_GRPC_ADDRESS: n.grpc,
          DAEMON_POLL_INTERVAL: '300ms',
          // a throw-away network: no copy of data/ at each upgrade
          UNSAFE_SKIP_BACKUP: 'true',
        },
        stdio: ['ignore', 'pipe', 'pipe'],
        detached: true,
      });
      running.set(n.name, child);
      for (const s of [child.stdout, child.stderr])
        if (s !== null) createInterface({ input: s, crlfDelay: Infinity }).on('line', (l) => log(`${n.name}| ${l}`));
      const started = Date.now();
      const code = await new Promise<number | string>((res) => child.once('close', (c, sig) => res(c ?? sig ?? 'unknown')));
      running.delete(n.name);
      if (stopping) return;
      // a node that ran a while starts over with the shortest backoff
      if (Date.now() - started > RESTART_BACKOFF_MS.max * 3) backoff = RESTART_BACKOFF_MS.first;
      log(`testnet: ${n.name} exited (${code}); restarting in ${backoff} ms`);
      await new Promise((r) => setTimeout(r, backoff));
      backoff = Math.min(backoff * 2, RESTART_BACKOFF_MS.max);
    }
  };
  for (const n of net.nodes) finished.push(supervise(n));

  const stop = async (): Promise<void> => {
    if (stopping) return;
    stopping = true;
    log('testnet: stopping every node');
    await Promise.all(
      [...running.values()].map(async (child) => {
        const closed = new Promise((r) => child.once('close', r));
        if (child.exitCode !== null || child.signalCode !== null) return;
        child.kill('SIGTERM');
        const timer = setTimeout(() => killGroup(child), STOP_GRACE_MS);
        await closed;
        clearTimeout(timer);
        // whatever the group left behind goes with it
        killGroup(child);
      }),
    );
  };
  await new Promise<void>((res) => {
    const on = (): void => void stop().then(res);
    process.once('SIGINT', on);
    process.once('SIGTERM', on);
  });
  await Promise.all(finished);
  return 0;
}

function killGroup(child: ChildProcess): void {
  try {
    if (child.pid !== undefined) process.kill(-child.pid, 'SIGKILL');
  } catch {
    // the group is gone
  }
}

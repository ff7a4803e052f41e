// `chaind testnet init --validators N --output DIR`: a local validator network, each node a chaind +
// CometBFT home (DIR/node<i>) with its own loopback ports, persistent peers to every other node, one
// genesis giving each validator equal power, a funded key `validator<i>` in its home's test keyring, and
// chainvisor's layout with this repository's releases (genesis = the first, upgrades/<name> each later).
// The homes are made as an operator makes them: with the genesis release's own binary (its CLI writes
// a genesis that release accepts) after `chainvisor init` installed it.
import { execFile } from 'node:child_process';
import { copyFileSync, existsSync, mkdirSync, readdirSync, readFileSync, writeFileSync } from 'node:fs';
import { join, resolve } from 'node:path';
import { promisify } from 'node:util';
import { setTomlValue } from '../../config/toml-edit.ts';
import { chainvisorBin, freeLoopbackPorts, releaseArchives } from './layout.ts';
import { UserError } from '../common.ts';
import { govPeriodOf, positiveDurationFlag } from '../duration-flag.ts';

const run = promisify(execFile);

/** Most validators one machine's testnet may have: each is a chaind, a CometBFT and a chainvisor. */
export const MAX_TESTNET_VALIDATORS = 16;
export const TESTNET_DENOM = 'stake';
const BALANCE = `1000000000000${TESTNET_DENOM}`;
const POWER = '10';

export interface TestnetInitOptions {
  readonly validators: number;
  readonly output: string;
  readonly chainId: string;
  /** Governance deposit and voting periods, Go duration syntax. */
  readonly govPeriod: string;
  /** CometBFT's timeout_commit, Go duration syntax. */
  readonly blockTime: string;
  /** A folder of release archives (default: this repository's dist/releases, built when missing). */
  readonly releases?: string;
  readonly log: (line: string) => void;
}

/** One node as `testnet init` wrote it. */
export interface TestnetNode {
  readonly name: string;
  readonly home: string;
  readonly key: string;
  readonly ports: { readonly rpc: number; readonly p2p: number; readonly rest: number; readonly grpc: number };
}

export async function testnetInit(o: TestnetInitOptions): Promise<TestnetNode[]> {
  if (!Number.isInteger(o.validators) || o.validators < 1 || o.validators > MAX_TESTNET_VALIDATORS) {
    throw new UserError(`--validators must be 1 to ${MAX_TESTNET_VALIDATORS}, got ${o.validators}`);
  }
  const govPeriod = govPeriodOf(o.govPeriod);
  positiveDurationFlag('block-time', o.blockTime);
  const out = resolve(o.output);
  if (existsSync(out) && readdirSync(out).length > 0) throw new UserError(`--output ${out} is not empty: give a new or empty folder`);
  const archives = releaseArchives(o.releases, o.log);
  const ports = await freeLoopbackPorts(4 * o.validators);
  const nodes: TestnetNode[] = Array.from({ length: o.validators }, (_, i) => ({
    name: `node${i}`,
    home: join(out, `node${i}`),
    key: `validator${i}`,
    ports: { rpc: ports[4 * i], p2p: ports[4 * i + 1], rest: ports[4 * i + 2], grpc: ports[4 * i + 3] },
  }));
  mkdirSync(out, { recursive: true });
  const visorEnv = (home: string): NodeJS.ProcessEnv => ({ ...process.env, DAEMON_HOME: home, DAEMON_NAME: 'chaind' });
  // chainvisor installs the releases; each home's genesis binary then makes that home
  await Promise.all(
    nodes.map(async (n) => {
      mkdirSync(n.home, { recursive: true });
      await run(process.execPath, [chainvisorBin(), 'init', archives[0].archive], { env: visorEnv(n.home) });
      for (const a of archives.slice(1)) await run(process.execPath, [chainvisorBin(), 'add-upgrade', a.release, a.archive], { env: visorEnv(n.home) });
    }),
  );
  const chaind = (n: TestnetNode, args: readonly string[]): Promise<{ stdout: string; stderr: string }> =>
    run(join(n.home, 'cosmovisor', 'genesis', 'bin', 'chaind'), [...args, '--home', n.home], { env: process.env });
  const test = ['--keyring-backend', 'test'];
  const addresses = await Promise.all(
    nodes.map(async (n) => {
      await chaind(n, ['init', n.name, '--chain-id', o.chainId]);
      const k = await chaind(n, ['keys', 'add', n.key, ...test, '--output', 'json']);
      return (JSON.parse(k.stdout) as { address: string }).address;
    }),
  );
  // the coordinator (node0) builds the one genesis, one command at a time
  const c = nodes[0];
  for (const a of addresses) await chaind(c, ['genesis', 'add-account', a, BALANCE]);
  for (let i = 0; i < nodes.length; i++) {
    const pv = JSON.parse(readFileSync(join(nodes[i].home, 'config', 'priv_validator_key.json'), 'utf8')) as { pub_key: { value: string } };
    const pubkey = JSON.stringify({ '@type': '/cosmos.crypto.ed25519.PubKey', key: pv.pub_key.value });
    await chaind(c, ['genesis', 'add-validator', addresses[i], POWER, '--pubkey', pubkey, '--moniker', nodes[i].name]);
  }
  const genesis = join(c.home, 'config', 'genesis.json');
  // vote extensions (the readiness attestations) are on already: `chaind init` writes them (VOTE_EXTENSIONS_ENABLE_HEIGHT)
  const doc = JSON.parse(readFileSync(genesis, 'utf8')) as { app_state: { gov: { params: Record<string, unknown> } } };
  Object.assign(doc.app_state.gov.params, {
    voting_period: govPeriod,
    max_deposit_period: govPeriod,
    min_deposit: [{ denom: TESTNET_DENOM, amount: '10000000' }],
  });
  writeFileSync(genesis, JSON.stringify(doc, null, 2) + '\n');
  await chaind(c, ['genesis', 'validate']);
  const ids = await Promise.all(nodes.map(async (n) => (await chaind(n, ['comet', 'show-node-id'])).stdout.trim()));
  for (const [i, n] of nodes.entries()) {
    if (i > 0) copyFileSync(genesis, join(n.home, 'config', 'genesis.json'));
    const peers = nodes.flatMap((p, j) => (j === i ? [] : [`${ids[j]}@127.0.0.1:${p.ports.p2p}`])).join(',');
    const node = join(n.home, 'config', 'config.toml');
    let t = readFileSync(node, 'utf8');
    t = setTomlValue(t, 'rpc', 'laddr', `tcp://127.0.0.1:${n.ports.rpc}`);
    t = setTomlValue(t, 'p2p', 'laddr', `tcp://127.0.0.1:${n.ports.p2p}`);
    t = setTomlValue(t, 'p2p', 'persistent_peers', peers);
    // several nodes on one machine: CometBFT's defaults refuse loopback peers and a second peer of one IP
    t = setTomlValue(t, 'p2p', 'addr_book_strict', false);
    t = setTomlValue(t, 'p2p', 'allow_duplicate_ip', true);
    t = setTomlValue(t, 'consensus', 'timeout_commit', o.blockTime);
    // CometBFT's info level logs every step of every block, for N nodes in one terminal: errors only
    t = setTomlValue(t, '', 'log_level', 'error');
    writeFileSync(node, t);
    const app = join(n.home, 'config', 'app.toml');
    let a = readFileSync(app, 'utf8');
    a = setTomlValue(a, 'api', 'address', `tcp://127.0.0.1:${n.ports.rest}`);
    a = setTomlValue(a, 'grpc', 'address', `127.0.0.1:${n.ports.grpc}`);
    writeFileSync(app, a);
  }
  return nodes;
}

// The load run's own chain home: `chaind init`, the validator's operator and one account per lane funded
// in the genesis (written into it: thousands of `genesis add-account` runs would take minutes), `genesis
// add-validator`, and the run's node settings written into config.toml (`chaind start` validates the genesis);
// `listenOn` gives it fresh loopback ports, for `chaind start`, whose CometBFT reads them from config.toml.
import { spawnSync } from 'node:child_process';
import { createHash } from 'node:crypto';
import { readFileSync, writeFileSync } from 'node:fs';
import { join } from 'node:path';
import { fileURLToPath } from 'node:url';
import { addressFromPublicKey, publicKeyFromPrivate } from '@chaind/sdk/crypto';
import { setTomlValue } from '@chaind/chaind/testing';
import { freePort, type NodeEndpoints } from './node.ts';
import type { Lane } from './protocol.ts';

export const CHAIND = fileURLToPath(new URL('../../packages/chaind/bin/chaind.js', import.meta.url));
export const CHAIN_ID = 'load-1';
export const DENOM = 'stake';

/** The node settings a run chooses (config.toml), written down in the report. */
export interface NodeSettings {
  /** `[consensus] block_interval`, ms. */
  readonly blockIntervalMs: number;
  /** `[mempool] size`. */
  readonly mempoolSize: number;
  /** `[mempool] max_pending_txs`. */
  readonly maxPendingTxs: number;
}

export interface LoadHome {
  readonly home: string;
  readonly lanes: readonly Lane[];
}

function chaind(args: string[]): string {
  const r = spawnSync(process.execPath, [CHAIND, ...args], { encoding: 'utf8' });
  if (r.status !== 0) throw new Error(`chaind ${args.join(' ')} failed (${r.status}):\n${r.stderr}`);
  return r.stdout;
}

/** A home in `dir` with `lanes` funded accounts (keys derived from the lane's index) and `settings`. */
export function makeHome(dir: string, lanes: number, settings: NodeSettings): LoadHome {
  const home = join(dir, 'home');
  chaind(['init', 'load', '--chain-id', CHAIN_ID, '--home', home]);
  // key 0 is the validator's operator; keys 1.. the lanes'
  const keys = Array.from({ length: lanes + 1 }, (_, i) => {
    const privateKey = createHash('sha256').update(`load/${i}`).digest();
    return { privateKey, address: addressFromPublicKey(publicKeyFromPrivate(privateKey)) };
  });
  const file = join(home, 'config', 'genesis.json');
  interface Genesis {
    app_state: {
      auth: { accounts: Record<string, string | null>[] };
      bank: { balances: unknown[]; supply: { denom: string; amount: string }[] };
    };
  }
  const g = JSON.parse(readFileSync(file, 'utf8')) as Genesis;
  const first = g.app_state.auth.accounts.length;
  const balance = 1_000_000_000n;
  keys.forEach((k, i) => {
    g.app_state.auth.accounts.push({
      '@type': '/cosmos.auth.v1beta1.BaseAccount',
      address: k.address,
      pub_key: null,
      account_number: String(first + i),
      sequence: '0',
    });
    g.app_state.bank.balances.push({ address: k.address, coins: [{ denom: DENOM, amount: balance.toString() }] });
  });
  let supply = g.app_state.bank.supply.find((c) => c.denom === DENOM);
  if (supply === undefined) {
    supply = { denom: DENOM, amount: '0' };
    g.app_state.bank.supply.push(supply);
  }
  supply.amount = (BigInt(supply.amount) + balance * BigInt(keys.length)).toString();
  writeFileSync(file, JSON.stringify(g));
  const pv = JSON.parse(readFileSync(join(home, 'config', 'priv_validator_key.json'), 'utf8')) as { pub_key: unknown };
  chaind(['genesis', 'add-validator', keys[0].address, '10', '--pubkey', JSON.stringify(pv.pub_key), '--moniker', 'load', '--home', home]);

  const config = join(home, 'config', 'config.toml');
  const set = (text: string, key: string, value: string): string => {
    const re = new RegExp(`^${key} = .*$`, 'm');
    if (!re.test(text)) throw new Error(`config.toml has no ${key}`);
    return text.replace(re, `${key} = ${value}`);
  };
  let toml = readFileSync(config, 'utf8');
  // the same pace whichever makes the blocks: chaind dev (block_interval) or CometBFT (timeout_commit)
  toml = set(toml, 'block_interval', `"${settings.blockIntervalMs}ms"`);
  toml = set(toml, 'timeout_commit', `"${settings.blockIntervalMs}ms"`);
  toml = set(toml, 'size', String(settings.mempoolSize));
  toml = set(toml, 'max_pending_txs', String(settings.maxPendingTxs));
  writeFileSync(config, toml);

  const laneList: Lane[] = keys.slice(1).map((k, i) => ({
    address: k.address,
    privateKey: k.privateKey.toString('hex'),
    accountNumber: first + 1 + i,
    // to another lane's account: every send moves 1 stake between funded accounts
    to: keys[1 + ((i + 1) % lanes)].address,
  }));
  return { home, lanes: laneList };
}

/** Fresh loopback ports in the home's config.toml ([rpc] and [p2p] laddr) and app.toml (REST, gRPC). */
export async function listenOn(home: string): Promise<NodeEndpoints> {
  const [rpc, p2p, rest, grpc] = [await freePort(), await freePort(), await freePort(), await freePort()];
  const node = join(home, 'config', 'config.toml');
  let t = readFileSync(node, 'utf8');
  t = setTomlValue(t, 'rpc', 'laddr', `tcp://127.0.0.1:${rpc}`);
  t = setTomlValue(t, 'p2p', 'laddr', `tcp://127.0.0.1:${p2p}`);
  writeFileSync(node, t);
  const app = join(home, 'config', 'app.toml');
  let a = readFileSync(app, 'utf8');
  a = setTomlValue(a, 'api', 'address', `tcp://127.0.0.1:${rest}`);
  a = setTomlValue(a, 'grpc', 'address', `127.0.0.1:${grpc}`);
  writeFileSync(app, a);
  return { rpc: `http://127.0.0.1:${rpc}`, rest: `http://127.0.0.1:${rest}`, grpc: `127.0.0.1:${grpc}` };
}

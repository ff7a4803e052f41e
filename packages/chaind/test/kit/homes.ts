// A validator network's homes made the way operators make them, with the real CLI: `chaind init` per
// node, the operators' and users' keys in the test keyring, one coordinator genesis (`genesis
// add-account`, `add-validator --pubkey` with each node's consensus key, short gov periods, `genesis
// validate`) copied into every home. Vote extensions are on, as `chaind init` writes genesis, unless turned off.
import { copyFileSync, readFileSync, writeFileSync } from 'node:fs';
import { join } from 'node:path';
import { publicKeyFromPrivate } from '@chaind/sdk/crypto';
import { Keyring } from '@chaind/sdk/keyring';
import { DENOM, tmpDir, type TestKey } from '@chaind/sdk/testing';
import { ok } from './cli.ts';

export interface NetworkHomesOptions {
  readonly chainId: string;
  /** How many nodes, each a validator. */
  readonly nodes: number;
  /** Key names of the users funded at genesis (their keys are in node 0's keyring). */
  readonly users?: readonly string[];
  /** CHAIND_RELEASE of the commands (the chain's genesis release; default v1). */
  readonly release?: string;
  /** Every validator's power (default 10). */
  readonly power?: number;
  /** Every account's balance (default 1000000000stake). */
  readonly coins?: string;
  /** Gov voting and max deposit period (default "10s"). */
  readonly govPeriod?: string;
  /** Gov min deposit, in DENOM (default 1000). */
  readonly minDeposit?: string;
  /**
   * false: genesis turns vote extensions off ("0"), for a network whose consensus extends no votes (network.ts's
   * simulated CometBFT); by default they are on from the first block, as `chaind init` writes them.
   */
  readonly voteExtensions?: boolean;
}

export interface NetworkHomes {
  /** Node i's home (config/genesis.json is the same file in every one). */
  readonly homes: readonly string[];
  /** Node i's validator operator account (key "operator" in its home's test keyring). */
  readonly operators: readonly TestKey[];
  /** The users by key name. */
  readonly users: Readonly<Record<string, TestKey>>;
  /** Node i's consensus public key (config/priv_validator_key.json). */
  readonly consensusKeys: readonly Uint8Array[];
  /** The genesis.json every home holds. */
  readonly genesisText: string;
}

/** A key of a home's test keyring, with its private key, for signing in the test. */
export async function keyringKey(home: string, name: string): Promise<TestKey> {
  const ring = await Keyring.open(home, 'test');
  const privateKey = Uint8Array.from(Buffer.from(await ring.exportPrivateKeyHex(name), 'hex'));
  return { privateKey, publicKey: publicKeyFromPrivate(privateKey), address: (await ring.get(name)).address };
}

/** Node `home`'s consensus public key. */
export function consensusPubKey(home: string): Uint8Array {
  const pv = JSON.parse(readFileSync(join(home, 'config', 'priv_validator_key.json'), 'utf8')) as { pub_key: { value: string } };
  return Uint8Array.from(Buffer.from(pv.pub_key.value, 'base64'));
}

export async function makeNetworkHomes(o: NetworkHomesOptions): Promise<NetworkHomes> {
  const env = { CHAIND_RELEASE: o.release ?? 'v1' };
  const run = (args: string[]): Promise<unknown> => ok(args, { env });
  const test = ['--keyring-backend', 'test'];
  const homes = Array.from({ length: o.nodes }, () => tmpDir('chaind-net-'));
  const userNames = o.users ?? [];
  // independent homes and key files: all at once
  await Promise.all(homes.map((home, i) => run(['init', `node${i}`, '--chain-id', o.chainId, '--home', home])));
  await Promise.all([
    ...homes.map((home) => run(['keys', 'add', 'operator', ...test, '--home', home])),
    ...userNames.map((name) => run(['keys', 'add', name, ...test, '--home', homes[0]])),
  ]);
  const operators = await Promise.all(homes.map((home) => keyringKey(home, 'operator')));
  const users: Record<string, TestKey> = {};
  for (const name of userNames) users[name] = await keyringKey(homes[0], name);
  const consensusKeys = homes.map(consensusPubKey);
  // the coordinator (node 0) builds the one genesis: one file, one command at a time
  const coordinator = homes[0];
  const coins = o.coins ?? `1000000000${DENOM}`;
  for (const a of [...operators, ...Object.values(users)]) await run(['genesis', 'add-account', a.address, coins, '--home', coordinator]);
  for (let i = 0; i < homes.length; i++) {
    const pv = JSON.parse(readFileSync(join(homes[i], 'config', 'priv_validator_key.json'), 'utf8')) as { pub_key: unknown };
    await run([
      'genesis',
      'add-validator',
      operators[i].address,
      String(o.power ?? 10),
      '--pubkey',
      JSON.stringify(pv.pub_key),
      '--moniker',
      `node${i}`,
      '--home',
      coordinator,
    ]);
  }
  const file = join(coordinator, 'config', 'genesis.json');
  const doc = JSON.parse(readFileSync(file, 'utf8')) as {
    consensus_params: { abci: { vote_extensions_enable_height: string } };
    app_state: { gov: { params: Record<string, unknown> } };
  };
  if (o.voteExtensions === false) doc.consensus_params.abci.vote_extensions_enable_height = '0';
  const period = o.govPeriod ?? '10s';
  Object.assign(doc.app_state.gov.params, {
    voting_period: period,
    max_deposit_period: period,
    min_deposit: [{ denom: DENOM, amount: o.minDeposit ?? '1000' }],
  });
  writeFileSync(file, JSON.stringify(doc, null, 2) + '\n');
  await run(['genesis', 'validate', '--home', coordinator]);
  for (const home of homes.slice(1)) copyFileSync(file, join(home, 'config', 'genesis.json'));
  return { homes, operators, users, consensusKeys, genesisText: readFileSync(file, 'utf8') };
}

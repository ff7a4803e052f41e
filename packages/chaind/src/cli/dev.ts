// `chaind dev` (what `npm start` runs): a single-validator development chain in one command. Creates
// the home on first use (or with --reset) — chain "chain-dev-1", a test keyring holding funded `alice`,
// `bob` and `validator` (the only voter) from the well-known mnemonics below, 20 s governance periods,
// 1 s blocks — then starts it and prints the endpoints and example commands.
import { existsSync } from 'node:fs';
import { rm } from 'node:fs/promises';
import { homedir } from 'node:os';
import { join } from 'node:path';
import type { Command } from 'commander';
import { validateGenesis } from '@chaind/sdk/genesis';
import { Keyring } from '@chaind/sdk/keyring';
import { readPrivValidatorKey } from '../node/keys.ts';
import { printLine } from './common.ts';
import { GOV_PERIOD_FLAG } from './duration-flag.ts';
import { genesisPath, genesisSummary, readGenesisFile, writeGenesisFile } from './genesis.ts';
import { initHome } from './init.ts';
import { addStartOptions, runNode, type StartOptions } from './start.ts';
import type { ServerStarter } from '../node/node.ts';

export const DEV_CHAIN_ID = 'chain-dev-1';
export const DEV_DENOM = 'stake';
/** Development keys only: these mnemonics are public, never use them for anything of value. */
export const DEV_MNEMONICS: Readonly<Record<'alice' | 'bob' | 'validator', string>> = {
  alice:
    'predict eight fashion extend network panther solar tragic crumble unusual vacuum amateur basic name blind cost silent just road salute guard tip rug visit',
  bob: 'foil exchange benefit when empty crater good uniform short wide sad stuff course vanish another mountain top abandon host loyal lesson charge coconut story',
  validator:
    'speak steel habit replace among mammal material empty opinion act subject engine fortune theory brisk neutral thrive buzz hundred giant pumpkin shrug sorry library',
};
const DEV_BALANCE = 1_000_000_000_000n;

export function defaultDevHome(): string {
  return process.env.CHAIND_DEV_HOME ?? join(homedir(), '.chaind-dev');
}

/**
 * Creates the development chain's home: init (with `govPeriod`, Go's syntax, as init's --gov-period),
 * keys, funded accounts, the validator; returns the one-line summary of its genesis.
 */
export async function createDevHome(home: string, govPeriod = DEV_GOV_PERIOD): Promise<string> {
  await initHome('dev', { home, chainId: DEV_CHAIN_ID, govPeriod });
  const keyring = await Keyring.open(home, 'test');
  const addresses: string[] = [];
  for (const [name, mnemonic] of Object.entries(DEV_MNEMONICS)) addresses.push((await keyring.recover(name, mnemonic)).address);
  const validator = addresses[2];
  const key = await readPrivValidatorKey(home);
  const doc = await readGenesisFile(genesisPath(home));
  const state = doc.appState as Record<string, Record<string, unknown>>;
  state.auth.accounts = addresses.map((address) => ({
    '@type': '/cosmos.auth.v1beta1.BaseAccount',
    address,
    pub_key: null,
    account_number: '0',
    sequence: '0',
  }));
  state.bank.balances = addresses.map((address) => ({ address, coins: [{ denom: DEV_DENOM, amount: DEV_BALANCE.toString() }] }));
  state.bank.supply = [{ denom: DEV_DENOM, amount: (DEV_BALANCE * BigInt(addresses.length)).toString() }];
  state.validators.validators = [
    {
      operator_address: validator,
      consensus_pubkey: { '@type': '/cosmos.crypto.ed25519.PubKey', key: key.pubKey.toString('base64') },
      power: '10',
      moniker: 'validator',
    },
  ];
  const gov = state.gov.params as Record<string, unknown>;
  state.gov.params = { ...gov, min_deposit: [{ denom: DEV_DENOM, amount: '10000000' }] };
  const { chainModules } = await import('../app.ts');
  validateGenesis(doc, chainModules().modules);
  await writeGenesisFile(genesisPath(home), doc);
  return genesisSummary(genesisPath(home), doc);
}

interface DevOptions extends StartOptions {
  reset?: boolean;
  govPeriod: string;
}

export const DEV_GOV_PERIOD = '20s';

export function registerDevCommand(program: Command, servers?: ServerStarter): void {
  const cmd = program
    .command('dev')
    .description(`run a single-validator development chain (${DEV_CHAIN_ID}), creating it on first use`)
    .option('--reset', 'delete the development home and start afresh')
    .option(GOV_PERIOD_FLAG, 'deposit and voting periods of a chain this command creates (e.g. 6s for demos and tests)', DEV_GOV_PERIOD);
  addStartOptions(cmd, true);
  // the development home, unless --home is given
  cmd.setOptionValueWithSource('home', defaultDevHome(), 'default');
  cmd.action(async (o: DevOptions) => {
    const home = o.home;
    if (o.reset) await rm(home, { recursive: true, force: true });
    if (!existsSync(genesisPath(home))) {
      const summary = await createDevHome(home, o.govPeriod);
      printLine(`created a development chain in ${home}`);
      printLine(summary);
    }
    process.exitCode = await runNode(
      o,
      servers,
      (node) => {
        printLine(`chaind dev: chain ${DEV_CHAIN_ID}, home ${home}`);
        for (const s of node.servers) printLine(`  ${s.name.padEnd(8)} ${s.url}`);
        printLine('try:');
        const rpc = node.servers.find((s) => s.name === 'json-rpc')?.url ?? 'http://127.0.0.1:26657';
        printLine(`  curl -s ${rpc}/status`);
        printLine(`  curl -s '${rpc}/abci_query?path="/chain.upgrade.v1beta1.Query/CurrentPlan"'`);
        printLine(`  chaind keys list --keyring-backend test --home ${home}`);
      },
      true,
    );
  });
}

// `chaind init <moniker> --chain-id <id>`: a new node home, as the Cosmos SDK's init, usable by CometBFT
// v0.38 as its own home too (`cometbft start --home <home>`):
//   config/config.toml, config/app.toml        defaults, this moniker; config.toml's proxy_app names
//                                              app.toml's [abci] address, where chaind's ABCI server listens
//   config/genesis.json                        this chain id, every module's default app_state, no validators yet,
//                                              vote extensions on from the first block (VOTE_EXTENSIONS_ENABLE_HEIGHT)
//   config/priv_validator_key.json, node_key.json, data/priv_validator_state.json   (0600)
// An existing genesis is only replaced with --overwrite, and existing keys are never replaced.
// --gov-period sets the max deposit and voting periods (the module defaults, 48 h, are a real chain's).
// It prints where the genesis went and a one-line summary of it; `-o json` prints the Cosmos SDK's JSON.
import { Buffer } from 'node:buffer';
import { mkdir } from 'node:fs/promises';
import { join } from 'node:path';
import { Option, type Command } from 'commander';
import { defaultConsensusParams, MAX_CHAIN_ID_LENGTH, type ConsensusParams, type GenesisDoc } from '@chaind/sdk/genesis';
import { checkMoniker, exists, writeDefaultConfig } from '../config/index.ts';
import { genesisWriter } from '../genesis-release.ts';
import { ensureNodeKeys } from '../node/keys.ts';
import { defaultAppState, withChainModules } from './chain.ts';
import { addHomeOption, homeOf, printLine, UserError, type HomeOptions } from './common.ts';
import { GOV_PERIOD_FLAG, govPeriodOf } from './duration-flag.ts';
import { genesisPath, genesisSummary, writeGenesisFile } from './genesis.ts';

export interface InitOptions extends HomeOptions {
  chainId: string;
  overwrite?: boolean;
  /** --gov-period, Go's syntax ("20s", "1m30s"): the max deposit and voting periods; the module defaults without it */
  govPeriod?: string;
}

/** What initHome made: the node's id, and the genesis document and where it was written. */
export interface InitResult {
  readonly nodeId: string;
  readonly genesisPath: string;
  readonly doc: GenesisDoc;
}

/**
 * `abci.vote_extensions_enable_height` in the genesis `chaind init` writes, and so in `chaind testnet init`'s,
 * which runs it: validators attest their prepared release from the first block on (docs/upgrade-module.md,
 * "Readiness"). An operator sets "0" in genesis.json to turn vote extensions off.
 */
export const VOTE_EXTENSIONS_ENABLE_HEIGHT = 1n;

/** CometBFT's default consensus params, with chaind's vote extensions on. */
export function initConsensusParams(): ConsensusParams {
  return { ...defaultConsensusParams(), abci: { voteExtensionsEnableHeight: VOTE_EXTENSIONS_ENABLE_HEIGHT } };
}

function checkChainId(id: string): void {
  if (id.trim() === '') throw new UserError('--chain-id must not be empty');
  const n = Buffer.byteLength(id, 'utf8');
  if (n > MAX_CHAIN_ID_LENGTH) throw new UserError(`--chain-id is too long: ${n} bytes (max: ${MAX_CHAIN_ID_LENGTH})`);
  if (/\p{Cc}|\s/u.test(id)) throw new UserError(`invalid --chain-id ${JSON.stringify(id)}: no spaces or control characters`);
}

/** `chaind init`, also used by `chaind dev` to create its home. */
export async function initHome(moniker: string, o: InitOptions): Promise<InitResult> {
  checkChainId(o.chainId);
  checkMoniker(moniker);
  const govPeriod = o.govPeriod === undefined ? undefined : govPeriodOf(o.govPeriod);
  const home = homeOf(o);
  const genesis = genesisPath(home);
  if (!o.overwrite && (await exists(genesis))) throw new UserError(`genesis.json file already exists: ${genesis} (--overwrite replaces it)`);
  for (const dir of [home, join(home, 'config'), join(home, 'data')]) await mkdir(dir, { recursive: true, mode: 0o700 });

  const keys = await ensureNodeKeys(home);
  await writeDefaultConfig(home, { moniker, chainId: o.chainId, overwrite: o.overwrite });
  const doc = await withChainModules(async (mm) => {
    const state = defaultAppState(mm);
    if (govPeriod !== undefined) {
      const gov = state.gov as { params: Record<string, unknown> };
      gov.params = { ...gov.params, max_deposit_period: govPeriod, voting_period: govPeriod };
    }
    // module defaults are valid by construction; checked anyway, as a broken default would only show at start
    mm.validateGenesis(state);
    const ms = Date.now();
    const made: GenesisDoc = {
      // which release wrote it, so that another release refusing one of its modules can say so
      ...genesisWriter(),
      genesisTime: { seconds: BigInt(Math.floor(ms / 1000)), nanos: (ms % 1000) * 1_000_000 },
      chainId: o.chainId,
      initialHeight: 1n,
      consensusParams: initConsensusParams(),
      appHash: new Uint8Array(0),
      appState: state,
    };
    await writeGenesisFile(genesis, made);
    return made;
  });
  return { nodeId: keys.nodeId, genesisPath: genesis, doc };
}

interface InitCommandOptions extends InitOptions {
  output: string;
}

export function registerInitCommand(program: Command): void {
  const cmd = program
    .command('init')
    .description("initialize the node's home: config.toml, app.toml, genesis.json, the validator and node keys")
    .argument('<moniker>', "this node's name")
    .requiredOption('--chain-id <id>', 'the chain id written to genesis.json')
    .option('--overwrite', 'replace genesis.json, config.toml and app.toml if they exist (keys and the validator state are kept)')
    .option(GOV_PERIOD_FLAG, "max deposit and voting periods in genesis (e.g. 60s for a test chain; default: the gov module's 48h)")
    .addOption(
      new Option('-o, --output <format>', "text: where the genesis went and a summary; json: the Cosmos SDK's JSON (moniker, chain_id, node_id, app_message)")
        .choices(['text', 'json'])
        .default('text'),
    );
  addHomeOption(cmd).action(async (moniker: string, o: InitCommandOptions) => {
    const r = await initHome(moniker, o);
    if (o.output === 'json') {
      printLine(JSON.stringify({ moniker, chain_id: o.chainId, node_id: r.nodeId, app_message: r.doc.appState }, null, 1));
      return;
    }
    // the whole genesis (~80 lines) would bury these: where it went, and what a reader checks in it
    printLine(`initialized node ${moniker} (node id ${r.nodeId}) in ${homeOf(o)}`);
    printLine(genesisSummary(r.genesisPath, r.doc));
  });
}

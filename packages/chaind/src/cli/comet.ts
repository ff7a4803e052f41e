// `chaind comet …` (aliases `cometbft`, `tendermint`), the Cosmos SDK's CometBFT subcommands that a
// validator network is set up with, and `chaind comet-config`, what pairs CometBFT with this chaind:
//   comet show-node-id     this node's p2p id (config/node_key.json): the <id> of <id>@host:port in persistent_peers
//   comet show-validator   the consensus public key (config/priv_validator_key.json) as Cosmos JSON,
//                          what `chaind genesis add-validator --pubkey` takes on the coordinator's machine
//   comet show-address     the consensus address, bech32 with the "<prefix>valcons" prefix as the SDK's
//   comet-config           (also `comet config`) the config.toml settings CometBFT needs to reach chaind's
//                          ABCI server and that chaind forwards broadcasts to: proxy_app, abci, [rpc] laddr
import { Buffer } from 'node:buffer';
import { Option, type Command } from 'commander';
import { DEFAULT_PREFIX, toBech32 } from '@chaind/sdk/crypto';
import { ED25519_PUBKEY_TYPE_URL } from '@chaind/sdk/x/validators';
import {
  abciDialAddress,
  configPaths,
  dialHost,
  isAbciFlag,
  formatAbciAddress,
  loadConfig,
  pairingProblems,
  resolveServerAddresses,
  rpcDialUrl,
  SETTING_FLAGS,
  tcpAddress,
  type ServerOverrides,
} from '../config/index.ts';
import { nodeIdOf, readNodeKey, readPrivValidatorKey } from '../node/keys.ts';
import { addHomeOption, homeOf, printErrLine, printLine, UserError, type HomeOptions } from './common.ts';

/** The consensus address prefix, as the Cosmos SDK derives it from the account prefix. */
export const CONSENSUS_ADDRESS_PREFIX = `${DEFAULT_PREFIX}valcons`;

/** What CometBFT's config.toml needs to pair with chaind, in that file's key names. */
export interface CometPairing {
  readonly proxy_app: string;
  readonly abci: 'socket';
  readonly rpc: { readonly laddr: string };
}

interface CometConfigOptions extends HomeOptions, ServerOverrides {
  output: string;
}

async function cometConfig(o: CometConfigOptions): Promise<void> {
  const home = homeOf(o);
  const cfg = await loadConfig(home);
  const addresses = resolveServerAddresses(cfg, o);
  const { address } = addresses.abci;
  // a port the system picks at start is one CometBFT cannot be told in advance
  if (address.kind === 'tcp' && address.port === 0) {
    throw new UserError(
      `chaind's ABCI address ${formatAbciAddress(address)} has port 0 (any free port): CometBFT needs a fixed one; set app.toml [abci] address or --address`,
    );
  }
  if (addresses.rpc.port === 0) {
    throw new UserError(
      `[rpc] laddr ${tcpAddress(addresses.rpc)} has port 0 (any free port): chaind must know where CometBFT's RPC is; set config.toml [rpc] laddr or --rpc.laddr`,
    );
  }
  const pairing: CometPairing = { proxy_app: formatAbciAddress(abciDialAddress(address)), abci: 'socket', rpc: { laddr: tcpAddress(addresses.rpc) } };
  // the settings go to stdout, ready to paste; what is wrong in this home's own config.toml to stderr
  for (const p of pairingProblems(configPaths(home).node, cfg.node, address)) printErrLine(`Warning: ${p}`);
  if (o.output === 'json') {
    printLine(JSON.stringify(pairing));
    return;
  }
  const lines = [
    `# CometBFT v0.38 config.toml settings that pair CometBFT with chaind (home ${home}).`,
    `# They go in the config/config.toml of CometBFT's home: ${configPaths(home).node} when CometBFT runs with --home ${home}.`,
    '',
    "# Top level, before any [section]. CometBFT dials chaind's ABCI server here (chaind: app.toml [abci] address, --address).",
  ];
  if (address.kind === 'tcp' && dialHost(address.host) !== address.host) {
    lines.push(`# chaind listens on every interface (${formatAbciAddress(address)}): a CometBFT on another machine dials this machine's address instead.`);
  }
  lines.push(
    `proxy_app = ${JSON.stringify(pairing.proxy_app)}`,
    `abci = ${JSON.stringify(pairing.abci)}`,
    '',
    '[rpc]',
    `# CometBFT's JSON-RPC: chaind forwards broadcast transactions to ${rpcDialUrl(addresses.rpc)} (chaind: config.toml [rpc] laddr, --rpc.laddr).`,
    `laddr = ${JSON.stringify(pairing.rpc.laddr)}`,
  );
  printLine(lines.join('\n'));
}

function addCometConfigCommand(parent: Command, name: string, description: string): void {
  const cmd = parent
    .command(name)
    .description(description)
    .addOption(new Option('-o, --output <format>', 'output format: text (TOML to paste) or json').choices(['text', 'json']).default('text'));
  for (const f of SETTING_FLAGS) {
    if (isAbciFlag(f)) cmd.option(`--${f.flag} <${f.arg}>`, `${f.description} (overrides ${f.setting}; e.g. ${f.example})`);
    else if (f.flag === 'rpc.laddr') cmd.option(`--${f.flag} <${f.arg}>`, `CometBFT's JSON-RPC listen address (overrides ${f.setting}; e.g. ${f.example})`);
  }
  addHomeOption(cmd).action((o: CometConfigOptions) => cometConfig(o));
}

export function registerCometCommands(program: Command): void {
  const comet = program
    .command('comet')
    .aliases(['cometbft', 'tendermint'])
    .description('CometBFT subcommands: node id, consensus key and address, pairing settings');

  addHomeOption(comet.command('show-node-id').description("show this node's p2p id (from config/node_key.json)")).action(async (o: HomeOptions) => {
    printLine(nodeIdOf((await readNodeKey(homeOf(o))).pubKey));
  });

  addHomeOption(
    comet
      .command('show-validator')
      .description("show this node's consensus public key (from config/priv_validator_key.json), as `genesis add-validator --pubkey` takes it"),
  ).action(async (o: HomeOptions) => {
    const key = await readPrivValidatorKey(homeOf(o));
    printLine(JSON.stringify({ '@type': ED25519_PUBKEY_TYPE_URL, key: key.pubKey.toString('base64') }));
  });

  addHomeOption(comet.command('show-address').description(`show this node's consensus address (${CONSENSUS_ADDRESS_PREFIX}1…)`)).action(
    async (o: HomeOptions) => {
      const key = await readPrivValidatorKey(homeOf(o));
      printLine(toBech32(CONSENSUS_ADDRESS_PREFIX, Buffer.from(key.address, 'hex')));
    },
  );

  const pairing = "print the config.toml settings that pair CometBFT with this chaind: proxy_app (chaind's ABCI address), abci, [rpc] laddr";
  addCometConfigCommand(comet, 'config', `${pairing} (same as \`chaind comet-config\`)`);
  addCometConfigCommand(program, 'comet-config', pairing);
}

// The CLI's command table: which module registers which top-level command.
import { Command } from 'commander';
import { CHAIND_VERSION } from '../version.ts';
import type { ServerStarter } from '../node/node.ts';

// REST, gRPC and their libraries load only when a node starts them: every other command starts faster
// (`pre-upgrade` runs inside an upgrade's downtime)
const startNodeServers: ServerStarter = async (parts) => (await import('../node/servers.ts')).startNodeServers(parts);

/** A command module: the names (and aliases) it registers, and how to load and register it. */
export interface CommandModule {
  names: readonly string[];
  register: (program: Command) => Promise<void>;
}

// Each command's module (and what it imports) loads only when that command runs, so `chaind version`
// does not pay for the node, and `pre-upgrade` (inside the upgrade's downtime) only for what it uses.
// Help and unknown commands load them all. Listed in the order help shows them.
export const COMMAND_MODULES: readonly CommandModule[] = [
  { names: ['version'], register: async (p) => (await import('./version.ts')).registerVersionCommand(p) },
  { names: ['init'], register: async (p) => (await import('./init.ts')).registerInitCommand(p) },
  { names: ['genesis'], register: async (p) => (await import('./genesis.ts')).registerGenesisCommands(p) },
  { names: ['keys'], register: async (p) => (await import('./keys.ts')).registerKeysCommands(p) },
  { names: ['comet', 'cometbft', 'tendermint', 'comet-config'], register: async (p) => (await import('./comet.ts')).registerCometCommands(p) },
  { names: ['start'], register: async (p) => (await import('./start.ts')).registerStartCommand(p, startNodeServers) },
  { names: ['dev'], register: async (p) => (await import('./dev.ts')).registerDevCommand(p, startNodeServers) },
  { names: ['query', 'q', 'status'], register: async (p) => (await import('./query/index.ts')).registerQueryCommands(p) },
  { names: ['tx'], register: async (p) => (await import('./tx/index.ts')).registerTxCommands(p) },
  { names: ['pre-upgrade'], register: async (p) => (await import('./pre-upgrade.ts')).registerPreUpgradeCommand(p) },
  { names: ['standby'], register: async (p) => (await import('./standby.ts')).registerStandbyCommand(p, programFor) },
  { names: ['upgrade'], register: async (p) => (await import('./upgrade.ts')).registerUpgradeCommands(p) },
  { names: ['testnet'], register: async (p) => (await import('./testnet/index.ts')).registerTestnetCommands(p) },
];

/** The program with the modules `argv`'s command needs: that command's alone when it names one, else all. */
export async function programFor(argv: readonly string[]): Promise<Command> {
  const program = new Command('chaind')
    .description('chaind: an application-specific blockchain node with Cosmos-compatible chain upgrades')
    .version(CHAIND_VERSION, '--version', 'print the version');
  const name = argv[2];
  const one = COMMAND_MODULES.find((m) => name !== undefined && m.names.includes(name));
  for (const m of one === undefined ? COMMAND_MODULES : [one]) await m.register(program);
  return program;
}

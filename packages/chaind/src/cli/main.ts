import { Command } from 'commander';
import { CHAIND_VERSION } from '../version.ts';
import { registerCometCommands } from './comet.ts';
import { reportError } from './common.ts';
import { registerDevCommand } from './dev.ts';
import { registerGenesisCommands } from './genesis.ts';
import { registerInitCommand } from './init.ts';
import { registerKeysCommands } from './keys.ts';
import { registerPreUpgradeCommand } from './pre-upgrade.ts';
import { registerQueryCommands } from './query/index.ts';
import { registerStartCommand } from './start.ts';
import { registerTestnetCommands } from './testnet/index.ts';
import { registerTxCommands } from './tx/index.ts';
import { registerUpgradeCommands } from './upgrade.ts';
import { registerVersionCommand } from './version.ts';
import type { ServerStarter } from '../node/node.ts';

// REST, gRPC and their libraries load only when a node starts them: every other command starts faster
// (`pre-upgrade` runs inside an upgrade's downtime)
const startNodeServers: ServerStarter = async (parts) => (await import('../node/servers.ts')).startNodeServers(parts);

const program = new Command('chaind')
  .description('chaind: an application-specific blockchain node with Cosmos-compatible chain upgrades')
  .version(CHAIND_VERSION, '--version', 'print the version');

registerVersionCommand(program);

registerInitCommand(program);
registerGenesisCommands(program);
registerKeysCommands(program);
registerCometCommands(program);
registerStartCommand(program, startNodeServers);
registerDevCommand(program, startNodeServers);
registerQueryCommands(program);
registerTxCommands(program);
registerPreUpgradeCommand(program);
registerUpgradeCommands(program);
registerTestnetCommands(program);

try {
  await program.parseAsync(process.argv);
} catch (e) {
  // every action's error ends here: one line and exit code 1 (commander reports its own usage errors)
  process.exitCode = reportError(e);
}


import { Command } from 'commander';
import { CHAIND_VERSION } from '../version.ts';
import { reportError } from './common.ts';
import { registerGenesisCommands } from './genesis.ts';
import { registerInitCommand } from './init.ts';
import { registerKeysCommands } from './keys.ts';
import { registerStartCommand } from './start.ts';

const program = new Command('chaind')
  .description('chaind: an application-specific blockchain node with Cosmos-compatible chain upgrades')
  .version(CHAIND_VERSION, '--version', 'print the version');

program
  .command('version')
  .description('print the version')
  .option('-o, --output <format>', 'text or json', 'text')
  .action((o: { output: string }) => {
    if (o.output === 'json') console.log(JSON.stringify({ version: CHAIND_VERSION }));
    else console.log(CHAIND_VERSION);
  });

program
  .command('dev')
  .description('run a single-node development chain')
  .action(() => {
    // Block production and the RPC servers are the node issue's work; say so instead of pretending.
    console.log(`chaind ${CHAIND_VERSION}: the development node (block production, JSON-RPC, REST, gRPC) is not implemented yet.`);
    console.log('What exists today: the state store, the application framework and the modules (packages/sdk), and the chain app (packages/chaind/src/app.ts); `npm test` exercises them.');
  });

registerInitCommand(program);
registerGenesisCommands(program);
registerKeysCommands(program);
registerStartCommand(program);

try {
  await program.parseAsync(process.argv);
} catch (e) {
  // every action's error ends here: one line and exit code 1 (commander reports its own usage errors)
  process.exitCode = reportError(e);
}


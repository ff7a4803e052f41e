// The read-only commands that ask a running node over its CometBFT JSON-RPC: `chaind query …` and `chaind status`:
// auth, bank, gov and upgrade module queries, blocks and txs.
import type { Command } from 'commander';
import { printLine } from '../common.ts';
import { registerChainQueries } from './chain.ts';
import { registerModuleQueries } from './modules.ts';
import { addNodeOption, RpcClient } from './rpc.ts';
import { registerUpgradeQueries } from './upgrade.ts';

export function registerQueryCommands(program: Command): void {
  const query = program.command('query').alias('q').description("querying subcommands (read-only, over the node's JSON-RPC)");
  registerModuleQueries(query);
  registerUpgradeQueries(query);
  registerChainQueries(query);

  addNodeOption(program.command('status').description("query the node's status (CometBFT /status) as JSON")).action(async (o: { node: string }) => {
    printLine(JSON.stringify(await new RpcClient(o.node).call('status')));
  });
}

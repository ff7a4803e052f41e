// `chaind testnet init|start`: a local validator network in one command (see init.ts and start.ts).
import { tmpdir } from 'node:os';
import { join } from 'node:path';
import type { Command } from 'commander';
import { printErrLine, printLine, UserError } from '../common.ts';
import { GOV_PERIOD_FLAG } from '../duration-flag.ts';
import { MAX_TESTNET_VALIDATORS, testnetInit } from './init.ts';
import { testnetStart } from './start.ts';

interface InitFlags {
  validators: string;
  output: string;
  chainId: string;
  govPeriod: string;
  blockTime: string;
  releases?: string;
}

export function registerTestnetCommands(program: Command): void {
  const testnet = program.command('testnet').description('a local validator network on this machine: CometBFT, chaind and chainvisor per node');
  testnet
    .command('init')
    .description('write the homes of a local validator network: DIR/node0 … node<N-1>')
    .option('--validators <n>', `how many validators (1 to ${MAX_TESTNET_VALIDATORS})`, '4')
    .option('--output <dir>', 'a new or empty folder for the homes', join(tmpdir(), `chaind-testnet-${process.pid}`))
    .option('--chain-id <id>', 'the chain id', 'chaind-testnet-1')
    .option(GOV_PERIOD_FLAG, 'governance deposit and voting periods', '10s')
    .option('--block-time <duration>', "CometBFT's timeout_commit", '1s')
    .option('--releases <dir>', 'the release archives to install (default: dist/releases, built when missing)')
    .action(async (o: InitFlags) => {
      if (!/^\d+$/.test(o.validators)) throw new UserError(`--validators must be a number, got ${JSON.stringify(o.validators)}`);
      const nodes = await testnetInit({ ...o, validators: Number(o.validators), log: printErrLine });
      for (const n of nodes) printLine(`${n.name} ${n.home}`);
    });
  testnet
    .command('start')
    .description('run every node of a testnet under its own chainvisor until Ctrl-C; writes DIR/testnet.json')
    .argument('<dir>', 'the folder `testnet init` wrote')
    .action(async (dir: string) => {
      process.exitCode = await testnetStart(dir, printLine);
    });
}

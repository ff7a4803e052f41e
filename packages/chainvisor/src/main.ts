import { Command } from 'commander';

const VERSION = '0.1.0';

const program = new Command('chainvisor')
  .description('chainvisor: switches chaind binaries at an upgrade height (a cosmovisor-compatible sidecar)')
  .version(VERSION, '--version', 'print the version');

program
  .command('version')
  .description('print the version')
  .action(() => console.log(VERSION));

await program.parseAsync(process.argv);

// `chaind start`: runs the node until a signal, a halt or an error, and exits with the code that says
// which (0 stopped or halt-height; 10–13 upgrade halts, see docs/upgrade-module.md; 1 error).
import type { Command } from 'commander';
import { ABCI_FLAGS, ADDRESS_FLAGS, DEFAULT_WITH_COMET, parseBooleanFlag, type ServerOverrides } from '../config/index.ts';
import { isLogLevel, lineLogger } from '../node/logger.ts';
import { NodeStartError, startNode, type RunningNode, type ServerStarter } from '../node/node.ts';
import type { DriverStopResult } from '../node/driver.ts';
import { addHomeOption, homeOf, UserError, type HomeOptions } from './common.ts';

export interface StartOptions extends HomeOptions, ServerOverrides {
  unsafeSkipUpgrades?: string;
  haltHeight?: string;
  /** commander keeps the Cosmos flag's underscore */
  log_level: string;
}

function parseHeights(flag: string, v: string | undefined): bigint[] {
  if (v === undefined || v.trim() === '') return [];
  return v.split(',').map((s) => {
    if (!/^\d+$/.test(s.trim()) || BigInt(s.trim()) <= 0n) throw new UserError(`invalid --${flag} ${JSON.stringify(v)}: expected positive heights separated by commas`);
    return BigInt(s.trim());
  });
}

function parseBool(flag: string): (v: string) => boolean {
  return (v) => {
    try {
      return parseBooleanFlag(flag, v);
    } catch (e) {
      throw new UserError((e as Error).message);
    }
  };
}

export function addStartOptions(cmd: Command): Command {
  cmd
    .option('--with-comet <bool>', 'true: this node makes the blocks itself (solo); false: serve CometBFT over ABCI (validator networks)', parseBool('with-comet'), DEFAULT_WITH_COMET)
    .option('--unsafe-skip-upgrades <heights>', 'skip the upgrades planned at these heights (comma-separated); they are cleared, not applied')
    .option('--halt-height <height>', 'stop after committing this height')
    .option('--log_level <level>', 'debug, info, warn or error', 'info');
  for (const f of ABCI_FLAGS) cmd.option(`--${f.flag} <value>`, `${f.description}, with --with-comet=false (overrides ${f.key}; e.g. ${f.example})`);
  for (const f of ADDRESS_FLAGS) cmd.option(`--${f.flag} <address>`, `${f.description} (overrides ${f.key}; e.g. ${f.example})`);
  cmd.option('--api.enable <bool>', 'serve REST (overrides app.toml api.enable)', parseBool('api.enable'));
  cmd.option('--grpc.enable <bool>', 'serve gRPC (overrides app.toml grpc.enable)', parseBool('grpc.enable'));
  return addHomeOption(cmd);
}

/** The exit code a stop result calls for. */
export function exitCodeOf(r: DriverStopResult): number {
  switch (r.reason) {
    case 'halt':
      return r.exitCode;
    case 'error':
      return 1;
    default:
      return 0;
  }
}

/** Starts the node and waits for it to stop; SIGINT/SIGTERM stop it cleanly (never half a block). */
export async function runNode(o: StartOptions, servers?: ServerStarter, onStarted?: (n: RunningNode) => void): Promise<number> {
  const level = o.log_level;
  if (!isLogLevel(level)) throw new UserError(`invalid --log_level ${JSON.stringify(level)}: expected debug, info, warn or error`);
  const logger = lineLogger(level);
  const haltHeights = parseHeights('halt-height', o.haltHeight);
  if (o.withComet !== false && (o.transport !== undefined || o.address !== undefined)) {
    throw new UserError('--transport and --address apply only with --with-comet=false (serving CometBFT over ABCI)');
  }
  let node: RunningNode;
  try {
    node = await startNode(
      {
        home: homeOf(o),
        overrides: o,
        skipUpgradeHeights: parseHeights('unsafe-skip-upgrades', o.unsafeSkipUpgrades),
        haltHeight: haltHeights[0],
        logger,
      },
      servers,
    );
  } catch (e) {
    if (!(e instanceof NodeStartError)) throw e;
    logger.error(e.message);
    return exitCodeOf(e.result);
  }
  const onSignal = (sig: string): void => {
    // solo: the block in progress is finished; behind CometBFT an uncommitted block is dropped (the driver says so)
    logger.info(`received ${sig}, stopping`);
    void node.stop();
  };
  process.once('SIGINT', onSignal);
  process.once('SIGTERM', onSignal);
  onStarted?.(node);
  const result = await node.done;
  process.off('SIGINT', onSignal);
  process.off('SIGTERM', onSignal);
  if (result.reason === 'error') logger.error(`node stopped on an error: ${result.error.message}`, { height: result.height });
  else if (result.reason === 'halt') logger.error(`node halted: ${result.message}`, { height: result.height, exit_code: result.exitCode });
  else logger.info(`node stopped (${result.reason})`, { height: result.height });
  return exitCodeOf(result);
}

export function registerStartCommand(program: Command, servers?: ServerStarter): void {
  const cmd = program.command('start').description('run the node: solo block production and the JSON-RPC, REST and gRPC servers, or (--with-comet=false) the ABCI application behind CometBFT with REST and gRPC');
  addStartOptions(cmd).action(async (o: StartOptions) => {
    process.exitCode = await runNode(o, servers);
  });
}

// `chaind start`: runs the node until a signal, a halt or an error, and exits with the code that says
// which (0 stopped or halt-height; 10–13 upgrade halts, see docs/upgrade-module.md; 1 error).
import type { Command } from 'commander';
import { DEFAULT_WITH_COMET, isAbciFlag, parseBooleanFlag, SETTING_FLAGS, type ServerOverrides } from '../config/index.ts';
import { COMETBFT_VERSION } from '../comet/version.ts';
import { isLogLevel, lineLogger } from '../node/logger.ts';
import { NodeStartError, startNode, type RunningNode, type ServerStarter } from '../node/node.ts';
import type { DriverStopResult } from '../node/driver.ts';
import { addHomeOption, homeOf, UserError, type HomeOptions } from './common.ts';
import { errorMessage } from '@chaind/errors';

export interface StartOptions extends HomeOptions, ServerOverrides {
  unsafeSkipUpgrades?: string;
  haltHeight?: string;
  /** commander keeps the Cosmos flag's underscore */
  log_level: string;
}

function parseHeights(flag: string, v: string | undefined): bigint[] {
  if (v === undefined || v.trim() === '') return [];
  return v.split(',').map((s) => {
    if (!/^\d+$/.test(s.trim()) || BigInt(s.trim()) <= 0n)
      throw new UserError(`invalid --${flag} ${JSON.stringify(v)}: expected positive heights separated by commas`);
    return BigInt(s.trim());
  });
}

function parseBool(flag: string): (v: string) => boolean {
  return (v) => {
    try {
      return parseBooleanFlag(flag, v);
    } catch (e) {
      throw new UserError(errorMessage(e));
    }
  };
}

/** The options of `start` and `dev`; `dev` (solo) has no CometBFT to run or serve. */
export function addStartOptions(cmd: Command, solo = false): Command {
  if (!solo)
    cmd.option(
      '--with-comet <bool>',
      `true: run CometBFT ${COMETBFT_VERSION} as this node's consensus, on this home; false: only serve the ABCI application, for a CometBFT run separately`,
      parseBool('with-comet'),
      DEFAULT_WITH_COMET,
    );
  cmd
    .option('--unsafe-skip-upgrades <heights>', 'skip the upgrades planned at these heights (comma-separated); they are cleared, not applied')
    .option('--halt-height <height>', 'stop after committing this height')
    .option('--log_level <level>', 'debug, info, warn or error', 'info');
  // the settings' flags, from the config tables
  for (const f of SETTING_FLAGS) {
    if (isAbciFlag(f)) {
      if (!solo)
        cmd.option(
          `--${f.flag} <${f.arg}>`,
          `${f.description} (overrides ${f.setting} with --with-comet=false; with true the default is a unix socket in the home; e.g. ${f.example})`,
        );
    } else if (f.arg === 'bool') cmd.option(`--${f.flag} <bool>`, `${f.description} (overrides ${f.setting})`, parseBool(f.flag));
    else cmd.option(`--${f.flag} <${f.arg}>`, `${f.description} (overrides ${f.setting}; e.g. ${f.example})`);
  }
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

/** Starts the node (solo: `chaind dev`) and waits for it to stop; SIGINT/SIGTERM stop it cleanly (never half a block). */
export async function runNode(o: StartOptions, servers?: ServerStarter, onStarted?: (n: RunningNode) => void, solo = false): Promise<number> {
  const level = o.log_level;
  if (!isLogLevel(level)) throw new UserError(`invalid --log_level ${JSON.stringify(level)}: expected debug, info, warn or error`);
  const logger = lineLogger(level);
  const haltHeights = parseHeights('halt-height', o.haltHeight);
  // handled from the start: a stop asked for while the node starts (REST and gRPC load after the ABCI
  // listener) is carried out as soon as it has started, never by the signal's default exit
  let node: RunningNode | undefined;
  let stopAsked = false;
  const onSignal = (sig: string): void => {
    // solo: the block in progress is finished; behind CometBFT, CometBFT is stopped first and an uncommitted block dropped
    logger.info(`received ${sig}, stopping`);
    stopAsked = true;
    void node?.stop();
  };
  process.once('SIGINT', onSignal);
  process.once('SIGTERM', onSignal);
  try {
    node = await startNode(
      {
        home: homeOf(o),
        overrides: o,
        skipUpgradeHeights: parseHeights('unsafe-skip-upgrades', o.unsafeSkipUpgrades),
        haltHeight: haltHeights[0],
        logger,
        solo,
      },
      servers,
    );
  } catch (e) {
    process.off('SIGINT', onSignal);
    process.off('SIGTERM', onSignal);
    if (!(e instanceof NodeStartError)) throw e;
    logger.error(e.message);
    return exitCodeOf(e.result);
  }
  if (stopAsked) void node.stop();
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
  const cmd = program
    .command('start')
    .description(
      `run a validator or full node: CometBFT ${COMETBFT_VERSION} (consensus, P2P, JSON-RPC) on this home with chaind's REST and gRPC, or (--with-comet=false) only the ABCI application for a CometBFT run separately; a solo chain runs with \`chaind dev\``,
    );
  addStartOptions(cmd).action(async (o: StartOptions) => {
    process.exitCode = await runNode(o, servers);
  });
}

// `chaind standby -- <args…>`: what chainvisor (DAEMON_WARM_START) runs with the next release shortly before the
// old one halts. It loads what `pre-upgrade` and the node's command need, says so, and waits; at the halt
// chainvisor has it run `pre-upgrade` and then `<args…>` in this process, so the downtime pays for neither a process
// start nor module loading. Nothing of the home is opened before then: the old release still runs on it.
// The protocol (docs/chainvisor.md "Warm start") is one JSON object a line on fd 3, a pipe chainvisor holds; its
// end before "start" ends the standby.
import { fstatSync } from 'node:fs';
import { Socket } from 'node:net';
import { createInterface } from 'node:readline';
import type { Command } from 'commander';
import { UserError } from './common.ts';

/** fd 3, where chainvisor's pipe is. */
const CHANNEL_FD = 3;

/** Builds the program that runs `argv` (commands.ts's programFor: passed in, as commands.ts loads this module). */
export type ProgramFor = (argv: readonly string[]) => Promise<Command>;

export function registerStandbyCommand(program: Command, programFor: ProgramFor): void {
  program
    .command('standby')
    .description("for chainvisor (DAEMON_WARM_START): load this release, wait on fd 3, then run `pre-upgrade` and <args> (the node's command) here")
    .argument('<args...>', "the node's command after --, e.g. -- start --home ~/.chaind")
    .action(async (args: string[]) => {
      await standby(args, programFor);
    });
}

interface Message {
  readonly preUpgrade?: unknown;
  readonly start?: unknown;
}

async function standby(args: readonly string[], programFor: ProgramFor): Promise<void> {
  let piped = false;
  try {
    const st = fstatSync(CHANNEL_FD);
    piped = st.isFIFO() || st.isSocket();
  } catch {
    // fd 3 is not open
  }
  if (!piped) throw new UserError('`chaind standby` is run by chainvisor (DAEMON_WARM_START), with its pipe on fd 3; to run a node, use `chaind start`');
  const pipe = new Socket({ fd: CHANNEL_FD, readable: true, writable: true });
  const argv = (a: readonly string[]): string[] => [process.argv[0] ?? 'node', process.argv[1] ?? 'chaind', ...a];
  // what the halt would otherwise wait for: the node's command, pre-upgrade, the servers started after the handshake
  const node = await programFor(argv(args));
  await programFor(argv(['pre-upgrade']));
  await (await import('../node/servers.ts')).preloadServers();
  pipe.write(JSON.stringify({ ready: true }) + '\n');

  for await (const line of createInterface({ input: pipe })) {
    const m = JSON.parse(line) as Message;
    if (Array.isArray(m.preUpgrade)) {
      const exit = await runHere(programFor, argv(['pre-upgrade', ...m.preUpgrade.map(String)]));
      pipe.write(JSON.stringify({ exit }) + '\n');
    } else if (m.start === true) {
      pipe.destroy();
      await node.parseAsync(argv(args));
      return;
    } else throw new Error(`chaind standby: unexpected message from chainvisor: ${line.slice(0, 200)}`);
  }
  // chainvisor went away, or starts the release cold: nothing was opened, nothing to undo
}

/** A command run in this process as `chaind <argv>` would run: its exit code; its report on stderr (stdout is the node's). */
async function runHere(programFor: ProgramFor, argv: string[]): Promise<number> {
  const log = console.log;
  console.log = console.error;
  process.exitCode = undefined;
  try {
    await (await programFor(argv)).parseAsync(argv);
    return Number(process.exitCode ?? 0);
  } catch (e) {
    return (await import('./report-error.ts')).reportError(e);
  } finally {
    console.log = log;
    process.exitCode = undefined;
  }
}

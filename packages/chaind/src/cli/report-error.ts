// How a command's error is reported: one line for the user's mistakes and expected failures, "internal
// error" for anything else. Its own module, loaded only when a command failed: it imports the error classes
// of every part of chaind, which a command that succeeds need not load.
import { CodedError } from '@chaind/sdk/app';
import { GenesisError } from '@chaind/sdk/genesis';
import { KeyringError } from '@chaind/sdk/keyring';
import { ConfigError } from '../config/index.ts';
import { NodeKeyError } from '../node/keys.ts';
import { NodeModeError } from '../node/home-mode.ts';
import { CometBinaryError } from '../comet/binary.ts';
import { printErrLine, UserError } from './common.ts';
import { errorMessage, errnoCode } from '@chaind/errors';

function isUserError(e: unknown): e is Error {
  if (
    e instanceof UserError ||
    e instanceof ConfigError ||
    e instanceof GenesisError ||
    e instanceof KeyringError ||
    e instanceof CodedError ||
    e instanceof NodeKeyError ||
    e instanceof NodeModeError ||
    e instanceof CometBinaryError
  )
    return true;
  // a file that is missing, unreadable or in the way: the message names it (ENOENT: …, open '/path')
  const code = errnoCode(e);
  return e instanceof Error && code !== undefined && /^E[A-Z]+$/.test(code);
}

/** Reports an error that ended a command; returns the exit code. */
export function reportError(e: unknown): number {
  const debug = process.env.CHAIND_DEBUG === '1';
  if (isUserError(e)) {
    printErrLine(debug && e.stack !== undefined ? e.stack : `Error: ${e.message}`);
    return 1;
  }
  if (debug) printErrLine(e instanceof Error && e.stack !== undefined ? e.stack : String(e));
  else printErrLine(`Error: internal error: ${errorMessage(e)} (CHAIND_DEBUG=1 shows the stack trace)`);
  return 1;
}

// What the command groups share: the home directory, the keyring flags, and how an error reaches the
// user (one line on stderr and exit code 1; a stack trace only for internal bugs, behind CHAIND_DEBUG=1).
import { ChaindError, errnoCode } from '@chaind/errors';
import { writeFile } from 'node:fs/promises';
import { homedir } from 'node:os';
import { join, resolve } from 'node:path';
import { Option, type Command } from 'commander';
import type { Keyring, KeyringBackend } from '@chaind/sdk/keyring';

/** A mistake of the user's (bad argument, missing file, refused action): reported without a stack trace. */
export class UserError extends ChaindError<'user'> {
  override readonly name = 'UserError';
  constructor(message: string, options?: ErrorOptions) {
    super('user', message, options);
  }
}

/** $CHAIND_HOME, else ~/.chaind. */
export function defaultHome(): string {
  const env = process.env.CHAIND_HOME;
  return env !== undefined && env !== '' ? env : join(homedir(), '.chaind');
}

export function addHomeOption(cmd: Command): Command {
  return cmd.option('--home <dir>', 'the node home directory ($CHAIND_HOME, else ~/.chaind)', defaultHome());
}

export interface HomeOptions {
  home: string;
}

export const homeOf = (o: HomeOptions): string => resolve(o.home);

export const KEYRING_BACKENDS: readonly KeyringBackend[] = ['test', 'file'];

/** --home and --keyring-backend (default file, or $CHAIND_KEYRING_BACKEND). */
export function addKeyringOptions(cmd: Command): Command {
  const env = process.env.CHAIND_KEYRING_BACKEND;
  return addHomeOption(cmd).addOption(
    new Option(
      '--keyring-backend <backend>',
      'test: keys in clear, for development; file: keys encrypted with a passphrase read from stdin (its first line) ($CHAIND_KEYRING_BACKEND)',
    )
      .choices(KEYRING_BACKENDS)
      .default(env !== undefined && env !== '' ? env : 'file'),
  );
}

export interface KeyringOptions extends HomeOptions {
  keyringBackend: string;
}

/** Where the file backend's passphrase comes from: input.ts's Input (stdin, a hidden prompt on a terminal). */
export interface PassphraseSource {
  passphrase(keyringDir: string): Promise<string>;
}

/** The file in a test keyring that says its warning was shown: once per home, not on every command. */
export const TEST_BACKEND_WARNED = 'unencrypted-warning-shown';

async function warnOncePerHome(dir: string): Promise<void> {
  try {
    // 'wx': only the command that creates the marker warns, even when two run at once
    await writeFile(join(dir, TEST_BACKEND_WARNED), 'chaind showed the test keyring backend warning for this home; delete this file to see it again\n', {
      flag: 'wx',
      mode: 0o600,
    });
  } catch (e) {
    if (errnoCode(e) === 'EEXIST') return;
    // a marker that cannot be written (read-only home): the warning on every command, as before
  }
  printErrLine(`WARNING: the test keyring backend keeps private keys unencrypted in ${dir}; use it for development only (--keyring-backend file)`);
}

/** Opens the keyring; the file backend's passphrase is the next line of stdin (a hidden prompt on a terminal). */
export async function openKeyring(o: KeyringOptions, input: PassphraseSource): Promise<Keyring> {
  const backend = o.keyringBackend;
  if (backend !== 'test' && backend !== 'file') {
    throw new UserError(`unknown keyring backend ${JSON.stringify(backend)}: expected ${KEYRING_BACKENDS.map((b) => `"${b}"`).join(' or ')}`);
  }
  const home = homeOf(o);
  if (backend === 'test') {
    const keyring = await (await import('@chaind/sdk/keyring')).Keyring.open(home, 'test');
    // `chaind dev` opens its keyring itself, without this warning: everywhere else it is a mistake worth a line
    await warnOncePerHome(join(home, 'keyring-test'));
    return keyring;
  }
  const passphrase = await input.passphrase(join(home, 'keyring-file'));
  return (await import('@chaind/sdk/keyring')).Keyring.open(home, 'file', { passphrase });
}

export function printLine(s: string): void {
  process.stdout.write(`${s}\n`);
}

export function printErrLine(s: string): void {
  process.stderr.write(`${s}\n`);
}

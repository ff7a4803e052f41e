import { ChaindError } from '@chaind/errors';
/** Why a keyring operation failed; the message always names the key (or the keyring) concerned. */
export type KeyringErrorKind =
  | 'key-exists'
  | 'address-exists'
  | 'key-not-found'
  | 'invalid-name'
  | 'invalid-mnemonic'
  | 'invalid-private-key'
  | 'passphrase-required'
  | 'weak-passphrase'
  | 'wrong-passphrase'
  | 'corrupt';

export class KeyringError extends ChaindError<KeyringErrorKind> {
  override readonly name = 'KeyringError';
  constructor(kind: KeyringErrorKind, message: string) {
    super(kind, message);
  }
  /** The code, under the name callers have always read it by. */
  get kind(): KeyringErrorKind {
    return this.code;
  }
}

/** Key names become file names, so anything that could escape the keyring directory or hide in a terminal is refused. */
export const MAX_KEY_NAME_LENGTH = 64;

export function checkKeyName(name: string): void {
  const shown = JSON.stringify(name);
  const fail = (why: string): never => {
    throw new KeyringError('invalid-name', `invalid key name ${shown}: ${why}`);
  };
  if (typeof name !== 'string' || name.length === 0) fail('must not be empty');
  if (name.length > MAX_KEY_NAME_LENGTH) fail(`must be at most ${MAX_KEY_NAME_LENGTH} characters, got ${name.length}`);
  if (/[/\\]/.test(name)) fail('must not contain path separators');
  if (name === '.' || name.includes('..')) fail('must not be "." or contain ".."');
  if ([...name].some(isControl)) fail('must not contain control characters');
}

/** C0 and C1 control characters, DEL included (NUL, newline, escape, …). */
function isControl(ch: string): boolean {
  const c = ch.codePointAt(0) as number;
  return c <= 0x1f || (c >= 0x7f && c <= 0x9f);
}

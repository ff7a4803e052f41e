// A Cosmos-style keyring: named secp256k1 keys stored one file per key under <home>/keyring-<backend>/.
import { Buffer } from 'node:buffer';
import { randomBytes } from 'node:crypto';
import { constants as fsc } from 'node:fs';
import { link, mkdir, open as openFile, readdir, readFile, unlink } from 'node:fs/promises';
import { join, resolve } from 'node:path';
import {
  addressFromPublicKey,
  DEFAULT_PREFIX,
  fromBech32,
  isValidPrivateKey,
  publicKeyFromPrivate,
  rawAddressFromPublicKey,
  signDirect,
} from '../crypto/index.ts';
import { generateMnemonic, normalizeMnemonic, privateKeyFromMnemonic, validateMnemonic, type DerivationOptions } from '../crypto/mnemonic.ts';
import { checkKeyName, KeyringError } from './errors.ts';
import { OpenError, Sealer, type Sealed } from './sealed.ts';
import { errorMessage, errnoCode } from '@chaind/errors';

export type KeyringBackend = 'test' | 'file';

export interface KeyringOptions {
  /** Required for the `file` backend (at least 8 characters for a new keyring); ignored by `test`. */
  passphrase?: string;
  /** Bech32 prefix of the addresses reported; defaults to "chain". */
  prefix?: string;
}

export interface KeyInfo {
  name: string;
  type: 'local';
  address: string;
  /** Compressed secp256k1 public key, 33 bytes. */
  pubkey: Uint8Array;
}

export interface NewKey extends KeyInfo {
  /** The mnemonic the key derives from; it is not stored, so this is the only time it is shown. */
  mnemonic: string;
}

export interface AddKeyOptions extends DerivationOptions {
  /** Recover from this mnemonic; a fresh 24-word mnemonic is generated when absent. */
  mnemonic?: string;
}

const VERSION = 1;
const KEY_EXT = '.info';
const CHECK_FILE = 'keyring.check';
const CHECK_PLAINTEXT = Buffer.from('chaind keyring passphrase check v1');
const MIN_PASSPHRASE_LENGTH = 8;

interface KeyRecordBase {
  version: typeof VERSION;
  name: string;
  type: 'local';
  /** base64 */
  pubkey: string;
}
interface TestKeyRecord extends KeyRecordBase {
  /** hex, in clear: the `test` backend is for development only. */
  privateKey: string;
}
interface FileKeyRecord extends KeyRecordBase {
  crypto: Sealed;
}
type KeyRecord = TestKeyRecord | FileKeyRecord;

/** Authenticated data binds a ciphertext to its key's name and public key, so files cannot be swapped or relabelled. */
function keyAad(name: string, pubkeyB64: string): Uint8Array {
  return Buffer.from(`chaind-keyring/v${VERSION}\0key\0${name}\0${pubkeyB64}`);
}
const CHECK_AAD = Buffer.from(`chaind-keyring/v${VERSION}\0check`);

function isMissing(e: unknown): boolean {
  return errnoCode(e) === 'ENOENT';
}

const PRIVATE_KEY_HEX = /^(?:0x)?([0-9a-fA-F]{64})$/;

export class Keyring {
  private constructor(
    /** The keyring directory itself, <home>/keyring-<backend>. */
    readonly dir: string,
    readonly backend: KeyringBackend,
    readonly prefix: string,
    private readonly sealer: Sealer | undefined,
  ) {}

  /**
   * Opens (creating if needed) the keyring under `home`. For the `file` backend the passphrase is
   * checked here, against the keyring's check file, so a typo fails before anything is written.
   */
  static async open(home: string, backend: KeyringBackend, opts: KeyringOptions = {}): Promise<Keyring> {
    if (backend !== 'test' && backend !== 'file') throw new Error(`unknown keyring backend ${JSON.stringify(backend)}: expected "test" or "file"`);
    const dir = resolve(home, `keyring-${backend}`);
    const prefix = opts.prefix ?? DEFAULT_PREFIX;
    await mkdir(dir, { recursive: true, mode: 0o700 });
    if (backend === 'test') return new Keyring(dir, backend, prefix, undefined);

    const passphrase = opts.passphrase;
    if (passphrase === undefined || passphrase === '') {
      throw new KeyringError('passphrase-required', `keyring ${dir} uses the file backend and needs a passphrase`);
    }
    const ring = new Keyring(dir, backend, prefix, new Sealer(passphrase));
    await ring.checkPassphrase(passphrase);
    return ring;
  }

  /** Adds a key derived from `opts.mnemonic`, or from a freshly generated mnemonic, which is returned. */
  async add(name: string, opts: AddKeyOptions = {}): Promise<NewKey> {
    checkKeyName(name);
    const mnemonic = opts.mnemonic === undefined ? generateMnemonic() : normalizeMnemonic(opts.mnemonic);
    if (!validateMnemonic(mnemonic)) {
      throw new KeyringError('invalid-mnemonic', `invalid mnemonic for key "${name}": not a BIP39 English phrase with a valid checksum`);
    }
    const privateKey = privateKeyFromMnemonic(mnemonic, opts);
    try {
      return { ...(await this.store(name, privateKey)), mnemonic };
    } finally {
      privateKey.fill(0);
    }
  }

  /** `add` with a given mnemonic. */
  recover(name: string, mnemonic: string, opts: DerivationOptions = {}): Promise<NewKey> {
    return this.add(name, { ...opts, mnemonic });
  }

  /** Imports a raw 32-byte secp256k1 private key given as 64 hex characters (optionally 0x-prefixed). */
  async importPrivateKeyHex(name: string, hex: string): Promise<KeyInfo> {
    checkKeyName(name);
    const m = typeof hex === 'string' ? PRIVATE_KEY_HEX.exec(hex.trim()) : null;
    if (!m) throw new KeyringError('invalid-private-key', `invalid private key hex for key "${name}": expected 64 hex characters`);
    const privateKey = Buffer.from(m[1], 'hex');
    try {
      if (!isValidPrivateKey(privateKey)) {
        throw new KeyringError('invalid-private-key', `invalid private key for key "${name}": not a secp256k1 scalar in [1, n-1]`);
      }
      return await this.store(name, privateKey);
    } finally {
      privateKey.fill(0);
    }
  }

  /** The raw private key as 64 lowercase hex characters (as `keys export --unarmored-hex --unsafe`). */
  async exportPrivateKeyHex(name: string): Promise<string> {
    const key = await this.privateKey(name);
    try {
      return Buffer.from(key).toString('hex');
    } finally {
      key.fill(0);
    }
  }

  async get(name: string): Promise<KeyInfo> {
    return this.info(await this.read(name));
  }

  async getByAddress(address: string): Promise<KeyInfo> {
    return this.info(await this.readByAddress(address));
  }

  /** All keys, sorted by name. */
  async list(): Promise<KeyInfo[]> {
    const names = (await readdir(this.dir)).filter((f) => f.endsWith(KEY_EXT)).map((f) => f.slice(0, -KEY_EXT.length));
    const records = await Promise.all(names.map((n) => this.read(n)));
    return records.map((r) => this.info(r)).sort((a, b) => (a.name < b.name ? -1 : a.name > b.name ? 1 : 0));
  }

  async delete(name: string): Promise<void> {
    checkKeyName(name);
    try {
      await unlink(this.keyPath(name));
    } catch (e) {
      if (isMissing(e)) throw this.notFound(name);
      throw e;
    }
    await syncDir(this.dir);
  }

  /** SIGN_MODE_DIRECT signature (64-byte r‖s, low S) over sha256(signDocBytes) with a key given by name or address. */
  async sign(nameOrAddress: string, signDocBytes: Uint8Array): Promise<Uint8Array> {
    const record = await this.resolve(nameOrAddress);
    const key = await this.decrypt(record);
    try {
      return signDirect(key, signDocBytes);
    } finally {
      key.fill(0);
    }
  }

  /** The raw 32-byte private key. Internal use only (signing, export); callers should zero it when done. */
  async privateKey(name: string): Promise<Uint8Array> {
    return this.decrypt(await this.read(name));
  }

  private info(r: KeyRecord): KeyInfo {
    const pubkey = Buffer.from(r.pubkey, 'base64');
    return { name: r.name, type: 'local', address: addressFromPublicKey(pubkey, this.prefix), pubkey: new Uint8Array(pubkey) };
  }

  private keyPath(name: string): string {
    return join(this.dir, name + KEY_EXT);
  }

  private notFound(name: string): KeyringError {
    return new KeyringError('key-not-found', `key "${name}" not found in keyring ${this.dir}`);
  }

  private corrupt(name: string, why: string): KeyringError {
    return new KeyringError('corrupt', `key file for "${name}" in keyring ${this.dir} is corrupt: ${why}`);
  }

  /** A name first; failing that, a bech32 address with this keyring's prefix. */
  private async resolve(nameOrAddress: string): Promise<KeyRecord> {
    try {
      return await this.read(nameOrAddress);
    } catch (e) {
      if (!(e instanceof KeyringError) || (e.kind !== 'key-not-found' && e.kind !== 'invalid-name')) throw e;
      if (!nameOrAddress.toLowerCase().startsWith(this.prefix + '1')) throw e;
      return this.readByAddress(nameOrAddress);
    }
  }

  private async readByAddress(address: string): Promise<KeyRecord> {
    const want = Buffer.from(fromBech32(address, this.prefix).data);
    const names = (await readdir(this.dir)).filter((f) => f.endsWith(KEY_EXT)).map((f) => f.slice(0, -KEY_EXT.length));
    for (const name of names) {
      const r = await this.read(name);
      if (want.equals(rawAddressFromPublicKey(Buffer.from(r.pubkey, 'base64')))) return r;
    }
    throw new KeyringError('key-not-found', `no key with address ${address} in keyring ${this.dir}`);
  }

  private async read(name: string): Promise<KeyRecord> {
    checkKeyName(name);
    let text: string;
    try {
      text = await readFile(this.keyPath(name), 'utf8');
    } catch (e) {
      if (isMissing(e)) throw this.notFound(name);
      throw e;
    }
    let r: KeyRecord;
    try {
      r = JSON.parse(text) as KeyRecord;
    } catch {
      throw this.corrupt(name, 'not JSON');
    }
    if (typeof r !== 'object' || r === null || r.version !== VERSION) throw this.corrupt(name, `unsupported version ${String(r?.version)}`);
    // The name inside must match the file name: a renamed file is not silently a different key.
    if (r.name !== name) throw this.corrupt(name, `file holds key ${JSON.stringify(r.name)}`);
    if (typeof r.pubkey !== 'string' || Buffer.from(r.pubkey, 'base64').length !== 33) throw this.corrupt(name, 'bad public key');
    const ok = this.backend === 'test' ? typeof (r as TestKeyRecord).privateKey === 'string' : typeof (r as FileKeyRecord).crypto === 'object';
    if (!ok) throw this.corrupt(name, `not a ${this.backend}-backend key`);
    return r;
  }

  private async decrypt(r: KeyRecord): Promise<Uint8Array> {
    let key: Uint8Array;
    if (this.sealer === undefined) {
      key = Buffer.from((r as TestKeyRecord).privateKey, 'hex');
    } else {
      try {
        key = await this.sealer.open((r as FileKeyRecord).crypto, keyAad(r.name, r.pubkey));
      } catch (e) {
        if (!(e instanceof OpenError)) throw this.corrupt(r.name, errorMessage(e));
        throw new KeyringError('wrong-passphrase', `cannot decrypt key "${r.name}": wrong passphrase for keyring ${this.dir}, or the file was modified`);
      }
    }
    // Catches a private key that does not belong to the stored public key (a hand-edited or mixed-up file).
    if (!isValidPrivateKey(key) || Buffer.compare(publicKeyFromPrivate(key), Buffer.from(r.pubkey, 'base64')) !== 0) {
      throw this.corrupt(r.name, 'private key does not match the public key');
    }
    return new Uint8Array(key);
  }

  private async store(name: string, privateKey: Uint8Array): Promise<KeyInfo> {
    const pubkey = publicKeyFromPrivate(privateKey);
    const pubkeyB64 = Buffer.from(pubkey).toString('base64');
    const address = addressFromPublicKey(pubkey, this.prefix);
    await this.assertFree(name, pubkey, address);
    const base: KeyRecordBase = { version: VERSION, name, type: 'local', pubkey: pubkeyB64 };
    const record: KeyRecord =
      this.sealer === undefined
        ? { ...base, privateKey: Buffer.from(privateKey).toString('hex') }
        : { ...base, crypto: await this.sealer.seal(privateKey, keyAad(name, pubkeyB64)) };
    const created = await writeNewFile(this.dir, name + KEY_EXT, JSON.stringify(record, null, 2) + '\n');
    // Lost a race with another writer between the check above and the link.
    if (!created) throw this.exists(name);
    return { name, type: 'local', address, pubkey };
  }

  private exists(name: string): KeyringError {
    return new KeyringError('key-exists', `key "${name}" already exists in keyring ${this.dir}`);
  }

  /** As the Cosmos SDK, neither the name nor the address may already be in the keyring. */
  private async assertFree(name: string, pubkey: Uint8Array, address: string): Promise<void> {
    for (const k of await this.list()) {
      if (k.name === name) throw this.exists(name);
      if (Buffer.compare(k.pubkey, pubkey) === 0) {
        throw new KeyringError('address-exists', `cannot add key "${name}": its address ${address} is already in keyring ${this.dir} as key "${k.name}"`);
      }
    }
  }

  /**
   * Verifies the passphrase against the check file; a new keyring gets one. Without a check file but
   * with keys (an older or hand-assembled keyring) the passphrase must open an existing key first.
   */
  private async checkPassphrase(passphrase: string): Promise<void> {
    const sealer = this.sealer as Sealer;
    const wrong = (): KeyringError => new KeyringError('wrong-passphrase', `wrong passphrase for keyring ${this.dir}`);
    const checkPath = join(this.dir, CHECK_FILE);
    let text: string | undefined;
    try {
      text = await readFile(checkPath, 'utf8');
    } catch (e) {
      if (!isMissing(e)) throw e;
    }
    if (text !== undefined) {
      let sealed: Sealed;
      try {
        sealed = (JSON.parse(text) as { crypto: Sealed }).crypto;
        if (!(await sealer.opens(sealed, CHECK_AAD, CHECK_PLAINTEXT))) throw wrong();
      } catch (e) {
        if (e instanceof KeyringError) throw e;
        throw new KeyringError('corrupt', `passphrase check file ${checkPath} is corrupt: ${errorMessage(e)}`);
      }
      return;
    }
    const names = (await readdir(this.dir)).filter((f) => f.endsWith(KEY_EXT)).map((f) => f.slice(0, -KEY_EXT.length));
    if (names.length > 0) {
      try {
        await this.decrypt(await this.read(names[0]));
      } catch (e) {
        if (e instanceof KeyringError && e.kind === 'wrong-passphrase') throw wrong();
        throw e;
      }
    } else if ([...passphrase].length < MIN_PASSPHRASE_LENGTH) {
      throw new KeyringError('weak-passphrase', `passphrase for new keyring ${this.dir} must be at least ${MIN_PASSPHRASE_LENGTH} characters`);
    }
    const body = JSON.stringify({ version: VERSION, crypto: await sealer.seal(CHECK_PLAINTEXT, CHECK_AAD) }, null, 2) + '\n';
    // Another process may have created it meanwhile; then its passphrase must match ours.
    if (!(await writeNewFile(this.dir, CHECK_FILE, body))) await this.checkPassphrase(passphrase);
  }
}

/**
 * Atomically creates `dir/fileName` with mode 0600: the bytes go to a temp file that is fsynced and
 * then hard-linked into place, so a crash never leaves a half-written file and an existing file is
 * never replaced (link fails with EEXIST where rename would overwrite). False when the file exists.
 */
async function writeNewFile(dir: string, fileName: string, contents: string): Promise<boolean> {
  const tmp = join(dir, `.tmp-${randomBytes(8).toString('hex')}`);
  const fh = await openFile(tmp, fsc.O_WRONLY | fsc.O_CREAT | fsc.O_EXCL, 0o600);
  try {
    try {
      await fh.writeFile(contents, 'utf8');
      await fh.sync();
    } finally {
      await fh.close();
    }
    try {
      await link(tmp, join(dir, fileName));
    } catch (e) {
      if (errnoCode(e) === 'EEXIST') return false;
      throw e;
    }
    await syncDir(dir);
    return true;
  } finally {
    await unlink(tmp).catch(() => undefined);
  }
}

/** Makes a directory entry change (link, unlink) durable; best effort where directories cannot be opened. */
async function syncDir(dir: string): Promise<void> {
  let fh;
  try {
    fh = await openFile(dir, 'r');
    await fh.sync();
  } catch {
    // Not supported on every platform/filesystem; the data itself was already fsynced.
  } finally {
    await fh?.close();
  }
}

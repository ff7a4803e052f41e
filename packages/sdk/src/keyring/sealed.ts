// Passphrase encryption at rest: scrypt (random salt, parameters stored alongside) → AES-256-GCM.
import { ChaindError } from '@chaind/errors';
import { Buffer } from 'node:buffer';
import { createCipheriv, createDecipheriv, randomBytes, scrypt, timingSafeEqual } from 'node:crypto';

export interface ScryptParams {
  N: number;
  r: number;
  p: number;
  dklen: number;
  /** hex */
  salt: string;
}

export interface Sealed {
  kdf: 'scrypt';
  kdfparams: ScryptParams;
  cipher: 'aes-256-gcm';
  /** hex, 12 bytes */
  nonce: string;
  /** hex */
  ciphertext: string;
  /** hex, 16 bytes */
  tag: string;
}

/**
 * OWASP's scrypt guidance (N=2^17, r=8, p=1: 128 MiB per derivation; one per key per process,
 * cached). Written into each file, which is opened with its own parameters: files from before
 * (N=2^16) stay readable.
 */
export const DEFAULT_SCRYPT = { N: 2 ** 17, r: 8, p: 1 } as const;
// Bounds for parameters read from disk, so an edited file cannot make us allocate unbounded memory.
const MAX_N = 2 ** 20;
const MAX_R = 32;
const MAX_P = 16;
const KEY_LENGTH = 32;
const NONCE_LENGTH = 12;
const TAG_LENGTH = 16;

/** Thrown when authentication fails: a wrong passphrase, or a modified file (GCM cannot tell them apart). */
export class OpenError extends ChaindError<'open'> {
  override readonly name = 'OpenError';
  constructor(message: string) {
    super('open', message);
  }
}

/** Derived keys by (passphrase-independent) salt and parameters; one Sealer serves one passphrase. */
export class Sealer {
  private readonly cache = new Map<string, Buffer>();

  constructor(private readonly passphrase: string) {}

  async seal(plaintext: Uint8Array, aad: Uint8Array): Promise<Sealed> {
    const params: ScryptParams = { ...DEFAULT_SCRYPT, dklen: KEY_LENGTH, salt: randomBytes(32).toString('hex') };
    const key = await this.derive(params);
    const nonce = randomBytes(NONCE_LENGTH);
    const cipher = createCipheriv('aes-256-gcm', key, nonce, { authTagLength: TAG_LENGTH });
    cipher.setAAD(aad);
    const ciphertext = Buffer.concat([cipher.update(plaintext), cipher.final()]);
    return {
      kdf: 'scrypt',
      kdfparams: params,
      cipher: 'aes-256-gcm',
      nonce: nonce.toString('hex'),
      ciphertext: ciphertext.toString('hex'),
      tag: cipher.getAuthTag().toString('hex'),
    };
  }

  /** The plaintext; OpenError when authentication fails, plain Error when the envelope itself is malformed. */
  async open(sealed: Sealed, aad: Uint8Array): Promise<Uint8Array> {
    checkSealed(sealed);
    const key = await this.derive(sealed.kdfparams);
    const decipher = createDecipheriv('aes-256-gcm', key, Buffer.from(sealed.nonce, 'hex'), { authTagLength: TAG_LENGTH });
    decipher.setAAD(aad);
    decipher.setAuthTag(Buffer.from(sealed.tag, 'hex'));
    try {
      return Buffer.concat([decipher.update(Buffer.from(sealed.ciphertext, 'hex')), decipher.final()]);
    } catch {
      throw new OpenError('authentication failed');
    }
  }

  /** True when this passphrase opens `sealed` and yields `expected`. */
  async opens(sealed: Sealed, aad: Uint8Array, expected: Uint8Array): Promise<boolean> {
    try {
      const got = await this.open(sealed, aad);
      return got.length === expected.length && timingSafeEqual(got, expected);
    } catch (e) {
      if (e instanceof OpenError) return false;
      throw e;
    }
  }

  private async derive(p: ScryptParams): Promise<Buffer> {
    const id = `${p.N}:${p.r}:${p.p}:${p.dklen}:${p.salt}`;
    const hit = this.cache.get(id);
    if (hit) return hit;
    const key = await new Promise<Buffer>((resolve, reject) =>
      scrypt(
        this.passphrase.normalize('NFKC'),
        Buffer.from(p.salt, 'hex'),
        p.dklen,
        { N: p.N, r: p.r, p: p.p, maxmem: 128 * p.N * p.r * p.p + 2 ** 24 },
        (err, k) => (err ? reject(err) : resolve(k)),
      ),
    );
    this.cache.set(id, key);
    return key;
  }
}

const HEX = /^(?:[0-9a-f]{2})*$/;

function checkSealed(s: Sealed): void {
  const bad = (why: string): never => {
    throw new Error(`malformed encrypted envelope: ${why}`);
  };
  if (typeof s !== 'object' || s === null) bad('not an object');
  if (s.kdf !== 'scrypt' || s.cipher !== 'aes-256-gcm') bad(`unsupported kdf/cipher ${String(s.kdf)}/${String(s.cipher)}`);
  const k = s.kdfparams;
  if (typeof k !== 'object' || k === null) bad('missing kdfparams');
  const isInt = (n: unknown, lo: number, hi: number): boolean => Number.isInteger(n) && (n as number) >= lo && (n as number) <= hi;
  if (!isInt(k.N, 2, MAX_N) || (k.N & (k.N - 1)) !== 0) bad(`scrypt N must be a power of two ≤ 2^20, got ${k.N}`);
  if (!isInt(k.r, 1, MAX_R) || !isInt(k.p, 1, MAX_P)) bad(`scrypt r/p out of range: ${k.r}/${k.p}`);
  if (k.dklen !== KEY_LENGTH) bad(`dklen must be ${KEY_LENGTH}`);
  for (const [field, value, len] of [
    ['salt', k.salt, undefined],
    ['nonce', s.nonce, NONCE_LENGTH],
    ['tag', s.tag, TAG_LENGTH],
    ['ciphertext', s.ciphertext, undefined],
  ] as const) {
    if (typeof value !== 'string' || !HEX.test(value)) bad(`${field} is not lowercase hex`);
    if (len !== undefined && value.length !== len * 2) bad(`${field} must be ${len} bytes`);
  }
}

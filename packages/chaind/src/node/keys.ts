// The node's CometBFT key files, in CometBFT v0.38's JSON (privval/file.go, p2p/key.go):
//   config/priv_validator_key.json  {address, pub_key{type,value}, priv_key{type,value}}   the consensus key
//   config/node_key.json            {priv_key{type,value}}                                 the p2p identity
//   data/priv_validator_state.json  {height, round, step}                                  the last signed vote
// An ed25519 private key's value is base64(32-byte seed ‖ 32-byte public key), as Go's ed25519.PrivateKey.
import { ChaindError, errnoCode } from '@chaind/errors';
import { Buffer } from 'node:buffer';
import { createPrivateKey, createPublicKey, generateKeyPairSync } from 'node:crypto';
import { readFile } from 'node:fs/promises';
import { join } from 'node:path';
import { COMETBFT_ED25519_TYPE, consensusAddressHex } from '@chaind/sdk/x/validators';
import { exists, writeFileAtomic } from '../config/index.ts';

export const COMETBFT_ED25519_PRIV_TYPE = 'tendermint/PrivKeyEd25519';

/** A key file that is missing or not what CometBFT writes: the operator's to fix (the CLI prints it as a user error). */
export class NodeKeyError extends ChaindError<'node-key'> {
  override readonly name = 'NodeKeyError';
  constructor(message: string, options?: ErrorOptions) {
    super('node-key', message, options);
  }
}

export interface Ed25519Key {
  readonly seed: Buffer;
  readonly pubKey: Buffer;
}

export function keyPaths(home: string): { privValidatorKey: string; nodeKey: string; privValidatorState: string } {
  return {
    privValidatorKey: join(home, 'config', 'priv_validator_key.json'),
    nodeKey: join(home, 'config', 'node_key.json'),
    privValidatorState: join(home, 'data', 'priv_validator_state.json'),
  };
}

export function generateEd25519(): Ed25519Key {
  const jwk = generateKeyPairSync('ed25519').privateKey.export({ format: 'jwk' });
  return { seed: Buffer.from(jwk.d as string, 'base64url'), pubKey: Buffer.from(jwk.x as string, 'base64url') };
}

// PKCS#8 wrapping of a raw ed25519 seed (RFC 8410), the form node:crypto imports
const PKCS8_ED25519_PREFIX = Buffer.from('302e020100300506032b657004220420', 'hex');

function pubKeyOfSeed(seed: Buffer): Buffer {
  const priv = createPrivateKey({ key: Buffer.concat([PKCS8_ED25519_PREFIX, seed]), format: 'der', type: 'pkcs8' });
  return Buffer.from(createPublicKey(priv).export({ format: 'jwk' }).x as string, 'base64url');
}

/** The p2p node id: the node key's address (CometBFT's rule, as a validator's) in lower-case hex. */
export const nodeIdOf = (pubKey: Uint8Array): string => consensusAddressHex(pubKey).toLowerCase();

const privKeyJSON = (k: Ed25519Key): { type: string; value: string } => ({
  type: COMETBFT_ED25519_PRIV_TYPE,
  value: Buffer.concat([k.seed, k.pubKey]).toString('base64'),
});

/** Reads a `{type, value}` ed25519 private key from a key file, checking that its halves belong together. */
function readPrivKey(file: string, v: unknown): Ed25519Key {
  const bad = (why: string): NodeKeyError => new NodeKeyError(`${file} is not a CometBFT ed25519 key file: ${why}`);
  const o = v as { type?: unknown; value?: unknown } | null;
  if (typeof o !== 'object' || o === null) throw bad('priv_key is missing');
  if (o.type !== COMETBFT_ED25519_PRIV_TYPE) throw bad(`priv_key.type is ${JSON.stringify(o.type)}, expected "${COMETBFT_ED25519_PRIV_TYPE}"`);
  const raw = typeof o.value === 'string' ? Buffer.from(o.value, 'base64') : Buffer.alloc(0);
  if (raw.length !== 64) throw bad('priv_key.value must be 64 bytes of base64 (seed ‖ public key)');
  const k = { seed: raw.subarray(0, 32), pubKey: raw.subarray(32) };
  if (!pubKeyOfSeed(k.seed).equals(k.pubKey)) throw bad('the public key half of priv_key.value does not match its seed');
  return k;
}

async function readJSON(file: string): Promise<Record<string, unknown>> {
  let text: string;
  try {
    text = await readFile(file, 'utf8');
  } catch (e) {
    if (errnoCode(e) === 'ENOENT') throw new NodeKeyError(`${file} not found: run "chaind init" first, or pass the right --home`);
    throw e;
  }
  try {
    const v: unknown = JSON.parse(text);
    if (typeof v === 'object' && v !== null && !Array.isArray(v)) return v as Record<string, unknown>;
  } catch {
    // reported below
  }
  throw new NodeKeyError(`${file} is not a JSON object`);
}

/** The validator's consensus key from priv_validator_key.json, checked for consistency. */
export async function readPrivValidatorKey(home: string): Promise<Ed25519Key & { address: string }> {
  const file = keyPaths(home).privValidatorKey;
  const j = await readJSON(file);
  const k = readPrivKey(file, j.priv_key);
  const pub = j.pub_key as { type?: unknown; value?: unknown } | undefined;
  if (pub?.type !== COMETBFT_ED25519_TYPE || pub.value !== k.pubKey.toString('base64')) {
    throw new NodeKeyError(`${file}: pub_key must be {"type":"${COMETBFT_ED25519_TYPE}","value":"${k.pubKey.toString('base64')}"} (the private key's)`);
  }
  const address = consensusAddressHex(k.pubKey);
  if (j.address !== address) throw new NodeKeyError(`${file}: address must be ${address} (from the public key), got ${JSON.stringify(j.address)}`);
  return { ...k, address };
}

export async function readNodeKey(home: string): Promise<Ed25519Key> {
  const file = keyPaths(home).nodeKey;
  return readPrivKey(file, (await readJSON(file)).priv_key);
}

export interface NodeKeys {
  readonly validator: Ed25519Key & { readonly address: string };
  readonly nodeId: string;
  /** Files written now; the others existed and were kept (a validator key is never replaced). */
  readonly created: readonly string[];
}

/** Creates the key files and the validator state that are missing (mode 0600), and reads those that exist. */
export async function ensureNodeKeys(home: string): Promise<NodeKeys> {
  const p = keyPaths(home);
  const created: string[] = [];
  if (!(await exists(p.privValidatorKey))) {
    const k = generateEd25519();
    const json = {
      address: consensusAddressHex(k.pubKey),
      pub_key: { type: COMETBFT_ED25519_TYPE, value: k.pubKey.toString('base64') },
      priv_key: privKeyJSON(k),
    };
    await writeFileAtomic(p.privValidatorKey, `${JSON.stringify(json, null, 2)}\n`, 0o600, true);
    created.push(p.privValidatorKey);
  }
  if (!(await exists(p.nodeKey))) {
    await writeFileAtomic(p.nodeKey, `${JSON.stringify({ priv_key: privKeyJSON(generateEd25519()) })}\n`, 0o600, true);
    created.push(p.nodeKey);
  }
  // a kept validator key keeps its signing state: resetting it could let the key sign twice at one height
  if (!(await exists(p.privValidatorState))) {
    await writeFileAtomic(p.privValidatorState, `${JSON.stringify({ height: '0', round: 0, step: 0 }, null, 2)}\n`, 0o600, true);
    created.push(p.privValidatorState);
  }
  const validator = await readPrivValidatorKey(home);
  const node = await readNodeKey(home);
  return { validator, nodeId: nodeIdOf(node.pubKey), created };
}

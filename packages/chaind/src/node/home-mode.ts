// Which way a home may run: solo (`chaind dev`: this node makes every block) or behind CometBFT (`chaind
// start`). The two keep blocks in different places (solo: data/solo-blocks.db; CometBFT: its own
// data/blockstore.db, state.db, cs.wal), and a chain made one way cannot be carried on the other way:
// CometBFT refuses an app ahead of its block store (ErrAppBlockHeightTooHigh), and a solo chain of a
// multi-validator genesis would be a private fork. Each refusal is one line saying what to run instead.
import { existsSync, renameSync, statSync } from 'node:fs';
import { join } from 'node:path';
import { ChaindError } from '@chaind/errors';
import { toRequestInitChain, type GenesisDoc } from '@chaind/sdk/genesis';

/** A node that may not run this way on this home (solo on a validator's home, CometBFT on a solo chain's). */
export class NodeModeError extends ChaindError<'node-mode'> {
  override readonly name = 'NodeModeError';
  constructor(message: string) {
    super('node-mode', message);
  }
}

/** The solo block store: a name CometBFT never uses in data/. */
export const SOLO_BLOCK_STORE = 'solo-blocks.db';
/** What CometBFT v0.38 keeps in data/ (config/toml.go defaults: db_dir "data", the WAL under cs.wal). */
const COMET_DATA = ['blockstore.db', 'state.db', 'cs.wal', 'evidence.db', 'tx_index.db'];

const isFile = (p: string): boolean => existsSync(p) && statSync(p).isFile();

/**
 * The solo block store's path. A home made before the store had its own name keeps its blocks in
 * data/blockstore.db, an LMDB file (CometBFT's is a folder): moved once, with its lock file.
 */
export function soloBlockStorePath(home: string): string {
  const path = join(home, 'data', SOLO_BLOCK_STORE);
  const legacy = join(home, 'data', 'blockstore.db');
  if (!existsSync(path) && isFile(legacy)) {
    renameSync(legacy, path);
    if (existsSync(`${legacy}-lock`)) renameSync(`${legacy}-lock`, `${path}-lock`);
  }
  return path;
}

/** CometBFT's databases in this home's data/ (empty: CometBFT never ran here). */
export function cometDataIn(home: string): string[] {
  // a legacy solo store is a file of the same name as CometBFT's folder
  return COMET_DATA.filter((n) => existsSync(join(home, 'data', n)) && !isFile(join(home, 'data', n)));
}

/** Why this home may not run solo, or undefined. */
export function soloRefusal(home: string, genesis: GenesisDoc, ownConsensusKey: Uint8Array): string | undefined {
  const comet = cometDataIn(home);
  if (comet.length > 0) {
    return `this home has run behind CometBFT (data/ holds ${comet.join(', ')}): it cannot run solo; run it with \`chaind start --home ${home}\``;
  }
  const own = Buffer.from(ownConsensusKey).toString('base64');
  const others = genesisValidatorKeys(genesis).filter((k) => k !== own);
  if (others.length > 0) {
    return `the genesis gives voting power to ${others.length} other validator${others.length === 1 ? '' : 's'}: a solo chain would be a private fork of their network; run it with \`chaind start --home ${home}\` (CometBFT)`;
  }
  return undefined;
}

/** Why this home may not run behind CometBFT, or undefined. */
export function cometRefusal(home: string): string | undefined {
  const solo = join(home, 'data', SOLO_BLOCK_STORE);
  if (existsSync(solo) || isFile(join(home, 'data', 'blockstore.db'))) {
    return `this home has run solo (its blocks are in data/${SOLO_BLOCK_STORE}): CometBFT cannot take over a solo chain; run it with \`chaind dev --home ${home}\`, or make a fresh home with \`chaind init\` for a validator`;
  }
  return undefined;
}

/** The base64 ed25519 keys of the genesis validators, as InitChain would give them to CometBFT (validate the genesis first). */
function genesisValidatorKeys(genesis: GenesisDoc): string[] {
  return toRequestInitChain(genesis).validators.flatMap((v) =>
    v.power > 0n && v.pubKey.ed25519 !== undefined ? [Buffer.from(v.pubKey.ed25519).toString('base64')] : [],
  );
}

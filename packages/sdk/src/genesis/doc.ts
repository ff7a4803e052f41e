// The chain's genesis document: CometBFT v0.38's genesis.json (types/genesis.go), with the validator
// set in app_state.validators (the app returns it from InitChain) rather than in a top-level list.
import { ChaindError } from '@chaind/errors';
import type { Timestamp } from 'cosmjs-types/google/protobuf/timestamp';
import type { ConsensusParams } from 'cosmjs-types/tendermint/types/params';

export type { ConsensusParams, Timestamp };

export interface GenesisDoc {
  /**
   * The program and release that wrote the file: the Cosmos SDK's AppGenesis `app_name` and `app_version`
   * (v0.50+), which CometBFT ignores. Absent in files written before they were recorded.
   */
  readonly appName?: string;
  readonly appVersion?: string;
  readonly genesisTime: Timestamp;
  readonly chainId: string;
  readonly initialHeight: bigint;
  /** Every section set (block, evidence, validator, version, abci). */
  readonly consensusParams: ConsensusParams;
  /** Usually empty: InitChain's app hash becomes the first block's. */
  readonly appHash: Uint8Array;
  /** Module name → that module's genesis JSON. */
  readonly appState: Record<string, unknown>;
}

export class GenesisError extends ChaindError<'genesis'> {
  override readonly name = 'GenesisError';
  constructor(message: string, options?: ErrorOptions) {
    super('genesis', message, options);
  }
}

/** CometBFT's MaxChainIDLen (bytes). */
export const MAX_CHAIN_ID_LENGTH = 50;
/** CometBFT's MaxBlockSizeBytes: the bound on block.max_bytes (and on evidence.max_bytes when max_bytes is -1). */
export const MAX_BLOCK_SIZE_BYTES = 104_857_600n;
/** Public key types CometBFT v0.38 knows (types/params.go). */
export const KNOWN_PUB_KEY_TYPES: readonly string[] = ['ed25519', 'secp256k1'];

/** CometBFT v0.38's DefaultConsensusParams. */
export function defaultConsensusParams(): ConsensusParams {
  return {
    block: { maxBytes: 22_020_096n, maxGas: -1n },
    // 48 hours
    evidence: { maxAgeNumBlocks: 100_000n, maxAgeDuration: { seconds: 172_800n, nanos: 0 }, maxBytes: 1_048_576n },
    validator: { pubKeyTypes: ['ed25519'] },
    version: { app: 0n },
    abci: { voteExtensionsEnableHeight: 0n },
  };
}

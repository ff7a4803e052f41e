// A genesis document's meaning: CometBFT's GenesisDoc.ValidateAndComplete and ConsensusParams.ValidateBasic,
// every module's own validateGenesis, and the checks that span modules.
import { Buffer } from 'node:buffer';
import { ModuleManagerError, type ModuleManager } from '../app/manager.ts';
import { fromBech32 } from '../crypto/index.ts';
import { toHex } from '../store/index.ts';
import { ValidatorsKeeper } from '../x/validators/keeper.ts';
import { MODULE_NAME as VALIDATORS_MODULE_NAME } from '../x/validators/keys.ts';
import { parseValidatorsGenesis } from '../x/validators/genesis.ts';
import type { Validator } from '../x/validators/validator.ts';
import { GenesisError, KNOWN_PUB_KEY_TYPES, MAX_BLOCK_SIZE_BYTES, MAX_CHAIN_ID_LENGTH, type ConsensusParams, type GenesisDoc } from './doc.ts';
import { errorMessage } from '@chaind/errors';

function fail(detail: string): never {
  throw new GenesisError(`genesis ${detail}`);
}

const durationNanos = (d: { seconds: bigint; nanos: number } | undefined): bigint => (d === undefined ? 0n : d.seconds * 1_000_000_000n + BigInt(d.nanos));

/** CometBFT v0.38's ConsensusParams.ValidateBasic, plus what chaind needs: ed25519 keys, no vote extensions. */
export function validateConsensusParams(p: ConsensusParams): void {
  const { block, evidence, validator, abci } = p;
  if (block === undefined || evidence === undefined || validator === undefined) fail('consensus_params must have block, evidence and validator sections');
  if (block.maxBytes === 0n) fail('consensus_params.block.max_bytes cannot be 0');
  if (block.maxBytes < -1n) fail(`consensus_params.block.max_bytes must be -1 or greater than 0, got ${block.maxBytes}`);
  if (block.maxBytes > MAX_BLOCK_SIZE_BYTES) fail(`consensus_params.block.max_bytes is too big: ${block.maxBytes} > ${MAX_BLOCK_SIZE_BYTES}`);
  if (block.maxGas < -1n) fail(`consensus_params.block.max_gas must be -1 or greater, got ${block.maxGas}`);
  if (evidence.maxAgeNumBlocks <= 0n) fail(`consensus_params.evidence.max_age_num_blocks must be greater than 0, got ${evidence.maxAgeNumBlocks}`);
  const age = durationNanos(evidence.maxAgeDuration);
  if (age <= 0n) fail(`consensus_params.evidence.max_age_duration must be greater than 0, got ${age}`);
  const maxBytes = block.maxBytes === -1n ? MAX_BLOCK_SIZE_BYTES : block.maxBytes;
  if (evidence.maxBytes > maxBytes) fail(`consensus_params.evidence.max_bytes is greater than the block's max bytes: ${evidence.maxBytes} > ${maxBytes}`);
  if (evidence.maxBytes < 0n) fail(`consensus_params.evidence.max_bytes must be non-negative, got ${evidence.maxBytes}`);
  if (validator.pubKeyTypes.length === 0) fail('consensus_params.validator.pub_key_types must not be empty');
  validator.pubKeyTypes.forEach((t, i) => {
    if (!KNOWN_PUB_KEY_TYPES.includes(t)) fail(`consensus_params.validator.pub_key_types[${i}] "${t}" is an unknown public key type`);
  });
  // the validators module only has ed25519 consensus keys
  if (!validator.pubKeyTypes.includes('ed25519')) fail('consensus_params.validator.pub_key_types must include "ed25519"');
  const ve = abci?.voteExtensionsEnableHeight ?? 0n;
  if (ve < 0n) fail(`consensus_params.abci.vote_extensions_enable_height must be non-negative, got ${ve}`);
}

/** The genesis validators: through the registered validators module's keeper (its prefix), else any bech32 prefix. */
function genesisValidators(doc: GenesisDoc, mm: ModuleManager): Validator[] {
  const mod = mm.modules.get(VALIDATORS_MODULE_NAME) as { keeper?: unknown } | undefined;
  const keeper = mod?.keeper instanceof ValidatorsKeeper ? mod.keeper : { addressBytes: (a: string): Uint8Array => fromBech32(a).data };
  return parseValidatorsGenesis(doc.appState[VALIDATORS_MODULE_NAME] ?? { validators: [] }, keeper);
}

/** Address bytes (hex) of every account in app_state.auth (auth's validateGenesis has vouched for its form). */
function authAccounts(appState: Record<string, unknown>): Set<string> {
  const out = new Set<string>();
  const auth = appState.auth as { accounts?: { address?: unknown; base_account?: { address?: unknown } }[] } | undefined;
  for (const a of auth?.accounts ?? []) {
    const address = a.address ?? a.base_account?.address;
    if (typeof address === 'string') out.add(toHex(fromBech32(address).data));
  }
  return out;
}

/**
 * Validates a parsed genesis document for an app with these modules. Throws a GenesisError naming the
 * problem: chain id (non-empty, ≤ 50 bytes), initial height ≥ 1, consensus params, each module's
 * app_state (unknown modules, duplicate accounts or balances, bad coins, params — the modules' own
 * checks), a non-empty validator set, and an auth account for every validator operator.
 */
export function validateGenesis(doc: GenesisDoc, mm: ModuleManager): void {
  if (doc.chainId.length === 0) fail('chain_id must not be empty');
  const idBytes = Buffer.byteLength(doc.chainId, 'utf8');
  if (idBytes > MAX_CHAIN_ID_LENGTH) fail(`chain_id is too long: ${idBytes} bytes (max: ${MAX_CHAIN_ID_LENGTH})`);
  if (doc.initialHeight < 1n) fail(`initial_height must be at least 1, got ${doc.initialHeight}`);
  validateConsensusParams(doc.consensusParams);

  try {
    mm.validateGenesis(doc.appState);
  } catch (e) {
    const msg = errorMessage(e);
    // the manager's own errors (unknown module) already say "genesis app_state"; module errors name their module
    throw new GenesisError(e instanceof ModuleManagerError ? msg : `invalid genesis app_state: ${msg}`, { cause: e });
  }

  let validators: Validator[];
  try {
    validators = genesisValidators(doc, mm);
  } catch (e) {
    throw new GenesisError(`invalid genesis app_state: ${errorMessage(e)}`, { cause: e });
  }
  if (validators.length === 0) fail('has no validators: app_state.validators.validators is empty, and a chain needs at least one');

  if (mm.modules.has('auth')) {
    const accounts = authAccounts(doc.appState);
    for (const v of validators) {
      if (!accounts.has(toHex(fromBech32(v.operatorAddress).data))) {
        fail(`validator "${v.moniker}" (${v.operatorAddress}) has no account: its operator must be listed in app_state.auth.accounts`);
      }
    }
  }
}

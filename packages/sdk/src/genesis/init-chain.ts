import type { RequestInitChain } from 'cosmjs-types/tendermint/abci/types';
import { fromBech32 } from '../crypto/index.ts';
import { utf8 } from '../store/index.ts';
import { parseValidatorsGenesis } from '../x/validators/genesis.ts';
import { MODULE_NAME as VALIDATORS_MODULE_NAME } from '../x/validators/keys.ts';
import { toValidatorUpdate } from '../x/validators/validator.ts';
import type { GenesisDoc } from './doc.ts';

/**
 * The InitChain request CometBFT would send for this genesis: validators from app_state.validators
 * (ed25519, in operator-address order), app_state as compact JSON bytes. Validate the document first.
 */
export function toRequestInitChain(doc: GenesisDoc): RequestInitChain {
  // the operators' prefix was checked by validateGenesis; here only the keys and powers matter
  const validators = parseValidatorsGenesis(doc.appState[VALIDATORS_MODULE_NAME] ?? { validators: [] }, {
    addressBytes: (a: string): Uint8Array => fromBech32(a).data,
  });
  return {
    time: doc.genesisTime,
    chainId: doc.chainId,
    consensusParams: doc.consensusParams,
    validators: validators.map(toValidatorUpdate),
    appStateBytes: utf8(JSON.stringify(doc.appState)),
    initialHeight: doc.initialHeight,
  };
}

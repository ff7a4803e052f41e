import { registerError } from '../../app/errors.ts';

export const BANK_CODESPACE = 'bank';

/** The Cosmos SDK's x/bank errors (x/bank/types/errors.go), same codes and texts. */
export const bankErrors = {
  noInputs: registerError(BANK_CODESPACE, 2, 'no inputs to send transaction'),
  noOutputs: registerError(BANK_CODESPACE, 3, 'no outputs to send transaction'),
  inputOutputMismatch: registerError(BANK_CODESPACE, 4, 'sum inputs != sum outputs'),
  sendDisabled: registerError(BANK_CODESPACE, 5, 'send transactions are disabled'),
  denomMetadataNotFound: registerError(BANK_CODESPACE, 6, 'client denom metadata not found'),
  invalidKey: registerError(BANK_CODESPACE, 7, 'invalid key'),
  duplicateEntry: registerError(BANK_CODESPACE, 8, 'duplicate entry'),
  multipleSenders: registerError(BANK_CODESPACE, 9, 'multiple senders not allowed'),
} as const;

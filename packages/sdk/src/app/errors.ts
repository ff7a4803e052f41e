import { ChaindError, errorMessage } from '@chaind/errors';
/**
 * Registered errors, as the Cosmos SDK's: (codespace, code, message). They travel into tx results
 * (code, codespace, log), query results and, later, gRPC status codes and REST bodies.
 */
const registry = new Map<string, RegisteredError>();

export class RegisteredError {
  constructor(
    readonly codespace: string,
    readonly code: number,
    readonly message: string,
  ) {}

  /** An error instance carrying this code, with the detail first, as Cosmos' `Wrap`: "<detail>: <message>". */
  wrap(detail: string): CodedError {
    return new CodedError(this, `${detail}: ${this.message}`);
  }

  /** An error instance carrying this code with exactly `text` as its message. */
  withText(text: string): CodedError {
    return new CodedError(this, text);
  }

  /** True when `err` carries this registered error. */
  is(err: unknown): boolean {
    return err instanceof CodedError && err.registered === this;
  }
}

/** An error carrying a registered error: `code` is its ABCI code, within `codespace`. */
export class CodedError extends ChaindError<number> {
  override readonly name = 'CodedError';
  constructor(
    readonly registered: RegisteredError,
    message: string,
  ) {
    super(registered.code, message);
  }
  get codespace(): string {
    return this.registered.codespace;
  }
}

/** Registers an error; a (codespace, code) pair may be registered once, and code 1 is reserved for internal errors. */
export function registerError(codespace: string, code: number, message: string): RegisteredError {
  if (!Number.isInteger(code) || code < 1) throw new Error(`error code must be a positive integer, got ${code}`);
  const id = `${codespace}:${code}`;
  if (registry.has(id)) throw new Error(`error with code ${code} is already registered in codespace "${codespace}"`);
  const e = new RegisteredError(codespace, code, message);
  registry.set(id, e);
  return e;
}

export const ROOT_CODESPACE = 'sdk';

/** The Cosmos SDK's root errors (types/errors), same codes and texts. */
export const errors = {
  internal: registerError(ROOT_CODESPACE, 1, 'internal'),
  txDecode: registerError(ROOT_CODESPACE, 2, 'tx parse error'),
  invalidSequence: registerError(ROOT_CODESPACE, 3, 'invalid sequence'),
  unauthorized: registerError(ROOT_CODESPACE, 4, 'unauthorized'),
  insufficientFunds: registerError(ROOT_CODESPACE, 5, 'insufficient funds'),
  unknownRequest: registerError(ROOT_CODESPACE, 6, 'unknown request'),
  invalidAddress: registerError(ROOT_CODESPACE, 7, 'invalid address'),
  invalidPubKey: registerError(ROOT_CODESPACE, 8, 'invalid pubkey'),
  unknownAddress: registerError(ROOT_CODESPACE, 9, 'unknown address'),
  invalidCoins: registerError(ROOT_CODESPACE, 10, 'invalid coins'),
  outOfGas: registerError(ROOT_CODESPACE, 11, 'out of gas'),
  memoTooLarge: registerError(ROOT_CODESPACE, 12, 'memo too large'),
  insufficientFee: registerError(ROOT_CODESPACE, 13, 'insufficient fee'),
  tooManySignatures: registerError(ROOT_CODESPACE, 14, 'maximum number of signatures exceeded'),
  noSignatures: registerError(ROOT_CODESPACE, 15, 'no signatures supplied'),
  jsonMarshal: registerError(ROOT_CODESPACE, 16, 'failed to marshal JSON bytes'),
  jsonUnmarshal: registerError(ROOT_CODESPACE, 17, 'failed to unmarshal JSON bytes'),
  invalidRequest: registerError(ROOT_CODESPACE, 18, 'invalid request'),
  txInMempoolCache: registerError(ROOT_CODESPACE, 19, 'tx already in mempool'),
  mempoolIsFull: registerError(ROOT_CODESPACE, 20, 'mempool is full'),
  txTooLarge: registerError(ROOT_CODESPACE, 21, 'tx too large'),
  keyNotFound: registerError(ROOT_CODESPACE, 22, 'key not found'),
  wrongPassword: registerError(ROOT_CODESPACE, 23, 'invalid account password'),
  invalidSigner: registerError(ROOT_CODESPACE, 24, 'tx intended signer does not match the given signer'),
  invalidGasAdjustment: registerError(ROOT_CODESPACE, 25, 'invalid gas adjustment'),
  invalidHeight: registerError(ROOT_CODESPACE, 26, 'invalid height'),
  invalidVersion: registerError(ROOT_CODESPACE, 27, 'invalid version'),
  invalidChainId: registerError(ROOT_CODESPACE, 28, 'invalid chain-id'),
  invalidType: registerError(ROOT_CODESPACE, 29, 'invalid type'),
  txTimeoutHeight: registerError(ROOT_CODESPACE, 30, 'tx timeout height'),
  unknownExtensionOptions: registerError(ROOT_CODESPACE, 31, 'unknown extension options'),
  wrongSequence: registerError(ROOT_CODESPACE, 32, 'incorrect account sequence'),
  packAny: registerError(ROOT_CODESPACE, 33, 'failed packing protobuf message to Any'),
  unpackAny: registerError(ROOT_CODESPACE, 34, 'failed unpacking protobuf message from Any'),
  logic: registerError(ROOT_CODESPACE, 35, 'internal logic error'),
  conflict: registerError(ROOT_CODESPACE, 36, 'conflict'),
  notSupported: registerError(ROOT_CODESPACE, 37, 'feature not supported'),
  notFound: registerError(ROOT_CODESPACE, 38, 'not found'),
  io: registerError(ROOT_CODESPACE, 39, 'Internal IO error'),
  appConfig: registerError(ROOT_CODESPACE, 40, 'error in app.toml'),
  invalidGasLimit: registerError(ROOT_CODESPACE, 41, 'invalid gas limit'),
} as const;

// the one definition lives in @chaind/errors; the modules take it from here
export { errorMessage };

/** (code, codespace, log) for a result; errors that are not registered report as internal, code 1. */
export function abciError(err: unknown): { code: number; codespace: string; log: string } {
  if (err instanceof CodedError) return { code: err.code, codespace: err.codespace, log: err.message };
  return { code: errors.internal.code, codespace: ROOT_CODESPACE, log: errorMessage(err) };
}

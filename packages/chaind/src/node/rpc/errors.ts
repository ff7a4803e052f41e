// JSON-RPC 2.0 errors as CometBFT v0.38 writes them (rpc/jsonrpc/types/types.go): a fixed code and
// message per kind, the detail in `data`. A method's own failure (a height out of range, a tx not
// found) is an Internal error (-32603) there, whatever its cause; only undecodable params are -32602.
import { ChaindError, errorMessage } from '@chaind/errors';

export const PARSE_ERROR = -32700;
export const INVALID_REQUEST = -32600;
export const METHOD_NOT_FOUND = -32601;
export const INVALID_PARAMS = -32602;
export const INTERNAL_ERROR = -32603;

const MESSAGES: Readonly<Record<number, string>> = {
  [PARSE_ERROR]: 'Parse error',
  [INVALID_REQUEST]: 'Invalid Request',
  [METHOD_NOT_FOUND]: 'Method not found',
  [INVALID_PARAMS]: 'Invalid params',
  [INTERNAL_ERROR]: 'Internal error',
};

export interface RpcErrorObject {
  readonly code: number;
  readonly message: string;
  readonly data?: string;
}

/** An error a method or the transport reports to the client as a JSON-RPC error object. */
export class RpcError extends ChaindError<number> {
  override readonly name = 'RpcError';
  constructor(
    /** The JSON-RPC error code. */
    code: number,
    /** The `data` text: what exactly was wrong. */
    readonly data: string,
  ) {
    super(code, data);
  }

  toJSON(): RpcErrorObject {
    const message = MESSAGES[this.code] ?? 'Server error';
    return this.data === '' ? { code: this.code, message } : { code: this.code, message, data: this.data };
  }
}

export const parseError = (detail: string): RpcError => new RpcError(PARSE_ERROR, detail);
export const invalidRequest = (detail: string): RpcError => new RpcError(INVALID_REQUEST, detail);
export const methodNotFound = (method: string): RpcError => new RpcError(METHOD_NOT_FOUND, `method ${JSON.stringify(method)} not found`);
export const invalidParams = (detail: string): RpcError => new RpcError(INVALID_PARAMS, detail);
/** A method's failure: CometBFT returns every error of an RPC function as Internal error with its text. */
export const internalError = (detail: string): RpcError => new RpcError(INTERNAL_ERROR, detail);

/** Any thrown value as the error object to send: RpcErrors as they are, anything else as Internal error. */
export function toRpcError(e: unknown): RpcError {
  if (e instanceof RpcError) return e;
  return internalError(errorMessage(e));
}

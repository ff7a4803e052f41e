// The one base of the errors this project throws on purpose, shared by every package (a leaf: it
// imports nothing). An error that is a ChaindError is an expected failure — a refusal, bad input, a
// halt — reported with its own text; anything else reaching a top level is a bug.

/**
 * What went wrong, in the terms of whoever reports it: a short kind (`'corrupt'`, `'no-binary'`), or a
 * number of the interface that carries it (an ABCI code, an exit code, a JSON-RPC or gRPC code).
 */
export type ErrorCode = string | number;

export class ChaindError<C extends ErrorCode = ErrorCode> extends Error {
  override readonly name: string = 'ChaindError';

  constructor(
    readonly code: C,
    message: string,
    options?: ErrorOptions,
  ) {
    super(message, options);
  }
}

/** The text of anything thrown: an Error's message, else the value as a string (a thrown string, number…). */
export function errorMessage(e: unknown): string {
  return e instanceof Error ? e.message : String(e);
}

/** The `code` of a system error (`'ENOENT'`, `'EEXIST'`…), of anything thrown: undefined when it has none. */
export function errnoCode(e: unknown): string | undefined {
  const code = typeof e === 'object' && e !== null ? (e as { code?: unknown }).code : undefined;
  return typeof code === 'string' ? code : undefined;
}

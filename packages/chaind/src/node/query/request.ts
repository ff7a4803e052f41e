// What a query request carries besides its bytes (the height header) and the client's mistakes in it: their
// own module, light to load, so the CLI's gateway rendering shares them without the servers' code.
import { ChaindError } from '@chaind/errors';

/** The header (REST) and metadata key (gRPC) that select and report the query height, as the Cosmos SDK's. */
export const HEIGHT_HEADER = 'x-cosmos-block-height';

export class HeightError extends ChaindError<'height'> {
  override readonly name = 'HeightError';
  constructor(message: string, options?: ErrorOptions) {
    super('height', message, options);
  }
}

/** A request parameter (REST path/query/body, JSON-RPC params) that does not fit its field: the client's fault. */
export class ParamError extends ChaindError<'param'> {
  override readonly name = 'ParamError';
  constructor(message: string, options?: ErrorOptions) {
    super('param', message, options);
  }
}

/** Parses the optional height header/metadata: absent → 0 (latest). */
export function parseHeight(v: string | undefined): bigint {
  if (v === undefined || v === '') return 0n;
  if (!/^[0-9]+$/.test(v)) throw new HeightError(`invalid ${HEIGHT_HEADER} "${v}": expected a non-negative integer`);
  return BigInt(v);
}

// The service definitions of the Cosmos SDK's query services written by hand (cosmjs-types ships only
// clients), in ts-proto's generic-definition shape that the query router registers.

/** One unary method of a generic service definition. */
export interface UnaryMethod<Req, Res> {
  readonly name: string;
  readonly requestType: Req;
  readonly requestStream: false;
  readonly responseType: Res;
  readonly responseStream: false;
  readonly options: Record<string, never>;
}

export function unaryMethod<Req, Res>(name: string, requestType: Req, responseType: Res): UnaryMethod<Req, Res> {
  return { name, requestType, requestStream: false, responseType, responseStream: false, options: {} };
}

// Query errors as the Cosmos SDK returns them over ABCI: a gRPC status text wrapped in the root error
// its code maps to (baseapp's gRPCErrorToSDKError). Clients match on the text: CosmJS' getAccount
// treats "rpc error: code = NotFound" as an absent account.
import { errors, type CodedError } from '../errors.ts';

export type GrpcCode = 'NotFound' | 'InvalidArgument' | 'FailedPrecondition' | 'Unauthenticated';

export function grpcError(code: GrpcCode, desc: string): CodedError {
  const text = `rpc error: code = ${code} desc = ${desc}`;
  switch (code) {
    case 'NotFound':
      return errors.keyNotFound.wrap(text);
    case 'Unauthenticated':
      return errors.unauthorized.wrap(text);
    default:
      return errors.invalidRequest.wrap(text);
  }
}

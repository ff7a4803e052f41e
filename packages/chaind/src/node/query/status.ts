// Registered errors (codespace, code, log) → gRPC status codes, and gRPC codes → HTTP statuses, for
// both servers (docs/architecture.md "Errors").
import { status } from '../grpc-status.ts';
import { errors, type RegisteredError } from '@chaind/sdk/app';
import { bankErrors } from '@chaind/sdk/x/bank';
import { govErrors } from '@chaind/sdk/x/gov';
import { upgradeErrors } from '@chaind/sdk/x/upgrade';

/** The names in Go's `codes.Code.String()`, as query servers write them into "rpc error: code = X desc = …". */
const BY_NAME: Readonly<Record<string, status>> = {
  Canceled: status.CANCELLED,
  Unknown: status.UNKNOWN,
  InvalidArgument: status.INVALID_ARGUMENT,
  DeadlineExceeded: status.DEADLINE_EXCEEDED,
  NotFound: status.NOT_FOUND,
  AlreadyExists: status.ALREADY_EXISTS,
  PermissionDenied: status.PERMISSION_DENIED,
  ResourceExhausted: status.RESOURCE_EXHAUSTED,
  FailedPrecondition: status.FAILED_PRECONDITION,
  Aborted: status.ABORTED,
  OutOfRange: status.OUT_OF_RANGE,
  Unimplemented: status.UNIMPLEMENTED,
  Internal: status.INTERNAL,
  Unavailable: status.UNAVAILABLE,
  DataLoss: status.DATA_LOSS,
  Unauthenticated: status.UNAUTHENTICATED,
};

const key = (codespace: string, code: number): string => `${codespace}:${code}`;

function table(entries: readonly (readonly [status, readonly RegisteredError[]])[]): ReadonlyMap<string, status> {
  const m = new Map<string, status>();
  for (const [s, errs] of entries) for (const e of errs) m.set(key(e.codespace, e.code), s);
  return m;
}

/** Registered errors whose meaning is a gRPC code; any other is UNKNOWN. */
const BY_ERROR = table([
  [
    status.NOT_FOUND,
    [
      errors.keyNotFound,
      errors.notFound,
      errors.unknownAddress,
      upgradeErrors.moduleVersionNotFound,
      upgradeErrors.planNotFound,
      upgradeErrors.upgradedClientNotFound,
      upgradeErrors.upgradedConsensusStateNotFound,
      govErrors.unknownProposal,
      bankErrors.denomMetadataNotFound,
    ],
  ],
  [
    status.INVALID_ARGUMENT,
    [
      errors.txDecode,
      errors.invalidAddress,
      errors.invalidPubKey,
      errors.invalidCoins,
      errors.invalidRequest,
      errors.invalidHeight,
      errors.invalidType,
      errors.invalidChainId,
      errors.invalidVersion,
      errors.invalidGasLimit,
      errors.jsonUnmarshal,
      govErrors.invalidVote,
      govErrors.invalidProposal,
      govErrors.invalidProposalContent,
      govErrors.invalidProposalType,
      govErrors.invalidProposalMsg,
      govErrors.invalidDepositDenom,
      bankErrors.invalidKey,
    ],
  ],
  [status.UNAUTHENTICATED, [errors.unauthorized]],
  [status.UNIMPLEMENTED, [errors.unknownRequest, errors.notSupported]],
  [status.INTERNAL, [errors.internal, errors.logic, errors.io, errors.jsonMarshal]],
]);

const RPC_ERROR = /^rpc error: code = (\w+) desc = /;

/**
 * The gRPC code of a failed query. A query server that reports a gRPC status (the SDK's
 * `status.Error(codes.NotFound, …)`, carried over ABCI as "rpc error: code = NotFound desc = …")
 * keeps it; otherwise the registered error decides.
 */
export function grpcCodeOf(codespace: string, code: number, log: string): status {
  const named = RPC_ERROR.exec(log);
  if (named !== null && Object.hasOwn(BY_NAME, named[1])) return BY_NAME[named[1]];
  return BY_ERROR.get(key(codespace, code)) ?? status.UNKNOWN;
}

/** grpc-gateway's HTTPStatusFromCode. */
const HTTP: Readonly<Record<number, number>> = {
  [status.OK]: 200,
  [status.CANCELLED]: 499,
  [status.UNKNOWN]: 500,
  [status.INVALID_ARGUMENT]: 400,
  [status.DEADLINE_EXCEEDED]: 504,
  [status.NOT_FOUND]: 404,
  [status.ALREADY_EXISTS]: 409,
  [status.PERMISSION_DENIED]: 403,
  [status.UNAUTHENTICATED]: 401,
  [status.RESOURCE_EXHAUSTED]: 429,
  [status.FAILED_PRECONDITION]: 400,
  [status.ABORTED]: 409,
  [status.OUT_OF_RANGE]: 400,
  [status.UNIMPLEMENTED]: 501,
  [status.INTERNAL]: 500,
  [status.UNAVAILABLE]: 503,
  [status.DATA_LOSS]: 500,
};

export function httpStatusOf(code: status): number {
  return HTTP[code] ?? 500;
}

// The fast protobuf paths, as plain encode/decode functions: callers never see the wire reader or writer.
export { BASE_ACCOUNT_TYPE_URL, decodeAuthParams, decodeBaseAccount, encodeBaseAccount, type BaseAccountFields } from './auth.ts';
export { decodeMsgSend } from './bank.ts';
export { decodeAuthInfoMessage, decodeTxBodyMessage, decodeTxRawMessage, encodeAnyMessage, encodeSignDocMessage } from './tx.ts';
export {
  authInfoSchema,
  MAX_PROTOBUF_NESTING_DEPTH,
  NestingDepthError,
  rejectNonAdr027TxRaw,
  rejectUnknownFields,
  txBodySchema,
  txRawSchema,
  UnknownFieldError,
  type Schema,
} from './unknown.ts';

// @chaind/abci: the CometBFT v0.38 ABCI socket protocol (framing, server, client), knowing nothing of the app.
export { abciAddressProblem, type AbciAddress, formatAbciAddress, MAX_UNIX_PATH_BYTES, parseAbciAddress } from './address.ts';
export { AbciClient, type AbciClientOptions, DEFAULT_CONNECT_TIMEOUT_MS } from './client.ts';
export { AbciAddressError, AbciClientError, AbciConnectionError, AbciFramingError, AbciListenError, AbciProtocolError, AbciSettingError } from './errors.ts';
export { DEFAULT_MAX_MESSAGE_BYTES, encodeFrame, FrameDecoder } from './framing.ts';
export { ABCI_METHODS, type AbciMethod, type AbciResponseKind, encodeRequestFrame, encodeResponseFrame, requestMethod, responseKinds } from './messages.ts';
export {
  type AbciConnectionHandler,
  type AbciConnectionInfo,
  type AbciLog,
  type AbciLogLevel,
  type AbciServer,
  type AbciServerOptions,
  DEFAULT_KEEPALIVE_INITIAL_DELAY_MS,
  DEFAULT_MAX_CONNECTIONS,
  DEFAULT_UNIX_SOCKET_MODE,
  listenAbci,
} from './server.ts';

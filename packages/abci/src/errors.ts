import { ChaindError } from '@chaind/errors';

/** A length prefix that is malformed or above the size limit, or a connection that ended inside a frame. */
export class AbciFramingError extends ChaindError<'abci-framing'> {
  override readonly name = 'AbciFramingError';
  constructor(message: string, options?: ErrorOptions) {
    super('abci-framing', message, options);
  }
}

/** A frame that is not a usable Request/Response: undecodable, no method set, several set, or a mismatched answer. */
export class AbciProtocolError extends ChaindError<'abci-protocol'> {
  override readonly name = 'AbciProtocolError';
  constructor(message: string, options?: ErrorOptions) {
    super('abci-protocol', message, options);
  }
}

/** An address string that is not `tcp://host:port`, `host:port` or `unix://path`. */
export class AbciAddressError extends ChaindError<'abci-address'> {
  override readonly name = 'AbciAddressError';
  constructor(message: string, options?: ErrorOptions) {
    super('abci-address', message, options);
  }
}

/** The server could not listen on its address (in use, permission denied, missing folder…). */
export class AbciListenError extends ChaindError<'abci-listen'> {
  override readonly name = 'AbciListenError';
  constructor(message: string, options?: ErrorOptions) {
    super('abci-listen', message, options);
  }
}

/** A server connection that ended for a reason other than the peer closing it cleanly. */
export class AbciConnectionError extends ChaindError<'abci-connection'> {
  override readonly name = 'AbciConnectionError';
  constructor(message: string, options?: ErrorOptions) {
    super('abci-connection', message, options);
  }
}

/** The client stopped: it could not connect, the server sent an exception or an unexpected response, or it closed. */
export class AbciClientError extends ChaindError<'abci-client'> {
  override readonly name = 'AbciClientError';
  constructor(message: string, options?: ErrorOptions) {
    super('abci-client', message, options);
  }
}

/** A setting outside its allowed range. */
export class AbciSettingError extends ChaindError<'abci-setting'> {
  override readonly name = 'AbciSettingError';
  constructor(message: string) {
    super('abci-setting', message);
  }
}

/** Checks an integer setting, naming it in the error. */
export function checkIntSetting(name: string, value: number, min: number, max: number): number {
  if (!Number.isInteger(value) || value < min || value > max) {
    throw new AbciSettingError(`${name} must be an integer from ${min} to ${max}, got ${String(value)}`);
  }
  return value;
}

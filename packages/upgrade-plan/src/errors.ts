import { ChaindError } from '@chaind/errors';
/** Why a release could not be resolved, downloaded, verified or installed. */
export type FetchErrorKind =
  | 'bad-info' // plan info is not the expected JSON / URL, or a URL or checksum in it is malformed
  | 'no-platform' // no binary for this platform and no "any" entry
  | 'checksum-missing' // no checksum while one is required
  | 'checksum-weak' // md5 or sha1 (always refused)
  | 'checksum-mismatch'
  | 'scheme' // URL scheme not allowed, or plain http to a non-loopback host without the opt-in
  | 'redirect' // redirect to a refused URL, without Location, or too many
  | 'network' // connection failed before any response
  | 'http-status' // final response not 2xx
  | 'too-large' // over maxBytes
  | 'truncated' // body shorter than announced, or the connection dropped mid-body
  | 'empty' // the download has no bytes
  | 'stalled' // connection open but nothing received (no response, or no body data) for the stall timeout
  | 'unsupported-archive' // zip, tar.bz2, tar.xz … (by the URL, or zip by its content): only tar.gz/tgz, tar and plain binaries are handled
  | 'bad-archive' // a tar.gz that does not unpack (corrupt gzip or tar)
  | 'unsafe-archive' // absolute path, `..`, link pointing outside, device/fifo entry
  | 'no-binary' // bin/<daemon> (or <daemon> at the root) missing or not a regular file
  | 'exists' // destDir already exists and replace was not asked for
  | 'io'; // local file system failure while installing

/** A refused or failed release fetch; `kind` says which rule or step, the message says what and where. */
export class FetchError extends ChaindError<FetchErrorKind> {
  override readonly name = 'FetchError';
  constructor(kind: FetchErrorKind, message: string) {
    super(kind, message);
  }
  /** The code, under the name callers have always read it by. */
  get kind(): FetchErrorKind {
    return this.code;
  }
}

/** A malformed upgrade-info.json, as the node reports it at start-up. */
export class UpgradeInfoError extends ChaindError<'upgrade-info'> {
  override readonly name = 'UpgradeInfoError';
  constructor(message: string, options?: ErrorOptions) {
    super('upgrade-info', message, options);
  }
}

/** An upgrade name that cannot be a folder under upgrades/. */
export class UpgradeNameError extends ChaindError<'upgrade-name'> {
  override readonly name = 'UpgradeNameError';
  constructor(message: string, options?: ErrorOptions) {
    super('upgrade-name', message, options);
  }
}

// The state database's size limit. lmdb-js grows its map as needed, so without a limit of our own a
// full disk is found by a failed write; the limit stops the node first, before a commit, with one line.
import { ChaindError } from '@chaind/errors';

/** The most bytes the state database may take, and the setting that sets it (named in the error). */
export interface StoreSizeLimit {
  readonly maxBytes: number;
  /** E.g. "app.toml state-db-max-bytes": what the operator raises. */
  readonly setting: string;
}

/** Per changed key, what LMDB adds beyond the key and value bytes (node header, page slack): an estimate. */
export const ENTRY_OVERHEAD_BYTES = 16;

export class StoreFullError extends ChaindError<'store-full'> {
  override readonly name = 'StoreFullError';
  constructor(
    readonly height: bigint,
    readonly bytes: number,
    readonly limit: StoreSizeLimit,
  ) {
    super(
      'store-full',
      `state database full: committing height ${height} would grow it to about ${bytes} bytes, over its limit of ${limit.maxBytes} bytes (${limit.setting}); nothing of height ${height} was committed: free disk space if needed, raise ${limit.setting} and restart`,
    );
  }
}

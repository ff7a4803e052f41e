// What `npm run rehearse` (scripts/rehearse.ts) needs from the upgrades: the path of upgrades between two
// releases (RELEASES, the one list) and each upgrade's own checks. An upgrade's checks live beside it, in
// src/upgrades/<name>/rehearsal.ts exporting `rehearsal: RehearsalChecks`; they see the upgraded node
// only through its CLI and RPC, as an operator would. Nothing here is part of a release's bundle.
import { ChaindError, errorMessage, errnoCode } from '@chaind/errors';
import { RELEASES } from '../release.ts';

/** A raw read of one key of a store (abci_query /store/<store>/key). */
export interface StoreRead {
  /** 0: answered (`value` undefined: no such key); otherwise the query's error code and `log`. */
  readonly code: number;
  readonly value: Uint8Array | undefined;
  readonly log: string;
}

/** The upgraded node, as the checks of one upgrade see it after the new release committed a block past the upgrade height. */
export interface RehearsedNode {
  /** The upgrade (and release) just applied. */
  readonly upgrade: string;
  /** The height it was applied at. */
  readonly height: bigint;
  /** `chaind query <args…> --node <the node>` with the running (new) release; its stdout. */
  query(args: readonly string[]): Promise<string>;
  /** A raw read of `key` in store `store`. */
  storeKey(store: string, key: Uint8Array): Promise<StoreRead>;
  /** Prints one line of the rehearsal's report (what was checked, with the value seen). */
  report(line: string): void;
}

/** One upgrade's checks of its own changes; `after` throws a RehearsalCheckError for what it did not see. */
export interface RehearsalChecks {
  after(node: RehearsedNode): Promise<void>;
}

export class RehearsalCheckError extends ChaindError<'rehearsal'> {
  override readonly name = 'RehearsalCheckError';
  constructor(message: string, options?: ErrorOptions) {
    super('rehearsal', message, options);
  }
}

/**
 * The releases a rehearsal starts from and upgrades to, in turn: `from` first, then each later release up
 * to `to` (by default the one after `from`).
 */
export function rehearsalPath(from: string, to?: string, releases: readonly string[] = RELEASES): readonly string[] {
  const known = `the releases are ${releases.join(', ')} (RELEASES in packages/chaind/src/release.ts)`;
  const i = releases.indexOf(from);
  if (i < 0) throw new RehearsalCheckError(`unknown release --from ${JSON.stringify(from)}: ${known}`);
  if (to === undefined && i === releases.length - 1)
    throw new RehearsalCheckError(`--from ${from} is the latest release: there is no upgrade after it; ${known}`);
  to ??= releases[i + 1];
  const j = releases.indexOf(to);
  if (j < 0) throw new RehearsalCheckError(`unknown release --to ${JSON.stringify(to)}: ${known}`);
  if (j <= i) throw new RehearsalCheckError(`--to ${to} is not after --from ${from}: an upgrade goes to a later release; ${known}`);
  return releases.slice(i, j + 1);
}

/** The checks of upgrade `name` (src/upgrades/<name>/rehearsal.ts), or undefined when its folder has none. */
export async function rehearsalChecksOf(name: string): Promise<RehearsalChecks | undefined> {
  if (!/^[A-Za-z0-9._-]+$/.test(name) || name.startsWith('.')) throw new RehearsalCheckError(`not an upgrade name: ${JSON.stringify(name)}`);
  const file = new URL(`./${name}/rehearsal.ts`, import.meta.url);
  let mod: { rehearsal?: RehearsalChecks };
  try {
    mod = (await import(file.href)) as { rehearsal?: RehearsalChecks };
  } catch (e) {
    if (errnoCode(e) === 'ERR_MODULE_NOT_FOUND' && errorMessage(e).includes(`${name}/rehearsal.ts`)) return undefined;
    throw e;
  }
  if (typeof mod.rehearsal?.after !== 'function') throw new RehearsalCheckError(`src/upgrades/${name}/rehearsal.ts exports no \`rehearsal: RehearsalChecks\``);
  return mod.rehearsal;
}

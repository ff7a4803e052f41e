// Which release wrote a genesis. chaind records itself in genesis.json as the Cosmos SDK (v0.50+) does, in
// `app_name` and `app_version` (AppGenesis's fields; CometBFT ignores them), so a release that meets a module it
// does not have can say which release wrote the file, which one is running, and what to do.
import { UnknownGenesisModuleError } from '@chaind/sdk/app';
import { GenesisError, type GenesisDoc } from '@chaind/sdk/genesis';
import { CHAIND_RELEASE, type ReleaseName } from './release.ts';

/** genesis.json's `app_name` for every release. */
export const APP_NAME = 'chaind';

/** The `app_name` and `app_version` a genesis written by this release records. */
export function genesisWriter(release: ReleaseName = CHAIND_RELEASE): { readonly appName: string; readonly appVersion: string } {
  return { appName: APP_NAME, appVersion: release };
}

function unknownModuleIn(e: unknown): UnknownGenesisModuleError | undefined {
  for (let c: unknown = e; c instanceof Error; c = c.cause) if (c instanceof UnknownGenesisModuleError) return c;
  return undefined;
}

/**
 * The one line for a genesis module this release does not have (`e` or its cause an UnknownGenesisModuleError):
 * the module, the release that wrote the genesis (or that the file does not say), the running release, what to
 * do. Undefined for any other error.
 */
export function unknownGenesisModuleLine(
  e: unknown,
  doc: Pick<GenesisDoc, 'appName' | 'appVersion'>,
  release: ReleaseName = CHAIND_RELEASE,
): string | undefined {
  const u = unknownModuleIn(e);
  if (u === undefined) return undefined;
  const running = `${APP_NAME} ${release}`;
  const head = `genesis app_state has an unknown module "${u.moduleName}"`;
  if (doc.appVersion === undefined) {
    return `${head}: genesis.json does not say which release wrote it (no app_version) and this binary is ${running}, which has no such module; make the genesis with the binary of the release the chain starts from (under chainvisor: $DAEMON_HOME/cosmovisor/genesis/bin/chaind init …)`;
  }
  const writer = `${doc.appName ?? 'an unnamed program'} ${doc.appVersion}`;
  if (writer === running)
    return `${head}: genesis.json was written by ${writer}, this very release, so the module was added by hand or by another tool; remove it from app_state`;
  return `${head}: genesis.json was written by ${writer} and this binary is ${running}, which has no such module; make the genesis with the binary of the release the chain starts from (under chainvisor: $DAEMON_HOME/cosmovisor/genesis/bin/chaind init …), or run ${writer}`;
}

/** `e`, or a GenesisError saying which release wrote the genesis when `e` is about a module this release does not have. */
export function explainGenesisError(e: unknown, doc: Pick<GenesisDoc, 'appName' | 'appVersion'>): unknown {
  const line = unknownGenesisModuleLine(e, doc);
  return line === undefined ? e : new GenesisError(line, { cause: e });
}

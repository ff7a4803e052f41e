// chainvisor's release installer: a release fetched and checked by @chaind/upgrade-plan, or a local one, put in place.
export { installRelease, type FetchPolicy, type InstallOptions, type InstallResult } from './install.ts';
export { checkReleaseFolder, installLocalRelease, localForm, type LocalForm, type LocalInstallOptions } from './local.ts';

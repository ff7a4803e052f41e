// chainvisor's release fetcher: resolve plan info to a URL, download, verify, extract safely, install.
export { FetchError, type FetchErrorKind } from './errors.ts';
export { installRelease, type InstallOptions, type InstallResult } from './install.ts';
export { checkReleaseFolder, installLocalRelease, localForm, type LocalForm, type LocalInstallOptions } from './local.ts';
export { isLoopbackHost, type ArchiveFormat, type Checksum } from './policy.ts';
export { DEFAULT_MAX_BYTES, DEFAULT_STALL_TIMEOUT_MS, platformKey, resolveRelease, type FetchPolicy, type ReleaseSource } from './resolve.ts';

// The upgrade plan's off-chain side, shared by the upgrade module, chaind's CLI and chainvisor.
export { FetchError, UpgradeInfoError, UpgradeNameError, type FetchErrorKind } from './errors.ts';
export { checkTree, extractTar } from './extract.ts';
export { downloadTo, openUrl, Stall, MAX_REDIRECTS, type Downloaded, type DownloadOptions, type Opened, type Progress } from './http.ts';
export { folderNameProblem, MAX_NAME_BYTES, unsafeUpgradeName, upgradeFolderName } from './names.ts';
export {
  archiveFormat,
  assertFetchable,
  checkChecksum,
  checksumMissing,
  DEFAULT_STALL_TIMEOUT_MS,
  displayUrl,
  isLoopbackHost,
  parseChecksum,
  parseUrl,
  schemeRefusal,
  splitMagicParams,
  type ArchiveFormat,
  type Checksum,
  type DownloadPolicy,
} from './policy.ts';
export { downloadRelease, locateDaemon, prepareDownload, unpackRelease, type PreparedDownload, type ReleaseDownloadOptions, type VerifiedDownload } from './release.ts';
export { goPlatform, platformKey, type GoPlatform } from './platform.ts';
export { planBinaries, resolveRelease, type ReleaseSource } from './resolve.ts';
export {
  encodeUpgradeInfo,
  parseUpgradeInfo,
  readUpgradeInfo,
  readUpgradeInfoFile,
  UPGRADE_INFO_FILE,
  upgradeInfoPath,
  writeUpgradeInfo,
  type ParseResult,
  type ReadResult,
  type UpgradeInfo,
  type UpgradeInfoFile,
} from './upgrade-info.ts';

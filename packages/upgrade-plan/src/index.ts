// The upgrade plan's off-chain side, shared by the upgrade module (x/upgrade), chaind's CLI and chainvisor:
// upgrade-info.json, the plan info's binaries and the rules for fetching them, upgrade folder names, Go's
// platform names and Go's duration syntax, and chainvisor's record of the plan a release was installed for. It imports nothing of the node (only @chaind/errors).
export { FetchError, UpgradeInfoError, UpgradeNameError, type FetchErrorKind } from './errors.ts';
export { checkTree, DEFAULT_EXTRACT_LIMITS, extractTar, type ExtractLimits } from './extract.ts';
export { durationMs, durationNs, formatGoDuration, MAX_GO_DURATION_NS, parseGoDuration, type ParsedGoDuration } from './go-duration.ts';
export type { Downloaded, Progress } from './http.ts';
export { leftoversIn, pidAlive } from './leftovers.ts';
export { folderCollision, folderNameProblem, foldName, goToLower, MAX_NAME_BYTES, upgradeFolderName } from './names.ts';
export { goPlatform, platformKey, type GoPlatform } from './platform.ts';
export { PLAN_RECORD, planRecordText, readPlanRecord, readPlanRecordIn, staleRelease, type PlanRecord } from './plan-record.ts';
export { DEFAULT_STALL_TIMEOUT_MS, isLocalAddress, isLoopbackHost, type ArchiveFormat, type Checksum, type DownloadPolicy, type HttpPolicy } from './policy.ts';
export {
  downloadRelease,
  locateDaemon,
  prepareDownload,
  unpackRelease,
  type PreparedDownload,
  type ReleaseDownloadOptions,
  type VerifiedDownload,
} from './release.ts';
export { clip, MAX_QUOTED, quote } from './quote.ts';
export { planBinaries, resolveRelease, type ReleaseSource } from './resolve.ts';
export {
  DEFAULT_UPGRADE_INFO_MAX_BYTES,
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
  type UpgradeInfoLimit,
} from './upgrade-info.ts';

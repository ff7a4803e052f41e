import type { Config } from './config.ts';
import { resolveRelease } from '@chaind/upgrade-plan';
import { installRelease, type FetchPolicy } from './fetch/index.ts';
import type { Logger } from './log.ts';
import { PLAN_RECORD, planRecordText } from '@chaind/upgrade-plan';
import type { Installer } from './upgrade.ts';
import { nopVisorMetrics, type VisorMetrics } from './metrics.ts';

export function fetchPolicy(cfg: Config, log: Logger): FetchPolicy {
  return {
    mustHaveChecksum: cfg.downloadMustHaveChecksum,
    allowInsecureHttp: cfg.allowInsecureHttp,
    allowLoopbackHttp: cfg.allowLoopbackHttp,
    loopbackSetting: 'DAEMON_ALLOW_LOOPBACK_HTTP=true',
    maxBytes: cfg.downloadMaxBytes,
    stallTimeoutMs: cfg.downloadStallTimeoutMs,
    extract: {
      maxBytes: cfg.maxExtractBytes,
      maxEntries: cfg.maxExtractEntries,
      settings: { bytes: 'DAEMON_MAX_EXTRACT_BYTES', entries: 'DAEMON_MAX_EXTRACT_ENTRIES' },
    },
    // a bar on a terminal, progress lines in a log file, nothing when our logs are off
    progress: cfg.disableLogs ? 'none' : process.stderr.isTTY ? 'bar' : 'lines',
    log: (m) => log.info(m),
  };
}

/** The download path: plan info → this platform's URL + checksum → verified, extracted, renamed into destDir. */
export function releaseInstaller(cfg: Config, log: Logger, metrics: VisorMetrics = nopVisorMetrics): Installer {
  const policy = fetchPolicy(cfg, log);
  return async (info, destDir) => {
    const src = await resolveRelease(info.info, policy);
    log.info(`downloading upgrade ${info.name} for ${src.platform}`);
    // destDir holds no binary, or another plan's release: either way it is replaced, along with the plan it was for
    const r = await installRelease(src, {
      ...policy,
      destDir,
      daemonName: cfg.daemonName,
      replace: true,
      observe: (b, t) => metrics.download(b, t),
      files: { [PLAN_RECORD]: planRecordText(info, src) },
    });
    log.info(`release ${info.name}: download ${Math.round(r.downloadMs)}ms, verify ${Math.round(r.verifyMs)}ms, extract ${Math.round(r.extractMs)}ms`);
    return r;
  };
}

import { ChaindError } from '@chaind/errors';
/**
 * chainvisor's exit codes: one per kind of failure, so scripts and systemd units can tell them apart.
 * docs/chainvisor.md carries the same table.
 */
export const EXIT = {
  /** the daemon finished cleanly, or an upgrade finished with DAEMON_RESTART_AFTER_UPGRADE=false */
  OK: 0,
  /** an unexpected internal error (a bug in chainvisor) */
  INTERNAL: 1,
  /** bad command line or settings (every invalid setting is listed) */
  CONFIG: 2,
  /** the upgrade could not be carried out: binary missing, download/verify/extract failed, backup or switch failed */
  UPGRADE_FAILED: 3,
  /** COSMOVISOR_CUSTOM_PREUPGRADE or `<daemon> pre-upgrade` failed: the new binary is in place but not started */
  PREUPGRADE_FAILED: 4,
  /** the daemon exited non-zero (or could not be started) with no upgrade pending */
  DAEMON_FAILED: 5,
  /** data/upgrade-info.json is invalid (unsafe name, bad height, not JSON once complete) */
  UPGRADE_INFO_INVALID: 6,
  /** the cosmovisor/ folder is broken: `current` missing or dangling, genesis binary missing */
  LAYOUT_BROKEN: 7,
  /** prepare-upgrade could not reach the node's gRPC endpoint */
  NODE_UNREACHABLE: 8,
} as const;

export type ExitCode = (typeof EXIT)[keyof typeof EXIT];

/** A failure with the exit code it ends chainvisor with; its message is the one line printed. */
export class ChainvisorError extends ChaindError<ExitCode> {
  override readonly name = 'ChainvisorError';
  constructor(code: ExitCode, message: string) {
    super(code, message);
  }
}

import { ChaindError } from '@chaind/errors';
import { registerError } from '../../app/index.ts';

/** Codespace `upgrade`, with the Cosmos SDK's codes and texts (x/upgrade/types/errors.go). */
export const upgradeErrors = {
  moduleVersionNotFound: registerError('upgrade', 2, 'module version not found'),
  planNotFound: registerError('upgrade', 3, 'upgrade plan not found'),
  upgradedClientNotFound: registerError('upgrade', 4, 'upgraded client not found'),
  upgradedConsensusStateNotFound: registerError('upgrade', 5, 'upgraded consensus state not found'),
  invalidSigner: registerError('upgrade', 6, 'expected authority account as only signer for proposal message'),
} as const;

/** Why a node must stop at this block. */
export type HaltKind = 'upgrade-needed' | 'binary-too-early' | 'downgrade' | 'handler-failed';

/**
 * The node's exit code for each halt, so operators and sidecars can tell them apart from a crash
 * (1) without parsing logs. Documented in docs/upgrade-module.md.
 */
export const HALT_EXIT_CODES: Readonly<Record<HaltKind, number>> = {
  'upgrade-needed': 10,
  'handler-failed': 11,
  'binary-too-early': 12,
  downgrade: 13,
};

/**
 * Thrown by the pre-blocker to halt the chain. The block fails and nothing of it is committed; the
 * node closes cleanly and exits. The message is the exact log text operators and sidecars match.
 */
export class UpgradeHaltError extends ChaindError<HaltKind> {
  override readonly name = 'UpgradeHaltError';
  constructor(kind: HaltKind, message: string, options?: { cause?: unknown }) {
    super(kind, message, options);
  }
  /** The code, under the name callers have always read it by. */
  get kind(): HaltKind {
    return this.code;
  }
}

export function binaryTooEarlyMessage(name: string): string {
  return `BINARY UPDATED BEFORE TRIGGER! UPGRADE "${name}" - in binary but not executed on chain. Downgrade your binary`;
}

// cosmos.gov.v1.Params: the SDK v0.50 defaults, validation naming the offending field, and the parsed
// (bigint) form the keeper computes with. Params are stored as their protobuf bytes.
import { ChaindError, errorMessage } from '@chaind/errors';
import { Params } from 'cosmjs-types/cosmos/gov/v1/gov';
import { fromBech32 } from '../../crypto/index.ts';
import { fromProtoCoins, type Coin } from '../../types/coins.ts';
import { DEC_ONE, decToString, tryParseDec } from './dec.ts';
import { durationToJSON, isPositiveDuration, type Duration } from './time.ts';

export { Params };

export const DEFAULT_BOND_DENOM = 'stake';
const TWO_DAYS: Duration = { seconds: 172_800n, nanos: 0 };
const ONE_DAY: Duration = { seconds: 86_400n, nanos: 0 };
const dec = (s: string): string => decToString(tryParseDec(s) as bigint);

/** The Cosmos SDK v0.50 defaults (x/gov/types/v1/params.go), min deposits in `denom`. */
export function defaultParams(denom: string = DEFAULT_BOND_DENOM): Params {
  return {
    minDeposit: [{ denom, amount: '10000000' }],
    maxDepositPeriod: TWO_DAYS,
    votingPeriod: TWO_DAYS,
    quorum: dec('0.334'),
    threshold: dec('0.5'),
    vetoThreshold: dec('0.334'),
    minInitialDepositRatio: dec('0'),
    proposalCancelRatio: dec('0.5'),
    proposalCancelDest: '',
    expeditedVotingPeriod: ONE_DAY,
    expeditedThreshold: dec('0.667'),
    expeditedMinDeposit: [{ denom, amount: '50000000' }],
    burnVoteQuorum: false,
    burnProposalDepositPrevote: false,
    burnVoteVeto: true,
    minDepositRatio: dec('0.01'),
  };
}

/** Params as the keeper uses them: coins and 18-decimal numerators. */
export interface ParsedParams {
  readonly minDeposit: Coin[];
  readonly maxDepositPeriod: Duration;
  readonly votingPeriod: Duration;
  readonly quorum: bigint;
  readonly threshold: bigint;
  readonly vetoThreshold: bigint;
  readonly minInitialDepositRatio: bigint;
  readonly minDepositRatio: bigint;
  readonly burnVoteQuorum: boolean;
  readonly burnProposalDepositPrevote: boolean;
  readonly burnVoteVeto: boolean;
}

export class GovParamsError extends ChaindError<'params'> {
  override readonly name = 'GovParamsError';
  constructor(message: string, options?: ErrorOptions) {
    super('params', message, options);
  }
}

function coinsField(field: string, coins: Params['minDeposit']): Coin[] {
  let parsed: Coin[];
  try {
    parsed = fromProtoCoins(coins);
  } catch (e) {
    throw new GovParamsError(`${field}: ${errorMessage(e)}`);
  }
  if (parsed.length === 0) throw new GovParamsError(`${field}: must not be empty`);
  return parsed;
}

function durationField(field: string, d: Duration | undefined): Duration {
  if (d === undefined) throw new GovParamsError(`${field}: must be set`);
  if (!isPositiveDuration(d)) throw new GovParamsError(`${field}: must be positive, got ${durationToJSON(d)}`);
  return d;
}

/** A ratio; `zeroOk` allows [0, 1], otherwise (0, 1]. */
function ratioField(field: string, s: string, zeroOk: boolean): bigint {
  const v = tryParseDec(s);
  if (v === undefined) throw new GovParamsError(`${field}: "${s.slice(0, 64)}" is not a decimal with at most 18 fractional digits`);
  if (v > DEC_ONE) throw new GovParamsError(`${field}: must be at most 1, got ${s}`);
  if (v === 0n && !zeroOk) throw new GovParamsError(`${field}: must be positive, got ${s}`);
  return v;
}

/**
 * Validates params as x/gov's Params.ValidateBasic, with every error naming its field. Quorum is
 * refused at zero too (a proposal could pass with no votes). The expedited fields are checked for
 * form only: expedited proposals are not supported, so their relation to the regular ones is moot.
 */
export function parseParams(p: Params, prefix?: string): ParsedParams {
  const minDeposit = coinsField('min_deposit', p.minDeposit);
  const maxDepositPeriod = durationField('max_deposit_period', p.maxDepositPeriod);
  const votingPeriod = durationField('voting_period', p.votingPeriod);
  const quorum = ratioField('quorum', p.quorum, false);
  const threshold = ratioField('threshold', p.threshold, false);
  const vetoThreshold = ratioField('veto_threshold', p.vetoThreshold, false);
  const minInitialDepositRatio = ratioField('min_initial_deposit_ratio', p.minInitialDepositRatio, true);
  ratioField('proposal_cancel_ratio', p.proposalCancelRatio, true);
  const minDepositRatio = ratioField('min_deposit_ratio', p.minDepositRatio, true);
  if (p.proposalCancelDest !== '') {
    try {
      fromBech32(p.proposalCancelDest, prefix);
    } catch (e) {
      throw new GovParamsError(`proposal_cancel_dest: ${errorMessage(e)}`);
    }
  }
  durationField('expedited_voting_period', p.expeditedVotingPeriod);
  ratioField('expedited_threshold', p.expeditedThreshold, false);
  coinsField('expedited_min_deposit', p.expeditedMinDeposit);
  return {
    minDeposit,
    maxDepositPeriod,
    votingPeriod,
    quorum,
    threshold,
    vetoThreshold,
    minInitialDepositRatio,
    minDepositRatio,
    burnVoteQuorum: p.burnVoteQuorum,
    burnProposalDepositPrevote: p.burnProposalDepositPrevote,
    burnVoteVeto: p.burnVoteVeto,
  };
}

export function validateParams(p: Params, prefix?: string): void {
  parseParams(p, prefix);
}

/** The canonical stored form: decimals with all 18 places, as LegacyDec.String. */
export function normalizeParams(p: Params): Params {
  const d = (s: string): string => decToString(tryParseDec(s) as bigint);
  return {
    ...p,
    quorum: d(p.quorum),
    threshold: d(p.threshold),
    vetoThreshold: d(p.vetoThreshold),
    minInitialDepositRatio: d(p.minInitialDepositRatio),
    proposalCancelRatio: d(p.proposalCancelRatio),
    expeditedThreshold: d(p.expeditedThreshold),
    minDepositRatio: d(p.minDepositRatio),
  };
}

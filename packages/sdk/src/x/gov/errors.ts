import { registerError } from '../../app/errors.ts';

export const GOV_CODESPACE = 'gov';

/** The Cosmos SDK's x/gov errors (x/gov/types/errors.go, v0.50), same codes and texts. */
export const govErrors = {
  unknownProposal: registerError(GOV_CODESPACE, 2, 'unknown proposal'),
  inactiveProposal: registerError(GOV_CODESPACE, 3, 'inactive proposal'),
  alreadyActiveProposal: registerError(GOV_CODESPACE, 4, 'proposal already active'),
  invalidProposalContent: registerError(GOV_CODESPACE, 5, 'invalid proposal content'),
  invalidProposalType: registerError(GOV_CODESPACE, 6, 'invalid proposal type'),
  invalidVote: registerError(GOV_CODESPACE, 7, 'invalid vote option'),
  invalidGenesis: registerError(GOV_CODESPACE, 8, 'invalid genesis state'),
  noProposalHandlerExists: registerError(GOV_CODESPACE, 9, 'no handler exists for proposal type'),
  unroutableProposalMsg: registerError(GOV_CODESPACE, 10, 'proposal message not recognized by router'),
  noProposalMsgs: registerError(GOV_CODESPACE, 11, 'no messages proposed'),
  invalidProposalMsg: registerError(GOV_CODESPACE, 12, 'invalid proposal message'),
  invalidSigner: registerError(GOV_CODESPACE, 13, 'expected gov account as only signer for proposal message'),
  invalidSignalMsg: registerError(GOV_CODESPACE, 14, 'signal message is invalid'),
  metadataTooLong: registerError(GOV_CODESPACE, 15, 'metadata too long'),
  minDepositTooSmall: registerError(GOV_CODESPACE, 16, 'minimum deposit is too small'),
  invalidProposer: registerError(GOV_CODESPACE, 18, 'invalid proposer'),
  votingPeriodEnded: registerError(GOV_CODESPACE, 20, 'voting period already ended'),
  invalidProposal: registerError(GOV_CODESPACE, 21, 'invalid proposal'),
  summaryTooLong: registerError(GOV_CODESPACE, 22, 'summary too long'),
  invalidDepositDenom: registerError(GOV_CODESPACE, 23, 'invalid deposit denom'),
  titleTooLong: registerError(GOV_CODESPACE, 24, 'title too long'),
} as const;

// gov v1's messages in legacy amino JSON (SIGN_MODE_LEGACY_AMINO_JSON), with the SDK's amino names and
// its proto options: proposal_id and coin lists are never omitted; a proposal's messages are each in
// their own module's amino JSON; vote options are numbers.
import type { MsgDeposit, MsgSubmitProposal, MsgVote, MsgVoteWeighted } from 'cosmjs-types/cosmos/gov/v1/tx';
import type { AminoForm } from '../../app/router.ts';
import { aminoCoins, aminoFields } from '../../tx/amino-json.ts';

export const msgSubmitProposalAmino: AminoForm<MsgSubmitProposal> = {
  name: 'cosmos-sdk/v1/MsgSubmitProposal',
  value: (m, any) =>
    aminoFields(
      {
        messages: m.messages.map(any),
        initial_deposit: aminoCoins(m.initialDeposit),
        proposer: m.proposer,
        metadata: m.metadata,
        title: m.title,
        summary: m.summary,
        expedited: m.expedited,
      },
      ['initial_deposit'],
    ),
};

export const msgDepositAmino: AminoForm<MsgDeposit> = {
  name: 'cosmos-sdk/v1/MsgDeposit',
  value: (m) => aminoFields({ proposal_id: m.proposalId, depositor: m.depositor, amount: aminoCoins(m.amount) }, ['proposal_id', 'amount']),
};

export const msgVoteAmino: AminoForm<MsgVote> = {
  name: 'cosmos-sdk/v1/MsgVote',
  value: (m) => aminoFields({ proposal_id: m.proposalId, voter: m.voter, option: m.option, metadata: m.metadata }, ['proposal_id']),
};

export const msgVoteWeightedAmino: AminoForm<MsgVoteWeighted> = {
  name: 'cosmos-sdk/v1/MsgVoteWeighted',
  value: (m) =>
    aminoFields(
      { proposal_id: m.proposalId, voter: m.voter, options: m.options.map((o) => aminoFields({ option: o.option, weight: o.weight })), metadata: m.metadata },
      ['proposal_id'],
    ),
};

import assert from 'node:assert/strict';
import { test } from 'node:test';
import { VoteOption } from 'cosmjs-types/cosmos/gov/v1/gov';
import { msgDepositAmino, msgSubmitProposalAmino, msgVoteAmino, msgVoteWeightedAmino } from './amino.ts';

const noAny = (): never => assert.fail('no nested message expected');

test("gov v1 messages' amino JSON: the SDK's names, proposal_id and coin lists kept, options as numbers, nested messages in their own form", () => {
  assert.deepEqual(
    [msgSubmitProposalAmino.name, msgDepositAmino.name, msgVoteAmino.name, msgVoteWeightedAmino.name],
    ['cosmos-sdk/v1/MsgSubmitProposal', 'cosmos-sdk/v1/MsgDeposit', 'cosmos-sdk/v1/MsgVote', 'cosmos-sdk/v1/MsgVoteWeighted'],
  );
  assert.deepEqual(msgVoteAmino.value({ proposalId: 0n, voter: 'v', option: VoteOption.VOTE_OPTION_YES, metadata: '' }, noAny), {
    proposal_id: '0',
    voter: 'v',
    option: 1,
  });
  assert.deepEqual(
    msgVoteWeightedAmino.value({ proposalId: 2n, voter: 'v', options: [{ option: VoteOption.VOTE_OPTION_NO, weight: '1.0' }], metadata: 'm' }, noAny),
    { proposal_id: '2', voter: 'v', options: [{ option: 3, weight: '1.0' }], metadata: 'm' },
  );
  assert.deepEqual(msgDepositAmino.value({ proposalId: 3n, depositor: 'd', amount: [] }, noAny), { proposal_id: '3', depositor: 'd', amount: [] });
  const inner = { typeUrl: '/x.Msg', value: new Uint8Array([1]) };
  const submitted = msgSubmitProposalAmino.value(
    { messages: [inner], initialDeposit: [], proposer: 'p', metadata: '', title: 't', summary: 's', expedited: false },
    (a) => (assert.equal(a, inner), { type: 'x/Msg', value: { k: 'v' } }),
  );
  assert.deepEqual(submitted, { messages: [{ type: 'x/Msg', value: { k: 'v' } }], initial_deposit: [], proposer: 'p', title: 't', summary: 's' });
});

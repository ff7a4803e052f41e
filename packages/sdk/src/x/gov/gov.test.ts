import assert from 'node:assert/strict';
import { after, describe, test } from 'node:test';
import { DirectSecp256k1HdWallet, Registry, encodePubkey, makeAuthInfoBytes, makeSignDoc } from '@cosmjs/proto-signing';
import { TxMsgData } from 'cosmjs-types/cosmos/base/abci/v1beta1/abci';
import { QuerySupplyOfRequest, QuerySupplyOfResponse } from 'cosmjs-types/cosmos/bank/v1beta1/query';
import { ProposalStatus, VoteOption, type Proposal, type TallyResult } from 'cosmjs-types/cosmos/gov/v1/gov';
import {
  QueryConstitutionRequest,
  QueryConstitutionResponse,
  QueryDepositRequest,
  QueryDepositResponse,
  QueryDepositsRequest,
  QueryDepositsResponse,
  QueryParamsRequest,
  QueryParamsResponse,
  QueryProposalRequest,
  QueryProposalResponse,
  QueryProposalsRequest,
  QueryProposalsResponse,
  QueryTallyResultRequest,
  QueryTallyResultResponse,
  QueryVoteRequest,
  QueryVoteResponse,
  QueryVotesRequest,
  QueryVotesResponse,
} from 'cosmjs-types/cosmos/gov/v1/query';
import { MsgSubmitProposalResponse, MsgUpdateParams, MsgVote } from 'cosmjs-types/cosmos/gov/v1/tx';
import { TxRaw } from 'cosmjs-types/cosmos/tx/v1beta1/tx';
import { CheckTxType, type ExecTxResult } from 'cosmjs-types/tendermint/abci/types';
import { MsgSend } from 'cosmjs-types/cosmos/bank/v1beta1/tx';
import { paramsFromJSON, paramsToJSON } from './genesis.ts';
import { defaultParams } from './params.ts';
import {
  GOV_CHAIN_ID as CHAIN_ID,
  DENOM,
  GOV_ADDRESS,
  TEST_PARAMS,
  depositMsg,
  eventsOf,
  govTestApp,
  removeTmpDirs,
  submitMsg,
  testKey,
  upgradeMsg,
  voteMsg,
  weightedVoteMsg,
  type GovTestApp,
  type GovTestAppOptions,
  type TestKey,
} from '@chaind/sdk/testing';

after(removeTmpDirs);

const alice = testKey(0);
const bob = testKey(1);
const carol = testKey(2); // funded, not a validator
const val1 = testKey(10);
const val2 = testKey(11);
const val3 = testKey(12);
const BALANCE = 1_000_000n;
const { YES, ABSTAIN, NO, NO_WITH_VETO } = {
  YES: VoteOption.VOTE_OPTION_YES,
  ABSTAIN: VoteOption.VOTE_OPTION_ABSTAIN,
  NO: VoteOption.VOTE_OPTION_NO,
  NO_WITH_VETO: VoteOption.VOTE_OPTION_NO_WITH_VETO,
};

function govApp(o: Partial<GovTestAppOptions> = {}): GovTestApp {
  return govTestApp({
    funded: [alice, bob, carol, val1, val2, val3].map((k) => k.address),
    balance: BALANCE,
    powers: { [val1.address]: 40n, [val2.address]: 30n, [val3.address]: 30n },
    ...o,
  });
}

function ok(r: ExecTxResult): ExecTxResult {
  assert.equal(r.code, 0, r.log);
  return r;
}

interface Codec<T> {
  encode(m: T): { finish(): Uint8Array };
  decode(b: Uint8Array): T;
}

/** A gRPC query through ABCI Query, decoded with cosmjs-types; throws the query's log on failure. */
function q<Req, Res>(t: GovTestApp, method: string, req: Codec<Req>, res: Codec<Res>, value: Req): Res {
  const r = t.query(`/cosmos.gov.v1.Query/${method}`, req.encode(value).finish());
  if (r.code !== 0) throw new Error(r.log);
  return res.decode(r.value);
}

const proposal = (t: GovTestApp, id: bigint): Proposal =>
  q(t, 'Proposal', QueryProposalRequest, QueryProposalResponse, { proposalId: id }).proposal as Proposal;
const tallyOf = (t: GovTestApp, id: bigint): TallyResult =>
  q(t, 'TallyResult', QueryTallyResultRequest, QueryTallyResultResponse, { proposalId: id }).tally as TallyResult;
const tally = (yes: number, abstain: number, no: number, veto: number): TallyResult => ({
  yesCount: String(yes),
  abstainCount: String(abstain),
  noCount: String(no),
  noWithVetoCount: String(veto),
});

/** Submits from alice in its own block; returns the new proposal's id from the tx's msg response. */
function submit(t: GovTestApp, messages = [upgradeMsg('v2')], deposit = '1000'): bigint {
  const r = ok(t.run(alice, [submitMsg(alice.address, messages, deposit)]));
  return MsgSubmitProposalResponse.decode(TxMsgData.decode(r.data).msgResponses[0].value).proposalId;
}

/** Every vote in one block. */
function vote(t: GovTestApp, id: bigint, votes: [TestKey, VoteOption][]): void {
  const res = t.block(votes.map(([k, o]) => t.tx(k, [voteMsg(k.address, id, o)])));
  res.txResults.forEach(ok);
}

/** Advances to the first block at or after the proposal's voting end time; returns that block's events. */
function endVoting(t: GovTestApp, id: bigint): ReturnType<GovTestApp['block']> {
  const end = proposal(t, id).votingEndTime?.seconds as bigint;
  assert.ok(end > t.time + 1n, 'the test leaves at least one block inside the voting period');
  t.block([], end - 1n - t.time);
  assert.equal(proposal(t, id).status, ProposalStatus.PROPOSAL_STATUS_VOTING_PERIOD, 'still voting one second before the end');
  return t.block([], 1n);
}

const supply = (t: GovTestApp): bigint => {
  const r = t.query('/cosmos.bank.v1beta1.Query/SupplyOf', QuerySupplyOfRequest.encode({ denom: DENOM }).finish());
  return BigInt(QuerySupplyOfResponse.decode(r.value).amount?.amount ?? '0');
};

describe('proposal lifecycle', () => {
  test('passes: deposit moves to gov, voting starts at once, the message runs as gov at the end, deposits are refunded', async () => {
    const t = govApp();
    const r = ok(t.run(alice, [submitMsg(alice.address, [upgradeMsg('v2')], '1000')]));
    const submitted = t.time;
    assert.deepEqual(eventsOf(r.events, 'submit_proposal'), [
      { proposal_id: '1', proposal_proposer: alice.address, proposal_messages: ',/cosmos.upgrade.v1beta1.MsgSoftwareUpgrade' },
      { voting_period_start: '1' },
    ]);
    assert.deepEqual(eventsOf(r.events, 'proposal_deposit'), [{ amount: `1000${DENOM}`, proposal_id: '1', depositor: alice.address }]);
    assert.equal(t.balance(alice.address), BALANCE - 1000n);
    assert.equal(t.balance(GOV_ADDRESS), 1000n);
    const p = proposal(t, 1n);
    assert.equal(p.status, ProposalStatus.PROPOSAL_STATUS_VOTING_PERIOD);
    assert.deepEqual(p.submitTime, { seconds: submitted, nanos: 0 });
    assert.deepEqual(p.depositEndTime, { seconds: submitted + 10n, nanos: 0 });
    assert.deepEqual(p.votingStartTime, { seconds: submitted, nanos: 0 });
    assert.deepEqual(p.votingEndTime, { seconds: submitted + 10n, nanos: 0 });
    assert.deepEqual(p.totalDeposit, [{ denom: DENOM, amount: '1000' }]);
    assert.equal(p.proposer, alice.address);
    assert.deepEqual(tallyOf(t, 1n), tally(0, 0, 0, 0));

    vote(t, 1n, [
      [val1, YES],
      [val2, YES],
      [val3, NO],
    ]);
    assert.deepEqual(tallyOf(t, 1n), tally(70, 0, 30, 0), 'live tally during the voting period');
    assert.equal(t.plan('v2'), undefined);

    const end = endVoting(t, 1n);
    assert.deepEqual(eventsOf(end.events, 'active_proposal'), [{ proposal_id: '1', proposal_result: 'proposal_passed', proposal_log: 'passed' }]);
    assert.deepEqual(eventsOf(end.events, 'upgrade_scheduled'), [{ name: 'v2' }], "the message's events join the block's");
    assert.equal(t.plan('v2'), '100');
    const done = proposal(t, 1n);
    assert.equal(done.status, ProposalStatus.PROPOSAL_STATUS_PASSED);
    assert.equal(done.failedReason, '');
    assert.deepEqual(done.finalTallyResult, tally(70, 0, 30, 0));
    assert.deepEqual(tallyOf(t, 1n), tally(70, 0, 30, 0), 'the final tally after the end');
    assert.equal(t.balance(alice.address), BALANCE, 'refunded');
    assert.equal(t.balance(GOV_ADDRESS), 0n);
    assert.deepEqual(q(t, 'Deposits', QueryDepositsRequest, QueryDepositsResponse, { proposalId: 1n }).deposits, []);
    assert.deepEqual(q(t, 'Votes', QueryVotesRequest, QueryVotesResponse, { proposalId: 1n }).votes, [], 'votes are deleted by the tally');
    const line = t.logger.lines.find((l) => l.msg === 'proposal tallied');
    assert.deepEqual(line?.fields, { module: 'gov', proposal: '1', status: 'PROPOSAL_STATUS_PASSED', title: 'a proposal', results: 'passed' });
    await t.close();
  });

  test('rejected: too few yes votes; deposits refunded, nothing executed', async () => {
    const t = govApp();
    const id = submit(t);
    vote(t, id, [
      [val1, NO],
      [val2, NO],
      [val3, YES],
    ]);
    const end = endVoting(t, id);
    assert.deepEqual(eventsOf(end.events, 'active_proposal'), [{ proposal_id: '1', proposal_result: 'proposal_rejected', proposal_log: 'rejected' }]);
    const p = proposal(t, id);
    assert.equal(p.status, ProposalStatus.PROPOSAL_STATUS_REJECTED);
    assert.equal(p.failedReason, 'proposal did not get enough votes to pass');
    assert.deepEqual(p.finalTallyResult, tally(30, 0, 70, 0));
    assert.equal(t.plan('v2'), undefined);
    assert.equal(t.balance(alice.address), BALANCE);
    await t.close();
  });

  test('a yes share of exactly the threshold is not enough; abstentions do not count against it', async () => {
    const t = govApp({ powers: { [val1.address]: 25n, [val2.address]: 25n, [val3.address]: 50n } });
    const a = submit(t);
    vote(t, a, [
      [val1, YES],
      [val2, NO],
      [val3, ABSTAIN],
    ]);
    endVoting(t, a);
    assert.equal(proposal(t, a).status, ProposalStatus.PROPOSAL_STATUS_REJECTED, '25 / (100 - 50) = 0.5 is not > 0.5');
    const b = submit(t, [upgradeMsg('v3')]);
    vote(t, b, [
      [val1, YES],
      [val3, ABSTAIN],
    ]);
    endVoting(t, b);
    assert.equal(proposal(t, b).status, ProposalStatus.PROPOSAL_STATUS_PASSED, '25 / (75 - 50) = 1');
    await t.close();
  });

  test('vetoed: rejected and the deposits are burned', async () => {
    const t = govApp();
    const before = supply(t);
    const id = submit(t);
    ok(t.run(bob, [depositMsg(bob.address, id, '500')]));
    vote(t, id, [
      [val1, NO_WITH_VETO],
      [val2, YES],
      [val3, YES],
    ]);
    const end = endVoting(t, id);
    assert.equal(proposal(t, id).status, ProposalStatus.PROPOSAL_STATUS_REJECTED);
    assert.deepEqual(proposal(t, id).finalTallyResult, tally(60, 0, 0, 40));
    assert.deepEqual(eventsOf(end.events, 'burn'), [{ burner: GOV_ADDRESS, amount: `1500${DENOM}` }]);
    assert.equal(t.plan('v2'), undefined);
    assert.equal(t.balance(alice.address), BALANCE - 1000n);
    assert.equal(t.balance(bob.address), BALANCE - 500n);
    assert.equal(t.balance(GOV_ADDRESS), 0n);
    assert.equal(supply(t), before - 1500n);
    await t.close();
  });

  test('no quorum: rejected and refunded; a non-validator may vote but weighs nothing; no votes at all is rejected too', async () => {
    const t = govApp();
    const id = submit(t);
    vote(t, id, [
      [val3, YES],
      [carol, YES],
    ]);
    assert.equal(q(t, 'Vote', QueryVoteRequest, QueryVoteResponse, { proposalId: id, voter: carol.address }).vote?.voter, carol.address);
    assert.deepEqual(tallyOf(t, id), tally(30, 0, 0, 0));
    endVoting(t, id);
    assert.equal(proposal(t, id).status, ProposalStatus.PROPOSAL_STATUS_REJECTED, '30 / 100 < 0.334');
    assert.equal(t.balance(alice.address), BALANCE);

    const silent = submit(t, [upgradeMsg('v3')]);
    t.block([], 2n);
    endVoting(t, silent);
    assert.equal(proposal(t, silent).status, ProposalStatus.PROPOSAL_STATUS_REJECTED);
    assert.deepEqual(proposal(t, silent).finalTallyResult, tally(0, 0, 0, 0));
    assert.equal(t.balance(alice.address), BALANCE);
    await t.close();
  });

  test('deposit period: a later deposit that reaches min_deposit starts voting', async () => {
    const t = govApp();
    const id = submit(t, [upgradeMsg('v2')], '400');
    assert.equal(proposal(t, id).status, ProposalStatus.PROPOSAL_STATUS_DEPOSIT_PERIOD);
    assert.equal(proposal(t, id).votingStartTime, undefined);
    assert.deepEqual(tallyOf(t, id), tally(0, 0, 0, 0));
    const r = ok(t.run(bob, [depositMsg(bob.address, id, '600')]));
    assert.deepEqual(eventsOf(r.events, 'proposal_deposit'), [
      { amount: `600${DENOM}`, proposal_id: '1', depositor: bob.address },
      { voting_period_start: '1' },
    ]);
    const p = proposal(t, id);
    assert.equal(p.status, ProposalStatus.PROPOSAL_STATUS_VOTING_PERIOD);
    assert.deepEqual(p.votingStartTime, { seconds: t.time, nanos: 0 });
    assert.deepEqual(p.votingEndTime, { seconds: t.time + 10n, nanos: 0 });
    assert.deepEqual(p.totalDeposit, [{ denom: DENOM, amount: '1000' }]);
    // deposits during the voting period still count; deposits below min_deposit_ratio (1% = 10) do not
    ok(t.run(bob, [depositMsg(bob.address, id, '50')]));
    const small = t.run(bob, [depositMsg(bob.address, id, '9')]);
    assert.equal(small.codespace, 'gov');
    assert.equal(small.log, `received 9${DENOM} but need at least one of the following: 10${DENOM}: minimum deposit is too small`);
    assert.deepEqual(q(t, 'Deposit', QueryDepositRequest, QueryDepositResponse, { proposalId: id, depositor: bob.address }).deposit?.amount, [
      { denom: DENOM, amount: '650' },
    ]);
    assert.deepEqual(proposal(t, id).totalDeposit, [{ denom: DENOM, amount: '1050' }]);
    assert.equal(t.balance(GOV_ADDRESS), 1050n);
    await t.close();
  });

  test('deposit period ends short: the proposal is dropped in EndBlock and every deposit refunded', async () => {
    const t = govApp();
    const id = submit(t, [upgradeMsg('v2')], '400');
    const depositEnd = proposal(t, id).depositEndTime?.seconds as bigint;
    ok(t.run(bob, [depositMsg(bob.address, id, '100')]));
    assert.equal(t.balance(GOV_ADDRESS), 500n);
    const vote = t.run(val1, [voteMsg(val1.address, id, YES)]);
    assert.equal(vote.codespace, 'gov');
    assert.equal(vote.log, '1: inactive proposal', 'no votes during the deposit period');
    t.block([], depositEnd - 1n - t.time);
    assert.equal(proposal(t, id).status, ProposalStatus.PROPOSAL_STATUS_DEPOSIT_PERIOD);
    const end = t.block([], 1n);
    assert.deepEqual(eventsOf(end.events, 'inactive_proposal'), [{ proposal_id: '1', proposal_result: 'proposal_dropped' }]);
    const r = t.query('/cosmos.gov.v1.Query/Proposal', QueryProposalRequest.encode({ proposalId: id }).finish());
    assert.equal(r.code, 22);
    assert.equal(r.log, "rpc error: code = NotFound desc = proposal 1 doesn't exist: key not found");
    assert.equal(t.balance(alice.address), BALANCE, 'refunded, not burned');
    assert.equal(t.balance(bob.address), BALANCE);
    assert.equal(t.balance(GOV_ADDRESS), 0n);
    assert.deepEqual(q(t, 'Deposits', QueryDepositsRequest, QueryDepositsResponse, { proposalId: id }).deposits, []);
    const dep = t.run(bob, [depositMsg(bob.address, id, '100')]);
    assert.equal(dep.log, '1: unknown proposal');
    assert.ok(t.logger.lines.some((l) => l.msg === 'proposal did not meet minimum deposit; deleted' && l.fields?.total_deposit === `500${DENOM}`));
    await t.close();
  });

  test('a failing message fails the proposal: no message of it leaves any state, the reason is recorded, deposits refunded', async () => {
    const t = govApp();
    const id = submit(t, [upgradeMsg('first'), upgradeMsg('fail')]);
    vote(t, id, [
      [val1, YES],
      [val2, YES],
    ]);
    const before = t.dump();
    const end = endVoting(t, id);
    assert.equal(t.plan('first'), undefined, "the first message's write is gone");
    assert.equal(t.plan('fail'), undefined);
    assert.deepEqual(eventsOf(end.events, 'upgrade_scheduled'), [], 'nor are its events emitted');
    const reason = 'the plan is named "fail": upgrade refused';
    assert.deepEqual(eventsOf(end.events, 'active_proposal'), [
      {
        proposal_id: '1',
        proposal_result: 'proposal_failed',
        proposal_log: `passed, but msg 1 (/cosmos.upgrade.v1beta1.MsgSoftwareUpgrade) failed on execution: ${reason}`,
      },
    ]);
    const p = proposal(t, id);
    assert.equal(p.status, ProposalStatus.PROPOSAL_STATUS_FAILED);
    assert.equal(p.failedReason, reason);
    assert.deepEqual(p.finalTallyResult, tally(70, 0, 0, 0));
    assert.equal(t.balance(alice.address), BALANCE);
    // besides gov's own records (proposal, queue, votes, deposit) and the refund, nothing changed
    const after = t.dump();
    const changed = [...new Set([...before.keys(), ...after.keys()])].filter((k) => before.get(k) !== after.get(k)).map((k) => k.split('/')[0]);
    assert.deepEqual([...new Set(changed)].sort(), ['bank', 'gov']);
    assert.ok(t.logger.lines.some((l) => l.msg === 'proposal tallied' && l.fields?.status === 'PROPOSAL_STATUS_FAILED'));
    await t.close();
  });

  test('a message throwing a runtime exception stores a fixed failed_reason, never the exception text', async () => {
    const t = govApp();
    const id = submit(t, [upgradeMsg('crash')]);
    vote(t, id, [
      [val1, YES],
      [val2, YES],
    ]);
    const end = endVoting(t, id);
    const p = proposal(t, id);
    assert.equal(p.status, ProposalStatus.PROPOSAL_STATUS_FAILED);
    assert.equal(p.failedReason, 'proposal message execution failed');
    assert.deepEqual(eventsOf(end.events, 'active_proposal'), [
      {
        proposal_id: '1',
        proposal_result: 'proposal_failed',
        proposal_log: 'passed, but msg 0 (/cosmos.upgrade.v1beta1.MsgSoftwareUpgrade) failed on execution: proposal message execution failed',
      },
    ]);
    assert.equal(t.plan('crash'), undefined);
    const logged = t.logger.lines.find((l) => l.msg === 'proposal message threw');
    assert.match(String(logged?.fields?.error), /JSON/, "the exception's own text is in the log only");
    await t.close();
  });

  test('several proposals ending in one block are processed by voting end time, then id', async () => {
    const t = govApp();
    const p1 = submit(t, [upgradeMsg('p1')], '500');
    t.block([
      t.tx(alice, [submitMsg(alice.address, [upgradeMsg('p2')], '1000')]),
      t.tx(alice, [submitMsg(alice.address, [upgradeMsg('p3')], '1000')]),
    ]).txResults.forEach(ok);
    ok(t.run(bob, [depositMsg(bob.address, p1, '500')]));
    const ends = [1n, 2n, 3n].map((id) => proposal(t, id).votingEndTime?.seconds as bigint);
    assert.ok(ends[1] === ends[2] && ends[1] < ends[0], `end times ${ends.join(', ')}`);
    for (const id of [1n, 2n, 3n]) {
      vote(t, id, [
        [val1, YES],
        [val2, YES],
      ]);
    }
    const end = t.block([], 60n);
    assert.deepEqual(
      eventsOf(end.events, 'active_proposal').map((e) => e.proposal_id),
      ['2', '3', '1'],
    );
    assert.deepEqual(
      eventsOf(end.events, 'upgrade_scheduled').map((e) => e.name),
      ['p2', 'p3', 'p1'],
    );
    for (const id of [1n, 2n, 3n]) assert.equal(proposal(t, id).status, ProposalStatus.PROPOSAL_STATUS_PASSED);
    await t.close();
  });

  test('a proposal can change gov params (MsgUpdateParams with the gov authority)', async () => {
    const t = govApp();
    const params = paramsFromJSON({ ...paramsToJSON(defaultParams(DENOM)), ...TEST_PARAMS, voting_period: '20s' }, DENOM);
    const id = submit(t, [{ typeUrl: '/cosmos.gov.v1.MsgUpdateParams', value: MsgUpdateParams.encode({ authority: GOV_ADDRESS, params }).finish() }]);
    vote(t, id, [[val1, YES]]);
    endVoting(t, id);
    assert.equal(proposal(t, id).status, ProposalStatus.PROPOSAL_STATUS_PASSED);
    const res = q(t, 'Params', QueryParamsRequest, QueryParamsResponse, { paramsType: '' });
    assert.deepEqual(res.params?.votingPeriod, { seconds: 20n, nanos: 0 });
    const next = submit(t);
    assert.deepEqual(proposal(t, next).votingEndTime, { seconds: t.time + 20n, nanos: 0 });
    await t.close();
  });
});

describe('submission checks: the tx fails, nothing changes', () => {
  /** The refusal happens in validateBasic, before the ante handler: CheckTx and the block both refuse. */
  function refused(t: GovTestApp, msg: ReturnType<typeof submitMsg>, codespace: string, code: number, log: string): void {
    const before = t.dump();
    const tx = t.tx(alice, [msg]);
    const check = t.app.checkTx({ tx, type: CheckTxType.NEW });
    assert.equal(check.log, log);
    const r = t.block([tx]).txResults[0];
    assert.deepEqual([r.codespace, r.code, r.log], [codespace, code, log]);
    assert.deepEqual(t.dump(), before, "not even the fee payer's sequence moved");
  }

  test('an unregistered message type', async () => {
    const t = govApp();
    const unknown = { typeUrl: '/cosmos.bank.v1beta1.MsgMultiSend', value: new Uint8Array(0) };
    refused(t, submitMsg(alice.address, [unknown], '1000'), 'gov', 10, '/cosmos.bank.v1beta1.MsgMultiSend: proposal message not recognized by router');
    await t.close();
  });

  test('a message whose signer is not the gov account', async () => {
    const t = govApp();
    refused(
      t,
      submitMsg(alice.address, [upgradeMsg('v2', alice.address)], '1000'),
      'gov',
      13,
      `${alice.address}: expected gov account as only signer for proposal message`,
    );
    // a send from the proposer's own account: a proposal cannot act for anyone but gov
    const send = {
      typeUrl: '/cosmos.bank.v1beta1.MsgSend',
      value: MsgSend.encode({ fromAddress: alice.address, toAddress: bob.address, amount: [{ denom: DENOM, amount: '1' }] }).finish(),
    };
    refused(t, submitMsg(alice.address, [send], '1000'), 'gov', 13, `${alice.address}: expected gov account as only signer for proposal message`);
    await t.close();
  });

  test('a message that fails its own validateBasic', async () => {
    const t = govApp();
    refused(t, submitMsg(alice.address, [upgradeMsg('')], '1000'), 'gov', 12, 'name cannot be empty: invalid request: invalid proposal message');
    await t.close();
  });

  test("nesting: proposals inside proposals within the SDK's unpacking limits (10 levels, 100 messages per tx message), refused beyond as a tx parse error, at any depth the same", async () => {
    const t = govApp();
    /** A proposal carrying a proposal by gov … `levels` messages deep in all, the innermost an upgrade. */
    const nested = (levels: number): ReturnType<typeof submitMsg> => {
      let m = upgradeMsg('v2');
      for (let i = 1; i < levels - 1; i++) m = submitMsg(GOV_ADDRESS, [m], '');
      return submitMsg(alice.address, [m], '1000');
    };
    // 10 levels: accepted, as by the SDK
    ok(t.run(alice, [nested(10)]));
    // beyond, and far beyond (where the JS stack would end at a depth that differs between calls): one answer
    refused(t, nested(11), 'sdk', 2, 'max depth exceeded: tx parse error');
    refused(t, nested(3000), 'sdk', 2, 'max depth exceeded: tx parse error');
    // 99 messages in a proposal are 100 unpacked with it; one more is past the call limit
    const upgrades = (n: number): ReturnType<typeof upgradeMsg>[] => Array.from({ length: n }, (_, i) => upgradeMsg(`v${i + 2}`));
    ok(t.run(alice, [submitMsg(alice.address, upgrades(99), '1000')]));
    refused(t, submitMsg(alice.address, upgrades(100), '1000'), 'sdk', 2, 'call limit exceeded: tx parse error');
    await t.close();
  });

  test('title, summary, metadata, expedited, deposit', async () => {
    const t = govApp();
    const m = (o: Parameters<typeof submitMsg>[3], deposit = '1000'): ReturnType<typeof submitMsg> => submitMsg(alice.address, [upgradeMsg('v2')], deposit, o);
    refused(t, m({ title: '' }), 'gov', 5, 'proposal title cannot be empty: invalid proposal content');
    refused(t, m({ summary: '' }), 'gov', 5, 'proposal summary cannot be empty: invalid proposal content');
    refused(t, m({ title: 'x'.repeat(141) }), 'gov', 24, 'got title with length 141: title too long');
    refused(t, m({ summary: 'x'.repeat(10_001) }), 'gov', 22, 'got summary with length 10001: summary too long');
    refused(t, m({ metadata: 'x'.repeat(256) }), 'gov', 15, 'got metadata with length 256: metadata too long');
    refused(
      t,
      m({ metadata: JSON.stringify({ title: 'other', summary: 'what it does' }) }),
      'gov',
      5,
      "metadata title 'other' must equal proposal title 'a proposal': invalid proposal content",
    );
    refused(t, m({ expedited: true }), 'sdk', 37, 'expedited proposals are not supported: feature not supported');
    refused(t, submitMsg(alice.address, [], '1000'), 'gov', 11, 'either metadata or Msgs length must be non-nil: no messages proposed');
    refused(t, m({}, '-5'), 'sdk', 10, `-5${DENOM}: invalid coins`);
    // stateful: the wrong denom, and more than the proposer has
    const wrong = t.run(alice, [submitMsg(alice.address, [upgradeMsg('v2')], '', { initialDeposit: [{ denom: 'atom', amount: '5' }] })]);
    assert.equal(wrong.log, 'deposited 5atom, but gov accepts only the following denom(s): [stake]: invalid deposit denom');
    const poor = t.run(alice, [submitMsg(alice.address, [upgradeMsg('v2')], String(BALANCE + 1n))]);
    assert.equal(poor.code, 5, poor.log);
    assert.equal(
      t.query('/cosmos.gov.v1.Query/Proposal', QueryProposalRequest.encode({ proposalId: 1n }).finish()).code,
      22,
      'a failed submission leaves no proposal',
    );
    // metadata that is not JSON, or JSON without the fields, is free-form; a text proposal has no messages
    ok(t.run(alice, [submitMsg(alice.address, [], '1000', { metadata: 'ipfs://Qm...' })]));
    assert.equal(proposal(t, 1n).messages.length, 0);
    await t.close();
  });
});

describe('votes', () => {
  test('refused outside the voting period, for unknown proposals, and with an invalid option', async () => {
    const t = govApp();
    const id = submit(t);
    const unknown = t.run(val1, [voteMsg(val1.address, 99n, YES)]);
    assert.deepEqual([unknown.codespace, unknown.code, unknown.log], ['gov', 3, '99: inactive proposal']);
    const bad = t.run(val1, [voteMsg(val1.address, id, VoteOption.VOTE_OPTION_UNSPECIFIED)]);
    assert.deepEqual([bad.codespace, bad.code, bad.log], ['gov', 7, 'VOTE_OPTION_UNSPECIFIED: invalid vote option']);
    vote(t, id, [[val1, YES]]);
    endVoting(t, id);
    const late = t.run(val2, [voteMsg(val2.address, id, YES)]);
    assert.deepEqual([late.codespace, late.code, late.log], ['gov', 3, '1: inactive proposal']);
    await t.close();
  });

  test('a re-vote replaces the earlier vote; events carry the options as the SDK prints them', async () => {
    const t = govApp();
    const id = submit(t);
    vote(t, id, [[val1, NO]]);
    const r = ok(t.run(val1, [voteMsg(val1.address, id, YES)]));
    assert.deepEqual(eventsOf(r.events, 'proposal_vote'), [
      { voter: val1.address, option: '[{"option":1,"weight":"1.000000000000000000"}]', proposal_id: '1' },
    ]);
    const votes = q(t, 'Votes', QueryVotesRequest, QueryVotesResponse, { proposalId: id }).votes;
    assert.deepEqual(votes, [{ proposalId: id, voter: val1.address, options: [{ option: YES, weight: '1.000000000000000000' }], metadata: '' }]);
    assert.deepEqual(tallyOf(t, id), tally(40, 0, 0, 0));
    await t.close();
  });

  test('weighted votes split power by weight; weights must be options once each, summing to exactly 1', async () => {
    const t = govApp();
    const id = submit(t);
    const w = (option: VoteOption, weight: string): { option: VoteOption; weight: string } => ({ option, weight });
    const r = t.block([
      t.tx(val1, [weightedVoteMsg(val1.address, id, [w(YES, '0.25'), w(NO, '0.75')])]),
      t.tx(val2, [weightedVoteMsg(val2.address, id, [w(YES, '1')])]),
      t.tx(val3, [weightedVoteMsg(val3.address, id, [w(ABSTAIN, '0.5'), w(NO_WITH_VETO, '0.5')])]),
    ]);
    r.txResults.forEach(ok);
    assert.deepEqual(q(t, 'Vote', QueryVoteRequest, QueryVoteResponse, { proposalId: id, voter: val1.address }).vote?.options, [
      { option: YES, weight: '0.250000000000000000' },
      { option: NO, weight: '0.750000000000000000' },
    ]);
    // yes 10 + 30 = 40, no 30, abstain 15, veto 15; veto 15/100 ≤ 0.334; yes 40/85 ≤ 0.5
    assert.deepEqual(tallyOf(t, id), tally(40, 15, 30, 15));
    const refuse = (options: { option: VoteOption; weight: string }[], log: string): void => {
      const res = t.run(carol, [weightedVoteMsg(carol.address, id, options)]);
      assert.equal(res.log, log);
    };
    refuse([w(YES, '0.5'), w(NO, '0.4')], 'total weight lower than 1.00: invalid vote option');
    refuse([w(YES, '0.6'), w(NO, '0.5')], 'total weight overflow 1.00: invalid vote option');
    refuse([w(YES, '0.5'), w(YES, '0.5')], 'duplicated vote option: invalid vote option');
    refuse([w(YES, '1'), w(NO, '0')], 'option:VOTE_OPTION_NO weight:"0": invalid vote option');
    refuse([w(YES, '1.0000000000000000001')], 'option:VOTE_OPTION_YES weight:"1.0000000000000000001": invalid vote option');
    refuse([], 'vote options must not be empty: invalid request');
    // a re-vote replaces a weighted vote: yes 40 + 30 = 70 of the 85 not abstaining
    ok(t.run(val1, [weightedVoteMsg(val1.address, id, [w(YES, '1')])]));
    assert.deepEqual(tallyOf(t, id), tally(70, 15, 0, 15));
    endVoting(t, id);
    assert.equal(proposal(t, id).status, ProposalStatus.PROPOSAL_STATUS_PASSED, '70 / 85 > 0.5');
    await t.close();
  });

  test("a vote signed by CosmJS' wallet is accepted", async () => {
    const wallet = await DirectSecp256k1HdWallet.fromMnemonic(
      'surround miss nominee dream gap cross assault thank captain prosper drop duty group candy wealth weather scale put',
      {
        prefix: 'chain',
      },
    );
    const [acct] = await wallet.getAccounts();
    const t = govApp({ funded: [alice.address, acct.address], powers: { [acct.address]: 10n } });
    const id = submit(t);
    const registry = new Registry([['/cosmos.gov.v1.MsgVote', MsgVote]]);
    const bodyBytes = registry.encode({
      typeUrl: '/cosmos.tx.v1beta1.TxBody',
      value: { messages: [{ typeUrl: '/cosmos.gov.v1.MsgVote', value: MsgVote.fromPartial({ proposalId: id, voter: acct.address, option: YES }) }] },
    });
    const pubkey = encodePubkey({ type: 'tendermint/PubKeySecp256k1', value: Buffer.from(acct.pubkey).toString('base64') });
    const accountNumber = t.account(acct.address)?.accountNumber as bigint;
    const authInfoBytes = makeAuthInfoBytes([{ pubkey, sequence: 0 }], [], 200_000, undefined, undefined);
    const { signed, signature } = await wallet.signDirect(acct.address, makeSignDoc(bodyBytes, authInfoBytes, CHAIN_ID, Number(accountNumber)));
    const tx = TxRaw.encode({
      bodyBytes: signed.bodyBytes,
      authInfoBytes: signed.authInfoBytes,
      signatures: [Buffer.from(signature.signature, 'base64')],
    }).finish();
    ok(t.block([tx]).txResults[0]);
    assert.deepEqual(tallyOf(t, id), tally(10, 0, 0, 0));
    await t.close();
  });
});

describe('queries', () => {
  test('proposals by status, voter and depositor, paginated; vote, deposit; params; constitution; errors', async () => {
    const t = govApp();
    const a = submit(t, [upgradeMsg('a')], '400'); // stays in its deposit period
    const b = submit(t, [upgradeMsg('b')]);
    const c = submit(t, [upgradeMsg('c')]);
    ok(t.run(bob, [depositMsg(bob.address, c, '10')]));
    vote(t, b, [[val1, YES]]);
    vote(t, c, [[val2, NO]]);
    const ids = (req: Partial<QueryProposalsRequest>): bigint[] =>
      q(t, 'Proposals', QueryProposalsRequest, QueryProposalsResponse, QueryProposalsRequest.fromPartial(req)).proposals.map((p) => p.id);
    assert.deepEqual(ids({}), [a, b, c]);
    assert.deepEqual(ids({ proposalStatus: ProposalStatus.PROPOSAL_STATUS_VOTING_PERIOD }), [b, c]);
    assert.deepEqual(ids({ proposalStatus: ProposalStatus.PROPOSAL_STATUS_DEPOSIT_PERIOD }), [a]);
    assert.deepEqual(ids({ voter: val1.address }), [b]);
    assert.deepEqual(ids({ depositor: bob.address }), [c]);
    assert.deepEqual(ids({ depositor: alice.address, proposalStatus: ProposalStatus.PROPOSAL_STATUS_VOTING_PERIOD }), [b, c]);
    const page1 = q(
      t,
      'Proposals',
      QueryProposalsRequest,
      QueryProposalsResponse,
      QueryProposalsRequest.fromPartial({ pagination: { limit: 2n, countTotal: true } }),
    );
    assert.deepEqual(
      page1.proposals.map((p) => p.id),
      [a, b],
    );
    assert.equal(page1.pagination?.total, 3n);
    const page2 = q(
      t,
      'Proposals',
      QueryProposalsRequest,
      QueryProposalsResponse,
      QueryProposalsRequest.fromPartial({ pagination: { key: page1.pagination?.nextKey, limit: 2n } }),
    );
    assert.deepEqual(
      page2.proposals.map((p) => p.id),
      [c],
    );
    assert.equal(page2.pagination?.nextKey.length, 0);
    const filtered = q(
      t,
      'Proposals',
      QueryProposalsRequest,
      QueryProposalsResponse,
      QueryProposalsRequest.fromPartial({ proposalStatus: ProposalStatus.PROPOSAL_STATUS_VOTING_PERIOD, pagination: { limit: 1n } }),
    );
    assert.deepEqual(
      filtered.proposals.map((p) => p.id),
      [b],
    );
    const filtered2 = q(
      t,
      'Proposals',
      QueryProposalsRequest,
      QueryProposalsResponse,
      QueryProposalsRequest.fromPartial({
        proposalStatus: ProposalStatus.PROPOSAL_STATUS_VOTING_PERIOD,
        pagination: { key: filtered.pagination?.nextKey, limit: 1n },
      }),
    );
    assert.deepEqual(
      filtered2.proposals.map((p) => p.id),
      [c],
    );

    assert.deepEqual(
      q(t, 'Deposits', QueryDepositsRequest, QueryDepositsResponse, { proposalId: c })
        .deposits.map((d) => [d.depositor, d.amount[0].amount])
        .sort(),
      [
        [alice.address, '1000'],
        [bob.address, '10'],
      ].sort(),
    );
    assert.deepEqual(q(t, 'Deposit', QueryDepositRequest, QueryDepositResponse, { proposalId: a, depositor: alice.address }).deposit, {
      proposalId: a,
      depositor: alice.address,
      amount: [{ denom: DENOM, amount: '400' }],
    });
    assert.deepEqual(tallyOf(t, a), tally(0, 0, 0, 0));

    const params = (paramsType: string): QueryParamsResponse => q(t, 'Params', QueryParamsRequest, QueryParamsResponse, { paramsType });
    const all = params('');
    assert.deepEqual(all.params?.minDeposit, [{ denom: DENOM, amount: '1000' }]);
    assert.equal(all.params?.quorum, '0.334000000000000000');
    assert.equal(all.votingParams, undefined);
    assert.deepEqual(params('voting').votingParams, { votingPeriod: { seconds: 10n, nanos: 0 } });
    assert.deepEqual(params('deposit').depositParams, { minDeposit: [{ denom: DENOM, amount: '1000' }], maxDepositPeriod: { seconds: 10n, nanos: 0 } });
    assert.deepEqual(params('tallying').tallyParams, {
      quorum: '0.334000000000000000',
      threshold: '0.500000000000000000',
      vetoThreshold: '0.334000000000000000',
    });
    assert.ok(params('tallying').params !== undefined, 'the SDK returns all params besides the legacy sub-object');
    assert.deepEqual(q(t, 'Constitution', QueryConstitutionRequest, QueryConstitutionResponse, {}), { constitution: '' });

    const fails = (method: string, bytes: Uint8Array, log: string): void => {
      const r = t.query(`/cosmos.gov.v1.Query/${method}`, bytes);
      assert.equal(r.log, log);
    };
    fails(
      'Params',
      QueryParamsRequest.encode({ paramsType: 'other' }).finish(),
      'rpc error: code = InvalidArgument desc = unknown params type: other: invalid request',
    );
    fails(
      'Proposal',
      QueryProposalRequest.encode({ proposalId: 0n }).finish(),
      'rpc error: code = InvalidArgument desc = proposal id can not be 0: invalid request',
    );
    fails('Proposal', QueryProposalRequest.encode({ proposalId: 7n }).finish(), "rpc error: code = NotFound desc = proposal 7 doesn't exist: key not found");
    fails(
      'TallyResult',
      QueryTallyResultRequest.encode({ proposalId: 7n }).finish(),
      "rpc error: code = NotFound desc = proposal 7 doesn't exist: key not found",
    );
    fails(
      'Vote',
      QueryVoteRequest.encode({ proposalId: b, voter: val2.address }).finish(),
      `rpc error: code = InvalidArgument desc = voter: ${val2.address} not found for proposal: ${b}: invalid request`,
    );
    fails(
      'Vote',
      QueryVoteRequest.encode({ proposalId: b, voter: '' }).finish(),
      'rpc error: code = InvalidArgument desc = empty voter address: invalid request',
    );
    fails(
      'Deposit',
      QueryDepositRequest.encode({ proposalId: a, depositor: bob.address }).finish(),
      `rpc error: code = InvalidArgument desc = depositer: ${bob.address} not found for proposal: ${a}: invalid request`,
    );
    assert.match(
      t.query('/cosmos.gov.v1.Query/Proposals', QueryProposalsRequest.encode(QueryProposalsRequest.fromPartial({ voter: 'nonsense' })).finish()).log,
      /^rpc error: code = InvalidArgument desc = invalid voter address: /,
    );
    await t.close();
  });
});

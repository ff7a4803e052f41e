import assert from 'node:assert/strict';
import { after, describe, test } from 'node:test';
import { ProposalStatus, VoteOption, type Vote } from 'cosmjs-types/cosmos/gov/v1/gov';
import { QueryProposalRequest, QueryProposalResponse } from 'cosmjs-types/cosmos/gov/v1/query';
import { AccountKeeper } from '../auth/keeper.ts';
import { BankKeeper } from '../bank/keeper.ts';
import { DEC_ONE, decMul, decQuo } from './dec.ts';
import { defaultGenesis, parseGenesis, type GovGenesisJSON } from './genesis.ts';
import { govModule } from './module.ts';
import { defaultParams, parseParams } from './params.ts';
import { tally } from './tally.ts';
import { GOV_ADDRESS, DENOM, depositMsg, govTestApp, removeTmpDirs, submitMsg, testKey, upgradeMsg, voteMsg, type GovTestApp } from '@chaind/sdk/testing';
import { addDuration, durationFromJSON, durationToJSON, sortableTime, timestampFromJSON, timestampToJSON } from './time.ts';

after(removeTmpDirs);

const alice = testKey(0);
const bob = testKey(1);
const val1 = testKey(10);
const val2 = testKey(11);

const accounts = new AccountKeeper();
const keeper = govModule({ bank: new BankKeeper({ accounts }), accounts, votingPower: () => new Map() }).keeper;
const withParams = (p: Record<string, unknown>): GovGenesisJSON => ({ ...defaultGenesis(), params: { ...defaultGenesis().params, ...p } }) as GovGenesisJSON;

describe('genesis', () => {
  test("the default genesis is the SDK v0.50's", () => {
    const g = defaultGenesis();
    assert.deepEqual(g, {
      starting_proposal_id: '1',
      deposits: [],
      votes: [],
      proposals: [],
      deposit_params: null,
      voting_params: null,
      tally_params: null,
      params: {
        min_deposit: [{ denom: 'stake', amount: '10000000' }],
        max_deposit_period: '172800s',
        voting_period: '172800s',
        quorum: '0.334000000000000000',
        threshold: '0.500000000000000000',
        veto_threshold: '0.334000000000000000',
        min_initial_deposit_ratio: '0.000000000000000000',
        proposal_cancel_ratio: '0.500000000000000000',
        proposal_cancel_dest: '',
        expedited_voting_period: '86400s',
        expedited_threshold: '0.667000000000000000',
        expedited_min_deposit: [{ denom: 'stake', amount: '50000000' }],
        burn_vote_quorum: false,
        burn_proposal_deposit_prevote: false,
        burn_vote_veto: true,
        min_deposit_ratio: '0.010000000000000000',
      },
      constitution: '',
    });
    parseGenesis(g, keeper);
    // the brief form, the rest defaulted
    const short = parseGenesis(
      {
        starting_proposal_id: '1',
        deposits: [],
        votes: [],
        proposals: [],
        params: {
          min_deposit: [{ denom: 'stake', amount: '10000000' }],
          max_deposit_period: '172800s',
          voting_period: '172800s',
          quorum: '0.334',
          threshold: '0.5',
          veto_threshold: '0.334',
        },
      },
      keeper,
    );
    assert.deepEqual(short.params.votingPeriod, { seconds: 172_800n, nanos: 0 });
    assert.equal(short.params.minDepositRatio, '0.010000000000000000');
  });

  test('invalid params are refused with the field named', () => {
    const bad = (p: Record<string, unknown>, message: string): void =>
      assert.throws(() => parseGenesis(withParams(p), keeper), { name: 'GovGenesisError', message });
    bad({ voting_period: '0s' }, 'gov genesis: params.voting_period: must be positive, got 0s');
    bad({ max_deposit_period: '-5s' }, 'gov genesis: params.max_deposit_period: must be positive, got -5s');
    bad({ max_deposit_period: '172800' }, 'gov genesis: params.max_deposit_period: "172800" is not a duration such as "172800s"');
    bad({ voting_period: 10 }, 'gov genesis: params.voting_period must be a string');
    bad({ quorum: '0' }, 'gov genesis: params.quorum: must be positive, got 0');
    bad({ quorum: '1.5' }, 'gov genesis: params.quorum: must be at most 1, got 1.5');
    bad({ threshold: 'half' }, 'gov genesis: params.threshold: "half" is not a decimal with at most 18 fractional digits');
    bad({ veto_threshold: '-0.1' }, 'gov genesis: params.veto_threshold: "-0.1" is not a decimal with at most 18 fractional digits');
    bad({ min_deposit: [] }, 'gov genesis: params.min_deposit: must not be empty');
    bad({ min_deposit: [{ denom: 'x', amount: '5' }] }, 'gov genesis: params.min_deposit: invalid denom: x: invalid coins');
    bad({ min_deposit: [{ denom: 'stake', amount: '0' }] }, 'gov genesis: params.min_deposit: coin 0stake amount is not positive: invalid coins');
    bad({ min_deposit_ratio: '2' }, 'gov genesis: params.min_deposit_ratio: must be at most 1, got 2');
    bad({ burn_vote_veto: 'yes' }, 'gov genesis: params.burn_vote_veto must be a boolean');
    bad({ votingperiod: '1s' }, 'gov genesis: params has an unknown field "votingperiod"');
    bad({ min_deposit: [{ denom: 'stake', amount: '1', amout: '2' }] }, 'gov genesis: params.min_deposit[0] has an unknown field "amout"');
    assert.throws(() => parseGenesis({ ...defaultGenesis(), tally_params: { quorum: '0.5' } }, keeper), /tally_params is deprecated since v0\.47: use params/);
    assert.throws(() => parseGenesis({ ...defaultGenesis(), starting_proposal_id: '0' }, keeper), /starting_proposal_id must be at least 1/);
  });

  test('proposals, deposits and votes are checked', () => {
    const proposal = {
      id: '1',
      messages: [],
      status: 'PROPOSAL_STATUS_DEPOSIT_PERIOD',
      final_tally_result: null,
      submit_time: '2024-01-01T00:00:00Z',
      deposit_end_time: '2024-01-03T00:00:00Z',
      total_deposit: [],
      voting_start_time: null,
      voting_end_time: null,
      metadata: '',
      title: 't',
      summary: 's',
      proposer: alice.address,
      expedited: false,
      failed_reason: '',
    };
    const g = (o: Partial<GovGenesisJSON>): unknown => ({ ...defaultGenesis(), starting_proposal_id: '2', proposals: [proposal], ...o });
    parseGenesis(g({}), keeper);
    assert.throws(() => parseGenesis(g({ starting_proposal_id: '1' }), keeper), /proposal id 1 is not below starting_proposal_id 1/);
    assert.throws(
      () => parseGenesis(g({ proposals: [proposal, proposal] as GovGenesisJSON['proposals'], starting_proposal_id: '5' }), keeper),
      /duplicate proposal id: 1/,
    );
    const deposit = { proposal_id: '1', depositor: bob.address, amount: [{ denom: DENOM, amount: '5' }] };
    assert.throws(() => parseGenesis(g({ deposits: [deposit, deposit] }), keeper), new RegExp(`duplicate deposit of ${bob.address} on proposal 1`));
    assert.throws(() => parseGenesis(g({ deposits: [{ ...deposit, proposal_id: '9' }] }), keeper), /deposits\[0\] has non-existent proposal id: 9/);
    const vote = { proposal_id: '1', voter: bob.address, options: [{ option: 'VOTE_OPTION_YES', weight: '0.9' }], metadata: '' };
    assert.throws(() => parseGenesis(g({ votes: [vote] }), keeper), /votes\[0\]\.options: total weight lower than 1\.00: invalid vote option/);
    assert.throws(
      () => parseGenesis(g({ proposals: [{ ...proposal, deposit_end_time: null }] as GovGenesisJSON['proposals'] }), keeper),
      /needs deposit_end_time/,
    );
    assert.throws(
      () => parseGenesis(g({ proposals: [{ ...proposal, submit_time: '2024-02-30T00:00:00Z' }] as GovGenesisJSON['proposals'] }), keeper),
      /is not a valid date and time/,
    );
    assert.throws(
      () => parseGenesis(g({ proposals: [{ ...proposal, status: 'PASSED' }] as GovGenesisJSON['proposals'] }), keeper),
      /status "PASSED" is not a proposal status/,
    );
    // a misspelt key is refused at any depth, with its path
    const unknown = (o: Record<string, unknown>, message: string): void =>
      assert.throws(() => parseGenesis({ ...defaultGenesis(), starting_proposal_id: '2', ...o }, keeper), { name: 'GovGenesisError', message });
    unknown({ proposals: [{ ...proposal, final_tally_result: { yes: '1' } }] }, 'gov genesis: proposals[0].final_tally_result has an unknown field "yes"');
    unknown(
      { proposals: [proposal], votes: [{ ...vote, options: [{ option: 'VOTE_OPTION_YES', weigth: '1' }] }] },
      'gov genesis: votes[0].options[0] has an unknown field "weigth"',
    );
  });

  test('export, then import into a new chain: the same state, and it carries on from there', async () => {
    const funded = [alice, bob, val1, val2].map((k) => k.address);
    const powers = { [val1.address]: 60n, [val2.address]: 40n };
    const a = govTestApp({ funded, powers });
    const run = (t: GovTestApp, key: typeof alice, msg: ReturnType<typeof submitMsg>): void => {
      const r = t.run(key, [msg]);
      assert.equal(r.code, 0, r.log);
    };
    run(a, alice, submitMsg(alice.address, [upgradeMsg('done')], '1000'));
    run(a, val1, voteMsg(val1.address, 1n, VoteOption.VOTE_OPTION_YES));
    a.block([], 20n); // proposal 1 passes
    run(a, alice, submitMsg(alice.address, [upgradeMsg('voting'), upgradeMsg('second', GOV_ADDRESS, 7n)], '1000'));
    run(a, bob, depositMsg(bob.address, 2n, '300'));
    run(a, val2, voteMsg(val2.address, 2n, VoteOption.VOTE_OPTION_YES));
    run(a, alice, submitMsg(alice.address, [upgradeMsg('waiting')], '100', { metadata: 'ipfs://x' }));
    const exported = a.exportState();
    const gov = exported.gov as GovGenesisJSON;
    assert.equal(gov.starting_proposal_id, '4');
    assert.deepEqual(
      gov.proposals.map((p) => [p.id, p.status]),
      [
        ['1', 'PROPOSAL_STATUS_PASSED'],
        ['2', 'PROPOSAL_STATUS_VOTING_PERIOD'],
        ['3', 'PROPOSAL_STATUS_DEPOSIT_PERIOD'],
      ],
    );
    assert.deepEqual(gov.proposals[1].messages[1], {
      '@type': '/cosmos.upgrade.v1beta1.MsgSoftwareUpgrade',
      authority: GOV_ADDRESS,
      plan: { name: 'second', time: '1970-01-01T00:00:00.000Z', height: '7', info: '' },
    });
    assert.deepEqual(gov.votes, [
      { proposal_id: '2', voter: val2.address, options: [{ option: 'VOTE_OPTION_YES', weight: '1.000000000000000000' }], metadata: '' },
    ]);
    assert.equal(gov.deposits.length, 3);
    const held = a.balance(GOV_ADDRESS);
    assert.equal(held, 1400n);
    const raw = (t: GovTestApp, id: bigint): Uint8Array =>
      t.query('/cosmos.gov.v1.Query/Proposal', QueryProposalRequest.encode({ proposalId: id }).finish()).value;

    const b = govTestApp({ funded, powers, govGenesis: gov, extraBalances: [{ address: GOV_ADDRESS, coins: [{ denom: DENOM, amount: String(held) }] }] });
    assert.deepEqual(b.exportState().gov, gov, 'the import exports unchanged');
    for (const id of [1n, 2n, 3n]) assert.deepEqual(raw(b, id), raw(a, id), `proposal ${id} is byte for byte the same`);
    // the imported chain runs on: the voting proposal passes (val2's imported 40% vote), the other is dropped
    const end = QueryProposalResponse.decode(raw(b, 2n)).proposal?.votingEndTime?.seconds as bigint;
    b.block([], end - b.time);
    assert.equal(QueryProposalResponse.decode(raw(b, 2n)).proposal?.status, ProposalStatus.PROPOSAL_STATUS_PASSED);
    assert.equal(b.plan('second'), '7');
    assert.equal(b.balance(bob.address), 1_000_000n + 300n, "bob's imported deposit is refunded");
    b.block([], 30n);
    assert.equal(raw(b, 3n).length, 0, 'proposal 3 is dropped at its deposit end');
    assert.equal(b.balance(GOV_ADDRESS), 0n);
    await a.close();
    await b.close();
  });

  test("deposits must match the gov account's balance", async () => {
    const g = {
      ...defaultGenesis(),
      starting_proposal_id: '2',
      deposits: [{ proposal_id: '1', depositor: bob.address, amount: [{ denom: DENOM, amount: '5' }] }],
    };
    g.proposals = [
      {
        id: '1',
        messages: [],
        status: 'PROPOSAL_STATUS_DEPOSIT_PERIOD',
        final_tally_result: null,
        submit_time: '1970-01-12T13:46:40Z',
        deposit_end_time: '1970-01-12T13:47:40Z',
        total_deposit: [{ denom: DENOM, amount: '5' }],
        voting_start_time: null,
        voting_end_time: null,
        metadata: 'm',
        title: 't',
        summary: 's',
        proposer: bob.address,
        expedited: false,
        failed_reason: '',
      },
    ];
    assert.throws(() => govTestApp({ funded: [bob.address], govGenesis: g }), {
      message: `gov genesis: the gov module account ${GOV_ADDRESS} holds "" but the deposits total "5${DENOM}"`,
    });
  });
});

describe('tally arithmetic', () => {
  const params = parseParams(defaultParams());
  const votes = (...v: [string, VoteOption, string?][]): Vote[] =>
    v.map(([voter, option, weight]) => ({ proposalId: 1n, voter, options: [{ option, weight: weight ?? '1.000000000000000000' }], metadata: '' }));
  const run = (vs: Vote[], powers: Record<string, bigint>, p = params): ReturnType<typeof tally> =>
    tally({ votes: vs, powerOf: (v) => powers[v] ?? 0n, totalPower: Object.values(powers).reduce((a, b) => a + b, 0n), params: p });
  const { YES, ABSTAIN, NO, NO_WITH_VETO } = { YES: 1, ABSTAIN: 2, NO: 3, NO_WITH_VETO: 4 } as const;

  test('LegacyDec rounding: banker’s rounding of the 19th digit', () => {
    assert.equal(decQuo(1n * DEC_ONE, 3n * DEC_ONE), 333_333_333_333_333_333n);
    assert.equal(decQuo(2n * DEC_ONE, 3n * DEC_ONE), 666_666_666_666_666_667n);
    assert.equal(decMul(1n, DEC_ONE / 2n), 0n, 'half of 1e-18 rounds to the even 0');
    assert.equal(decMul(3n, DEC_ONE / 2n), 2n, '1.5e-18 rounds to the even 2e-18');
    assert.throws(() => decQuo(1n, 0n), RangeError);
  });

  test('quorum is reached at exactly the quorum; veto at exactly the threshold does not veto', () => {
    const powers = { a: 334n, b: 666n };
    assert.equal(run(votes(['a', YES]), powers).passes, true, '334/1000 = 0.334 ≥ quorum');
    assert.equal(run(votes(['a', YES]), { a: 333n, b: 667n }).passes, false);
    const veto = run(votes(['a', NO_WITH_VETO], ['b', YES]), powers);
    assert.deepEqual([veto.passes, veto.burnDeposits], [true, false], '334/1000 is not > 0.334');
    const vetoed = run(votes(['a', NO_WITH_VETO], ['b', YES]), { a: 335n, b: 665n });
    assert.deepEqual([vetoed.passes, vetoed.burnDeposits], [false, true]);
  });

  test('no power, no votes, all abstaining: rejected without burning; burn_vote_quorum burns below quorum', () => {
    assert.deepEqual(run(votes(['a', YES]), {}), {
      passes: false,
      burnDeposits: false,
      result: { yesCount: '0', abstainCount: '0', noCount: '0', noWithVetoCount: '0' },
    });
    assert.equal(run([], { a: 1n }).passes, false);
    assert.deepEqual(run(votes(['a', ABSTAIN]), { a: 1n }), {
      passes: false,
      burnDeposits: false,
      result: { yesCount: '0', abstainCount: '1', noCount: '0', noWithVetoCount: '0' },
    });
    assert.equal(run([], { a: 1n }, { ...params, burnVoteQuorum: true }).burnDeposits, true);
    assert.equal(run(votes(['a', NO_WITH_VETO]), { a: 1n }, { ...params, burnVoteVeto: false }).burnDeposits, false);
  });

  test('weights split power exactly; counts are the integer parts', () => {
    const third = '0.333333333333333333';
    const vs: Vote[] = [
      {
        proposalId: 1n,
        voter: 'a',
        options: [
          { option: YES, weight: third },
          { option: NO, weight: third },
          { option: ABSTAIN, weight: '0.333333333333333334' },
        ],
        metadata: '',
      },
    ];
    const r = run(vs, { a: 10n });
    assert.deepEqual(r.result, { yesCount: '3', abstainCount: '3', noCount: '3', noWithVetoCount: '0' });
    assert.equal(r.passes, false, 'yes = no: not more than half');
  });
});

describe('time', () => {
  test('sortable keys, RFC 3339 and durations', () => {
    assert.equal(sortableTime({ seconds: 0n, nanos: 5 }), '1970-01-01T00:00:00.000000005');
    assert.equal(sortableTime({ seconds: -62_135_596_800n, nanos: 0 }), '0001-01-01T00:00:00.000000000');
    assert.ok(sortableTime({ seconds: 1n, nanos: 0 }) > sortableTime({ seconds: 0n, nanos: 999_999_999 }));
    assert.deepEqual(timestampFromJSON('2024-03-01T01:00:00.5+01:00'), { seconds: 1_709_251_200n, nanos: 500_000_000 });
    assert.equal(timestampToJSON({ seconds: 1_709_251_200n, nanos: 500_000_000 }), '2024-03-01T00:00:00.500Z');
    assert.equal(timestampToJSON({ seconds: 0n, nanos: 1_000 }), '1970-01-01T00:00:00.000001Z');
    assert.deepEqual(durationFromJSON('1.5s'), { seconds: 1n, nanos: 500_000_000 });
    assert.equal(durationToJSON({ seconds: 172_800n, nanos: 0 }), '172800s');
    assert.equal(durationToJSON({ seconds: -1n, nanos: -500_000_000 }), '-1.500s');
    assert.deepEqual(addDuration({ seconds: 10n, nanos: 600_000_000 }, { seconds: 1n, nanos: 500_000_000 }), { seconds: 12n, nanos: 100_000_000 });
    assert.throws(() => addDuration({ seconds: 253_402_300_799n, nanos: 0 }, { seconds: 1n, nanos: 0 }), /beyond year 9999/);
  });
});

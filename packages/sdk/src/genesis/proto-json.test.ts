import assert from 'node:assert/strict';
import { describe, test } from 'node:test';
import { PubKey } from 'cosmjs-types/cosmos/crypto/secp256k1/keys';
import { GenesisState } from 'cosmjs-types/cosmos/gov/v1/genesis';
import { Params, VoteOption } from 'cosmjs-types/cosmos/gov/v1/gov';
import { Plan } from 'cosmjs-types/cosmos/upgrade/v1beta1/upgrade';
import { Buffer } from 'node:buffer';
import { durationFromJSON, durationToJSON, timestampFromJSON, timestampToJSON } from '../x/gov/time.ts';
import { fromProtoJSON, jsonNames, protoNames, toProtoJSON, type ProtoJsonOptions } from './proto-json.ts';

const o: ProtoJsonOptions = {
  fail: (detail) => new Error(`test genesis: ${detail}`),
  timestamp: { toJSON: timestampToJSON, fromJSON: timestampFromJSON },
  duration: { toJSON: durationToJSON, fromJSON: durationFromJSON },
  any: {
    toJSON: (a) => ({ '@type': a.typeUrl, value: Buffer.from(a.value).toString('base64') }),
    fromJSON: (v) => {
      const { '@type': typeUrl, value } = v as { '@type': string; value: string };
      return { typeUrl, value: Buffer.from(value, 'base64') };
    },
  },
};

describe('proto JSON through the generated codecs', () => {
  test("writes protojson's forms: proto names in field order, absent messages as null, exact times, durations, enums by name", () => {
    const plan = Plan.fromPartial({ name: 'v2', time: { seconds: 1_709_251_200n, nanos: 123_456_789 }, height: 7n });
    assert.equal(
      JSON.stringify(toProtoJSON(Plan, plan, o)),
      '{"name":"v2","time":"2024-03-01T00:00:00.123456789Z","height":"7","info":"","upgraded_client_state":null}',
    );
    const withAny = { ...plan, upgradedClientState: { typeUrl: '/x.Y', value: Uint8Array.of(1, 2) } };
    assert.deepEqual(toProtoJSON(Plan, withAny, o).upgraded_client_state, { '@type': '/x.Y', value: 'AQI=' });
    assert.deepEqual(toProtoJSON(PubKey, { key: Uint8Array.of(255) }, o), { key: '/w==' });
    const g = GenesisState.fromPartial({
      startingProposalId: 3n,
      votes: [{ proposalId: 1n, voter: 'v', options: [{ option: VoteOption.VOTE_OPTION_NO, weight: '1' }], metadata: '' }],
      params: { maxDepositPeriod: { seconds: 1n, nanos: 500_000_000 } },
    });
    const json = toProtoJSON(GenesisState, g, o);
    assert.deepEqual(Object.keys(json), [
      'starting_proposal_id',
      'deposits',
      'votes',
      'proposals',
      'deposit_params',
      'voting_params',
      'tally_params',
      'params',
      'constitution',
    ]);
    assert.deepEqual(json.votes[0].options, [{ option: 'VOTE_OPTION_NO', weight: '1' }]);
    assert.equal(json.params?.max_deposit_period, '1.500s');
    assert.equal(json.params?.voting_period, null);
    assert.equal(json.deposit_params, null);
    // and reads it back to the same message
    assert.deepEqual(fromProtoJSON(GenesisState, json, '', o), g);
    assert.deepEqual(fromProtoJSON(Plan, toProtoJSON(Plan, withAny, o), '', o), withAny);
  });

  test('refuses an unknown key at any depth, naming its path', () => {
    const json = toProtoJSON(GenesisState, GenesisState.fromPartial({ params: { minDeposit: [{ denom: 'a', amount: '1' }] } }), o);
    const refused = (v: unknown, message: string): void => assert.throws(() => fromProtoJSON(GenesisState, v, '', o), { message: `test genesis: ${message}` });
    refused({ ...json, startingProposalId: '1' }, 'genesis has an unknown field "startingProposalId"');
    refused({ ...json, params: { ...json.params, min_depositt: [] } }, 'params has an unknown field "min_depositt"');
    refused(
      { ...json, params: { ...json.params, min_deposit: [{ denom: 'a', amount: '1', amout: '2' }] } },
      'params.min_deposit[0] has an unknown field "amout"',
    );
    assert.throws(() => fromProtoJSON(Params, { votingperiod: '1s' }, 'params', o), { message: 'test genesis: params has an unknown field "votingperiod"' });
  });

  test('refuses a value of the wrong type, naming its path', () => {
    const refused = (v: unknown, message: string): void => assert.throws(() => fromProtoJSON(GenesisState, v, '', o), { message: `test genesis: ${message}` });
    refused(5, 'genesis must be an object');
    refused({ starting_proposal_id: 5 }, 'starting_proposal_id must be a 64-bit integer as a decimal string');
    refused({ starting_proposal_id: '18446744073709551616' }, 'starting_proposal_id must be a 64-bit integer as a decimal string');
    refused({ constitution: 1 }, 'constitution must be a string');
    refused({ proposals: {} }, 'proposals must be an array');
    refused({ proposals: [{ expedited: 'no' }] }, 'proposals[0].expedited must be a boolean');
    refused(
      { proposals: [{ submit_time: '2024-02-30T00:00:00Z' }] },
      'proposals[0].submit_time: "2024-02-30T00:00:00Z" is not a valid date and time in 0001-01-01..9999-12-31',
    );
    refused({ params: { voting_period: '10' } }, 'params.voting_period: "10" is not a duration such as "172800s"');
    refused({ votes: [{ options: [{ option: true }] }] }, 'votes[0].options[0].option must be an enum value name');
    assert.throws(() => fromProtoJSON(PubKey, { key: 'not base64!' }, 'pub_key', o), { message: 'test genesis: pub_key.key must be base64' });
  });

  test('null is absence for messages and lists; defaults fill the fields absent at the top', () => {
    const g = fromProtoJSON(GenesisState, { proposals: null, params: null }, '', o);
    assert.deepEqual([g.proposals, g.params], [[], undefined]);
    const d = fromProtoJSON(GenesisState, { constitution: 'c' }, '', o, GenesisState.fromPartial({ startingProposalId: 1n, constitution: 'x' }));
    assert.deepEqual([d.startingProposalId, d.constitution], [1n, 'c']);
  });

  test('key case: proto field names ↔ JSON names at every depth, "@type" kept', () => {
    const v = { '@type': '/a.B', voting_period: '1s', min_deposit: [{ denom_trace: 'x' }] };
    assert.deepEqual(jsonNames(v), { '@type': '/a.B', votingPeriod: '1s', minDeposit: [{ denomTrace: 'x' }] });
    assert.deepEqual(protoNames(jsonNames(v)), v);
  });
});

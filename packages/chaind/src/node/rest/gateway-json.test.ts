// Gateway JSON rules and request building, on the real descriptors, without a server.
import assert from 'node:assert/strict';
import { test } from 'node:test';
import { QueryAccountResponse } from 'cosmjs-types/cosmos/auth/v1beta1/query';
import { QueryProposalRequest, QueryProposalsRequest } from 'cosmjs-types/cosmos/gov/v1/query';
import { ProposalStatus } from 'cosmjs-types/cosmos/gov/v1/gov';
import { QueryCurrentPlanResponse, QueryModuleVersionsResponse } from '@chaind/sdk/gen/chain/upgrade/v1beta1/query';
import { loadDescriptors } from '../query/descriptors.ts';
import { ParamError } from '../query/request.ts';
import { buildRequest, renderGatewayJson, RenderError, ZERO_TIME } from './gateway-json.ts';

const { registry } = loadDescriptors();
const schema = (name: string) => {
  const d = registry.getMessage(name);
  assert.ok(d, name);
  return d;
};

test('an absent message is null, a non-nullable timestamp is the zero time, an empty list is []', () => {
  assert.deepEqual(renderGatewayJson(schema('chain.upgrade.v1beta1.QueryCurrentPlanResponse'), new Uint8Array(0), registry), { plan: null });
  const bytes = QueryCurrentPlanResponse.encode({
    plan: { name: 'v2', height: 9007199254740993n, info: '', time: undefined, upgradedClientState: undefined },
  }).finish();
  assert.deepEqual(renderGatewayJson(schema('chain.upgrade.v1beta1.QueryCurrentPlanResponse'), bytes, registry), {
    plan: { name: 'v2', time: ZERO_TIME, height: '9007199254740993', info: '', upgraded_client_state: null },
  });
  assert.deepEqual(
    renderGatewayJson(
      schema('chain.upgrade.v1beta1.QueryModuleVersionsResponse'),
      QueryModuleVersionsResponse.encode({ moduleVersions: [] }).finish(),
      registry,
    ),
    { module_versions: [] },
  );
  // a set timestamp renders as RFC 3339 with its nanoseconds
  const withTime = QueryCurrentPlanResponse.encode({
    plan: { name: 'a', height: 1n, info: '', time: { seconds: 1_700_000_000n, nanos: 5_000_000 }, upgradedClientState: undefined },
  }).finish();
  assert.equal(
    (renderGatewayJson(schema('chain.upgrade.v1beta1.QueryCurrentPlanResponse'), withTime, registry).plan as { time: string }).time,
    '2023-11-14T22:13:20.005Z',
  );
});

test('an Any of a type the descriptors lack cannot be rendered: a RenderError, not a crash', () => {
  const bytes = QueryAccountResponse.encode({ account: { typeUrl: '/unknown.v1.Thing', value: Uint8Array.of(8, 1) } }).finish();
  assert.throws(() => renderGatewayJson(schema('cosmos.auth.v1beta1.QueryAccountResponse'), bytes, registry), RenderError);
});

test('requests are built from path and query parameters as the gateway does', () => {
  const req = schema('cosmos.gov.v1.QueryProposalsRequest');
  const bytes = buildRequest(
    req,
    {},
    { proposal_status: 'PROPOSAL_STATUS_PASSED', voter: 'v', 'pagination.limit': '2', 'pagination.reverse': 'true', 'pagination.key': 'AQI=', ignored: 'x' },
    registry,
  );
  assert.deepEqual(QueryProposalsRequest.decode(bytes), {
    proposalStatus: ProposalStatus.PROPOSAL_STATUS_PASSED,
    voter: 'v',
    depositor: '',
    pagination: { key: Uint8Array.of(1, 2), offset: 0n, limit: 2n, countTotal: false, reverse: true },
  });
  // JSON names work too; the path wins over a query parameter for the same field
  const byJson = buildRequest(schema('cosmos.gov.v1.QueryProposalRequest'), { proposal_id: '7' }, { proposalId: '8', proposal_id: '9' }, registry);
  assert.equal(QueryProposalRequest.decode(byJson).proposalId, 7n);
  // bytes: the URL-safe base64 alphabet as well
  assert.deepEqual(QueryProposalsRequest.decode(buildRequest(req, {}, { 'pagination.key': '-_8=' }, registry)).pagination?.key, Uint8Array.of(0xfb, 0xff));
  assert.throws(() => buildRequest(req, {}, { 'pagination.limit': '-1' }, registry), ParamError);
  assert.throws(() => buildRequest(req, {}, { 'pagination.count_total': 'yes' }, registry), ParamError);
  assert.throws(() => buildRequest(req, {}, { proposal_status: 'PASSED' }, registry), ParamError);
  assert.throws(() => buildRequest(req, {}, { voter: ['a', 'b'] }, registry), ParamError);
  assert.throws(() => buildRequest(req, {}, { pagination: 'x' }, registry), ParamError);
});

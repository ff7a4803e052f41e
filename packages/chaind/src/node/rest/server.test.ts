// The REST server over a real chain (TestChain: real blocks, real governance, a real upgrade), asked by
// a real HTTP client: the gateway JSON of spec §4.1 / cosmos-x-upgrade.md §6 exactly, the Cosmos routes
// clients use, and errors as {"code","message","details"} with the matching HTTP status.
import assert from 'node:assert/strict';
import { after, before, describe, test } from 'node:test';
import { MsgSubmitProposal } from 'cosmjs-types/cosmos/gov/v1/tx';
import { UpgradeHaltError } from '@chaind/sdk/x/upgrade';
import type { Upgrade } from '../../upgrades/index.ts';
import { QueryUpgradedConsensusStateRequest, QueryUpgradedConsensusStateResponse } from 'cosmjs-types/cosmos/upgrade/v1beta1/query';
import { GOV_AUTHORITY } from '../../app.ts';
import {
  AbciTestApp,
  ALICE,
  BOB,
  cancelUpgrade,
  DENOM,
  newHome,
  NEWMOD,
  PERIOD,
  removeTmpDirs,
  softwareUpgrade,
  TestChain,
  upgradeV2,
  VALIDATOR,
} from '@chaind/chaind/testing';
import { GATEWAY_ROUTES } from './routes.ts';
import { startRestServer, type RestServer } from './server.ts';

interface Answer {
  readonly status: number;
  readonly text: string;
  readonly headers: Headers;
  readonly json: unknown;
}

/** Walks parsed JSON: at(v, 'proposal', 'messages', 0, '@type'); undefined where the path ends. */
function at(v: unknown, ...path: (string | number)[]): unknown {
  let cur = v;
  for (const k of path) {
    if (typeof cur !== 'object' || cur === null) return undefined;
    cur = (cur as Record<string | number, unknown>)[k];
  }
  return cur;
}

function str(v: unknown): string {
  assert.equal(typeof v, 'string', `expected a string, got ${JSON.stringify(v)}`);
  return v as string;
}

function list(v: unknown): unknown[] {
  assert.ok(Array.isArray(v), `expected an array, got ${JSON.stringify(v)}`);
  return v;
}

const ids = (proposals: unknown): string[] => list(proposals).map((p) => str(at(p, 'id')));

async function get(s: RestServer, path: string, headers: Record<string, string> = {}): Promise<Answer> {
  const r = await fetch(s.url + path, { headers: { accept: 'application/json', ...headers } });
  const text = await r.text();
  let json: unknown;
  try {
    json = JSON.parse(text);
  } catch {
    json = undefined;
  }
  return { status: r.status, text, headers: r.headers, json };
}

/** The error shape every failure has. */
function assertError(a: Answer, http: number, grpcCode: number, includes: string): void {
  assert.equal(a.status, http, a.text);
  assert.match(a.headers.get('content-type') ?? '', /^application\/json/);
  assert.deepEqual(Object.keys(a.json as object), ['code', 'message', 'details']);
  assert.equal(at(a.json, 'code'), grpcCode, a.text);
  const message = str(at(a.json, 'message'));
  assert.ok(message.includes(includes), `message ${JSON.stringify(message)} lacks ${JSON.stringify(includes)}`);
  assert.deepEqual(at(a.json, 'details'), []);
}

after(removeTmpDirs);

describe('REST upgrade routes: no plan, then a scheduled plan', () => {
  let c: TestChain;
  let s: RestServer;
  before(async () => {
    c = TestChain.open(newHome());
    s = await startRestServer({ port: 0, app: c.app });
  });
  after(async () => {
    await s.close();
    await c.close();
  });

  test('binds 127.0.0.1 on the port asked for (0: any free one)', () => {
    assert.match(s.url, /^http:\/\/127\.0\.0\.1:[0-9]+$/);
  });

  test('current_plan without a plan is exactly {"plan":null}', async () => {
    const a = await get(s, '/chain/upgrade/v1beta1/current_plan');
    assert.equal(a.status, 200);
    assert.match(a.headers.get('content-type') ?? '', /^application\/json/);
    assert.equal(a.text, '{"plan":null}');
    assert.equal(a.headers.get('x-cosmos-block-height'), c.height.toString());
  });

  test('applied_plan of a plan never applied is {"height":"0"}; authority is the gov module account', async () => {
    assert.equal((await get(s, '/chain/upgrade/v1beta1/applied_plan/v2')).text, '{"height":"0"}');
    // a name no plan can have: 400 naming the limit; past the router's 1,024-byte path parameters, 414
    for (const n of [129, 1000]) {
      const long = await get(s, `/chain/upgrade/v1beta1/applied_plan/${'x'.repeat(n)}`);
      assert.equal(long.status, 400, long.text);
      assert.match(long.text, new RegExp(`plan name of ${n} bytes: a plan name has at most 128`));
    }
    const huge = await get(s, `/chain/upgrade/v1beta1/applied_plan/${'x'.repeat(5000)}`);
    assert.equal(huge.status, 414, huge.text);
    assert.equal((huge.json as { code: number }).code, 3, 'INVALID_ARGUMENT');
    const a = await get(s, '/chain/upgrade/v1beta1/authority');
    assert.equal(a.status, 200);
    assert.deepEqual(a.json, { address: GOV_AUTHORITY });
  });

  test('a scheduled plan: every field, height as a string, the zero time, upgraded_client_state null', async () => {
    const h = c.height + 50n;
    c.pass([softwareUpgrade('v2', h, '{"binaries":{"linux/amd64":"https://example.com/v2.tar.gz?checksum=sha256:ab"}}')]);
    const a = await get(s, '/chain/upgrade/v1beta1/current_plan');
    assert.equal(a.status, 200);
    const plan = {
      name: 'v2',
      time: '0001-01-01T00:00:00Z',
      height: h.toString(),
      info: '{"binaries":{"linux/amd64":"https://example.com/v2.tar.gz?checksum=sha256:ab"}}',
      upgraded_client_state: null,
    };
    // the exact text: field order as declared, nothing more
    assert.equal(a.text, JSON.stringify({ plan }));
  });

  test('module_versions: all in name order, one by ?module_name=, an unknown one is 404 with the error shape', async () => {
    const all = await get(s, '/chain/upgrade/v1beta1/module_versions');
    assert.equal(all.status, 200);
    assert.deepEqual(all.json, {
      module_versions: ['auth', 'bank', 'gov', 'upgrade', 'validators'].map((name) => ({ name, version: '1' })),
    });
    const one = await get(s, '/chain/upgrade/v1beta1/module_versions?module_name=gov');
    assert.equal(one.text, '{"module_versions":[{"name":"gov","version":"1"}]}');
    assertError(await get(s, '/chain/upgrade/v1beta1/module_versions?module_name=nope'), 404, 5, 'module nope not found');
  });
});

describe('REST upgrade routes after an applied upgrade', () => {
  let c: TestChain;
  let s: RestServer;
  let h: bigint;
  before(async () => {
    const home = newHome();
    const old = TestChain.open(home);
    h = old.height + 25n;
    old.pass([softwareUpgrade('v2', h)]);
    old.blocksUntil(h - 1n);
    assert.throws(
      () => old.block(),
      (e: Error) => e instanceof UpgradeHaltError,
    );
    await old.close();
    c = TestChain.open(home, { upgrades: [upgradeV2()] });
    c.block(); // height h: the v2 handler runs
    s = await startRestServer({ port: 0, app: c.app });
  });
  after(async () => {
    await s.close();
    await c.close();
  });

  test('applied_plan gives the upgrade height; the plan is cleared', async () => {
    assert.equal(c.height, h);
    assert.deepEqual((await get(s, '/chain/upgrade/v1beta1/applied_plan/v2')).json, { height: h.toString() });
    assert.equal((await get(s, '/chain/upgrade/v1beta1/current_plan')).text, '{"plan":null}');
  });

  test('module_versions shows the module the upgrade added, alone or among all', async () => {
    const all = await get(s, '/chain/upgrade/v1beta1/module_versions');
    assert.deepEqual(
      list(at(all.json, 'module_versions')).map((m) => at(m, 'name')),
      ['auth', 'bank', 'gov', NEWMOD, 'upgrade', 'validators'],
    );
    assert.deepEqual((await get(s, `/chain/upgrade/v1beta1/module_versions?module_name=${NEWMOD}`)).json, {
      module_versions: [{ name: NEWMOD, version: '1' }],
    });
    assertError(await get(s, '/chain/upgrade/v1beta1/module_versions?module_name=v2'), 404, 5, 'not found');
  });
});

describe('REST upgraded_consensus_state with IBC state stored (as an IBC upgrade would store it)', () => {
  let c: TestChain;
  let s: RestServer;
  let h: bigint;
  const cons = Uint8Array.of(0x0a, 0x2b, 0x2f, 0x00, 0xff, 0xfe);
  before(async () => {
    const home = newHome();
    const old = TestChain.open(home);
    h = old.height + 25n;
    old.pass([softwareUpgrade('v2', h)]);
    old.blocksUntil(h - 1n);
    assert.throws(
      () => old.block(),
      (e: Error) => e instanceof UpgradeHaltError,
    );
    await old.close();
    // a handler stores consensus states under its own height (cleared by ApplyUpgrade) and under a later one
    const afterMigrations: Upgrade['afterMigrations'] = (ctx, _plan, k) => {
      k.upgrade.setUpgradedConsensusState(ctx, h, cons);
      k.upgrade.setUpgradedConsensusState(ctx, 1000n, cons);
    };
    c = TestChain.open(home, { upgrades: [{ name: 'v2', storeUpgrades: {}, afterMigrations }] });
    c.block(); // height h: the handler runs
    s = await startRestServer({ port: 0, app: c.app });
  });
  after(async () => {
    await s.close();
    await c.close();
  });

  test('the stored bytes as base64; the applied plan height was cleared; abci_query gives the bytes to cosmjs-types', async () => {
    assert.equal(c.height, h);
    assert.deepEqual((await get(s, '/chain/upgrade/v1beta1/upgraded_consensus_state/1000')).json, {
      upgraded_consensus_state: Buffer.from(cons).toString('base64'),
    });
    assertError(await get(s, `/chain/upgrade/v1beta1/upgraded_consensus_state/${h}`), 404, 5, 'upgraded consensus state not found');
    const r = c.query('/chain.upgrade.v1beta1.Query/UpgradedConsensusState', QueryUpgradedConsensusStateRequest.encode({ lastHeight: 1000n }).finish());
    assert.equal(r.code, 0, r.log);
    assert.deepEqual(QueryUpgradedConsensusStateResponse.decode(r.value).upgradedConsensusState, cons);
    // the SDK's key, in the upgrade store
    assert.equal(c.raw('upgrade', Buffer.from('upgradedIBCState/1000/upgradedConsState')), Buffer.from(cons).toString('hex'));
  });
});

describe('REST Cosmos routes, bad input, OpenAPI', () => {
  let c: TestChain;
  let s: RestServer;
  let voted: bigint;
  let other: bigint;
  let underfunded: bigint;
  before(async () => {
    c = TestChain.open(newHome());
    c.block([c.send(ALICE, BOB.address, '250')]);
    voted = c.propose([softwareUpgrade('v2', c.height + 100n)], 'upgrade');
    other = c.propose([cancelUpgrade()], 'cancel');
    c.vote(voted);
    // a deposit below the minimum: the proposal stays in its deposit period, no voting times yet
    const msg = MsgSubmitProposal.fromPartial({
      messages: [cancelUpgrade()],
      initialDeposit: [{ denom: DENOM, amount: '10' }],
      proposer: ALICE.address,
      title: 't',
      summary: 's',
    });
    const r = c.run(ALICE, [{ typeUrl: '/cosmos.gov.v1.MsgSubmitProposal', value: MsgSubmitProposal.encode(msg).finish() }]);
    assert.equal(r.code, 0, r.log);
    underfunded = other + 1n;
    s = await startRestServer({ port: 0, app: c.app });
  });
  after(async () => {
    await s.close();
    await c.close();
  });

  test('balances: amounts as strings, pagination with next_key and total; by_denom; supply', async () => {
    const a = await get(s, `/cosmos/bank/v1beta1/balances/${BOB.address}`);
    assert.equal(a.status, 200);
    assert.deepEqual(a.json, { balances: [{ denom: DENOM, amount: '1000000250' }], pagination: { next_key: '', total: '1' } });
    const d = await get(s, `/cosmos/bank/v1beta1/balances/${BOB.address}/by_denom?denom=${DENOM}`);
    assert.equal(d.text, `{"balance":{"denom":"${DENOM}","amount":"1000000250"}}`);
    const none = await get(s, `/cosmos/bank/v1beta1/balances/${BOB.address}/by_denom?denom=other`);
    assert.deepEqual(none.json, { balance: { denom: 'other', amount: '0' } });
    const supply = await get(s, '/cosmos/bank/v1beta1/supply');
    assert.equal(supply.status, 200);
    assert.equal(at(supply.json, 'supply', 0, 'denom'), DENOM);
    assert.match(str(at(supply.json, 'supply', 0, 'amount')), /^[0-9]+$/);
  });

  test('accounts: "@type" and the account fields; a public key once the account has signed, null before', async () => {
    const alice = await get(s, `/cosmos/auth/v1beta1/accounts/${ALICE.address}`);
    assert.equal(alice.status, 200);
    const acc = at(alice.json, 'account');
    assert.equal(at(acc, '@type'), '/cosmos.auth.v1beta1.BaseAccount');
    assert.equal(at(acc, 'address'), ALICE.address);
    assert.equal(at(acc, 'account_number'), '1');
    assert.match(str(at(acc, 'sequence')), /^[1-9][0-9]*$/);
    assert.equal(at(acc, 'pub_key', '@type'), '/cosmos.crypto.secp256k1.PubKey');
    assert.equal(Buffer.from(str(at(acc, 'pub_key', 'key')), 'base64').length, 33);
    const bob = await get(s, `/cosmos/auth/v1beta1/accounts/${BOB.address}`);
    assert.deepEqual(bob.json, {
      account: { '@type': '/cosmos.auth.v1beta1.BaseAccount', address: BOB.address, pub_key: null, account_number: '2', sequence: '0' },
    });
    const gov = await get(s, '/cosmos/auth/v1beta1/module_accounts/gov');
    assert.equal(at(gov.json, 'account', '@type'), '/cosmos.auth.v1beta1.ModuleAccount');
    assert.equal(at(gov.json, 'account', 'base_account', 'address'), GOV_AUTHORITY);
    assert.deepEqual(at(gov.json, 'account', 'permissions'), ['burner']);
    // an address with no account: NotFound, as CosmJS expects
    const unknown = c.chain.accounts.moduleAddress('nobody');
    assertError(await get(s, `/cosmos/auth/v1beta1/accounts/${unknown}`), 404, 5, 'not found');
  });

  test('gov proposals: every field, enums by name, Any messages expanded, null times before voting', async () => {
    const p = at((await get(s, `/cosmos/gov/v1/proposals/${voted}`)).json, 'proposal');
    assert.deepEqual(Object.keys(p as object), [
      'id',
      'messages',
      'status',
      'final_tally_result',
      'submit_time',
      'deposit_end_time',
      'total_deposit',
      'voting_start_time',
      'voting_end_time',
      'metadata',
      'title',
      'summary',
      'proposer',
      'expedited',
      'failed_reason',
    ]);
    assert.equal(at(p, 'id'), voted.toString());
    assert.equal(at(p, 'status'), 'PROPOSAL_STATUS_VOTING_PERIOD');
    assert.equal(at(p, 'messages', 0, '@type'), '/chain.upgrade.v1beta1.MsgSoftwareUpgrade');
    assert.equal(at(p, 'messages', 0, 'authority'), GOV_AUTHORITY);
    assert.equal(at(p, 'messages', 0, 'plan', 'time'), '0001-01-01T00:00:00Z');
    assert.equal(at(p, 'messages', 0, 'plan', 'upgraded_client_state'), null);
    assert.match(str(at(p, 'submit_time')), /^\d{4}-\d\d-\d\dT\d\d:\d\d:\d\dZ$/);
    assert.match(str(at(p, 'voting_end_time')), /Z$/);
    assert.deepEqual(at(p, 'total_deposit'), [{ denom: DENOM, amount: '1000' }]);
    assert.equal(at(p, 'expedited'), false);
    const u = at((await get(s, `/cosmos/gov/v1/proposals/${underfunded}`)).json, 'proposal');
    assert.equal(at(u, 'status'), 'PROPOSAL_STATUS_DEPOSIT_PERIOD');
    assert.equal(at(u, 'voting_start_time'), null);
    assert.equal(at(u, 'voting_end_time'), null);
    assertError(await get(s, '/cosmos/gov/v1/proposals/999'), 404, 5, "proposal 999 doesn't exist");
  });

  test('gov proposals list: proposal_status, voter and depositor filters, pagination.limit and pagination.key', async () => {
    const listed = async (q: string): Promise<string[]> => {
      const a = await get(s, `/cosmos/gov/v1/proposals${q}`);
      assert.equal(a.status, 200, a.text);
      return ids(at(a.json, 'proposals'));
    };
    assert.deepEqual(await listed(''), [voted, other, underfunded].map(String));
    assert.deepEqual(await listed('?proposal_status=PROPOSAL_STATUS_VOTING_PERIOD'), [voted, other].map(String));
    assert.deepEqual(await listed('?proposal_status=1'), [underfunded].map(String), 'enum by number');
    assert.deepEqual(await listed(`?voter=${VALIDATOR.address}`), [voted.toString()]);
    assert.deepEqual(await listed(`?depositor=${ALICE.address}`), [voted, other, underfunded].map(String));
    const first = await get(s, '/cosmos/gov/v1/proposals?pagination.limit=1&pagination.count_total=true');
    assert.deepEqual(ids(at(first.json, 'proposals')), [voted.toString()]);
    assert.equal(at(first.json, 'pagination', 'total'), '3');
    const key = str(at(first.json, 'pagination', 'next_key'));
    assert.ok(key.length > 0, 'a next_key (base64)');
    assert.deepEqual(await listed(`?pagination.limit=1&pagination.key=${encodeURIComponent(key)}`), [other.toString()]);
  });

  test('gov tally, votes and params', async () => {
    const tally = await get(s, `/cosmos/gov/v1/proposals/${voted}/tally`);
    assert.deepEqual(tally.json, { tally: { yes_count: '10', abstain_count: '0', no_count: '0', no_with_veto_count: '0' } });
    const votes = await get(s, `/cosmos/gov/v1/proposals/${voted}/votes`);
    assert.deepEqual(at(votes.json, 'votes'), [
      { proposal_id: voted.toString(), voter: VALIDATOR.address, options: [{ option: 'VOTE_OPTION_YES', weight: '1.000000000000000000' }], metadata: '' },
    ]);
    assert.deepEqual((await get(s, `/cosmos/gov/v1/proposals/${other}/votes`)).json, { votes: [], pagination: { next_key: '', total: '0' } });
    const voting = await get(s, '/cosmos/gov/v1/params/voting');
    assert.equal(voting.status, 200);
    assert.deepEqual(at(voting.json, 'voting_params'), { voting_period: `${PERIOD}s` });
    assert.equal(at(voting.json, 'deposit_params'), null);
    assert.equal(at(voting.json, 'tally_params'), null);
    assert.deepEqual(at(voting.json, 'params', 'min_deposit'), [{ denom: DENOM, amount: '1000' }]);
    assertError(await get(s, '/cosmos/gov/v1/params/bogus'), 400, 3, 'unknown params type: bogus');
  });

  test('bad input is 400 or 404 in the error shape, and the server keeps serving', async () => {
    assertError(await get(s, '/cosmos/gov/v1/proposals/abc'), 400, 3, 'path parameter proposal_id');
    // a malformed percent-escape is refused by the router itself, still in the error shape (found by test/fuzz/rpc.test.ts)
    assertError(await get(s, '/%'), 400, 3, 'not a valid url');
    assertError(await get(s, '/cosmos/gov/v1/proposals/%zz'), 400, 3, 'not a valid url');
    assertError(await get(s, '/cosmos/gov/v1/proposals/-1/tally'), 400, 3, 'proposal_id');
    assertError(await get(s, '/cosmos/gov/v1/proposals/18446744073709551616'), 400, 3, 'proposal_id');
    assertError(await get(s, '/cosmos/gov/v1/proposals/0'), 400, 3, 'proposal id can not be 0');
    assertError(await get(s, '/cosmos/bank/v1beta1/balances/not-an-address'), 400, 3, 'not-an-address');
    assertError(await get(s, '/cosmos/auth/v1beta1/accounts/cosmos1qqqqqqqqqqqqqqqqqqqqqqqqqqqqqqqqqqqqqq'), 400, 3, 'cosmos1');
    assertError(await get(s, '/cosmos/gov/v1/proposals?pagination.limit=ten'), 400, 3, 'query parameter pagination.limit');
    assertError(await get(s, '/cosmos/gov/v1/proposals?proposal_status=PROPOSAL_STATUS_NOPE'), 400, 3, 'proposal_status');
    assertError(await get(s, '/cosmos/gov/v1/proposals?pagination.reverse=maybe'), 400, 3, 'pagination.reverse');
    assertError(await get(s, '/cosmos/gov/v1/proposals?voter=a&voter=b'), 400, 3, 'voter');
    assertError(await get(s, `/cosmos/gov/v1/proposals?voter=${ALICE.address}x`), 400, 3, 'voter');
    assertError(await get(s, '/cosmos/gov/v1/proposals?pagination.key=***'), 400, 3, 'pagination.key');
    assertError(await get(s, `/cosmos/bank/v1beta1/balances/${BOB.address}/by_denom`), 400, 3, 'denom');
    assertError(await get(s, '/chain/upgrade/v1beta1/current_plan', { 'x-cosmos-block-height': 'latest' }), 400, 3, 'x-cosmos-block-height');
    assertError(await get(s, '/chain/upgrade/v1beta1/current_plan', { 'x-cosmos-block-height': '1' }), 400, 3, 'only the latest height');
    assertError(await get(s, '/chain/upgrade/v1beta1/nope'), 404, 5, 'GET /chain/upgrade/v1beta1/nope');
    assertError(await get(s, '/'), 404, 5, 'Not Found');
    const post = await fetch(`${s.url}/chain/upgrade/v1beta1/current_plan`, { method: 'POST', body: '{}', headers: { 'content-type': 'application/json' } });
    assertError({ status: post.status, headers: post.headers, text: '', json: await post.json() }, 404, 5, 'POST');
    // still serving, at the latest height the header names
    const ok = await get(s, '/chain/upgrade/v1beta1/current_plan', { 'x-cosmos-block-height': c.height.toString() });
    assert.equal(ok.status, 200);
    assert.equal(ok.headers.get('x-cosmos-block-height'), c.height.toString());
  });

  test('/swagger serves the UI and an OpenAPI 3 document describing every route', async () => {
    const ui = await get(s, '/swagger');
    assert.equal(ui.status, 200);
    assert.match(ui.text, /swagger-ui/i);
    const doc = await get(s, '/swagger/json');
    assert.equal(doc.status, 200);
    assert.match(str(at(doc.json, 'openapi')), /^3\./);
    for (const r of GATEWAY_ROUTES) assert.ok(at(doc.json, 'paths', r.path, 'get'), `OpenAPI lacks GET ${r.path}`);
    const params = list(at(doc.json, 'paths', '/cosmos/gov/v1/proposals/{proposal_id}', 'get', 'parameters'));
    assert.deepEqual(
      params.filter((p) => at(p, 'in') === 'path').map((p) => at(p, 'name')),
      ['proposal_id'],
    );
    const plan = at(
      doc.json,
      'paths',
      '/chain/upgrade/v1beta1/current_plan',
      'get',
      'responses',
      '200',
      'content',
      'application/json',
      'schema',
      'properties',
      'plan',
    );
    assert.equal(at(plan, 'nullable'), true);
    assert.equal(at(plan, 'properties', 'height', 'type'), 'string');
    assert.equal(at(plan, 'properties', 'time', 'nullable'), undefined, 'Plan.time is never null');
  });
});

describe('REST before the first block', () => {
  test('behind CometBFT until its InitChain and block 1: 503, "no state yet", on the gateway routes', async () => {
    const early = await AbciTestApp.start();
    const rest = await startRestServer({ port: 0, app: early.chain.app });
    try {
      for (const path of ['/chain/upgrade/v1beta1/current_plan', '/chain/upgrade/v1beta1/applied_plan/v2', `/cosmos/bank/v1beta1/balances/${ALICE.address}`]) {
        const r = await get(rest, path);
        assert.equal(r.status, 503, `${path}: ${r.text}`);
        assert.deepEqual(r.json, { code: 14, message: "no state yet: waiting for CometBFT's InitChain and the first block", details: [] });
      }
    } finally {
      await rest.close();
      await early.stop();
    }
  });
});

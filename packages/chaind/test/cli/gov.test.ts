// `chaind tx gov …`, `tx upgrade cancel-software-upgrade`, --broadcast-mode async, and the queries that
// read their effects (auth, bank, gov, block, tx), all as child processes against one development chain
// (alice, bob and validator funded) run with 200 ms blocks and 1 h gov periods.
import assert from 'node:assert/strict';
import { readFileSync, writeFileSync } from 'node:fs';
import { join } from 'node:path';
import { after, before, describe, test } from 'node:test';
import { moduleAddress, toBech32 } from '@chaind/sdk/crypto';
import { Keyring } from '@chaind/sdk/keyring';
import { createDevHome } from '../../src/cli/dev.ts';
import { chaind, fails, ok, removeTmpDirs, startDevNode, tmpDir, type DevNode } from '@chaind/chaind/testing';

interface TxResponse {
  height: string;
  txhash: string;
  code: number;
  raw_log: string;
}
interface Proposal {
  id: string;
  status: string;
  title: string;
  messages: Record<string, unknown>[];
  total_deposit: { denom: string; amount: string }[];
}

const GOV = moduleAddress('gov');
const SEND = '/cosmos.bank.v1beta1.MsgSend';

describe('gov transactions and the module, block and tx queries against a development chain', () => {
  let home = '';
  let node: DevNode | undefined;
  let url = '';
  const addr: Record<string, string> = {};
  const carol = toBech32('chain', new Uint8Array(20).fill(7));
  const net = (): string[] => ['--node', url];
  const keyring = (): string[] => ['--home', home, '--keyring-backend', 'test', '--node', url, '-y'];
  const signed = (from: string): string[] => ['--from', from, ...keyring()];
  const json = async <T>(args: string[]): Promise<T> => JSON.parse((await ok([...args, ...net(), '-o', 'json'])).stdout) as T;
  /** A tx that must be committed with code 0; its response. */
  const commit = async (args: string[], from: string): Promise<TxResponse> => {
    const r = await ok([...args, ...signed(from), '--broadcast-mode', 'commit']);
    const res = JSON.parse(r.stdout) as TxResponse;
    assert.equal(res.code, 0, r.stdout);
    return res;
  };
  const proposal = async (id: string): Promise<Proposal> => (await json<{ proposal: Proposal }>(['query', 'gov', 'proposal', id])).proposal;

  before(async () => {
    home = join(tmpDir(), 'home');
    await createDevHome(home);
    // long gov periods: the proposals must stay open while the assertions run, however slow the machine
    const gpath = join(home, 'config', 'genesis.json');
    const g = JSON.parse(readFileSync(gpath, 'utf8')) as { app_state: { gov: { params: Record<string, unknown> } } };
    g.app_state.gov.params = { ...g.app_state.gov.params, voting_period: '3600s', max_deposit_period: '3600s' };
    writeFileSync(gpath, JSON.stringify(g, null, 2));
    const cfg = join(home, 'config', 'config.toml');
    writeFileSync(cfg, readFileSync(cfg, 'utf8').replace(/block_interval = "1s"/, 'block_interval = "200ms"'));
    const ring = await Keyring.open(home, 'test');
    for (const name of ['alice', 'bob', 'validator']) addr[name] = (await ring.get(name)).address;
    node = await startDevNode(home);
    url = node.rpc;
  });
  after(async () => {
    await node?.stop();
    removeTmpDirs();
  });

  test('submit-proposal from a v0.50 file; the proposal, its tx and its block as queried', async () => {
    const file = join(tmpDir(), 'proposal.json');
    const msg = { '@type': SEND, from_address: GOV, to_address: addr.bob, amount: [{ denom: 'stake', amount: '5' }] };
    writeFileSync(file, JSON.stringify({ messages: [msg], metadata: 'ipfs://meta', deposit: '10000000stake', title: 'Pay bob', summary: 'five stake' }));
    const res = await commit(['tx', 'gov', 'submit-proposal', file], 'alice');

    const p = await proposal('1');
    assert.equal(p.status, 'PROPOSAL_STATUS_VOTING_PERIOD', 'the deposit reached the minimum');
    assert.equal(p.title, 'Pay bob');
    assert.deepEqual(p.messages, [msg]);
    assert.deepEqual(p.total_deposit, [{ denom: 'stake', amount: '10000000' }]);
    const text = await ok(['query', 'gov', 'proposal', '1', ...net()]);
    assert.match(text.stdout, /^proposal:\n {2}id: "1"\n {2}messages:\n {2}- '@type': \/cosmos\.bank\.v1beta1\.MsgSend\n {4}from_address: chain1/);

    // the tx response: the submitted message with the proposal's message nested, the block time, the events
    const tx = await json<{
      height: string;
      txhash: string;
      code: number;
      tx: { body: { messages: { '@type': string; messages: unknown[]; proposer: string }[] }; auth_info: { signer_infos: { mode_info: unknown }[] } };
      timestamp: string;
      events: { type: string }[];
    }>(['query', 'tx', res.txhash]);
    assert.equal(tx.txhash, res.txhash);
    assert.equal(tx.code, 0);
    assert.equal(tx.height, res.height);
    assert.equal(tx.tx.body.messages[0]['@type'], '/cosmos.gov.v1.MsgSubmitProposal');
    assert.equal(tx.tx.body.messages[0].proposer, addr.alice);
    assert.deepEqual(tx.tx.body.messages[0].messages, [msg]);
    assert.deepEqual(tx.tx.auth_info.signer_infos[0].mode_info, { single: { mode: 'SIGN_MODE_DIRECT' } });
    assert.match(tx.timestamp, /^\d{4}-\d\d-\d\dT\d\d:\d\d:\d\dZ$/);
    assert.ok(
      tx.events.some((e) => e.type === 'submit_proposal'),
      JSON.stringify(tx.events.map((e) => e.type)),
    );

    // the block that holds it (CometBFT JSON, the default output), and the latest block
    const block = await json<{ block: { header: { height: string; time: string }; data: { txs: string[] } } }>(['query', 'block', res.height]);
    assert.equal(block.block.header.height, res.height);
    assert.equal(block.block.data.txs.length, 1);
    assert.equal(tx.timestamp, block.block.header.time.replace(/\.\d+Z$/, 'Z'));
    const latest = JSON.parse((await ok(['query', 'block', ...net()])).stdout) as { block: { header: { height: string } } };
    assert.ok(BigInt(latest.block.header.height) >= BigInt(res.height));
  });

  test('cancel-software-upgrade and deposit; vote and weighted-vote; tally, votes and proposal filters', async () => {
    await commit(['tx', 'upgrade', 'cancel-software-upgrade', '--title', 'cancel', '--summary', 'no upgrade', '--deposit', '1stake'], 'bob');
    let p2 = await proposal('2');
    assert.equal(p2.status, 'PROPOSAL_STATUS_DEPOSIT_PERIOD');
    assert.deepEqual(p2.messages, [{ '@type': '/chain.upgrade.v1beta1.MsgCancelUpgrade', authority: GOV }]);
    const inDeposit = await json<{ proposals: Proposal[] }>(['query', 'gov', 'proposals', '--status', 'deposit_period']);
    assert.deepEqual(
      inDeposit.proposals.map((p) => p.id),
      ['2'],
    );

    await commit(['tx', 'gov', 'deposit', '2', '10000000stake'], 'alice');
    p2 = await proposal('2');
    assert.equal(p2.status, 'PROPOSAL_STATUS_VOTING_PERIOD');
    assert.deepEqual(p2.total_deposit, [{ denom: 'stake', amount: '10000001' }]);
    const byAlice = await json<{ proposals: Proposal[] }>(['query', 'gov', 'proposals', '--depositor', addr.alice]);
    assert.deepEqual(
      byAlice.proposals.map((p) => p.id),
      ['1', '2'],
    );
    const byBob = await json<{ proposals: Proposal[] }>(['query', 'gov', 'proposals', '--depositor', addr.bob, '--status', 'PROPOSAL_STATUS_VOTING_PERIOD']);
    assert.deepEqual(
      byBob.proposals.map((p) => p.id),
      ['2'],
    );

    await commit(['tx', 'gov', 'vote', '1', 'VOTE_OPTION_YES'], 'validator');
    await commit(['tx', 'gov', 'weighted-vote', '2', 'yes=0.6,no=0.4'], 'validator');
    const votes = await json<{ votes: { voter: string; options: unknown[] }[] }>(['query', 'gov', 'votes', '2']);
    assert.deepEqual(
      votes.votes.map((v) => [v.voter, v.options]),
      [
        [
          addr.validator,
          [
            { option: 'VOTE_OPTION_YES', weight: '0.600000000000000000' },
            { option: 'VOTE_OPTION_NO', weight: '0.400000000000000000' },
          ],
        ],
      ],
    );
    const voted = await json<{ proposals: Proposal[] }>(['query', 'gov', 'proposals', '--voter', addr.validator]);
    assert.deepEqual(
      voted.proposals.map((p) => p.id),
      ['1', '2'],
    );
    // the live tallies: the validator's whole power on yes for 1, split 6:4 for 2
    const tally = async (id: string): Promise<Record<string, string>> => (await json<{ tally: Record<string, string> }>(['query', 'gov', 'tally', id])).tally;
    const t1 = await tally('1');
    assert.ok(BigInt(t1.yes_count) > 0n && t1.no_count === '0', JSON.stringify(t1));
    const t2 = await tally('2');
    assert.equal(BigInt(t2.yes_count) * 4n, BigInt(t2.no_count) * 6n, JSON.stringify(t2));
    assert.equal(BigInt(t2.yes_count) + BigInt(t2.no_count), BigInt(t1.yes_count));
    const tallyText = await ok(['query', 'gov', 'tally', '2', ...net()]);
    assert.match(tallyText.stdout, /^tally:\n {2}yes_count: "\d+"\n {2}abstain_count: "0"\n {2}no_count: "\d+"\n {2}no_with_veto_count: "0"\n$/);

    const params = await json<{ params: { voting_period: string; min_deposit: unknown[] }; voting_params: unknown }>(['query', 'gov', 'params']);
    assert.equal(params.params.voting_period, '3600s');
    assert.equal(params.voting_params, null);
    const voting = await json<{ voting_params: { voting_period: string } }>(['query', 'gov', 'params', 'voting']);
    assert.equal(voting.voting_params.voting_period, '3600s');
  });

  test('broadcast-mode async answers before the block, with the hash; the tx then lands; balances and accounts', async () => {
    const r = await ok(['tx', 'bank', 'send', 'alice', carol, '7stake', ...keyring(), '--broadcast-mode', 'async']);
    const res = JSON.parse(r.stdout) as TxResponse;
    assert.equal(res.code, 0);
    assert.equal(res.height, '0', 'async does not wait for CheckTx or the block');
    assert.match(res.txhash, /^[0-9A-F]{64}$/);
    let landed: { height: string; code: number } | undefined;
    for (let i = 0; i < 100 && landed === undefined; i++) {
      const q = await chaind(['query', 'tx', res.txhash, ...net(), '-o', 'json']);
      if (q.code === 0) landed = JSON.parse(q.stdout) as { height: string; code: number };
      else {
        assert.match(q.stderr, /not found/);
        await new Promise((s) => setTimeout(s, 200));
      }
    }
    assert.equal(landed?.code, 0);

    assert.deepEqual(await json(['query', 'bank', 'balances', carol]), {
      balances: [{ denom: 'stake', amount: '7' }],
      pagination: { next_key: '', total: '1' },
    });
    assert.equal(
      (await ok(['query', 'bank', 'balances', carol, ...net()])).stdout,
      'balances:\n- denom: stake\n  amount: "7"\npagination:\n  next_key: ""\n  total: "1"\n',
    );
    assert.deepEqual(await json(['query', 'bank', 'balances', carol, '--denom', 'stake']), { denom: 'stake', amount: '7' });
    assert.deepEqual(await json(['query', 'bank', 'balances', carol, '--denom', 'atom']), { denom: 'atom', amount: '0' });

    const alice = await json<{ account: { '@type': string; address: string; pub_key: { '@type': string }; sequence: string } }>([
      'query',
      'auth',
      'account',
      addr.alice,
    ]);
    assert.equal(alice.account['@type'], '/cosmos.auth.v1beta1.BaseAccount');
    assert.equal(alice.account.address, addr.alice);
    assert.equal(alice.account.pub_key['@type'], '/cosmos.crypto.secp256k1.PubKey');
    assert.equal(alice.account.sequence, '3', 'submit-proposal, deposit, send');
  });

  test('bad inputs: one clear line each, exit 1', async () => {
    const file = (content: unknown): string => {
      const f = join(tmpDir(), 'p.json');
      writeFileSync(f, typeof content === 'string' ? content : JSON.stringify(content));
      return f;
    };
    const submit = (f: string): string[] => ['tx', 'gov', 'submit-proposal', f, ...signed('alice')];
    await fails(submit('/nonexistent/p.json'), ['Error: cannot read proposal file /nonexistent/p.json: no such file']);
    const weird = file({ messages: [{ '@type': '/cosmos.staking.v1beta1.MsgDelegate' }], title: 't' });
    await fails(submit(weird), [
      `Error: invalid proposal file ${weird}: messages[0]: unknown message type "/cosmos.staking.v1beta1.MsgDelegate"; known: /chain.upgrade.v1beta1.MsgCancelUpgrade, `,
    ]);
    const untyped = file({ messages: [{ authority: GOV }], title: 't' });
    await fails(submit(untyped), [`Error: invalid proposal file ${untyped}: messages[0] has no "@type"`]);
    const badField = file({ messages: [{ '@type': SEND, to: 'x' }], title: 't' });
    await fails(submit(badField), [`Error: invalid proposal file ${badField}: messages[0] (${SEND}): `, '"to"']);
    const typo = file({ messages: [], title: 't', initial_deposit: '1stake' });
    await fails(submit(typo), [
      `Error: invalid proposal file ${typo}: unknown field "initial_deposit"; expected messages, metadata, deposit, title, summary, expedited`,
    ]);
    const noTitle = file({ messages: [] });
    await fails(submit(noTitle), [`Error: invalid proposal file ${noTitle}: "title" is required`]);
    const notJson = file('{');
    await fails(submit(notJson), [`Error: invalid proposal file ${notJson}: not JSON: `]);

    const weighted = (opts: string): string[] => ['tx', 'gov', 'weighted-vote', '1', opts, ...signed('validator')];
    await fails(weighted('yes=0.6,no=0.5'), ['Error: invalid weighted vote options "yes=0.6,no=0.5": total weight overflow 1.00']);
    await fails(weighted('yes=0.5'), ['Error: invalid weighted vote options "yes=0.5": total weight lower than 1.00']);
    await fails(weighted('yes=0.5,yes=0.5'), ['duplicated vote option']);
    await fails(weighted('maybe=1'), ['Error: invalid vote option "maybe": expected yes, no, abstain or no_with_veto']);
    await fails(weighted('yes'), ['Error: invalid weighted vote options "yes": expected option=weight pairs separated by commas, e.g. yes=0.6,no=0.4']);
    await fails(weighted('yes=abc'), ['Error: invalid weight "abc" for yes: ']);
    await fails(['tx', 'gov', 'deposit', 'one', '1stake', ...signed('alice')], ['Error: invalid proposal id "one": expected a non-negative integer']);
    await fails(['tx', 'gov', 'deposit', '1', '', ...signed('alice')], ['Error: deposit must not be empty']);

    await fails(['query', 'gov', 'proposal', '99', ...net()], ["proposal 99 doesn't exist"]);
    await fails(
      ['query', 'gov', 'proposals', '--status', 'open', ...net()],
      ['Error: invalid --status "open": expected deposit_period, voting_period, passed, rejected or failed'],
    );
    await fails(['query', 'gov', 'params', 'fees', ...net()], ['Error: invalid params type "fees": expected voting, tallying or deposit']);
    await fails(['query', 'auth', 'account', 'chain1nope', ...net()], ['Error: invalid address "chain1nope": ']);
    await fails(['query', 'bank', 'balances', addr.bob, '--limit', '-1', ...net()], ['Error: invalid --limit "-1": expected a non-negative integer']);
    await fails(
      ['query', 'bank', 'balances', addr.bob, '--height', '1', ...net()],
      [/^Error: this node keeps only the latest state \(height \d+\); --height 1 cannot be served$/m],
    );
    await fails(['query', 'tx', 'abc', ...net()], ['Error: invalid tx hash "abc": expected 64 hex characters']);
    await fails(['query', 'tx', 'AB'.repeat(32), ...net()], [`tx (${'AB'.repeat(32)}) not found`]);
    await fails(['query', 'block', '0', ...net()], ['Error: invalid height "0": expected a height > 0']);
    await fails(['query', 'block', '99999999', ...net()], ['height 99999999 must be less than or equal to the current blockchain height']);
  });
});

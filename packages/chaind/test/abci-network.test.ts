// Four validators, each a real `chaind start --with-comet=false` process, fed by the kit's CometBFT
// stand-in exactly the blocks a CometBFT network would decide (cometbft-v038.md §1.4–1.6): homes and
// genesis made with the CLI, InitChain, bank sends, a governance upgrade to v2 voted by the four
// operators, the halt of every v1 process at the plan's height, the v2 processes replaying that block
// in their handshake, and one process killed with -9 mid-block coming back to the same app hash.
import assert from 'node:assert/strict';
import { readFileSync } from 'node:fs';
import { join } from 'node:path';
import { after, before, describe, test } from 'node:test';
import { TxMsgData } from 'cosmjs-types/cosmos/base/abci/v1beta1/abci';
import { QueryBalanceRequest, QueryBalanceResponse } from 'cosmjs-types/cosmos/bank/v1beta1/query';
import { VoteOption } from 'cosmjs-types/cosmos/gov/v1/gov';
import { MsgSubmitProposal, MsgSubmitProposalResponse, MsgVote } from 'cosmjs-types/cosmos/gov/v1/tx';
import type { Any } from 'cosmjs-types/google/protobuf/any';
import { parseGenesis } from '@chaind/sdk/genesis';
import {
  QueryAppliedPlanRequest,
  QueryAppliedPlanResponse,
  QueryCurrentPlanRequest,
  QueryCurrentPlanResponse,
} from '@chaind/sdk/gen/chain/upgrade/v1beta1/query';
import type { Plan } from '@chaind/sdk/gen/chain/upgrade/v1beta1/upgrade';
import { sendMsg } from '@chaind/sdk/testing';
import { consensusAddress } from '@chaind/sdk/x/validators';
import {
  AbciNode,
  AppConnections,
  CometNetwork,
  DENOM,
  makeNetworkHomes,
  one,
  removeTmpDirs,
  softwareUpgrade,
  type NetworkHomes,
  type TestKey,
} from '@chaind/chaind/testing';

const CHAIN_ID = 'net-test-1';
/** The gov periods of the genesis (seconds): a block `advance`d past it ends the vote. */
const PERIOD = 10n;
/** The upgrade height. */
const H = 8n;

const hex = (b: Uint8Array): string => Buffer.from(b).toString('hex');

async function balance(c: AppConnections, address: string): Promise<bigint> {
  const r = await c.abciQuery('/cosmos.bank.v1beta1.Query/Balance', QueryBalanceRequest.encode({ address, denom: DENOM }).finish());
  assert.equal(r.code, 0, r.log);
  return BigInt(QueryBalanceResponse.decode(r.value).balance?.amount ?? '0');
}

async function currentPlan(c: AppConnections): Promise<Plan | undefined> {
  const r = await c.abciQuery('/chain.upgrade.v1beta1.Query/CurrentPlan', QueryCurrentPlanRequest.encode({}).finish());
  assert.equal(r.code, 0, r.log);
  return QueryCurrentPlanResponse.decode(r.value).plan;
}

async function appliedPlan(c: AppConnections, name: string): Promise<bigint> {
  const r = await c.abciQuery('/chain.upgrade.v1beta1.Query/AppliedPlan', QueryAppliedPlanRequest.encode({ name }).finish());
  assert.equal(r.code, 0, r.log);
  return QueryAppliedPlanResponse.decode(r.value).height;
}

/** The highest `committed block height=` a node logged (0 if none). */
const lastCommitted = (log: string): bigint => [...log.matchAll(/committed block height=(\d+)/g)].reduce((m, x) => (BigInt(x[1]) > m ? BigInt(x[1]) : m), 0n);

describe('a 4-validator network of chaind processes behind CometBFT', { timeout: 120_000 }, () => {
  let homes: NetworkHomes;
  let net: CometNetwork;
  const nodes: AbciNode[] = [];
  let alice: TestKey;
  let bob: TestKey;
  const conn = (i: number): AppConnections => {
    const c = net.apps[i];
    assert.ok(c !== undefined, `app ${i} is connected`);
    return c;
  };

  /** Starts node i's process as `release` and connects CometBFT's four connections to it. */
  async function startNode(i: number, release: string): Promise<void> {
    const n = AbciNode.start(homes.homes[i], { release });
    nodes[i] = n;
    net.apps[i] = await AppConnections.open(await n.address);
  }

  /** A tx of `key` at its committed sequence (+ offset) as node i's state has it. */
  const sign = (i: number, key: TestKey, msgs: Any[], offset = 0n): Promise<Uint8Array> => conn(i).signTx(key, msgs, CHAIN_ID, offset);

  before(async () => {
    // the simulated CometBFT (kit/network.ts) runs no ExtendVote and injects no extended commit: extensions off
    homes = await makeNetworkHomes({ chainId: CHAIN_ID, nodes: 4, users: ['alice', 'bob'], govPeriod: `${PERIOD}s`, voteExtensions: false });
    alice = homes.users.alice;
    bob = homes.users.bob;
    const validators = homes.consensusKeys.map((k) => ({ address: consensusAddress(k), power: 10n }));
    net = new CometNetwork([undefined, undefined, undefined, undefined], { genesis: parseGenesis(homes.genesisText), validators });
    await Promise.all([0, 1, 2, 3].map((i) => startNode(i, 'v1')));
  });

  after(async () => {
    await Promise.all(net?.apps.map((a) => a?.close()) ?? []);
    await AbciNode.killAll();
    removeTmpDirs();
  });

  test('InitChain on every node agrees on the app hash and the four genesis validators', async () => {
    for (let i = 0; i < 4; i++) {
      assert.equal((await conn(i).info()).lastBlockHeight, 0n);
      assert.deepEqual(await net.handshake(i), [], 'nothing to replay');
      // the app tells CometBFT the validator set (in its own order): the four nodes' consensus keys
      const vals = net.initChainResponses[i]?.validators ?? [];
      const got = vals.map((v) => `${hex(v.pubKey?.ed25519 ?? new Uint8Array(0))}:${v.power}`).sort();
      assert.deepEqual(got, homes.consensusKeys.map((k) => `${hex(k)}:10`).sort());
    }
    // the first block commits genesis state everywhere; Info then reports it
    const b1 = await net.block();
    for (let i = 0; i < 4; i++) {
      const info = await conn(i).info();
      assert.equal(info.lastBlockHeight, 1n);
      assert.equal(hex(info.lastBlockAppHash), hex(b1.results[0].appHash));
    }
  });

  let proposalId = 0n;
  test('bank sends and an upgrade proposal, submitted to different nodes, land in one block with the same results everywhere', async () => {
    const before = await balance(conn(3), bob.address);
    const send = await sign(1, alice, [sendMsg(alice.address, bob.address, '250')]);
    const propose = await sign(1, alice, [proposal(alice.address, softwareUpgrade('v2', H, 'network test'))], 1n);
    const back = await sign(2, bob, [sendMsg(bob.address, alice.address, '50')]);
    for (const [i, tx] of [
      [1, send],
      [1, propose],
      [2, back],
    ] as const)
      assert.equal((await net.submit(i, tx)).code, 0);
    const b = await net.block();
    assert.equal(b.request.txs.length, 3);
    for (const r of b.results)
      assert.deepEqual(
        r.txResults.map((t) => [t.code, t.log]),
        b.results[0].txResults.map((t) => [t.code, t.log]),
      );
    for (const t of b.results[0].txResults) assert.equal(t.code, 0, t.log);
    const pIndex = b.request.txs.findIndex((t) => hex(t) === hex(propose));
    proposalId = MsgSubmitProposalResponse.decode(TxMsgData.decode(b.results[0].txResults[pIndex].data).msgResponses[0].value).proposalId;
    for (let i = 0; i < 4; i++) assert.equal(await balance(conn(i), bob.address), before + 200n, `bob's balance on node ${i}`);
  });

  test('the four operators vote yes, each through its own node; when the voting period ends the plan is set on every node', async () => {
    for (let i = 0; i < 4; i++) {
      const op = homes.operators[i];
      const vote = await sign(i, op, [
        {
          typeUrl: '/cosmos.gov.v1.MsgVote',
          value: MsgVote.encode({ proposalId, voter: op.address, option: VoteOption.VOTE_OPTION_YES, metadata: '' }).finish(),
        },
      ]);
      assert.equal((await net.submit(i, vote)).code, 0);
    }
    const votes = await net.block();
    assert.equal(votes.request.txs.length, 4);
    for (const t of votes.results[0].txResults) assert.equal(t.code, 0, t.log);
    assert.equal(await currentPlan(conn(0)), undefined, 'not before the voting period ends');
    await net.block({ advance: PERIOD + 1n });
    for (let i = 0; i < 4; i++) {
      const plan = await currentPlan(conn(i));
      assert.equal(plan?.name, 'v2', `node ${i}`);
      assert.equal(plan?.height, H);
    }
    while (net.height < H - 1n) await net.block();
  });

  test('at the plan height every v1 node answers FinalizeBlock with an exception, writes the same upgrade-info.json and exits with code 10', async () => {
    const { request, outcomes } = await net.finalizeOnly();
    assert.equal(request.height, H);
    assert.equal(outcomes.length, 4);
    for (const o of outcomes) {
      assert.ok(o instanceof Error, 'an exception, not a response');
      assert.match(o.message, /exception: .*UPGRADE "v2" NEEDED at height: 8/);
    }
    const exits = await Promise.all(nodes.map((n) => n.exited));
    for (let i = 0; i < 4; i++) {
      assert.deepEqual(exits[i], { code: 10, signal: null }, nodes[i].log());
      assert.match(nodes[i].log(), /UPGRADE "v2" NEEDED at height: 8: network test/);
      assert.equal(lastCommitted(nodes[i].log()), H - 1n, 'block H is not committed');
    }
    const infos = homes.homes.map((h) => readFileSync(join(h, 'data', 'upgrade-info.json')));
    for (const f of infos.slice(1)) assert.ok(f.equals(infos[0]), `identical upgrade-info.json:\n${infos[0].toString()}\n${f.toString()}`);
    assert.deepEqual(JSON.parse(infos[0].toString()), { name: 'v2', time: '0001-01-01T00:00:00Z', height: Number(H), info: 'network test' });
    await Promise.all(net.apps.map((a) => a?.close()));
  });

  test('the v2 nodes report H-1, replay block H in their handshake to one app hash, and go on agreeing with the upgrade applied', async () => {
    await Promise.all([0, 1, 2, 3].map((i) => startNode(i, 'v2')));
    for (let i = 0; i < 4; i++) {
      assert.equal((await conn(i).info()).lastBlockHeight, H - 1n);
      assert.deepEqual(await net.handshake(i), [H]);
    }
    assert.equal((await conn(0).info()).lastBlockHeight, H);
    const tx = await sign(0, bob, [sendMsg(bob.address, alice.address, '3')]);
    assert.equal((await net.submit(0, tx)).code, 0);
    for (let k = 0; k < 3; k++) await net.block();
    for (let i = 0; i < 4; i++) {
      assert.equal(await appliedPlan(conn(i), 'v2'), H, `node ${i}`);
      assert.equal(await currentPlan(conn(i)), undefined);
      assert.equal((await conn(i).info()).lastBlockHeight, H + 3n);
    }
  });

  test('a node killed with -9 between FinalizeBlock and Commit comes back through the handshake replay to the same app hash', async () => {
    const victim = 3;
    const tx = await sign(0, alice, [sendMsg(alice.address, bob.address, '11')]);
    assert.equal((await net.submit(0, tx)).code, 0);
    // the block is decided and committed by the other three; the victim executes it and dies before Commit
    const b = await net.block({ skip: [victim] });
    assert.equal(b.request.txs.length, 1);
    const inFlight = await one(conn(victim).consensus, { finalizeBlock: b.request }, 'finalizeBlock');
    assert.equal(hex(inFlight.appHash), hex(b.results[0].appHash));
    assert.deepEqual(await nodes[victim].kill('SIGKILL'), { code: null, signal: 'SIGKILL' });
    await conn(victim).close();
    net.apps[victim] = undefined;
    await net.block();
    await net.block();
    await startNode(victim, 'v2');
    assert.equal((await conn(victim).info()).lastBlockHeight, b.request.height - 1n, 'the uncommitted block is not there');
    assert.deepEqual(await net.handshake(victim), [b.request.height, b.request.height + 1n, b.request.height + 2n]);
    const last = await net.block();
    assert.equal(last.results.length, 4);
    for (let i = 0; i < 4; i++) {
      const info = await conn(i).info();
      assert.equal(info.lastBlockHeight, last.request.height);
      assert.equal(hex(info.lastBlockAppHash), hex(last.results[0].appHash));
    }
    assert.equal(await balance(conn(victim), bob.address), await balance(conn(0), bob.address));
  });
});

function proposal(proposer: string, ...messages: Any[]): Any {
  const msg = MsgSubmitProposal.fromPartial({
    messages,
    initialDeposit: [{ denom: DENOM, amount: '1000' }],
    proposer,
    title: 'upgrade to v2',
    summary: 'upgrade to v2',
  });
  return { typeUrl: '/cosmos.gov.v1.MsgSubmitProposal', value: MsgSubmitProposal.encode(msg).finish() };
}

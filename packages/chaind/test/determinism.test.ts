// Every replica given the same blocks reaches the same app hash and halts at the same height
// (docs/architecture.md "Determinism rules"; issue 4). Four independent applications, each with its own LMDB
// directory, are fed identical pseudo-random blocks: sends, proposals, votes and an upgrade.
import assert from 'node:assert/strict';
import { after, test } from 'node:test';
import { TxMsgData } from 'cosmjs-types/cosmos/base/abci/v1beta1/abci';
import { VoteOption } from 'cosmjs-types/cosmos/gov/v1/gov';
import { MsgSubmitProposal, MsgSubmitProposalResponse, MsgVote } from 'cosmjs-types/cosmos/gov/v1/tx';
import type { Any } from 'cosmjs-types/google/protobuf/any';
import type { ResponseFinalizeBlock } from 'cosmjs-types/tendermint/abci/types';
import { toHex } from '@chaind/sdk/store';
import { UpgradeHaltError } from '@chaind/sdk/x/upgrade';
import { ALICE, BOB, DENOM, newHome, PASSED, removeTmpDirs, softwareUpgrade, TestChain, type TestKey, upgradeV2, VALIDATOR } from '@chaind/chaind/testing';
import { seededRandom } from '@chaind/upgrade-plan/testing';

after(removeTmpDirs);

const REPLICAS = 4;
const KEYS: readonly TestKey[] = [VALIDATOR, ALICE, BOB];

test('four replicas agree on the app hash at every height, halt at the same height, and agree after the upgrade', async () => {
  const rnd = seededRandom(20261121);
  const pick = <T>(xs: readonly T[]): T => xs[Math.floor(rnd() * xs.length)];
  const homes = Array.from({ length: REPLICAS }, () => newHome());
  let nodes = homes.map((h) => TestChain.open(h));
  const lead = (): TestChain => nodes[0];
  let compared = 0;

  /** The same block on every replica: all commit with one app hash, or all halt with one error. */
  function step(txs: Uint8Array[], advance = 1n): ResponseFinalizeBlock | 'halt' {
    const results = nodes.map((n): { key: string; res?: ResponseFinalizeBlock } => {
      try {
        const res = n.block(txs, advance);
        return { key: `ok ${n.height} ${toHex(res.appHash)} ${res.txResults.map((r) => r.code).join(',')}`, res };
      } catch (e) {
        assert.ok(e instanceof UpgradeHaltError, (e as Error).stack);
        return { key: `halt ${n.height} ${e.message}` };
      }
    });
    assert.equal(new Set(results.map((r) => r.key)).size, 1, `replicas diverged:\n${results.map((r) => r.key).join('\n')}`);
    compared++;
    return results[0].res ?? 'halt';
  }

  /** Random sends (some overdrawn, so some fail); a sender's txs carry consecutive sequences. */
  function randomSends(): Uint8Array[] {
    const txs: Uint8Array[] = [];
    const used = new Map<string, bigint>();
    const n = Math.floor(rnd() * 5);
    for (let i = 0; i < n; i++) {
      const from = pick(KEYS);
      const to = pick(KEYS.filter((k) => k !== from));
      const offset = used.get(from.address) ?? 0n;
      used.set(from.address, offset + 1n);
      const amount = rnd() < 0.1 ? '999999999999' : String(1 + Math.floor(rnd() * 1000));
      txs.push(lead().send(from, to.address, amount, offset));
    }
    return txs;
  }

  function propose(messages: Any[]): bigint {
    const m = MsgSubmitProposal.fromPartial({
      messages,
      initialDeposit: [{ denom: DENOM, amount: '1000' }],
      proposer: ALICE.address,
      title: 't',
      summary: 's',
    });
    const res = step([lead().tx(ALICE, [{ typeUrl: '/cosmos.gov.v1.MsgSubmitProposal', value: MsgSubmitProposal.encode(m).finish() }])]);
    assert.ok(res !== 'halt' && res.txResults[0].code === 0, 'proposal submitted');
    return MsgSubmitProposalResponse.decode(TxMsgData.decode(res.txResults[0].data).msgResponses[0].value).proposalId;
  }

  function vote(id: bigint, option: VoteOption): void {
    step([
      lead().tx(VALIDATOR, [
        { typeUrl: '/cosmos.gov.v1.MsgVote', value: MsgVote.encode({ proposalId: id, voter: VALIDATOR.address, option, metadata: '' }).finish() },
      ]),
    ]);
  }

  for (let i = 0; i < 10; i++) step(randomSends());
  const h = lead().height + 40n;
  const rejected = propose([softwareUpgrade('never', h + 200n)]);
  vote(rejected, VoteOption.VOTE_OPTION_NO);
  const upgrade = propose([softwareUpgrade('v2', h)]);
  vote(upgrade, VoteOption.VOTE_OPTION_YES);

  // random traffic (with uneven block times) until every replica halts, at the plan height
  let res: ResponseFinalizeBlock | 'halt';
  do {
    assert.ok(lead().height < h, 'the replicas must halt at the plan height');
    res = step(randomSends(), 1n + BigInt(Math.floor(rnd() * 3)));
  } while (res !== 'halt');
  for (const n of nodes) assert.equal(n.height, h - 1n);
  assert.equal(lead().proposal(upgrade).status, PASSED);
  assert.notEqual(lead().proposal(rejected).status, PASSED);
  await Promise.all(nodes.map((n) => n.close()));

  // the new binary on every replica: the handler runs at h, and they still agree
  nodes = homes.map((home) => TestChain.open(home, { upgrades: [upgradeV2()] }));
  for (let i = 0; i < 10; i++) assert.notEqual(step(randomSends()), 'halt');
  for (const n of nodes) assert.equal(n.height, h + 9n);
  assert.ok(compared > 50, `compared ${compared} blocks`);
  await Promise.all(nodes.map((n) => n.close()));
});

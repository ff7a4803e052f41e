// CosmJS' StargateClient and SigningStargateClient against a live solo node through the RPC server:
// queries, a bank send and a gov proposal carrying our MsgSoftwareUpgrade, both with fee "auto"
// (gas estimated by the Simulate query), delivered and visible afterwards.
import assert from 'node:assert/strict';
import { after, before, describe, test } from 'node:test';
import { DirectSecp256k1HdWallet, Registry, type GeneratedType } from '@cosmjs/proto-signing';
import { assertIsDeliverTxSuccess, defaultRegistryTypes, GasPrice, QueryClient, SigningStargateClient, StargateClient } from '@cosmjs/stargate';
import { connectComet } from '@cosmjs/tendermint-rpc';
import { QueryProposalRequest, QueryProposalResponse } from 'cosmjs-types/cosmos/gov/v1/query';
import { ProposalStatus } from 'cosmjs-types/cosmos/gov/v1/gov';
import { MsgSubmitProposal, MsgSubmitProposalResponse } from 'cosmjs-types/cosmos/gov/v1/tx';
import { MsgSoftwareUpgrade } from '@chaind/sdk/gen/chain/upgrade/v1beta1/tx';
import { GOV_AUTHORITY } from '../src/app.ts';
import { BOB, CHAIN_ID, DENOM, removeTmpDirs, testKey, TestNode } from '@chaind/chaind/testing';

const MNEMONIC = 'surround miss nominee dream gap cross assault thank captain prosper drop duty group candy wealth weather scale put';
const UPGRADE_TYPE = '/chain.upgrade.v1beta1.MsgSoftwareUpgrade';
const PROPOSAL_TYPE = '/cosmos.gov.v1.MsgSubmitProposal';
const FUNDS = 1_000_000_000n;

let node: TestNode;
let wallet: DirectSecp256k1HdWallet;
let sender: string;
const clients: { disconnect(): void }[] = [];

before(
  async () => {
    wallet = await DirectSecp256k1HdWallet.fromMnemonic(MNEMONIC, { prefix: 'chain' });
    [{ address: sender }] = await wallet.getAccounts();
    node = await TestNode.start({ extraAccounts: [sender] });
  },
  { timeout: 30_000 },
);

after(
  async () => {
    for (const c of clients) c.disconnect();
    await node?.stop();
    removeTmpDirs();
  },
  { timeout: 30_000 },
);

async function connect(): Promise<StargateClient> {
  const c = await StargateClient.connect(node.url);
  clients.push(c);
  return c;
}

describe('StargateClient over the RPC server', { timeout: 60_000 }, () => {
  test('chain id, height, balances, accounts, blocks', { timeout: 30_000 }, async () => {
    const c = await connect();
    assert.equal(await c.getChainId(), CHAIN_ID);
    const h = await c.getHeight();
    assert.ok(h >= 2 && BigInt(h) <= node.driver.height, `height ${h}`);

    assert.deepEqual(await c.getBalance(sender, DENOM), { denom: DENOM, amount: FUNDS.toString() });
    assert.deepEqual(await c.getBalance(sender, 'nothing'), { denom: 'nothing', amount: '0' });
    assert.deepEqual(await c.getAllBalances(BOB.address), [{ denom: DENOM, amount: FUNDS.toString() }]);

    const acc = await c.getAccount(sender);
    assert.ok(acc !== null);
    assert.equal(acc.address, sender);
    // genesis order: VALIDATOR, ALICE, BOB, then the extra accounts
    assert.equal(acc.accountNumber, 3n);
    assert.equal(acc.sequence, 0);
    assert.equal(await c.getAccount(testKey(9).address), null, 'an unknown account is null, not an error');

    const first = await c.getBlock(1);
    assert.equal(first.header.height, 1);
    assert.equal(first.header.chainId, CHAIN_ID);
    assert.equal(
      first.id,
      Buffer.from(node.blockStore.blockId(1n)?.hash ?? [])
        .toString('hex')
        .toUpperCase(),
    );
    assert.equal(first.txs.length, 0);
    const latest = await c.getBlock();
    assert.ok(latest.header.height >= h);
    assert.equal(
      latest.id,
      Buffer.from(node.blockStore.blockId(BigInt(latest.header.height))?.hash ?? [])
        .toString('hex')
        .toUpperCase(),
    );
  });
});

describe('SigningStargateClient over the RPC server', { timeout: 60_000 }, () => {
  test('a bank send and a gov proposal carrying MsgSoftwareUpgrade, fee "auto": delivered and visible', { timeout: 60_000 }, async () => {
    const registry = new Registry(defaultRegistryTypes);
    // our ts-proto 2 type: its BinaryWriter is @bufbuild/protobuf's ESM build, CosmJS' type names the CJS one
    registry.register(UPGRADE_TYPE, MsgSoftwareUpgrade as unknown as GeneratedType);
    assert.ok(registry.lookupType(PROPOSAL_TYPE) !== undefined, 'gov v1 MsgSubmitProposal is among CosmJS defaults');
    const s = await SigningStargateClient.connectWithSigner(node.url, wallet, {
      registry,
      gasPrice: GasPrice.fromString(`0.025${DENOM}`),
      broadcastPollIntervalMs: 200,
      broadcastTimeoutMs: 20_000,
    });
    clients.push(s);
    const bobBefore = BigInt((await s.getBalance(BOB.address, DENOM)).amount);
    const senderBefore = BigInt((await s.getBalance(sender, DENOM)).amount);

    // gas "auto" goes through abci_query /cosmos.tx.v1beta1.Service/Simulate
    const sendMsg = {
      typeUrl: '/cosmos.bank.v1beta1.MsgSend',
      value: { fromAddress: sender, toAddress: BOB.address, amount: [{ denom: DENOM, amount: '12345' }] },
    };
    const gas = await s.simulate(sender, [sendMsg], '');
    assert.ok(gas > 0, `simulated gas ${gas}`);

    const sent = await s.sendTokens(sender, BOB.address, [{ denom: DENOM, amount: '12345' }], 'auto', 'via rpc');
    assertIsDeliverTxSuccess(sent);
    assert.ok(sent.gasUsed > 0n && sent.gasWanted >= sent.gasUsed, `gas used ${sent.gasUsed}, wanted ${sent.gasWanted}`);
    assert.ok(BigInt(sent.height) <= node.driver.height);
    assert.equal(BigInt((await s.getBalance(BOB.address, DENOM)).amount), bobBefore + 12345n);
    const fee = senderBefore - 12345n - BigInt((await s.getBalance(sender, DENOM)).amount);
    // the fee is gas wanted × 0.025, rounded up: "auto" is the simulated gas times 1.4
    assert.equal(fee, (sent.gasWanted * 25n + 999n) / 1000n);
    assert.ok(sent.gasWanted >= BigInt(Math.floor(gas * 1.3)), 'gas wanted is the estimate with headroom');

    // the tx is found by hash and by its sender's events
    const got = await s.getTx(sent.transactionHash);
    assert.ok(got !== null);
    assert.equal(got.height, sent.height);
    assert.equal(got.code, 0);
    const bySender = await s.searchTx([{ key: 'message.sender', value: sender }]);
    assert.ok(
      bySender.some((t) => t.hash === sent.transactionHash),
      'searchTx by message.sender finds the send',
    );

    const planHeight = node.driver.height + 10_000n;
    const proposal = {
      typeUrl: PROPOSAL_TYPE,
      value: MsgSubmitProposal.fromPartial({
        messages: [
          registry.encodeAsAny({
            typeUrl: UPGRADE_TYPE,
            value: { authority: GOV_AUTHORITY, plan: { name: 'v2', height: planHeight, info: '{"binaries":{}}' } },
          }),
        ],
        initialDeposit: [{ denom: DENOM, amount: '1000' }],
        proposer: sender,
        title: 'upgrade to v2',
        summary: 'submitted through the JSON-RPC server',
      }),
    };
    const submitted = await s.signAndBroadcast(sender, [proposal], 'auto');
    assertIsDeliverTxSuccess(submitted);
    const [resp] = submitted.msgResponses;
    assert.equal(resp.typeUrl, '/cosmos.gov.v1.MsgSubmitProposalResponse');
    const proposalId = MsgSubmitProposalResponse.decode(resp.value).proposalId;

    const comet = await connectComet(node.url);
    clients.push(comet);
    const q = new QueryClient(comet);
    const res = await q.queryAbci('/cosmos.gov.v1.Query/Proposal', QueryProposalRequest.encode({ proposalId }).finish());
    assert.ok(res.height > 0);
    const p = QueryProposalResponse.decode(res.value).proposal;
    assert.ok(p !== undefined);
    assert.equal(p.id, proposalId);
    assert.equal(p.proposer, sender);
    assert.equal(p.status, ProposalStatus.PROPOSAL_STATUS_VOTING_PERIOD, 'the minimum deposit opened the voting period');
    assert.equal(p.messages.length, 1);
    assert.equal(p.messages[0].typeUrl, UPGRADE_TYPE);
    const plan = MsgSoftwareUpgrade.decode(p.messages[0].value).plan;
    assert.equal(plan?.name, 'v2');
    assert.equal(plan?.height, planHeight);
    assert.equal((await s.getAccount(sender))?.sequence, 2);
  });

  test("a wallet that exists only in its owner's hands: funded by a send, it has an account and can spend at once", { timeout: 60_000 }, async () => {
    const fresh = await DirectSecp256k1HdWallet.generate(12, { prefix: 'chain' });
    const [{ address }] = await fresh.getAccounts();
    const opts = { gasPrice: GasPrice.fromString(`0.025${DENOM}`), broadcastPollIntervalMs: 200, broadcastTimeoutMs: 20_000 };
    const funder = await SigningStargateClient.connectWithSigner(node.url, wallet, opts);
    clients.push(funder);
    assert.equal(await funder.getAccount(address), null);
    assertIsDeliverTxSuccess(await funder.sendTokens(sender, address, [{ denom: DENOM, amount: '500000' }], 'auto'));
    // as the SDK's bank: the send created the account (a number, sequence 0, no key until it signs)
    const acc = await funder.getAccount(address);
    assert.ok(acc !== null, 'the funded address has an account');
    assert.equal(acc.sequence, 0);
    assert.equal(acc.pubkey, null);

    const spender = await SigningStargateClient.connectWithSigner(node.url, fresh, opts);
    clients.push(spender);
    const back = await spender.sendTokens(address, BOB.address, [{ denom: DENOM, amount: '1000' }], 'auto');
    assertIsDeliverTxSuccess(back);
    const after = await spender.getAccount(address);
    assert.equal(after?.accountNumber, acc.accountNumber);
    assert.equal(after?.sequence, 1);
    assert.ok(after?.pubkey !== null, 'its first tx set its public key');
  });
});

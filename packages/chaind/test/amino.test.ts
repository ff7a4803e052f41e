// SIGN_MODE_LEGACY_AMINO_JSON (Ledger devices, amino wallets): CosmJS's amino signer (`Secp256k1Wallet`
// from @cosmjs/amino) with SigningStargateClient against a live solo node through the RPC server. A
// bank send, a gov v1 proposal carrying our MsgSoftwareUpgrade, a vote, a deposit, a weighted vote and
// a proposal to cancel are accepted; a tx whose contents differ from the amino doc signed is refused.
import assert from 'node:assert/strict';
import { after, before, describe, test } from 'node:test';
import { Secp256k1Wallet } from '@cosmjs/amino';
import { Registry } from '@cosmjs/proto-signing';
import { assertIsDeliverTxSuccess, BroadcastTxError, defaultRegistryTypes, GasPrice, QueryClient, SigningStargateClient } from '@cosmjs/stargate';
import { connectComet } from '@cosmjs/tendermint-rpc';
import { AuthInfo, TxBody, TxRaw } from 'cosmjs-types/cosmos/tx/v1beta1/tx';
import { SignMode } from 'cosmjs-types/cosmos/tx/signing/v1beta1/signing';
import { ProposalStatus, VoteOption } from 'cosmjs-types/cosmos/gov/v1/gov';
import { QueryProposalRequest, QueryProposalResponse, QueryVoteRequest, QueryVoteResponse } from 'cosmjs-types/cosmos/gov/v1/query';
import { MsgSubmitProposal, MsgSubmitProposalResponse } from 'cosmjs-types/cosmos/gov/v1/tx';
import { MsgSoftwareUpgrade } from '@chaind/sdk/gen/chain/upgrade/v1beta1/tx';
import { GOV_AUTHORITY } from '../src/app.ts';
import {
  BOB,
  CANCEL_UPGRADE_TYPE_URL,
  chainAminoTypes,
  DENOM,
  registerUpgradeTypes,
  removeTmpDirs,
  testKey,
  TestNode,
  UPGRADE_TYPE_URL,
} from '@chaind/chaind/testing';

const PROPOSAL_TYPE = '/cosmos.gov.v1.MsgSubmitProposal';
const KEY = testKey(7);
const FEE = { amount: [{ denom: DENOM, amount: '10000' }], gas: '400000' };

let node: TestNode;
let sender: string;
let client: SigningStargateClient;
const clients: { disconnect(): void }[] = [];

before(
  async () => {
    const wallet = await Secp256k1Wallet.fromKey(KEY.privateKey, 'chain');
    [{ address: sender }] = await wallet.getAccounts();
    node = await TestNode.start({ extraAccounts: [sender] });
    const registry = registerUpgradeTypes(new Registry(defaultRegistryTypes));
    // an amino-only signer: every tx below is signed SIGN_MODE_LEGACY_AMINO_JSON
    client = await SigningStargateClient.connectWithSigner(node.url, wallet, {
      registry,
      aminoTypes: chainAminoTypes(registry),
      gasPrice: GasPrice.fromString(`0.025${DENOM}`),
      broadcastPollIntervalMs: 200,
      broadcastTimeoutMs: 20_000,
    });
    clients.push(client);
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

async function query<T>(path: string, data: Uint8Array, decode: (b: Uint8Array) => T): Promise<T> {
  const comet = await connectComet(node.url);
  clients.push(comet);
  const res = await new QueryClient(comet).queryAbci(path, data);
  return decode(res.value);
}

function proposalOf(msg: { typeUrl: string; value: unknown }, registry: Registry, title: string): { typeUrl: string; value: MsgSubmitProposal } {
  return {
    typeUrl: PROPOSAL_TYPE,
    value: MsgSubmitProposal.fromPartial({
      messages: [registry.encodeAsAny(msg)],
      initialDeposit: [{ denom: DENOM, amount: '1000' }],
      proposer: sender,
      title,
      summary: 'signed with SIGN_MODE_LEGACY_AMINO_JSON & <escaped>',
    }),
  };
}

describe('SIGN_MODE_LEGACY_AMINO_JSON with CosmJS amino signer', { timeout: 90_000 }, () => {
  test('a bank send is signed amino JSON and accepted', { timeout: 30_000 }, async () => {
    const bobBefore = BigInt((await client.getBalance(BOB.address, DENOM)).amount);
    const sent = await client.sendTokens(sender, BOB.address, [{ denom: DENOM, amount: '777' }], FEE, 'amino <memo> & more');
    assertIsDeliverTxSuccess(sent);
    assert.equal(BigInt((await client.getBalance(BOB.address, DENOM)).amount), bobBefore + 777n);
    const got = await client.getTx(sent.transactionHash);
    assert.ok(got !== null);
    const mode = AuthInfo.decode(TxRaw.decode(got.tx).authInfoBytes).signerInfos[0].modeInfo?.single?.mode;
    assert.equal(mode, SignMode.SIGN_MODE_LEGACY_AMINO_JSON, 'the wallet signed amino JSON');
  });

  test('a proposal carrying MsgSoftwareUpgrade, a vote, a weighted vote and a deposit are accepted', { timeout: 60_000 }, async () => {
    const registry = registerUpgradeTypes(new Registry(defaultRegistryTypes));
    const planHeight = node.driver.height + 10_000n;
    const upgrade = { typeUrl: UPGRADE_TYPE_URL, value: { authority: GOV_AUTHORITY, plan: { name: 'v2', height: planHeight, info: '{"binaries":{}}' } } };
    // fee "auto": gas is simulated, then the amino doc signed
    const submitted = await client.signAndBroadcast(sender, [proposalOf(upgrade, registry, 'upgrade to v2')], 'auto');
    assertIsDeliverTxSuccess(submitted);
    const proposalId = MsgSubmitProposalResponse.decode(submitted.msgResponses[0].value).proposalId;
    const p = await query(
      '/cosmos.gov.v1.Query/Proposal',
      QueryProposalRequest.encode({ proposalId }).finish(),
      (b) => QueryProposalResponse.decode(b).proposal,
    );
    assert.equal(p?.status, ProposalStatus.PROPOSAL_STATUS_VOTING_PERIOD);
    assert.equal(p?.messages[0].typeUrl, UPGRADE_TYPE_URL);
    assert.equal(MsgSoftwareUpgrade.decode(p?.messages[0].value ?? new Uint8Array()).plan?.height, planHeight);

    const vote = { typeUrl: '/cosmos.gov.v1.MsgVote', value: { proposalId, voter: sender, option: VoteOption.VOTE_OPTION_YES, metadata: '' } };
    assertIsDeliverTxSuccess(await client.signAndBroadcast(sender, [vote], FEE));
    const voted = await query(
      '/cosmos.gov.v1.Query/Vote',
      QueryVoteRequest.encode({ proposalId, voter: sender }).finish(),
      (b) => QueryVoteResponse.decode(b).vote,
    );
    assert.deepEqual(
      voted?.options.map((o) => o.option),
      [VoteOption.VOTE_OPTION_YES],
    );

    const weighted = {
      typeUrl: '/cosmos.gov.v1.MsgVoteWeighted',
      value: {
        proposalId,
        voter: sender,
        options: [
          { option: VoteOption.VOTE_OPTION_YES, weight: '0.700000000000000000' },
          { option: VoteOption.VOTE_OPTION_ABSTAIN, weight: '0.300000000000000000' },
        ],
        metadata: 'changed my mind',
      },
    };
    const deposit = { typeUrl: '/cosmos.gov.v1.MsgDeposit', value: { proposalId, depositor: sender, amount: [{ denom: DENOM, amount: '100' }] } };
    assertIsDeliverTxSuccess(await client.signAndBroadcast(sender, [weighted, deposit], FEE));
    const reVoted = await query(
      '/cosmos.gov.v1.Query/Vote',
      QueryVoteRequest.encode({ proposalId, voter: sender }).finish(),
      (b) => QueryVoteResponse.decode(b).vote,
    );
    assert.deepEqual(
      reVoted?.options.map((o) => o.option),
      [VoteOption.VOTE_OPTION_YES, VoteOption.VOTE_OPTION_ABSTAIN],
    );

    const cancel = { typeUrl: CANCEL_UPGRADE_TYPE_URL, value: { authority: GOV_AUTHORITY } };
    assertIsDeliverTxSuccess(await client.signAndBroadcast(sender, [proposalOf(cancel, registry, 'cancel v2')], FEE));
  });

  test('a tx whose body differs from the amino doc signed is refused with code 4', { timeout: 30_000 }, async () => {
    const before = await client.getSequence(sender);
    const signed = await client.sign(
      sender,
      [{ typeUrl: '/cosmos.bank.v1beta1.MsgSend', value: { fromAddress: sender, toAddress: BOB.address, amount: [{ denom: DENOM, amount: '1' }] } }],
      FEE,
      'original',
    );
    const body = TxBody.decode(signed.bodyBytes);
    const tampered = TxRaw.encode({ ...signed, bodyBytes: TxBody.encode({ ...body, memo: 'tampered' }).finish() }).finish();
    const err = await client.broadcastTxSync(tampered).then(
      () => undefined,
      (e: unknown) => e,
    );
    assert.ok(err instanceof BroadcastTxError, `refused at CheckTx: ${String(err)}`);
    assert.equal(err.code, 4);
    assert.equal(err.codespace, 'sdk');
    assert.match(err.log ?? '', /signature verification failed/);
    assert.equal((await client.getSequence(sender)).sequence, before.sequence, 'nothing was charged');
  });
});

// Interop: transactions built and signed by CosmJS (DirectSecp256k1HdWallet, Registry, makeAuthInfoBytes,
// makeSignDoc) are accepted byte for byte by the chaind application — including a governance proposal
// carrying our own chain.upgrade message type registered in CosmJS' Registry.
import assert from 'node:assert/strict';
import { after, describe, test } from 'node:test';
import { DirectSecp256k1HdWallet, Registry, encodePubkey, makeAuthInfoBytes, makeSignDoc, type EncodeObject, type GeneratedType } from '@cosmjs/proto-signing';
import { QueryBalanceRequest, QueryBalanceResponse } from 'cosmjs-types/cosmos/bank/v1beta1/query';
import { MsgSend } from 'cosmjs-types/cosmos/bank/v1beta1/tx';
import { TxMsgData } from 'cosmjs-types/cosmos/base/abci/v1beta1/abci';
import { MsgSubmitProposal, MsgSubmitProposalResponse } from 'cosmjs-types/cosmos/gov/v1/tx';
import { SignDoc, TxRaw } from 'cosmjs-types/cosmos/tx/v1beta1/tx';
import { CheckTxType, type ExecTxResult } from 'cosmjs-types/tendermint/abci/types';
import { signDirect } from '@chaind/sdk/crypto';
import { privateKeyFromMnemonic } from '@chaind/sdk/crypto/mnemonic';
import { QueryCurrentPlanRequest, QueryCurrentPlanResponse } from '@chaind/sdk/gen/chain/upgrade/v1beta1/query';
import { MsgSoftwareUpgrade } from '@chaind/sdk/gen/chain/upgrade/v1beta1/tx';
import { GOV_AUTHORITY } from '../src/app.ts';
import { BOB, CHAIN_ID, DENOM, newHome, PASSED, PERIOD, removeTmpDirs, TestChain } from '@chaind/chaind/testing';

after(removeTmpDirs);

const MNEMONIC = 'surround miss nominee dream gap cross assault thank captain prosper drop duty group candy wealth weather scale put';
const SEND_TYPE = '/cosmos.bank.v1beta1.MsgSend';
const PROPOSAL_TYPE = '/cosmos.gov.v1.MsgSubmitProposal';
const UPGRADE_TYPE = '/chain.upgrade.v1beta1.MsgSoftwareUpgrade';
const GAS = 400_000;
const FEE = [{ denom: DENOM, amount: '4000' }];

// cosmjs-types' bank and gov messages plus our ts-proto 2 generated upgrade message
const registry = new Registry([
  [SEND_TYPE, MsgSend],
  [PROPOSAL_TYPE, MsgSubmitProposal],
  // our ts-proto type: same runtime shape, nominally different BinaryWriter type (see proto.test.ts)
  [UPGRADE_TYPE, MsgSoftwareUpgrade as unknown as GeneratedType],
]);

function balance(c: TestChain, address: string): bigint {
  const r = c.query('/cosmos.bank.v1beta1.Query/Balance', QueryBalanceRequest.encode({ address, denom: DENOM }).finish());
  assert.equal(r.code, 0, r.log);
  return BigInt(QueryBalanceResponse.decode(r.value).balance?.amount ?? '0');
}

function currentPlan(c: TestChain): { name: string; height: bigint; info: string } | undefined {
  const r = c.query('/chain.upgrade.v1beta1.Query/CurrentPlan', QueryCurrentPlanRequest.encode({}).finish());
  assert.equal(r.code, 0, r.log);
  const p = QueryCurrentPlanResponse.decode(r.value).plan;
  return p === undefined ? undefined : { name: p.name, height: p.height, info: p.info };
}

const check = (c: TestChain, tx: Uint8Array): ExecTxResult => c.app.checkTx({ tx, type: CheckTxType.NEW }) as ExecTxResult;

describe('CosmJS-signed transactions', () => {
  test('a bank send and a gov proposal carrying MsgSoftwareUpgrade pass CheckTx and FinalizeBlock; the plan is scheduled; a tampered byte is refused', async () => {
    const wallet = await DirectSecp256k1HdWallet.fromMnemonic(MNEMONIC, { prefix: 'chain' });
    const [acct] = await wallet.getAccounts();
    const c = TestChain.open(newHome(), { extraAccounts: [acct.address] });
    const { accountNumber, sequence } = c.account(acct.address);
    assert.equal(sequence, 0n);
    const pubkey = encodePubkey({ type: 'tendermint/PubKeySecp256k1', value: Buffer.from(acct.pubkey).toString('base64') });

    /** CosmJS end to end: Registry-encoded body, makeAuthInfoBytes, makeSignDoc, wallet.signDirect, TxRaw. */
    const sign = async (messages: EncodeObject[], seq: number): Promise<{ tx: Uint8Array; signDoc: Uint8Array }> => {
      const bodyBytes = registry.encode({ typeUrl: '/cosmos.tx.v1beta1.TxBody', value: { messages, memo: 'signed by cosmjs' } });
      const authInfoBytes = makeAuthInfoBytes([{ pubkey, sequence: seq }], FEE, GAS, undefined, undefined);
      const doc = makeSignDoc(bodyBytes, authInfoBytes, CHAIN_ID, Number(accountNumber));
      const { signed, signature } = await wallet.signDirect(acct.address, doc);
      const tx = TxRaw.encode({
        bodyBytes: signed.bodyBytes,
        authInfoBytes: signed.authInfoBytes,
        signatures: [Buffer.from(signature.signature, 'base64')],
      }).finish();
      return { tx, signDoc: SignDoc.encode(doc).finish() };
    };

    // (a) bank MsgSend
    const AMOUNT = 987_654n;
    const send = await sign(
      [
        {
          typeUrl: SEND_TYPE,
          value: MsgSend.fromPartial({ fromAddress: acct.address, toAddress: BOB.address, amount: [{ denom: DENOM, amount: AMOUNT.toString() }] }),
        },
      ],
      0,
    );
    // CosmJS and our native signer produce the very same signature (RFC 6979, low S) from the same key
    const key = privateKeyFromMnemonic(MNEMONIC);
    assert.deepEqual(TxRaw.decode(send.tx).signatures[0], signDirect(key, send.signDoc));

    const before = { sender: balance(c, acct.address), bob: balance(c, BOB.address) };
    assert.equal(before.sender, 1_000_000_000n, 'the wallet is funded at genesis');

    // a tampered byte: the amount's last digit in the signed body (987654 -> 987655)
    const digits = Buffer.from(AMOUNT.toString());
    const at = Buffer.from(send.tx).indexOf(digits);
    assert.ok(at > 0 && Buffer.from(send.tx).indexOf(digits, at + 1) === -1, 'the amount occurs once in the tx');
    const tampered = Uint8Array.from(send.tx);
    tampered[at + digits.length - 1] ^= 0x01;
    // and a flipped bit in the signature itself (the last byte of the tx)
    const badSig = Uint8Array.from(send.tx);
    badSig[badSig.length - 1] ^= 0x01;
    for (const [what, bad] of [
      ['body byte', tampered],
      ['signature byte', badSig],
    ] as const) {
      const r = check(c, bad);
      assert.equal(r.code, 4, `${what}: ${r.log}`);
      assert.equal(r.codespace, 'sdk');
      assert.match(r.log, /^signature verification failed; .*: unauthorized$/, what);
      // nor in a block: no fee taken, no sequence used
      const b = c.block([bad]).txResults[0];
      assert.equal(b.code, 4, `${what} in a block: ${b.log}`);
      assert.deepEqual({ sender: balance(c, acct.address), bob: balance(c, BOB.address) }, before, `${what}: balances unchanged`);
      assert.equal(c.account(acct.address).sequence, 0n);
    }

    const sendCheck = check(c, send.tx);
    assert.equal(sendCheck.code, 0, sendCheck.log);
    const sendRes = c.block([send.tx]).txResults[0];
    assert.equal(sendRes.code, 0, sendRes.log);
    assert.equal(balance(c, acct.address), before.sender - AMOUNT - 4000n);
    assert.equal(balance(c, BOB.address), before.bob + AMOUNT);
    assert.equal(c.account(acct.address).sequence, 1n);

    // (b) gov v1 MsgSubmitProposal carrying our MsgSoftwareUpgrade (authority: the gov module account)
    const height = c.height + 40n;
    const upgrade = { authority: GOV_AUTHORITY, plan: { name: 'v2', height, info: '{"binaries":{}}' } };
    const inner = registry.encodeAsAny({ typeUrl: UPGRADE_TYPE, value: upgrade });
    const proposal = await sign(
      [
        {
          typeUrl: PROPOSAL_TYPE,
          value: MsgSubmitProposal.fromPartial({
            messages: [inner],
            initialDeposit: [{ denom: DENOM, amount: '1000' }],
            proposer: acct.address,
            title: 'upgrade to v2',
            summary: 'via cosmjs',
          }),
        },
      ],
      1,
    );
    const propCheck = check(c, proposal.tx);
    assert.equal(propCheck.code, 0, propCheck.log);
    const propRes = c.block([proposal.tx]).txResults[0];
    assert.equal(propRes.code, 0, propRes.log);
    const id = MsgSubmitProposalResponse.decode(TxMsgData.decode(propRes.data).msgResponses[0].value).proposalId;

    const stored = c.proposal(id);
    assert.equal(stored.proposer, acct.address);
    assert.equal(stored.messages.length, 1);
    assert.equal(stored.messages[0].typeUrl, UPGRADE_TYPE);
    assert.deepEqual(stored.messages[0].value, inner.value, 'our message, byte for byte');
    assert.deepEqual(registry.decode(stored.messages[0]), MsgSoftwareUpgrade.fromPartial(upgrade));
    assert.equal(currentPlan(c), undefined, 'nothing is scheduled before the proposal passes');

    c.vote(id);
    c.block([], PERIOD);
    assert.equal(c.proposal(id).status, PASSED, c.proposal(id).failedReason);
    assert.deepEqual(currentPlan(c), { name: 'v2', height, info: '{"binaries":{}}' });
    await c.close();
  });
});

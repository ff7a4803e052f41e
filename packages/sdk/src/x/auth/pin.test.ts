// Pins what consensus sees of standard bank sends through the real auth ante handler and the real bank
// module: gas used, events and the app hash after each block, in CheckTx and FinalizeBlock. The figures
// were recorded before the fast codecs and the leaner ante/bank paths: any change to gas, state bytes
// or events fails here.
import assert from 'node:assert/strict';
import { createHash } from 'node:crypto';
import { after, describe, test } from 'node:test';
import { CheckTxType, type Event, type ResponseFinalizeBlock } from 'cosmjs-types/tendermint/abci/types';
import { BaseApp, ModuleManager } from '../../app/index.ts';
import { CommitMultiStore, utf8 } from '../../store/index.ts';
import { decodeTx, encodeTx, type DecodedTx, type TxSigner, type UnsignedTx } from '../../tx/index.ts';
import { bankModule } from '../bank/index.ts';
import { newAnteHandler } from './ante.ts';
import { AccountKeeper } from './keeper.ts';
import { FEE_COLLECTOR_NAME } from './keys.ts';
import { authModule } from './module.ts';
import { blockRequest, removeTmpDirs, sendMsg, testKey, tmpDir } from '@chaind/sdk/testing';

after(removeTmpDirs);

const CHAIN = 'pin-1';
const alice = testKey(0);
const bob = testKey(1);
const carol = testKey(2); // never funded

function pinApp(): { app: BaseApp<DecodedTx>; block: (txs: Uint8Array[]) => ResponseFinalizeBlock; close: () => Promise<void> } {
  const ak = new AccountKeeper({ moduleAccounts: { [FEE_COLLECTOR_NAME]: [] } });
  const bank = bankModule({ accounts: ak });
  const mm = new ModuleManager([authModule({ keeper: ak }), bank]);
  const app = new BaseApp<DecodedTx>({
    name: 'pin',
    version: '0.0.1',
    store: CommitMultiStore.open(tmpDir()),
    modules: mm,
    txDecoder: decodeTx,
    chainId: CHAIN,
  });
  app.setAnteHandler(
    newAnteHandler({
      accountKeeper: ak,
      msgRouter: mm.msgRouter,
      // as chaind wires it
      deductFee: bank.keeper.deductFeeTo(FEE_COLLECTOR_NAME),
    }),
  );
  app.load();
  const funded = [alice.address, bob.address];
  const appState = {
    auth: { accounts: funded.map((address) => ({ '@type': '/cosmos.auth.v1beta1.BaseAccount', address, pub_key: null, account_number: '0', sequence: '0' })) },
    bank: {
      balances: funded.map((address) => ({
        address,
        coins: [
          { denom: 'atom', amount: '5000' },
          { denom: 'stake', amount: '1000000' },
        ],
      })),
    },
  };
  app.initChain({ time: { seconds: 0n, nanos: 0 }, chainId: CHAIN, validators: [], appStateBytes: utf8(JSON.stringify(appState)), initialHeight: 1n });
  let height = 0n;
  const block = (txs: Uint8Array[]): ResponseFinalizeBlock => {
    height++;
    const res = app.finalizeBlock(blockRequest(height, 1_000n + height, txs));
    app.commit();
    return res;
  };
  block([]);
  return { app, block, close: () => app.store.close() };
}

const tx = (k: typeof alice, o: Partial<UnsignedTx>, s: Partial<TxSigner>, to = bob.address, amount = '10'): Uint8Array =>
  encodeTx(
    { msgs: [sendMsg(k.address, to, amount)], fee: { amount: [{ denom: 'stake', amount: '200' }], gasLimit: 200_000n }, ...o },
    [{ privateKey: k.privateKey, accountNumber: k === alice ? 0n : 1n, sequence: 0n, ...s }],
    CHAIN,
  );

/** Events as one comparable digest (sha256 of their JSON): type, key, value, index of every attribute. */
const eventsDigest = (events: readonly Event[]): string =>
  createHash('sha256')
    .update(JSON.stringify(events.map((e) => [e.type, e.attributes.map((a) => [a.key, a.value, a.index])])))
    .digest('hex');

const hex = (b: Uint8Array): string => Buffer.from(b).toString('hex');

describe('bank sends through CheckTx and FinalizeBlock: pinned gas, events and app hash', () => {
  test('first send (key set), second send (key on chain), two-denom fee, failing message, ante failure', async () => {
    const t = pinApp();
    const txs = [
      tx(alice, {}, {}),
      tx(alice, { memo: 'second' }, { sequence: 1n, omitPubKey: true }),
      tx(
        bob,
        {
          fee: {
            amount: [
              { denom: 'atom', amount: '3' },
              { denom: 'stake', amount: '7' },
            ],
            gasLimit: 150_000n,
          },
        },
        {},
        carol.address,
        '999',
      ),
      // passes the ante handler, fails in its message: insufficient funds
      tx(alice, {}, { sequence: 2n, omitPubKey: true }, bob.address, '999999999'),
      // wrong sequence: an ante failure
      tx(bob, {}, { sequence: 5n, omitPubKey: true }),
    ];
    const checks = txs.map((bytes) => t.app.checkTx({ tx: bytes, type: CheckTxType.NEW }));
    const res = t.block(txs);
    const summary = {
      check: checks.map((r) => [r.code, r.log, r.gasUsed.toString(), eventsDigest(r.events)]),
      finalize: res.txResults.map((r) => [r.code, r.log, r.gasUsed.toString(), eventsDigest(r.events)]),
      appHash: hex(res.appHash),
    };
    assert.deepEqual(summary, PINNED);
    await t.close();
  });
});

const PINNED = {
  // re-recorded when a send began creating the recipient's account, as the SDK's: the send to carol +13,380 gas
  check: [
    [0, '', '23946', 'f879f07d85b5f65842b1a3aef15504b7634182bb559406d2357323eaa1d6fd5c'],
    [0, '', '23551', 'b764ae9dcbc4fff2b45bc8107af467a8d5a431c5a281a53218e62ba8eaa04127'],
    [0, '', '33089', '55d11a7425dfc4f210d0e4fc85357bb6422a689ef6431eb9279a61c911bd8ca6'],
    [0, '', '23541', '62567e3bf3b1d7f6bf800fe0d4c5ae162a8edb889843708ec64cb905c7f36720'],
    [
      32,
      'account sequence mismatch, expected 1, got 5: incorrect account sequence',
      '16167',
      '4f53cda18c2baa0c0354bb5f9a3ecbe5ed12ab4d8e11ba873c2f11161202b945',
    ],
  ],
  finalize: [
    [0, '', '36283', 'caf7615e56f1bdbb467347103691f745e072a9960d85ef3514e39ce78c06684c'],
    [0, '', '35888', '3c2dad5fd61692df33a308dba7fd64cb21cd2bd346c4998bd08e5daca6ded9a4'],
    [0, '', '57701', 'de52141dc9f972631a4ca106f668cf790246f4c5f2b25b97bfa434fb59b17bbe'],
    [
      5,
      'spendable balance 999380stake is smaller than 999999999stake: insufficient funds',
      '26667',
      '62567e3bf3b1d7f6bf800fe0d4c5ae162a8edb889843708ec64cb905c7f36720',
    ],
    [
      32,
      'account sequence mismatch, expected 1, got 5: incorrect account sequence',
      '16167',
      '4f53cda18c2baa0c0354bb5f9a3ecbe5ed12ab4d8e11ba873c2f11161202b945',
    ],
  ],
  // the app hash of this state under the store-hash encoding of store/hash.ts's nextStoreHash (re-recorded when
  // that encoding became lengths ‖ keys ‖ values, and when carol's send began creating her account)
  appHash: 'ca1fdeb8354b6e7ad1a87cf41b6b26063ecbe40c262addbc11b6cb0813d1c788',
};

// Test support for x/auth and its ante handler (not used by production code): a real BaseApp over
// LMDB with auth and "ledger", a tiny balance module whose MsgSend (cosmjs-types' bank MsgSend) must
// be signed by its sender. The real bank module is separate; this one only keeps balances.
import { MsgSend, MsgSendResponse } from 'cosmjs-types/cosmos/bank/v1beta1/tx';
import type { Coin as ProtoCoin } from 'cosmjs-types/cosmos/base/v1beta1/coin';
import type { Any } from 'cosmjs-types/google/protobuf/any';
import type { ResponseFinalizeBlock, ResponseQuery } from 'cosmjs-types/tendermint/abci/types';
import { BaseApp, Context, ModuleManager, errors, registerError, type AppModule } from '@chaind/sdk/app';
import { CommitMultiStore, utf8 } from '@chaind/sdk/store';
import { decodeTx, type DecodedTx } from '@chaind/sdk/tx';
import { AccountKeeper, authModule, FEE_COLLECTOR_NAME, newAnteHandler, type Account } from '@chaind/sdk/x/auth';
import { blockRequest } from './block.ts';
import { DENOM, dumpStores, genesisAccounts, queryAccount } from './common.ts';
import { tmpDir } from './dirs.ts';

export const AUTH_CHAIN_ID = 'auth-test-1';
export const SEND_TYPE_URL = '/cosmos.bank.v1beta1.MsgSend';

export const ledgerError = registerError('authtest', 2, 'ledger refused');

const balanceKey = (address: string, denom: string): Uint8Array => utf8(`bal/${address}/${denom}`);

function balanceOf(ctx: Context, address: string, denom: string): bigint {
  const v = ctx.kvStore('ledger').get(balanceKey(address, denom));
  return v === undefined ? 0n : BigInt(Buffer.from(v).toString());
}

function move(ctx: Context, from: string, to: string, coins: readonly ProtoCoin[]): void {
  const store = ctx.kvStore('ledger');
  for (const c of coins) {
    const amount = BigInt(c.amount);
    const have = balanceOf(ctx, from, c.denom);
    if (have < amount) throw errors.insufficientFunds.wrap(`spendable balance ${have}${c.denom} is smaller than ${amount}${c.denom}`);
    store.set(balanceKey(from, c.denom), utf8(String(have - amount)));
    store.set(balanceKey(to, c.denom), utf8(String(balanceOf(ctx, to, c.denom) + amount)));
  }
}

interface LedgerGenesis {
  balances: { address: string; denom: string; amount: string }[];
}

function ledgerModule(ak: AccountKeeper): AppModule {
  return {
    name: 'ledger',
    storeKeys: ['ledger'],
    consensusVersion: 1n,
    defaultGenesis: (): LedgerGenesis => ({ balances: [] }),
    initGenesis(ctx, g) {
      for (const b of (g as LedgerGenesis).balances) ctx.kvStore('ledger').set(balanceKey(b.address, b.denom), utf8(b.amount));
    },
    registerServices(cfg) {
      cfg.msgRouter.register({
        typeUrl: SEND_TYPE_URL,
        codec: MsgSend,
        responseTypeUrl: '/cosmos.bank.v1beta1.MsgSendResponse',
        responseCodec: MsgSendResponse,
        signers: (msg: MsgSend) => [msg.fromAddress],
        validateBasic(msg: MsgSend) {
          if (msg.amount.length === 0) throw errors.invalidCoins.wrap('no coins to send');
        },
        handler(ctx: Context, msg: MsgSend) {
          move(ctx, msg.fromAddress, msg.toAddress, msg.amount);
          if (!ak.hasAccount(ctx, msg.toAddress)) ak.setAccount(ctx, ak.newAccountWithAddress(ctx, msg.toAddress));
          // a failure after the message wrote: its writes must vanish, the ante's must stay
          if (msg.amount.some((c) => c.amount === '666')) throw ledgerError.wrap('the number of the beast');
          return {};
        },
      });
    },
  };
}

/** Moves the fee to the fee collector's balance, as bank's DeductFees will. */
export function deductFee(ak: AccountKeeper): (ctx: Context, payer: string, fee: ProtoCoin[]) => void {
  return (ctx, payer, fee) => move(ctx, payer, ak.getModuleAccount(ctx, FEE_COLLECTOR_NAME).address, fee);
}

export interface TestApp {
  readonly app: BaseApp<DecodedTx>;
  readonly ak: AccountKeeper;
  /** Finalizes and commits the next block. */
  block(txs: Uint8Array[]): ResponseFinalizeBlock;
  balance(address: string, denom?: string): bigint;
  account(address: string): Account | undefined;
  query(path: string, data: Uint8Array): ResponseQuery;
  /** Every key and value of the auth and ledger stores (committed state), hex → hex. */
  dump(): Map<string, string>;
  close(): Promise<void>;
}

export interface TestAppOptions {
  readonly minGasPrices?: readonly { denom: string; amount: string }[];
  /** Addresses given an auth account and `balance` stake at genesis. */
  readonly funded?: readonly string[];
  readonly balance?: bigint;
  readonly authGenesis?: unknown;
}

/** Builds, loads and InitChains a test app, and commits an empty block 1 so genesis is committed state. */
export function testApp(o: TestAppOptions = {}): TestApp {
  const ak = new AccountKeeper({ moduleAccounts: { [FEE_COLLECTOR_NAME]: [] } });
  const mm = new ModuleManager([authModule({ keeper: ak }), ledgerModule(ak)]);
  const app = new BaseApp<DecodedTx>({
    name: 'authtest',
    version: '0.0.1',
    store: CommitMultiStore.open(tmpDir('chaind-auth-')),
    modules: mm,
    txDecoder: decodeTx,
    chainId: AUTH_CHAIN_ID,
  });
  app.setAnteHandler(newAnteHandler({ accountKeeper: ak, msgRouter: mm.msgRouter, deductFee: deductFee(ak), minGasPrices: o.minGasPrices }));
  app.load();
  const funded = o.funded ?? [];
  const appState = {
    auth: o.authGenesis ?? { accounts: genesisAccounts(funded) },
    ledger: { balances: funded.map((address) => ({ address, denom: DENOM, amount: String(o.balance ?? 1_000_000n) })) },
  };
  app.initChain({ time: { seconds: 0n, nanos: 0 }, chainId: AUTH_CHAIN_ID, validators: [], appStateBytes: utf8(JSON.stringify(appState)), initialHeight: 1n });
  let height = 0n;
  const query = (path: string, data: Uint8Array): ResponseQuery => app.query({ path, data, height: 0n, prove: false });
  const t: TestApp = {
    app,
    ak,
    block(txs) {
      height++;
      const res = app.finalizeBlock(blockRequest(height, 1_000n + height, txs));
      app.commit();
      return res;
    },
    balance(address, denom = DENOM) {
      const r = query('/store/ledger/key', balanceKey(address, denom));
      return r.value.length === 0 ? 0n : BigInt(Buffer.from(r.value).toString());
    },
    account: (address) => queryAccount(query, address),
    query,
    dump: () => dumpStores(app.store, ['auth', 'ledger']),
    close: () => app.store.close(),
  };
  t.block([]);
  return t;
}

export function sendMsg(from: string, to: string, amount: string, denom: string = DENOM): Any {
  return { typeUrl: SEND_TYPE_URL, value: MsgSend.encode({ fromAddress: from, toAddress: to, amount: [{ denom, amount }] }).finish() };
}

import assert from 'node:assert/strict';
import { mkdtempSync, rmSync } from 'node:fs';
import { tmpdir } from 'node:os';
import { join } from 'node:path';
import { after, describe, test } from 'node:test';
import {
  QueryAllBalancesRequest,
  QueryAllBalancesResponse,
  QueryBalanceRequest,
  QueryBalanceResponse,
  QueryParamsRequest,
  QueryParamsResponse,
  QuerySupplyOfRequest,
  QuerySupplyOfResponse,
  QueryTotalSupplyRequest,
  QueryTotalSupplyResponse,
} from 'cosmjs-types/cosmos/bank/v1beta1/query';
import { MsgSend } from 'cosmjs-types/cosmos/bank/v1beta1/tx';
import { TxBody } from 'cosmjs-types/cosmos/tx/v1beta1/tx';
import { BaseApp, Context, ModuleManager, errors, type AppModule, type Event, type Tx } from '../../app/index.ts';
import { DEFAULT_PREFIX, moduleAddress, toBech32 } from '../../crypto/index.ts';
import { CommitMultiStore, ScratchMultiStore, toHex, utf8 } from '../../store/index.ts';
import { addCoins, coinsToString, parseCoins, type Coin } from '../../types/index.ts';
import {
  BankKeeper,
  bankErrors,
  bankModule,
  balanceKey,
  supplyKey,
  MSG_SEND_TYPE_URL,
  type BankGenesisJSON,
  type BankModule,
  type BankModuleOptions,
} from './index.ts';
import { AccountKeeper, FEE_COLLECTOR_NAME, authModule } from '../auth/index.ts';
import { blockRequest } from '@chaind/sdk/testing';
import { errorMessage } from '@chaind/errors';

const dirs: string[] = [];
after(() => dirs.forEach((d) => rmSync(d, { recursive: true, force: true })));
function tmp(): string {
  const d = mkdtempSync(join(tmpdir(), 'chaind-bank-'));
  dirs.push(d);
  return d;
}

const addr = (n: number, len = 20): string => toBech32(DEFAULT_PREFIX, new Uint8Array(len).fill(n));
const alice = addr(1);
const bob = addr(2);
const carol = addr(3);
const contract = addr(4, 32);

/** Test txs as app.test.ts's: a TxBody of messages; real signed txs are the auth module's. */
const decodeTx = (bytes: Uint8Array): Tx => ({ msgs: TxBody.decode(bytes).messages, gasLimit: 10_000_000n });
const sendTx = (...msgs: MsgSend[]): Uint8Array =>
  TxBody.encode(TxBody.fromPartial({ messages: msgs.map((m) => ({ typeUrl: MSG_SEND_TYPE_URL, value: MsgSend.encode(m).finish() })) })).finish();
const send = (from: string, to: string, amount: string): MsgSend =>
  MsgSend.fromPartial({ fromAddress: from, toAddress: to, amount: parseCoins(amount).map((c) => ({ denom: c.denom, amount: c.amount.toString() })) });
const rawSend = (from: string, to: string, amount: { denom: string; amount: string }[]): MsgSend =>
  MsgSend.fromPartial({ fromAddress: from, toAddress: to, amount });

type BlockHook = (ctx: Context, bank: BankModule) => void;

/** A module with no state that runs a hook in some blocks' begin-blocker: mints and burns in real blocks. */
function hookModule(bank: BankModule, hooks: Map<bigint, BlockHook>): AppModule {
  return { name: 'hooks', storeKeys: [], consensusVersion: 1n, beginBlock: (ctx) => hooks.get(ctx.height)?.(ctx, bank) };
}

interface TestApp {
  app: BaseApp;
  bank: BankModule;
  accounts: AccountKeeper;
  hooks: Map<bigint, BlockHook>;
}

function makeApp(path = tmp(), opts: Omit<BankModuleOptions, 'accounts'> = {}): TestApp {
  const accounts = new AccountKeeper({ moduleAccounts: { [FEE_COLLECTOR_NAME]: [], gov: ['burner'], mint: ['minter', 'burner'], distribution: [] } });
  const bank = bankModule({ ...opts, accounts });
  const hooks = new Map<bigint, BlockHook>();
  const app = new BaseApp({
    name: 'banktest',
    version: '0.0.1',
    store: CommitMultiStore.open(path),
    modules: new ModuleManager([authModule({ keeper: accounts }), bank, hookModule(bank, hooks)]),
    txDecoder: decodeTx,
    chainId: 'test-1',
  });
  app.load();
  return { app, bank, accounts, hooks };
}

const time = (s: number): { seconds: bigint; nanos: number } => ({ seconds: BigInt(s), nanos: 0 });
function initChain(app: BaseApp, bank: unknown): Uint8Array {
  return app.initChain({ time: time(0), chainId: 'test-1', validators: [], appStateBytes: utf8(JSON.stringify({ bank })), initialHeight: 1n }).appHash;
}
function block(app: BaseApp, height: bigint, txs: Uint8Array[] = []) {
  const res = app.finalizeBlock(blockRequest(height, height, txs));
  app.commit();
  return res;
}

/** Reads committed state through a throw-away context. */
function withState<R>(app: BaseApp, fn: (ctx: Context) => R): R {
  const snap = app.store.snapshot();
  try {
    const ctx = new Context({
      store: new ScratchMultiStore(snap),
      header: { chainId: 'test-1', height: snap.height, time: time(0), proposerAddress: new Uint8Array(0) },
      mode: 'query',
    });
    return fn(ctx);
  } finally {
    snap.release();
  }
}

function query<Res>(app: BaseApp, method: string, data: Uint8Array, decode: (b: Uint8Array) => Res): Res {
  const r = app.query({ path: `/cosmos.bank.v1beta1.Query/${method}`, data, height: 0n, prove: false });
  assert.equal(r.code, 0, r.log);
  return decode(r.value);
}
const balanceOf = (app: BaseApp, address: string, denom = 'stake'): string =>
  query(app, 'Balance', QueryBalanceRequest.encode({ address, denom }).finish(), QueryBalanceResponse.decode).balance?.amount ?? 'none';
const allBalances = (app: BaseApp, address: string): string =>
  coinsToString(
    query(
      app,
      'AllBalances',
      QueryAllBalancesRequest.encode(QueryAllBalancesRequest.fromPartial({ address })).finish(),
      QueryAllBalancesResponse.decode,
    ).balances.map((c) => ({ denom: c.denom, amount: BigInt(c.amount) })),
  );

/** Sum of all balances must equal the total supply. */
function assertSupplyInvariant(app: BaseApp, bank: BankModule): Coin[] {
  return withState(app, (ctx) => {
    let sum: Coin[] = [];
    bank.keeper.iterateAllBalances(ctx, (_a, c) => {
      sum = addCoins(sum, [c]);
    });
    const supply = bank.keeper.getTotalSupply(ctx);
    assert.equal(coinsToString(supply), coinsToString(sum), 'total supply equals the sum of balances');
    return supply;
  });
}

const genesis = (balances: [string, string][], extra: Partial<BankGenesisJSON> = {}): BankGenesisJSON => ({
  params: { send_enabled: [], default_send_enabled: true },
  balances: balances.map(([address, coins]) => ({ address, coins: parseCoins(coins).map((c) => ({ denom: c.denom, amount: c.amount.toString() })) })),
  supply: [],
  denom_metadata: [],
  send_enabled: [],
  ...extra,
});

const attrs = (e: Event): Record<string, string> => Object.fromEntries(e.attributes.map((a) => [a.key, a.value]));

describe('genesis', () => {
  test('init then export round-trips; a chain started from the export has the same state', async () => {
    const { app, bank } = makeApp();
    const g = genesis(
      [
        [contract, '7stake'],
        [bob, '5atom,20stake'],
        [alice, '100stake'],
      ],
      { send_enabled: [{ denom: 'atom', enabled: false }] },
    );
    const hash1 = initChain(app, g);
    block(app, 1n);
    const exported = withState(app, (ctx) => bank.exportGenesis(ctx));
    // balances in address-byte order (alice 0x01.., bob 0x02.., contract 0x04.. of 32 bytes), supply summed
    assert.deepEqual(exported, {
      params: { send_enabled: [], default_send_enabled: true },
      balances: [
        { address: alice, coins: [{ denom: 'stake', amount: '100' }] },
        {
          address: bob,
          coins: [
            { denom: 'atom', amount: '5' },
            { denom: 'stake', amount: '20' },
          ],
        },
        { address: contract, coins: [{ denom: 'stake', amount: '7' }] },
      ],
      supply: [
        { denom: 'atom', amount: '5' },
        { denom: 'stake', amount: '127' },
      ],
      denom_metadata: [],
      send_enabled: [{ denom: 'atom', enabled: false }],
    });
    assert.equal(balanceOf(app, contract), '7');
    // state bytes: raw address key, canonical decimal value
    const raw = app.query({ path: '/store/bank/key', data: balanceKey(new Uint8Array(20).fill(1), 'stake'), height: 0n, prove: false });
    assert.equal(Buffer.from(raw.value).toString(), '100');
    const sup = app.query({ path: '/store/bank/key', data: supplyKey('stake'), height: 0n, prove: false });
    assert.equal(Buffer.from(sup.value).toString(), '127');
    await app.store.close();

    const again = makeApp();
    const hash2 = initChain(again.app, JSON.parse(JSON.stringify(exported)));
    assert.equal(toHex(hash2), toHex(hash1), 'the same state whatever the order of the genesis balances');
    block(again.app, 1n);
    assert.deepEqual(
      withState(again.app, (ctx) => again.bank.exportGenesis(ctx)),
      exported,
    );
    await again.app.store.close();
  });

  test('the default genesis is valid and empty; missing fields take defaults', async () => {
    const { app, bank } = makeApp();
    bank.validateGenesis?.(bank.defaultGenesis());
    initChain(app, { balances: [{ address: alice, coins: [{ denom: 'stake', amount: '1' }] }], supply: [{ denom: 'stake', amount: '1' }] });
    block(app, 1n);
    assert.equal(query(app, 'Params', QueryParamsRequest.encode({}).finish(), QueryParamsResponse.decode).params.defaultSendEnabled, true);
    await app.store.close();
  });

  test('invalid genesis is refused with an error naming the problem', async () => {
    const bank = bankModule({ accounts: new AccountKeeper() });
    const bad = (g: unknown, re: RegExp): void => assert.throws(() => bank.validateGenesis?.(g), re);
    const coin = (denom: string, amount: unknown): unknown => ({ denom, amount });
    const bal = (address: string, ...coins: unknown[]): unknown => ({ address, coins });
    bad([], /bank genesis: genesis must be an object/);
    bad({ balance: [] }, /unknown field "balance"/);
    bad({ balances: [bal(alice, coin('stake', '1')), bal(alice, coin('atom', '1'))] }, new RegExp(`duplicate balance for address ${alice}`));
    bad({ balances: [bal(alice, coin('stake', '1')), bal(alice.toUpperCase(), coin('atom', '1'))] }, /duplicate balance for address/);
    bad({ balances: [bal(alice, coin('stake', '-5'))] }, new RegExp(`balance of ${alice}: coin stake: invalid amount "-5"`));
    bad({ balances: [bal(alice, coin('stake', '1.5'))] }, new RegExp(`balance of ${alice}: coin stake: invalid amount "1.5"`));
    bad({ balances: [bal(alice, coin('stake', 5))] }, new RegExp(`balance of ${alice}: coin 0 amount must be a string`));
    bad({ balances: [bal(alice, coin('stake', '0'))] }, new RegExp(`balance of ${alice}: coin 0stake amount is not positive`));
    bad({ balances: [bal(alice, coin('stake', '1'), coin('atom', '1'))] }, new RegExp(`balance of ${alice}: denomination atom is not sorted`));
    bad({ balances: [bal(alice, coin('atom', '1'), coin('atom', '2'))] }, new RegExp(`balance of ${alice}: duplicate denomination atom`));
    bad({ balances: [bal(alice, coin('x', '1'))] }, new RegExp(`balance of ${alice}: invalid denom: x`));
    bad({ balances: [bal(alice, coin('stake', (2n ** 256n).toString()))] }, /exceeds 2\^256-1/);
    bad(
      { balances: [bal(alice, coin('stake', (2n ** 256n - 1n).toString())), bal(bob, coin('stake', '1'))] },
      new RegExp(`balance of ${bob}: coin amount overflow`),
    );
    bad({ balances: [{ address: alice, coins: [{ denom: 'stake', amount: '1', extra: 1 }] }] }, /unknown field "extra"/);
    bad(
      { balances: [bal('cosmos1qypqxpq9qcrsszg2pvxq6rs0zqg3yyc5lzv7xu', coin('stake', '1'))] },
      /balances\[0\]: invalid bech32 prefix .* expected "chain", got "cosmos"/,
    );
    bad(
      { balances: [bal(alice.slice(0, -1) + (alice.endsWith('q') ? 'p' : 'q'), coin('stake', '1'))] },
      /balances\[0\]: decoding bech32 address .* invalid checksum/,
    );
    bad({ balances: [bal('', coin('stake', '1'))] }, /balances\[0\]: decoding bech32 address ""/);
    bad({ balances: [{ address: 5, coins: [] }] }, /balances\[0\]\.address must be a string/);
    bad({ balances: [bal(alice, coin('stake', '10'))], supply: [coin('stake', '11')] }, /genesis supply is incorrect, expected 11stake, got 10stake/);
    bad({ balances: [bal(alice, coin('stake', '10'))], supply: [coin('stake', '10'), coin('atom', '1')] }, /not sorted/);
    bad({ balances: [bal(alice, coin('stake', '10'))], supply: [coin('stake', '0')] }, /supply: coin 0stake amount is not positive/);
    bad({ denom_metadata: [{}] }, /denom_metadata is not supported/);
    bad(
      {
        send_enabled: [
          { denom: 'stake', enabled: true },
          { denom: 'stake', enabled: false },
        ],
      },
      /duplicate send enabled found: 'stake'/,
    );
    bad({ send_enabled: [{ denom: 'stake', enabled: true }], params: { send_enabled: [{ denom: 'atom', enabled: true }] } }, /defined in both/);
    bad({ send_enabled: [{ denom: 's', enabled: true }] }, /send_enabled\[0\]: invalid denom: s/);
    bad({ params: { default_send_enabled: 'yes' } }, /params.default_send_enabled must be a boolean/);

    // and through InitChain, which leaves nothing behind
    const { app } = makeApp();
    assert.throws(() => initChain(app, { balances: [bal(alice, coin('stake', '-1'))] }), /invalid amount "-1"/);
    initChain(app, genesis([[alice, '1stake']]));
    await app.store.close();
  });
});

describe('MsgSend', () => {
  test('moves funds and emits the Cosmos events', async () => {
    const { app, bank } = makeApp();
    initChain(app, genesis([[alice, '5atom,100stake']]));
    block(app, 1n);
    const res = block(app, 2n, [sendTx(send(alice, bob, '2atom,30stake'))]);
    const [r] = res.txResults;
    assert.equal(r.code, 0, r.log);
    assert.equal(balanceOf(app, alice), '70');
    assert.equal(balanceOf(app, bob), '30');
    assert.equal(allBalances(app, bob), '2atom,30stake');
    assert.equal(allBalances(app, alice), '3atom,70stake');
    assert.deepEqual(
      r.events.map((e) => [e.type, attrs(e)]),
      [
        ['coin_spent', { spender: alice, amount: '2atom,30stake' }],
        ['coin_received', { receiver: bob, amount: '2atom,30stake' }],
        ['transfer', { recipient: bob, sender: alice, amount: '2atom,30stake' }],
        ['message', { sender: alice }],
      ],
    );
    assertSupplyInvariant(app, bank);
    // the whole balance may go; its key is then deleted, not stored as zero
    assert.equal(block(app, 3n, [sendTx(send(bob, carol, '2atom'))]).txResults[0].code, 0);
    assert.equal(allBalances(app, bob), '30stake');
    withState(app, (ctx) => assert.equal(ctx.store.getStore('bank').get(balanceKey(new Uint8Array(20).fill(2), 'atom')), undefined));
    await app.store.close();
  });

  test('a send to an address without an account creates it, with the next account number; a failed send creates none', async () => {
    const { app, accounts } = makeApp();
    initChain(app, genesis([[alice, '100stake']]));
    block(app, 1n);
    const accountOf = (address: string) => withState(app, (ctx) => accounts.getAccount(ctx, address));
    const nextNumber = withState(app, (ctx) => accounts.nextAccountNumber(ctx));
    assert.equal(accountOf(bob), undefined);
    // carol's send fails (she has nothing), so she gets no account; bob's succeeds, twice, and gets one
    const res = block(app, 2n, [sendTx(send(carol, bob, '1stake')), sendTx(send(alice, bob, '10stake')), sendTx(send(alice, bob, '5stake'))]);
    assert.deepEqual(
      res.txResults.map((r) => r.code),
      [5, 0, 0],
    );
    assert.deepEqual(accountOf(bob), { address: bob, pubKey: undefined, accountNumber: nextNumber, sequence: 0n });
    assert.equal(accountOf(carol), undefined);
    // the same order as the SDK's SendCoins: creating the account emits nothing
    assert.deepEqual(
      res.txResults[1].events.map((e) => e.type),
      ['coin_spent', 'coin_received', 'transfer', 'message'],
    );
    // a 32-byte address (a contract's) gets one too, with the number after bob's
    assert.equal(block(app, 3n, [sendTx(send(alice, contract, '1stake'))]).txResults[0].code, 0);
    assert.equal(accountOf(contract)?.accountNumber, nextNumber + 1n);
    await app.store.close();
  });

  test('insufficient funds fails the tx with code 5 and leaves every balance unchanged', async () => {
    const { app, bank } = makeApp();
    initChain(app, genesis([[alice, '5stake,100uatom']]));
    block(app, 1n);
    const res = block(app, 2n, [
      sendTx(send(alice, bob, '10stake')),
      sendTx(send(alice, bob, '10stake,50uatom')),
      sendTx(send(alice, bob, '1uatom'), send(alice, bob, '6stake')),
    ]);
    for (const r of res.txResults) {
      assert.equal(r.code, 5);
      assert.equal(r.codespace, 'sdk');
      assert.equal(
        r.log,
        'spendable balance 5stake is smaller than 10stake: insufficient funds'.replace('10stake', r === res.txResults[2] ? '6stake' : '10stake'),
      );
    }
    assert.equal(allBalances(app, alice), '5stake,100uatom');
    assert.equal(allBalances(app, bob), '');
    const empty = block(app, 3n, [sendTx(send(bob, alice, '1stake'))]).txResults[0];
    assert.equal(empty.log, 'spendable balance 0stake is smaller than 1stake: insufficient funds');
    assertSupplyInvariant(app, bank);
    await app.store.close();
  });

  test('module accounts like gov and fee_collector cannot receive', async () => {
    const { app } = makeApp();
    initChain(app, genesis([[alice, '100stake']]));
    block(app, 1n);
    const gov = moduleAddress('gov');
    const fees = moduleAddress('fee_collector');
    const res = block(app, 2n, [sendTx(send(alice, gov, '1stake')), sendTx(send(alice, fees, '1stake')), sendTx(send(alice, moduleAddress('bank'), '1stake'))]);
    assert.equal(res.txResults[0].code, errors.unauthorized.code);
    assert.equal(res.txResults[0].log, `${gov} is not allowed to receive funds: unauthorized`);
    assert.equal(res.txResults[1].log, `${fees} is not allowed to receive funds: unauthorized`);
    assert.equal(res.txResults[2].code, 0, 'an address not in the blocked list may receive');
    assert.equal(balanceOf(app, gov), '0');
    assert.equal(balanceOf(app, alice), '99');
    await app.store.close();
  });

  test('a custom blocked list replaces the default one', async () => {
    const { app } = makeApp(tmp(), { blockedAddresses: [carol] });
    initChain(app, genesis([[alice, '100stake']]));
    block(app, 1n);
    const res = block(app, 2n, [sendTx(send(alice, carol, '1stake')), sendTx(send(alice, moduleAddress('gov'), '1stake'))]);
    assert.equal(res.txResults[0].log, `${carol} is not allowed to receive funds: unauthorized`);
    assert.equal(res.txResults[1].code, 0);
    await app.store.close();
  });

  test('stateless checks: addresses of this chain, a non-empty valid coin set', async () => {
    const { app, bank } = makeApp();
    initChain(app, genesis([[alice, '100stake']]));
    block(app, 1n);
    const other = toBech32('cosmos', new Uint8Array(20).fill(1));
    const cases: [MsgSend, number, RegExp][] = [
      [rawSend('nope', bob, [{ denom: 'stake', amount: '1' }]), 7, /^invalid from address: decoding bech32 address "nope" failed: .*: invalid address$/],
      [
        rawSend(alice, other, [{ denom: 'stake', amount: '1' }]),
        7,
        /^invalid to address: invalid bech32 prefix .*expected "chain", got "cosmos": invalid address$/,
      ],
      [rawSend(alice, '', [{ denom: 'stake', amount: '1' }]), 7, /invalid to address/],
      [rawSend(alice, bob, []), 10, /^amount must not be empty: invalid coins$/],
      [rawSend(alice, bob, [{ denom: 'stake', amount: '0' }]), 10, /coin 0stake amount is not positive/],
      [rawSend(alice, bob, [{ denom: 'stake', amount: '-1' }]), 10, /invalid amount "-1"/],
      [rawSend(alice, bob, [{ denom: 'stake', amount: ' 1' }]), 10, /invalid amount " 1"/],
      [
        rawSend(alice, bob, [
          { denom: 'stake', amount: '1' },
          { denom: 'atom', amount: '1' },
        ]),
        10,
        /not sorted/,
      ],
      [
        rawSend(alice, bob, [
          { denom: 'stake', amount: '1' },
          { denom: 'stake', amount: '1' },
        ]),
        10,
        /duplicate denomination stake/,
      ],
      [rawSend(alice, bob, [{ denom: 's', amount: '1' }]), 10, /invalid denom: s/],
    ];
    const res = block(
      app,
      2n,
      cases.map(([m]) => sendTx(m)),
    );
    res.txResults.forEach((r, i) => {
      assert.equal(r.code, cases[i][1], `case ${i}: ${r.log}`);
      assert.match(r.log, cases[i][2]);
    });
    assert.equal(balanceOf(app, alice), '100');
    const route = app.modules.msgRouter.route(MSG_SEND_TYPE_URL);
    assert.deepEqual(route.signers?.(send(alice, bob, '1stake')), [alice]);
    assert.ok(bank.keeper instanceof BankKeeper);
    await app.store.close();
  });

  test('a denom with sending disabled is refused with bank code 5', async () => {
    const { app } = makeApp();
    initChain(app, genesis([[alice, '100stake,100atom']], { send_enabled: [{ denom: 'atom', enabled: false }] }));
    block(app, 1n);
    const res = block(app, 2n, [sendTx(send(alice, bob, '1atom')), sendTx(send(alice, bob, '1stake'))]);
    assert.equal(res.txResults[0].codespace, 'bank');
    assert.equal(res.txResults[0].code, bankErrors.sendDisabled.code);
    assert.equal(res.txResults[0].log, 'atom transfers are currently disabled: send transactions are disabled');
    assert.equal(res.txResults[1].code, 0);
    await app.store.close();

    const off = makeApp();
    initChain(
      off.app,
      genesis([[alice, '100stake']], { params: { send_enabled: [], default_send_enabled: false }, send_enabled: [{ denom: 'atom', enabled: true }] }),
    );
    block(off.app, 1n);
    assert.equal(block(off.app, 2n, [sendTx(send(alice, bob, '1stake'))]).txResults[0].code, bankErrors.sendDisabled.code);
    await off.app.store.close();
  });
});

describe('queries', () => {
  test('Balance, AllBalances, TotalSupply, SupplyOf through gRPC method paths; bad addresses are code 7', async () => {
    const { app } = makeApp();
    initChain(
      app,
      genesis([
        [alice, '5atom,100stake'],
        [bob, '1stake'],
      ]),
    );
    block(app, 1n);
    assert.deepEqual(query(app, 'Balance', QueryBalanceRequest.encode({ address: alice, denom: 'atom' }).finish(), QueryBalanceResponse.decode), {
      balance: { denom: 'atom', amount: '5' },
    });
    assert.deepEqual(query(app, 'Balance', QueryBalanceRequest.encode({ address: carol, denom: 'atom' }).finish(), QueryBalanceResponse.decode), {
      balance: { denom: 'atom', amount: '0' },
    });
    const all = query(
      app,
      'AllBalances',
      QueryAllBalancesRequest.encode(QueryAllBalancesRequest.fromPartial({ address: alice })).finish(),
      QueryAllBalancesResponse.decode,
    );
    assert.deepEqual(all.balances, [
      { denom: 'atom', amount: '5' },
      { denom: 'stake', amount: '100' },
    ]);
    assert.equal(all.pagination?.total, 2n);
    assert.equal(all.pagination?.nextKey.length, 0);
    const total = query(app, 'TotalSupply', QueryTotalSupplyRequest.encode({}).finish(), QueryTotalSupplyResponse.decode);
    assert.deepEqual(total.supply, [
      { denom: 'atom', amount: '5' },
      { denom: 'stake', amount: '101' },
    ]);
    assert.deepEqual(query(app, 'SupplyOf', QuerySupplyOfRequest.encode({ denom: 'stake' }).finish(), QuerySupplyOfResponse.decode).amount, {
      denom: 'stake',
      amount: '101',
    });
    assert.deepEqual(query(app, 'SupplyOf', QuerySupplyOfRequest.encode({ denom: 'nope' }).finish(), QuerySupplyOfResponse.decode).amount, {
      denom: 'nope',
      amount: '0',
    });

    const raw = (method: string, data: Uint8Array) => app.query({ path: `/cosmos.bank.v1beta1.Query/${method}`, data, height: 0n, prove: false });
    const badAddr = raw('Balance', QueryBalanceRequest.encode({ address: 'chain1nope', denom: 'stake' }).finish());
    assert.equal(badAddr.code, errors.invalidAddress.code);
    assert.equal(badAddr.codespace, 'sdk');
    assert.match(badAddr.log, /chain1nope/);
    const otherChain = raw(
      'AllBalances',
      QueryAllBalancesRequest.encode(QueryAllBalancesRequest.fromPartial({ address: toBech32('cosmos', new Uint8Array(20)) })).finish(),
    );
    assert.equal(otherChain.code, errors.invalidAddress.code);
    assert.equal(
      raw('AllBalances', QueryAllBalancesRequest.encode(QueryAllBalancesRequest.fromPartial({ address: '' })).finish()).code,
      errors.invalidAddress.code,
    );
    const badDenom = raw('Balance', QueryBalanceRequest.encode({ address: alice, denom: 'x' }).finish());
    assert.equal(badDenom.code, errors.invalidCoins.code);
    assert.match(badDenom.log, /invalid denom: x/);
    assert.deepEqual(
      app.modules.queryRouter.paths().filter((p) => p.startsWith('/cosmos.bank.')),
      ['AllBalances', 'Balance', 'Params', 'SpendableBalanceByDenom', 'SpendableBalances', 'SupplyOf', 'TotalSupply'].map(
        (m) => `/cosmos.bank.v1beta1.Query/${m}`,
      ),
    );
    await app.store.close();
  });
});

describe('keeper', () => {
  test('minting, burning and module-to-module sends give the module a module account; a call that fails creates none', async () => {
    const { app, accounts, hooks } = makeApp();
    initChain(app, genesis([[alice, '100stake']]));
    const coins = parseCoins;
    const failures: string[] = [];
    const fails = (f: () => void): void => {
      try {
        f();
      } catch (e) {
        failures.push(errorMessage(e));
      }
    };
    hooks.set(1n, (ctx, b) => {
      // each refused (insufficient funds) before anything is written: neither creates its module's account
      fails(() => b.keeper.sendCoinsFromModuleToModule(ctx, 'mint', 'distribution', coins('1stake')));
      fails(() => b.keeper.burnCoins(ctx, 'gov', coins('1stake')));
      b.keeper.mintCoins(ctx, 'mint', coins('10stake'));
      b.keeper.sendCoinsFromModuleToModule(ctx, 'mint', 'distribution', coins('4stake'));
    });
    block(app, 1n);
    assert.equal(failures.length, 2, failures.join('; '));
    const accountOf = (name: string) => withState(app, (ctx) => accounts.getAccount(ctx, moduleAddress(name)));
    assert.equal(accountOf('gov'), undefined);
    assert.deepEqual(accountOf('mint')?.module, { name: 'mint', permissions: ['minter', 'burner'] });
    assert.deepEqual(accountOf('distribution')?.module, { name: 'distribution', permissions: [] }, 'a module account, not a base account');
    await app.store.close();
  });

  test("minting and burning need the module's minter and burner permissions, and module calls a registered module (the SDK's panics, as coded errors)", async () => {
    const { app, accounts, bank: module } = makeApp();
    initChain(app, genesis([[alice, '100stake']]));
    block(app, 1n);
    const bank = module.keeper;
    withState(app, (ctx) => {
      const coded = (fn: () => void, code: number, text: string): void =>
        assert.throws(fn, (e: Error & { code?: number }) => e.code === code && e.message.includes(text), text);
      const supply = coinsToString(bank.getTotalSupply(ctx));
      coded(
        () => bank.mintCoins(ctx, FEE_COLLECTOR_NAME, parseCoins('5stake')),
        4,
        `module account ${FEE_COLLECTOR_NAME} does not have permissions to mint tokens`,
      );
      coded(() => bank.mintCoins(ctx, 'gov', parseCoins('5stake')), 4, 'module account gov does not have permissions to mint tokens');
      coded(() => bank.burnCoins(ctx, 'distribution', parseCoins('5stake')), 4, 'module account distribution does not have permissions to burn tokens');
      coded(() => bank.mintCoins(ctx, 'nomodule', parseCoins('5stake')), 9, 'module account nomodule does not exist');
      coded(() => bank.burnCoins(ctx, 'nomodule', parseCoins('5stake')), 9, 'module account nomodule does not exist');
      coded(() => bank.sendCoinsFromAccountToModule(ctx, alice, 'nomodule', parseCoins('5stake')), 9, 'module account nomodule does not exist');
      coded(() => bank.sendCoinsFromModuleToAccount(ctx, 'nomodule', bob, parseCoins('5stake')), 9, 'module account nomodule does not exist');
      coded(() => bank.sendCoinsFromModuleToModule(ctx, 'mint', 'nomodule', parseCoins('5stake')), 9, 'module account nomodule does not exist');
      // nothing of the refused calls is written: supply, balances and accounts as before
      assert.equal(coinsToString(bank.getTotalSupply(ctx)), supply);
      assert.equal(bank.getBalance(ctx, alice, 'stake').amount, 100n);
      for (const name of ['gov', 'distribution', 'nomodule', 'mint']) assert.equal(accounts.getAccount(ctx, moduleAddress(name)), undefined, name);
      // with the permission, the same calls go through
      bank.mintCoins(ctx, 'mint', parseCoins('5stake'));
      bank.burnCoins(ctx, 'mint', parseCoins('2stake'));
      assert.equal(bank.getBalance(ctx, moduleAddress('mint'), 'stake').amount, 3n);
    });
    await app.store.close();
  });

  test('mints, burns and module transfers in real blocks keep supply equal to the sum of balances', async () => {
    const path = tmp();
    const { app, bank, hooks } = makeApp(path);
    initChain(app, genesis([[alice, '100stake']]));
    const coins = parseCoins;
    hooks.set(1n, (ctx, b) => {
      b.keeper.mintCoins(ctx, 'mint', coins('1000stake,50atom'));
      b.keeper.sendCoinsFromModuleToAccount(ctx, 'mint', bob, coins('400stake'));
      b.keeper.sendCoinsFromModuleToModule(ctx, 'mint', 'distribution', coins('100stake'));
    });
    hooks.set(2n, (ctx, b) => {
      b.keeper.sendCoinsFromAccountToModule(ctx, bob, 'gov', coins('150stake'));
      b.keeper.burnCoins(ctx, 'gov', coins('150stake'));
      b.keeper.burnCoins(ctx, 'mint', coins('50atom,500stake'));
    });
    const r1 = block(app, 1n);
    assert.deepEqual(r1.events.filter((e) => e.type === 'coinbase').map(attrs), [{ minter: moduleAddress('mint'), amount: '50atom,1000stake' }]);
    assert.equal(coinsToString(assertSupplyInvariant(app, bank)), '50atom,1100stake');
    assert.equal(balanceOf(app, moduleAddress('mint')), '500');
    assert.equal(balanceOf(app, moduleAddress('distribution')), '100');
    assert.equal(balanceOf(app, bob), '400');
    const r2 = block(app, 2n);
    assert.deepEqual(r2.events.filter((e) => e.type === 'burn').map(attrs), [
      { burner: moduleAddress('gov'), amount: '150stake' },
      { burner: moduleAddress('mint'), amount: '50atom,500stake' },
    ]);
    assert.equal(coinsToString(assertSupplyInvariant(app, bank)), '450stake');
    assert.equal(balanceOf(app, moduleAddress('mint')), '0');
    // a zero supply is removed, not stored
    withState(app, (ctx) => assert.equal(ctx.store.getStore('bank').get(supplyKey('atom')), undefined));

    // a block whose burn exceeds the module's balance fails whole
    hooks.set(3n, (ctx, b) => {
      b.keeper.sendCoinsFromModuleToModule(ctx, 'distribution', 'mint', coins('100stake'));
      b.keeper.burnCoins(ctx, 'mint', coins('101stake'));
    });
    assert.throws(() => block(app, 3n), /spendable balance 100stake is smaller than 101stake: insufficient funds/);
    app.abortBlock();
    assert.equal(coinsToString(assertSupplyInvariant(app, bank)), '450stake');
    await app.store.close();
  });

  test('failed calls write nothing; invalid coins, blocked recipients and bad addresses are coded errors', async () => {
    const { app, bank } = makeApp();
    initChain(app, genesis([[alice, '10atom,10stake']]));
    block(app, 1n);
    const k = bank.keeper;
    withState(app, (ctx) => {
      const coded = (fn: () => void, code: number, re: RegExp): void =>
        assert.throws(fn, (e: Error & { code?: number }) => e.code === code && re.test(e.message));
      // atom is sufficient but stake is not: the atom debit must not be written
      coded(() => k.sendCoins(ctx, alice, bob, parseCoins('5atom,11stake')), 5, /spendable balance 10stake is smaller than 11stake/);
      assert.equal(coinsToString(k.getAllBalances(ctx, alice)), '10atom,10stake');
      assert.equal(ctx.events.events().length, 0);
      coded(() => k.sendCoins(ctx, alice, bob, [{ denom: 'stake', amount: 0n }]), 10, /coin 0stake amount is not positive/);
      coded(() => k.sendCoins(ctx, alice, bob, [{ denom: 'stake', amount: -1n }]), 10, /negative coin amount/);
      coded(() => k.sendCoins(ctx, alice, bob, parseCoins('1stake').concat(parseCoins('1atom'))), 10, /not sorted/);
      coded(() => k.sendCoins(ctx, 'chain1bad', bob, parseCoins('1stake')), 7, /chain1bad/);
      coded(() => k.sendCoins(ctx, alice, new Uint8Array(0), parseCoins('1stake')), 7, /addresses cannot be empty/);
      coded(() => k.sendCoins(ctx, alice, new Uint8Array(256), parseCoins('1stake')), 7, /max length is 255, got 256/);
      coded(() => k.sendCoinsFromModuleToAccount(ctx, 'mint', moduleAddress('gov'), []), 4, /is not allowed to receive funds/);
      coded(() => k.mintCoins(ctx, 'mint', [{ denom: 'stake', amount: 2n ** 256n - 1n }]), 10, /beyond 2\^256-1/);
      coded(() => k.getBalance(ctx, alice, 'x'), 10, /invalid denom/);
      assert.equal(coinsToString(k.getTotalSupply(ctx)), '10atom,10stake');

      // raw address bytes and bech32 strings name the same account
      k.sendCoins(ctx, new Uint8Array(20).fill(1), bob, parseCoins('1stake'));
      assert.equal(k.getBalance(ctx, alice, 'stake').amount, 9n);
      assert.ok(k.hasBalance(ctx, alice, { denom: 'stake', amount: 9n }));
      assert.ok(!k.hasBalance(ctx, alice, { denom: 'stake', amount: 10n }));
      const seen: string[] = [];
      k.iterateAllBalances(ctx, (a, c) => {
        seen.push(`${toHex(a).slice(0, 2)}:${c.amount}${c.denom}`);
        return seen.length === 2;
      });
      assert.deepEqual(seen, ['01:10atom', '01:9stake'], 'iteration stops when the callback returns true');
    });
    await app.store.close();
  });
});

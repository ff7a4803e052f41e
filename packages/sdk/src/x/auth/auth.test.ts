import assert from 'node:assert/strict';
import { after, describe, test } from 'node:test';
import { BaseAccount, ModuleAccount, Params } from 'cosmjs-types/cosmos/auth/v1beta1/auth';
import {
  QueryAccountAddressByIDRequest,
  QueryAccountAddressByIDResponse,
  QueryAccountRequest,
  QueryAccountResponse,
  QueryAccountsRequest,
  QueryAccountsResponse,
  QueryModuleAccountByNameRequest,
  QueryModuleAccountByNameResponse,
  QueryParamsRequest,
  QueryParamsResponse,
} from 'cosmjs-types/cosmos/auth/v1beta1/query';
import type { PageRequest } from 'cosmjs-types/cosmos/base/query/v1beta1/pagination';
import { Context } from '../../app/index.ts';
import { moduleAddress, toBech32 } from '../../crypto/index.ts';
import { CommitMultiStore } from '../../store/index.ts';
import { encodeSecp256k1PubKey } from '../../tx/index.ts';
import {
  AccountKeeper,
  BASE_ACCOUNT_TYPE_URL,
  FEE_COLLECTOR_NAME,
  MODULE_ACCOUNT_TYPE_URL,
  authModule,
  defaultGenesis,
  exportGenesis,
  initGenesis,
  sanitizeGenesisAccounts,
  type Account,
  type AuthGenesisJSON,
} from './index.ts';
import { removeTmpDirs, testApp, testKey, tmpDir } from '@chaind/sdk/testing';

after(removeTmpDirs);

const [a, b, c] = [testKey(0), testKey(1), testKey(2)];
const fields = (address: string, n = '0', pub_key: unknown = null) => ({ address, pub_key, account_number: n, sequence: '0' });
const baseJSON = (address: string, n = '0', pub_key: unknown = null) => ({ '@type': BASE_ACCOUNT_TYPE_URL, ...fields(address, n, pub_key) });

function keeperCtx(): { ak: AccountKeeper; ctx: Context; close: () => Promise<void> } {
  const ms = CommitMultiStore.open(tmpDir());
  ms.mount(['auth']);
  ms.loadLatest();
  const ctx = new Context({
    store: ms,
    header: { chainId: 't', height: 1n, time: { seconds: 0n, nanos: 0 }, proposerAddress: new Uint8Array(0) },
    mode: 'finalize',
  });
  return { ak: new AccountKeeper({ moduleAccounts: { [FEE_COLLECTOR_NAME]: [], gov: ['burner'] } }), ctx, close: () => ms.close() };
}

describe('keeper', () => {
  test('account numbers, module accounts, iteration in address-byte order', async () => {
    const { ak, ctx, close } = keeperCtx();
    const first = ak.newAccountWithAddress(ctx, b.address);
    assert.equal(first.accountNumber, 0n);
    assert.equal(ak.hasAccount(ctx, b.address), false, 'newAccountWithAddress does not store');
    ak.setAccount(ctx, first);
    ak.setAccount(ctx, ak.newAccountWithAddress(ctx, a.address));
    assert.equal(ak.getAccount(ctx, a.address)?.accountNumber, 1n);
    const gov = ak.getModuleAccount(ctx, 'gov');
    assert.deepEqual(gov, {
      address: moduleAddress('gov'),
      pubKey: undefined,
      accountNumber: 2n,
      sequence: 0n,
      module: { name: 'gov', permissions: ['burner'] },
    });
    assert.deepEqual(ak.getModuleAccount(ctx, 'gov'), gov, 'created once');
    assert.equal(ak.addressByAccountNumber(ctx, 2n), gov.address);
    const order = ak.getAllAccounts(ctx).map((x) => Buffer.from(ak.addressBytes(x.address)).toString('hex'));
    assert.deepEqual(order, [...order].sort());
    assert.equal(order.length, 3);
    assert.throws(() => ak.getAccount(ctx, toBech32('cosmos', ak.addressBytes(a.address))), /invalid bech32 prefix.*expected "chain", got "cosmos"/);
    assert.throws(() => ak.getModuleAccount(ctx, ' '), /module account name cannot be blank/);
    await close();
  });
});

describe('genesis', () => {
  test('default genesis carries the Cosmos SDK default params', () => {
    assert.deepEqual(defaultGenesis(), {
      params: { max_memo_characters: '256', tx_sig_limit: '7', tx_size_cost_per_byte: '10', sig_verify_cost_ed25519: '590', sig_verify_cost_secp256k1: '1000' },
      accounts: [],
    });
  });

  test('invalid genesis is refused with an error naming the account or param', () => {
    const mod = authModule({ keeper: new AccountKeeper() });
    const validate = (g: unknown): void => mod.validateGenesis?.(g);
    validate(defaultGenesis());
    assert.throws(
      () => validate({ accounts: [baseJSON(a.address), baseJSON(b.address), baseJSON(a.address)] }),
      new RegExp(`duplicate account found in genesis state; address: ${a.address}`),
    );
    assert.throws(() => validate({ accounts: [baseJSON('chain1nope')] }), /accounts\[0\] has an invalid address "chain1nope"/);
    const foreign = toBech32('cosmos', new AccountKeeper().addressBytes(a.address));
    assert.throws(() => validate({ accounts: [baseJSON(foreign)] }), new RegExp(`invalid address "${foreign}".*expected "chain", got "cosmos"`));
    assert.throws(() => validate({ params: { ...defaultGenesis().params, tx_sig_limit: '0' } }), /auth genesis: params: invalid tx signature limit: 0/);
    assert.throws(() => validate({ params: { ...defaultGenesis().params, max_memo_characters: '-1' } }), /params\.max_memo_characters must be a uint64/);
    const bKey = { '@type': '/cosmos.crypto.secp256k1.PubKey', key: Buffer.from(b.publicKey).toString('base64') };
    assert.throws(
      () => validate({ accounts: [baseJSON(a.address, '0', bKey)] }),
      new RegExp(`account ${a.address}: account address and pubkey address do not match`),
    );
    assert.throws(
      () => validate({ accounts: [{ ...baseJSON(a.address), '@type': '/cosmos.vesting.v1beta1.ContinuousVestingAccount' }] }),
      /accounts\[0\] has unsupported type/,
    );
    const wrongModule = { '@type': MODULE_ACCOUNT_TYPE_URL, base_account: fields(a.address), name: 'gov', permissions: [] };
    assert.throws(() => validate({ accounts: [wrongModule] }), new RegExp(`address ${a.address} cannot be derived from the module name 'gov'`));
  });

  test('repeated account numbers are reassigned as the SDK does, sorted by number', () => {
    const acc = (address: string, n: bigint): Account => ({ address, pubKey: undefined, accountNumber: n, sequence: 0n });
    const out = sanitizeGenesisAccounts([acc(a.address, 0n), acc(b.address, 0n), acc(c.address, 1n)]);
    assert.deepEqual(
      out.map((x) => [x.address, x.accountNumber]),
      [
        [a.address, 0n],
        [c.address, 1n],
        [b.address, 2n],
      ],
    );
  });

  test('init then export round-trips; fee_collector is created after the genesis accounts', async () => {
    const { ak, ctx, close } = keeperCtx();
    const aKey = { '@type': '/cosmos.crypto.secp256k1.PubKey', key: Buffer.from(a.publicKey).toString('base64') };
    const gov = { '@type': MODULE_ACCOUNT_TYPE_URL, base_account: fields(moduleAddress('gov'), '7'), name: 'gov', permissions: ['burner'] };
    initGenesis(ctx, ak, {
      params: { ...defaultGenesis().params, max_memo_characters: '512' },
      accounts: [baseJSON(a.address, '0', aKey), baseJSON(b.address), gov],
    });
    assert.equal(ak.getParams(ctx).maxMemoCharacters, 512n);
    // read again and again (kept decoded while the stored bytes are the same), then changed
    assert.equal(ak.getParams(ctx).maxMemoCharacters, 512n);
    ak.setParams(ctx, { ...ak.getParams(ctx), maxMemoCharacters: 100n });
    assert.equal(ak.getParams(ctx).maxMemoCharacters, 100n);
    ak.setParams(ctx, { ...ak.getParams(ctx), maxMemoCharacters: 512n });
    assert.deepEqual(ak.getAccount(ctx, a.address)?.pubKey, encodeSecp256k1PubKey(a.publicKey));
    assert.equal(ak.getAccount(ctx, b.address)?.accountNumber, 1n);
    assert.equal(ak.getModuleAccount(ctx, FEE_COLLECTOR_NAME).accountNumber, 8n, 'the counter continues after the largest number');
    const exported: AuthGenesisJSON = exportGenesis(ctx, ak);
    assert.equal(exported.params.max_memo_characters, '512');
    assert.equal(exported.accounts.length, 4);
    const addrOf = (x: AuthGenesisJSON['accounts'][number]): string => ('base_account' in x ? x.base_account.address : x.address);
    const hexes = exported.accounts.map((x) => Buffer.from(ak.addressBytes(addrOf(x))).toString('hex'));
    assert.deepEqual(hexes, [...hexes].sort(), 'exported in address-byte order');
    assert.deepEqual(
      exported.accounts.find((x) => addrOf(x) === a.address),
      baseJSON(a.address, '0', aKey),
    );
    assert.deepEqual(
      exported.accounts.find((x) => addrOf(x) === moduleAddress(FEE_COLLECTOR_NAME)),
      {
        '@type': MODULE_ACCOUNT_TYPE_URL,
        base_account: fields(moduleAddress(FEE_COLLECTOR_NAME), '8'),
        name: FEE_COLLECTOR_NAME,
        permissions: [],
      },
    );
    const again = keeperCtx();
    initGenesis(again.ctx, again.ak, JSON.parse(JSON.stringify(exported)));
    assert.deepEqual(exportGenesis(again.ctx, again.ak), exported);
    await Promise.all([close(), again.close()]);
  });
});

describe('cosmos.auth.v1beta1.Query', () => {
  const Q = '/cosmos.auth.v1beta1.Query';

  test('Account: found, and not found in the form CosmJS treats as an absent account', async () => {
    const t = testApp({ funded: [a.address, b.address] });
    const ok = t.query(`${Q}/Account`, QueryAccountRequest.encode({ address: a.address }).finish());
    assert.equal(ok.code, 0, ok.log);
    const any = QueryAccountResponse.decode(ok.value).account;
    assert.equal(any?.typeUrl, BASE_ACCOUNT_TYPE_URL);
    assert.deepEqual(BaseAccount.decode(any?.value ?? new Uint8Array()), { address: a.address, pubKey: undefined, accountNumber: 0n, sequence: 0n });

    const missing = t.query(`${Q}/Account`, QueryAccountRequest.encode({ address: c.address }).finish());
    assert.notEqual(missing.code, 0);
    assert.equal(missing.code, 22);
    assert.equal(missing.codespace, 'sdk');
    assert.equal(missing.log, `rpc error: code = NotFound desc = account ${c.address} not found: key not found`);
    // what CosmJS' StargateClient.getAccount tests after QueryClient throws `Query failed with (22): <log>`
    assert.match(`Error: Query failed with (${missing.code}): ${missing.log}`, /rpc error: code = NotFound/i);

    const bad = t.query(`${Q}/Account`, QueryAccountRequest.encode({ address: 'nope' }).finish());
    assert.equal(bad.code, 18);
    assert.match(bad.log, /^rpc error: code = InvalidArgument desc = decoding bech32 address "nope" failed/);
    await t.close();
  });

  test('Accounts pages by key and by offset; ModuleAccountByName, AccountAddressByID and Params', async () => {
    const t = testApp({ funded: [a.address, b.address, c.address] });
    const pageReq = (p: Partial<PageRequest>): Uint8Array =>
      QueryAccountsRequest.encode({ pagination: { key: new Uint8Array(0), offset: 0n, limit: 0n, countTotal: false, reverse: false, ...p } }).finish();
    const page = (p: Partial<PageRequest>) => {
      const r = t.query(`${Q}/Accounts`, pageReq(p));
      assert.equal(r.code, 0, r.log);
      return QueryAccountsResponse.decode(r.value);
    };
    const all = page({ countTotal: true });
    assert.equal(all.accounts.length, 4, 'three funded accounts and the fee collector');
    assert.equal(all.pagination?.total, 4n);
    assert.equal(all.pagination?.nextKey.length, 0);
    const first = page({ limit: 3n });
    assert.deepEqual(first.accounts, all.accounts.slice(0, 3));
    const rest = page({ key: first.pagination?.nextKey, limit: 3n });
    assert.deepEqual(rest.accounts, all.accounts.slice(3));
    assert.deepEqual(page({ offset: 1n, limit: 2n }).accounts, all.accounts.slice(1, 3));
    assert.deepEqual(page({ reverse: true }).accounts, [...all.accounts].reverse());
    const both = t.query(`${Q}/Accounts`, pageReq({ key: Uint8Array.of(1), offset: 1n }));
    assert.match(both.log, /either offset or key is expected, got both/);

    const fc = t.query(`${Q}/ModuleAccountByName`, QueryModuleAccountByNameRequest.encode({ name: FEE_COLLECTOR_NAME }).finish());
    assert.equal(fc.code, 0, fc.log);
    const macc = ModuleAccount.decode(QueryModuleAccountByNameResponse.decode(fc.value).account?.value ?? new Uint8Array());
    assert.equal(macc.name, FEE_COLLECTOR_NAME);
    assert.equal(macc.baseAccount?.address, moduleAddress(FEE_COLLECTOR_NAME));
    const none = t.query(`${Q}/ModuleAccountByName`, QueryModuleAccountByNameRequest.encode({ name: 'nope' }).finish());
    assert.equal(none.log, 'rpc error: code = NotFound desc = account nope not found: key not found');

    const byId = t.query(
      `${Q}/AccountAddressByID`,
      QueryAccountAddressByIDRequest.encode(QueryAccountAddressByIDRequest.fromPartial({ accountId: 1n })).finish(),
    );
    assert.equal(QueryAccountAddressByIDResponse.decode(byId.value).accountAddress, b.address);

    const params = t.query(`${Q}/Params`, QueryParamsRequest.encode({}).finish());
    assert.deepEqual(
      QueryParamsResponse.decode(params.value).params,
      Params.fromPartial({ maxMemoCharacters: 256n, txSigLimit: 7n, txSizeCostPerByte: 10n, sigVerifyCostEd25519: 590n, sigVerifyCostSecp256k1: 1000n }),
    );
    await t.close();
  });
});

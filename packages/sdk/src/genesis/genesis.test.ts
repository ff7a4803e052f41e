import assert from 'node:assert/strict';
import { mkdtempSync, rmSync } from 'node:fs';
import { tmpdir } from 'node:os';
import { join } from 'node:path';
import { after, describe, test } from 'node:test';
import { QueryAccountRequest } from 'cosmjs-types/cosmos/auth/v1beta1/query';
import { QueryBalanceRequest, QueryBalanceResponse } from 'cosmjs-types/cosmos/bank/v1beta1/query';
import { BaseApp, Context, ModuleManager } from '../app/index.ts';
import { addressFromPublicKey, publicKeyFromPrivate, toBech32 } from '../crypto/index.ts';
import { CommitMultiStore, ScratchMultiStore } from '../store/index.ts';
import { decodeTx, type DecodedTx } from '../tx/index.ts';
import { AccountKeeper, FEE_COLLECTOR_NAME, authModule } from '../x/auth/index.ts';
import { bankModule } from '../x/bank/index.ts';
import { COMETBFT_ED25519_TYPE, ED25519_PUBKEY_TYPE_URL, validatorsModule, type ValidatorsModule } from '../x/validators/index.ts';
import { GenesisError, defaultConsensusParams, parseGenesis, toRequestInitChain, validateGenesis, writeGenesis, type GenesisDoc } from './index.ts';
import { blockRequest, testConsensusKey } from '@chaind/sdk/testing';

const dirs: string[] = [];
after(() => dirs.forEach((d) => rmSync(d, { recursive: true, force: true })));

const CHAIN_ID = 'chaind-test-1';
const addr = (i: number): string => addressFromPublicKey(publicKeyFromPrivate(new Uint8Array(32).fill(i + 1)));
const b64 = (b: Uint8Array): string => Buffer.from(b).toString('base64');
const account = (address: string): Record<string, unknown> => ({
  '@type': '/cosmos.auth.v1beta1.BaseAccount',
  address,
  pub_key: null,
  account_number: '0',
  sequence: '0',
});
const balance = (address: string, amount: string): Record<string, unknown> => ({ address, coins: [{ denom: 'stake', amount }] });
const validator = (i: number): Record<string, unknown> => ({
  operator_address: addr(i),
  consensus_pubkey: { '@type': ED25519_PUBKEY_TYPE_URL, key: b64(testConsensusKey(i)) },
  power: String(10 * (i + 1)),
  moniker: `node-${i}`,
});

type Json = Record<string, unknown> & { app_state: Record<string, Record<string, unknown>>; consensus_params: Record<string, Record<string, unknown>> };

/** A valid genesis: two validators with accounts, one more funded account. */
function genesisJSON(): Json {
  return {
    genesis_time: '2024-05-01T12:00:00.123456789Z',
    chain_id: CHAIN_ID,
    initial_height: '5',
    consensus_params: {
      block: { max_bytes: '22020096', max_gas: '-1' },
      evidence: { max_age_num_blocks: '100000', max_age_duration: '172800000000000', max_bytes: '1048576' },
      validator: { pub_key_types: ['ed25519'] },
      version: { app: '0' },
      abci: { vote_extensions_enable_height: '0' },
    },
    app_hash: '',
    app_state: {
      auth: {
        params: {
          max_memo_characters: '256',
          tx_sig_limit: '7',
          tx_size_cost_per_byte: '10',
          sig_verify_cost_ed25519: '590',
          sig_verify_cost_secp256k1: '1000',
        },
        accounts: [account(addr(0)), account(addr(1)), account(addr(2))],
      },
      bank: {
        params: { send_enabled: [], default_send_enabled: true },
        balances: [balance(addr(0), '1000'), balance(addr(2), '500')],
        supply: [],
        denom_metadata: [],
        send_enabled: [],
      },
      validators: { validators: [validator(0), validator(1)] },
    },
  };
}

interface Chain {
  mm: ModuleManager;
  validators: ValidatorsModule;
}

function modules(): Chain {
  const validators = validatorsModule();
  const accounts = new AccountKeeper({ moduleAccounts: { [FEE_COLLECTOR_NAME]: [] } });
  const mm = new ModuleManager([authModule({ keeper: accounts }), bankModule({ accounts }), validators]);
  return { mm, validators };
}

const load = (json: unknown, mm = modules().mm): GenesisDoc => {
  const doc = parseGenesis(typeof json === 'string' ? json : JSON.stringify(json));
  validateGenesis(doc, mm);
  return doc;
};

describe('genesis document', () => {
  test('a valid document parses, validates and round-trips through writeGenesis', () => {
    const doc = load(genesisJSON());
    assert.equal(doc.chainId, CHAIN_ID);
    assert.equal(doc.initialHeight, 5n);
    assert.deepEqual(doc.genesisTime, { seconds: 1714564800n, nanos: 123456789 });
    assert.deepEqual(doc.consensusParams, defaultConsensusParams());
    assert.deepEqual(doc.appHash, new Uint8Array(0));
    const text = writeGenesis(doc);
    assert.ok(text.endsWith('}\n'));
    assert.ok(text.includes('\n  "genesis_time": "2024-05-01T12:00:00.123456789Z",\n  "chain_id": "chaind-test-1",\n  "initial_height": "5",\n'), text);
    assert.deepEqual(parseGenesis(text), doc);
    assert.equal(writeGenesis(parseGenesis(text)), text, 'canonical text is a fixed point');
    assert.deepEqual(JSON.parse(text), { ...genesisJSON(), app_state: genesisJSON().app_state });
  });

  test('other accepted forms are written canonically: offsets, trimmed nanos, hex case, CometBFT key JSON, defaults', () => {
    const g = genesisJSON();
    g.genesis_time = '2024-05-01T14:00:00.500+02:00';
    g.app_hash = 'abcd';
    delete (g as Partial<Json>).consensus_params;
    g.validators = [];
    (g.app_state.validators.validators as Record<string, unknown>[])[1].consensus_pubkey = { type: COMETBFT_ED25519_TYPE, value: b64(testConsensusKey(1)) };
    g.app_state = { validators: g.app_state.validators, bank: g.app_state.bank, auth: g.app_state.auth };
    const doc = load(g);
    const out = JSON.parse(writeGenesis(doc)) as Json;
    assert.equal(out.genesis_time, '2024-05-01T12:00:00.5Z');
    assert.equal(out.app_hash, 'ABCD');
    assert.deepEqual(out.consensus_params, genesisJSON().consensus_params);
    assert.deepEqual(Object.keys(out), ['genesis_time', 'chain_id', 'initial_height', 'consensus_params', 'app_hash', 'app_state']);
    assert.deepEqual(Object.keys(out.app_state), ['auth', 'bank', 'validators'], 'modules sorted by name');
  });

  test("the Cosmos SDK's app_name and app_version: read, written first, kept through a rewrite; absent stays absent; not a string is refused", () => {
    const g = { app_name: 'chaind', app_version: 'v2', ...genesisJSON() } as Json;
    const doc = load(g);
    assert.equal(doc.appName, 'chaind');
    assert.equal(doc.appVersion, 'v2');
    const out = JSON.parse(writeGenesis(doc)) as Json;
    assert.deepEqual(Object.keys(out).slice(0, 3), ['app_name', 'app_version', 'genesis_time']);
    assert.equal(out.app_version, 'v2');
    assert.equal(load(genesisJSON()).appVersion, undefined);
    assert.throws(() => load({ ...genesisJSON(), app_version: 2 } as Json), /^GenesisError: genesis app_version must be a string$/);
  });

  const mutate = (f: (g: Json) => void): Json => {
    const g = genesisJSON();
    f(g);
    return g;
  };
  const accounts = (g: Json): Record<string, unknown>[] => g.app_state.auth.accounts as Record<string, unknown>[];
  const balances = (g: Json): Record<string, unknown>[] => g.app_state.bank.balances as Record<string, unknown>[];
  const vals = (g: Json): Record<string, unknown>[] => g.app_state.validators.validators as Record<string, unknown>[];

  const cases: [string, string | Json, string | RegExp][] = [
    ['bad JSON', '{"chain_id": ', /^genesis is not valid JSON: /],
    ['not an object', '[]', 'genesis document must be a JSON object'],
    ['unknown field', mutate((g) => (g.chainid = 'x')), 'genesis document has an unknown field "chainid"'],
    ['missing chain_id', mutate((g) => delete g.chain_id), 'genesis chain_id must not be empty'],
    ['empty chain_id', mutate((g) => (g.chain_id = '')), 'genesis chain_id must not be empty'],
    ['chain_id too long', mutate((g) => (g.chain_id = 'c'.repeat(51))), 'genesis chain_id is too long: 51 bytes (max: 50)'],
    ['chain_id not a string', mutate((g) => (g.chain_id = 5)), 'genesis chain_id must be a string'],
    ['missing genesis_time', mutate((g) => delete g.genesis_time), 'genesis genesis_time must be an RFC 3339 time string'],
    ['bad genesis_time', mutate((g) => (g.genesis_time = '2024-02-30T00:00:00Z')), 'genesis genesis_time "2024-02-30T00:00:00Z" is not a valid RFC 3339 time'],
    ['genesis_time without zone', mutate((g) => (g.genesis_time = '2024-05-01T12:00:00')), 'is not a valid RFC 3339 time'],
    ['initial_height 0', mutate((g) => (g.initial_height = '0')), 'genesis initial_height must be at least 1, got 0'],
    ['initial_height negative', mutate((g) => (g.initial_height = '-3')), 'genesis initial_height must be at least 1, got -3'],
    ['initial_height a number', mutate((g) => (g.initial_height = 1)), 'genesis initial_height must be an integer as a decimal string, got 1'],
    ['initial_height not an integer', mutate((g) => (g.initial_height = '1.5')), 'genesis initial_height must be an integer as a decimal string, got "1.5"'],
    ['top-level validators', mutate((g) => (g.validators = [{ address: 'AB', power: '1' }])), 'the validator set is app_state.validators.validators'],
    ['block max_bytes 0', mutate((g) => (g.consensus_params.block.max_bytes = '0')), 'genesis consensus_params.block.max_bytes cannot be 0'],
    ['max_gas < -1', mutate((g) => (g.consensus_params.block.max_gas = '-2')), 'genesis consensus_params.block.max_gas must be -1 or greater, got -2'],
    ['evidence missing', mutate((g) => delete g.consensus_params.evidence), 'genesis consensus_params.evidence is missing'],
    [
      'evidence bigger than a block',
      mutate((g) => (g.consensus_params.evidence.max_bytes = '22020097')),
      "evidence.max_bytes is greater than the block's max bytes: 22020097 > 22020096",
    ],
    ['no ed25519', mutate((g) => (g.consensus_params.validator.pub_key_types = ['secp256k1'])), 'pub_key_types must include "ed25519"'],
    [
      'unknown key type',
      mutate((g) => (g.consensus_params.validator.pub_key_types = ['ed25519', 'rsa'])),
      'pub_key_types[1] "rsa" is an unknown public key type',
    ],
    ['vote extensions', mutate((g) => (g.consensus_params.abci.vote_extensions_enable_height = '-1')), 'vote_extensions_enable_height must be non-negative'],
    ['unknown module', mutate((g) => (g.app_state.staking = {})), 'genesis app_state has an unknown module "staking"'],
    ['app_state not an object', mutate((g) => (g.app_state = [] as never)), 'genesis app_state must be a JSON object'],
    ['empty validator set', mutate((g) => (g.app_state.validators.validators = [])), 'genesis has no validators: app_state.validators.validators is empty'],
    ['no validators module state', mutate((g) => delete g.app_state.validators), 'genesis has no validators'],
    [
      'validator without account',
      mutate((g) => accounts(g).splice(1, 1)),
      `genesis validator "node-1" (${addr(1)}) has no account: its operator must be listed in app_state.auth.accounts`,
    ],
    [
      'invalid validator',
      mutate((g) => (vals(g)[1].power = '0')),
      `invalid genesis app_state: validators genesis: validators[1] "node-1" (${addr(1)}): power must be between 1`,
    ],
    [
      'duplicate account',
      mutate((g) => accounts(g).push(account(addr(2)))),
      `invalid genesis app_state: auth genesis: duplicate account found in genesis state; address: ${addr(2)}`,
    ],
    [
      'duplicate balance',
      mutate((g) => balances(g).push(balance(addr(0), '1'))),
      `invalid genesis app_state: bank genesis: duplicate balance for address ${addr(0)}`,
    ],
    [
      'negative coins',
      mutate((g) => balances(g).push(balance(addr(1), '-5'))),
      `invalid genesis app_state: bank genesis: balance of ${addr(1)}: coin stake: invalid amount "-5"`,
    ],
    [
      'malformed coins',
      mutate((g) => balances(g).push({ address: addr(1), coins: [{ denom: '1stake', amount: '5' }] })),
      `invalid genesis app_state: bank genesis: balance of ${addr(1)}`,
    ],
    [
      'auth params out of range',
      mutate((g) => ((g.app_state.auth.params as Record<string, string>).tx_sig_limit = '0')),
      'invalid genesis app_state: auth genesis: params: invalid tx signature limit: 0',
    ],
    [
      'wrong supply',
      mutate((g) => (g.app_state.bank.supply = [{ denom: 'stake', amount: '1' }])),
      'invalid genesis app_state: bank genesis: genesis supply is incorrect, expected 1stake, got 1500stake',
    ],
  ];
  for (const [name, json, want] of cases) {
    test(`invalid: ${name}`, () => {
      assert.throws(
        () => load(json),
        (e: Error) => {
          assert.ok(e instanceof GenesisError, `${e.name}: ${e.message}`);
          if (typeof want === 'string') assert.ok(e.message.includes(want), `${e.message}\n  should include\n${want}`);
          else assert.match(e.message, want);
          return true;
        },
      );
    });
  }

  test('an operator with another prefix is refused by the validators module', () => {
    const other = toBech32('cosmos', new Uint8Array(20).fill(3));
    assert.throws(
      () => load(mutate((g) => (vals(g)[0].operator_address = other))),
      /validators genesis: validators\[0\] "node-0" \(cosmos1.*\): invalid operator_address: invalid bech32 prefix/,
    );
  });
});

describe('InitChain from the genesis document', () => {
  test('feeds a real BaseApp with auth, bank and validators; Info then reports the chain', async () => {
    const doc = load(genesisJSON());
    const req = toRequestInitChain(doc);
    assert.equal(req.chainId, CHAIN_ID);
    assert.equal(req.initialHeight, 5n);
    assert.deepEqual(req.time, doc.genesisTime);
    assert.deepEqual(req.consensusParams, defaultConsensusParams());
    assert.deepEqual(JSON.parse(Buffer.from(req.appStateBytes).toString('utf8')), genesisJSON().app_state);

    const { mm, validators } = modules();
    const dir = mkdtempSync(join(tmpdir(), 'chaind-genesis-'));
    dirs.push(dir);
    const app = new BaseApp<DecodedTx>({ name: 'chaind', version: '0.1.0', store: CommitMultiStore.open(dir), modules: mm, txDecoder: decodeTx });
    app.load();
    // CometBFT sends no validators (its genesis.json has none): the app's validators module supplies them
    const init = app.initChain({ ...req, validators: [] });
    // InitChain hands the genesis set to consensus, ordered by operator address bytes
    const byOperator = [0, 1].sort((a, b) =>
      Buffer.compare(Buffer.from(validators.keeper.addressBytes(addr(a))), Buffer.from(validators.keeper.addressBytes(addr(b)))),
    );
    assert.deepEqual(
      init.validators,
      byOperator.map((i) => ({ pubKey: { ed25519: testConsensusKey(i) }, power: BigInt(10 * (i + 1)) })),
    );
    assert.equal(app.info({ version: '', blockVersion: 0n, p2pVersion: 0n, abciVersion: '' }).lastBlockHeight, 0n, 'nothing committed before the first block');

    const fin = app.finalizeBlock(blockRequest(5n, doc.genesisTime.seconds + 5n));
    app.commit();
    const info = app.info({ version: '', blockVersion: 0n, p2pVersion: 0n, abciVersion: '' });
    assert.equal(info.data, 'chaind');
    assert.equal(info.lastBlockHeight, 5n);
    assert.deepEqual(info.lastBlockAppHash, fin.appHash);

    // the state is the document's: accounts, balances, validators (and the keeper's view of them)
    assert.equal(
      app.query({ path: '/cosmos.auth.v1beta1.Query/Account', data: QueryAccountRequest.encode({ address: addr(1) }).finish(), height: 0n, prove: false }).code,
      0,
    );
    const bal = app.query({
      path: '/cosmos.bank.v1beta1.Query/Balance',
      data: QueryBalanceRequest.encode({ address: addr(2), denom: 'stake' }).finish(),
      height: 0n,
      prove: false,
    });
    assert.equal(QueryBalanceResponse.decode(bal.value).balance?.amount, '500');
    const snap = app.store.snapshot();
    try {
      const ctx = new Context({
        store: new ScratchMultiStore(snap),
        header: { chainId: CHAIN_ID, height: 5n, time: doc.genesisTime, proposerAddress: new Uint8Array(0) },
        mode: 'query',
      });
      assert.equal(validators.keeper.totalPower(ctx), 30n);
      assert.deepEqual(
        [...validators.keeper.votingPower(ctx)].sort(),
        [
          [addr(0), 10n],
          [addr(1), 20n],
        ].sort(),
      );
      // export → a new document that validates and carries the same validators
      const exported: GenesisDoc = { ...doc, appState: mm.exportGenesis(ctx) };
      validateGenesis(parseGenesis(writeGenesis(exported)), modules().mm);
      assert.deepEqual(toRequestInitChain(exported).validators, init.validators);
    } finally {
      snap.release();
    }
    await app.store.close();
  });
});

// `chaind genesis add-account | add-validator | validate`, run as the real binary over homes made by
// `chaind init`: the accounts, balances, supply and validators land where the modules read them, the
// result validates, and every mistake is one clear line with exit code 1.
import assert from 'node:assert/strict';
import { readFileSync, writeFileSync } from 'node:fs';
import { join } from 'node:path';
import { after, before, describe, test } from 'node:test';
import { fails, ok, removeTmpDirs, tmpDir } from '@chaind/chaind/testing';

after(removeTmpDirs);

type Json = Record<string, unknown>;
interface AppState {
  auth: { accounts: Json[] };
  bank: { balances: { address: string; coins: { denom: string; amount: string }[] }[]; supply: { denom: string; amount: string }[] };
  validators: { validators: { operator_address: string; consensus_pubkey: { '@type': string; key: string }; power: string; moniker: string }[] };
}

const genesisFile = (home: string): string => join(home, 'config', 'genesis.json');
const appState = (home: string): AppState => (JSON.parse(readFileSync(genesisFile(home), 'utf8')) as { app_state: AppState }).app_state;
const test_ = ['--keyring-backend', 'test'];

async function initHome(): Promise<string> {
  const home = tmpDir();
  await ok(['init', 'node0', '--chain-id', 'test-1', '--home', home]);
  return home;
}

async function addKey(home: string, name: string): Promise<string> {
  await ok(['keys', 'add', name, ...test_, '--home', home]);
  return (await ok(['keys', 'show', name, '-a', ...test_, '--home', home])).stdout.trim();
}

/** A valid bech32 address of the chain that no key of the test homes owns. */
const STRANGER = 'chain1gfpyysjzgfpyysjzgfpyysjzgfpyysjzhnlf0v';

describe('a genesis built with the CLI', () => {
  let home: string;
  let alice: string;

  before(async () => {
    home = await initHome();
    alice = await addKey(home, 'alice');
  });

  test('add-account by key name and by address: auth account, bank balance, supply', async () => {
    const r = await ok(['genesis', 'add-account', 'alice', '1000000stake,5atom', ...test_, '--home', home]);
    assert.equal(r.stdout, '');
    // an address needs no keyring at all (the default file backend would ask for a passphrase)
    await ok(['genesis', 'add-genesis-account', STRANGER, '250stake', '--home', home]);
    const s = appState(home);
    assert.deepEqual(s.auth.accounts, [
      { '@type': '/cosmos.auth.v1beta1.BaseAccount', address: alice, pub_key: null, account_number: '0', sequence: '0' },
      { '@type': '/cosmos.auth.v1beta1.BaseAccount', address: STRANGER, pub_key: null, account_number: '0', sequence: '0' },
    ]);
    assert.deepEqual(s.bank.balances, [
      {
        address: alice,
        coins: [
          { denom: 'atom', amount: '5' },
          { denom: 'stake', amount: '1000000' },
        ],
      },
      { address: STRANGER, coins: [{ denom: 'stake', amount: '250' }] },
    ]);
    assert.deepEqual(s.bank.supply, [
      { denom: 'atom', amount: '5' },
      { denom: 'stake', amount: '1000250' },
    ]);
  });

  test('an account twice is refused, by name or by address in any case', async () => {
    const before = readFileSync(genesisFile(home), 'utf8');
    await fails(['genesis', 'add-account', 'alice', '1stake', ...test_, '--home', home], [`cannot add account at existing address ${alice}`]);
    await fails(['genesis', 'add-account', STRANGER.toUpperCase(), '1stake', '--home', home], [`cannot add account at existing address ${STRANGER}`]);
    assert.equal(readFileSync(genesisFile(home), 'utf8'), before, 'genesis untouched');
  });

  test("add-validator: the account operates, the node key signs, the moniker is the node's; then validate passes", async () => {
    await fails(['genesis', 'validate', '--home', home], ['genesis has no validators']);
    await ok(['genesis', 'add-validator', 'alice', '10', ...test_, '--home', home]);
    const pv = JSON.parse(readFileSync(join(home, 'config', 'priv_validator_key.json'), 'utf8')) as { pub_key: { value: string } };
    assert.deepEqual(appState(home).validators.validators, [
      { operator_address: alice, consensus_pubkey: { '@type': '/cosmos.crypto.ed25519.PubKey', key: pv.pub_key.value }, power: '10', moniker: 'node0' },
    ]);
    const r = await ok(['genesis', 'validate', '--home', home]);
    assert.equal(r.stdout, `File at ${genesisFile(home)} is a valid genesis file\n`);
    // the Cosmos name, and an explicit file
    assert.equal((await ok(['genesis', 'validate-genesis', genesisFile(home)])).stdout, `File at ${genesisFile(home)} is a valid genesis file\n`);
  });

  test('a second validator needs its own account and consensus key', async () => {
    await fails(['genesis', 'add-validator', 'alice', '5', ...test_, '--home', home], [`${alice} is already a genesis validator (moniker "node0")`]);
    await fails(['genesis', 'add-validator', STRANGER, '5', '--home', home], ['consensus key', 'is already used by genesis validator "node0"', '--pubkey']);
    const other = Buffer.alloc(32, 7).toString('base64');
    await ok([
      'genesis',
      'add-validator',
      STRANGER,
      '5',
      '--home',
      home,
      '--moniker',
      'far-away',
      '--pubkey',
      JSON.stringify({ type: 'tendermint/PubKeyEd25519', value: other }),
    ]);
    const v = appState(home).validators.validators[1];
    assert.deepEqual(v, {
      operator_address: STRANGER,
      consensus_pubkey: { '@type': '/cosmos.crypto.ed25519.PubKey', key: other },
      power: '5',
      moniker: 'far-away',
    });
    await ok(['genesis', 'validate', '--home', home]);
  });
});

describe('mistakes', () => {
  let home: string;
  before(async () => {
    home = await initHome();
    await addKey(home, 'bob');
  });

  test('bad coins, addresses, key names, powers', async () => {
    await fails(['genesis', 'add-account', 'bob', '10', ...test_, '--home', home], ['invalid coins "10"', 'missing denom']);
    await fails(['genesis', 'add-account', 'bob', '', ...test_, '--home', home], ['invalid coins "": no coins']);
    await fails(
      ['genesis', 'add-account', 'cosmos1gfpyysjzgfpyysjzgfpyysjzgfpyysjzz3tzye', '1stake', '--home', home],
      ['expected the "chain" prefix, got "cosmos"'],
    );
    await fails(
      ['genesis', 'add-account', STRANGER.slice(0, -1) + 'x', '1stake', '--home', home],
      [`invalid address ${STRANGER.slice(0, -1)}x`, 'invalid checksum'],
    );
    await fails(
      ['genesis', 'add-account', 'carol', '1stake', ...test_, '--home', home],
      ['key "carol" not found in keyring', 'is not a chain1… address either'],
    );
    await fails(['genesis', 'add-validator', 'bob', '0', ...test_, '--home', home], ['invalid power "0": expected a positive integer']);
    await fails(['genesis', 'add-validator', 'bob', '1.5', ...test_, '--home', home], ['invalid power "1.5"']);
    await fails(
      ['genesis', 'add-validator', 'bob', '3', ...test_, '--home', home],
      ['is not in the genesis: add it first with "chaind genesis add-account bob <coins>"'],
    );
    await fails(['genesis', 'add-validator', STRANGER, '3', '--home', home, '--pubkey', 'AAAA'], ['invalid --pubkey "AAAA": expected a 32-byte ed25519 key']);
    await fails(
      ['genesis', 'add-account', 'bob', '1stake', '--keyring-backend', 'file', '--home', home],
      ['expected the keyring passphrase on line 1 of stdin, but stdin ended'],
    );
  });

  test('the key name is looked up in the file keyring with the passphrase from stdin', async () => {
    const h = await initHome();
    const pass = 'correct horse battery';
    await ok(['keys', 'add', 'dave', '--keyring-backend', 'file', '--home', h], { input: `${pass}\n` });
    const dave = (await ok(['keys', 'show', 'dave', '-a', '--keyring-backend', 'file', '--home', h], { input: `${pass}\n` })).stdout.trim();
    await fails(['genesis', 'add-account', 'dave', '1stake', '--keyring-backend', 'file', '--home', h], ['wrong passphrase'], { input: 'not it at all\n' });
    await ok(['genesis', 'add-account', 'dave', '1stake', '--keyring-backend', 'file', '--home', h], { input: `${pass}\n` });
    assert.equal(appState(h).auth.accounts[0].address, dave);
  });

  test('a bad config.toml is named with its key when add-validator reads the moniker', async () => {
    const h = await initHome();
    await ok(['genesis', 'add-account', STRANGER, '1stake', '--home', h]);
    const cfg = join(h, 'config', 'config.toml');
    writeFileSync(cfg, readFileSync(cfg, 'utf8').replace('block_interval = "1s"', 'block_interval = "soon"'));
    await fails(
      ['genesis', 'add-validator', STRANGER, '1', '--home', h],
      [`${cfg}: consensus.block_interval = "soon": expected a positive duration such as "1s" or "500ms"`],
    );
  });

  test('no genesis: say where it was looked for', async () => {
    const h = tmpDir();
    await fails(['genesis', 'validate', '--home', h], [`genesis file ${genesisFile(h)} not found: run "chaind init" first`]);
    await fails(['genesis', 'add-account', STRANGER, '1stake', '--home', h], [`genesis file ${genesisFile(h)} not found`]);
  });
});

describe('validate names what is wrong in a corrupted genesis', () => {
  let good: string;
  let operator: string;
  before(async () => {
    const home = await initHome();
    operator = await addKey(home, 'val');
    await ok(['genesis', 'add-account', 'val', '100stake', ...test_, '--home', home]);
    await ok(['genesis', 'add-validator', 'val', '1', ...test_, '--home', home]);
    good = readFileSync(genesisFile(home), 'utf8');
  });

  const edit = (f: (g: Json & { app_state: Json & AppState }) => void): string => {
    const g = JSON.parse(good) as Json & { app_state: Json & AppState };
    f(g);
    return JSON.stringify(g);
  };
  const cases: [string, () => string, () => string][] = [
    ['truncated JSON', () => good.slice(0, 100), () => 'genesis is not valid JSON'],
    ['an empty chain id', () => edit((g) => (g.chain_id = '')), () => 'genesis chain_id must not be empty'],
    [
      'a wrong supply',
      () => edit((g) => (g.app_state.bank.supply = [{ denom: 'stake', amount: '99' }])),
      () => 'bank genesis: genesis supply is incorrect, expected 99stake, got 100stake',
    ],
    ['a validator without account', () => edit((g) => (g.app_state.auth.accounts = [])), () => `genesis validator "node0" (${operator}) has no account`],
    ['a zero power', () => edit((g) => (g.app_state.validators.validators[0].power = '0')), () => 'validators genesis: validators[0] "node0"'],
    ['an unknown module', () => edit((g) => (g.app_state.staking = {})), () => 'genesis app_state has an unknown module "staking"'],
  ];
  for (const [name, text, want] of cases) {
    test(name, async () => {
      const file = join(tmpDir(), 'genesis.json');
      writeFileSync(file, text());
      const r = await fails(['genesis', 'validate', file], [`error validating genesis file ${file}: `, want()]);
      assert.equal(r.stdout, '');
    });
  }
});

// `chaind init`, run as the real binary: every file in CometBFT's or Cosmos' shape with the right
// permissions, keys that work, a genesis the chain's modules and CometBFT v0.38 accept, config.toml's
// proxy_app naming app.toml's ABCI address, and no second init over a first.
import assert from 'node:assert/strict';
import { createHash, createPrivateKey, createPublicKey, sign, verify } from 'node:crypto';
import { existsSync, readFileSync, statSync } from 'node:fs';
import { join } from 'node:path';
import { after, describe, test } from 'node:test';
import { defaultConsensusParams, parseGenesis } from '@chaind/sdk/genesis';
import { loadConfig, defaultAppConfig, defaultNodeConfig, pairingProblems } from '../../src/config/index.ts';
import { defaultAppState, withChainModules } from '../../src/cli/chain.ts';
import { checkCometGenesis, fails, ok, removeTmpDirs, tmpDir } from '@chaind/chaind/testing';

after(removeTmpDirs);

const FILES = [
  'config/config.toml',
  'config/app.toml',
  'config/genesis.json',
  'config/priv_validator_key.json',
  'config/node_key.json',
  'data/priv_validator_state.json',
];
const read = (home: string, f: string): string => readFileSync(join(home, f), 'utf8');
const json = (home: string, f: string): Record<string, unknown> => JSON.parse(read(home, f)) as Record<string, unknown>;
const mode = (home: string, f: string): string => (statSync(join(home, f)).mode & 0o777).toString(8);

/** An ed25519 key from CometBFT's 64-byte (seed ‖ public key) value, through node:crypto. */
function privateKeyOf(value: string): { seed: Buffer; pub: Buffer; key: ReturnType<typeof createPrivateKey> } {
  const raw = Buffer.from(value, 'base64');
  assert.equal(raw.length, 64);
  const key = createPrivateKey({
    key: Buffer.concat([Buffer.from('302e020100300506032b657004220420', 'hex'), raw.subarray(0, 32)]),
    format: 'der',
    type: 'pkcs8',
  });
  return { seed: raw.subarray(0, 32), pub: raw.subarray(32), key };
}

describe('chaind init', () => {
  test('writes every file in its shape, keys 0600, and a genesis the chain modules accept', async () => {
    const home = join(tmpDir(), 'home');
    const r = await ok(['init', 'node0', '--chain-id', 'test-chain-1', '--home', home, '-o', 'json']);
    for (const f of FILES) assert.ok(existsSync(join(home, f)), f);
    for (const f of ['config/priv_validator_key.json', 'config/node_key.json', 'data/priv_validator_state.json']) assert.equal(mode(home, f), '600', f);
    assert.equal(mode(home, 'config/genesis.json'), '644');

    // -o json: the Cosmos SDK's summary (on stdout, as every -o json of chaind)
    const info = JSON.parse(r.stdout) as { moniker: string; chain_id: string; node_id: string; app_message: unknown };
    assert.equal(info.moniker, 'node0');
    assert.equal(info.chain_id, 'test-chain-1');

    // priv_validator_key.json: CometBFT's amino JSON; the address is sha256(pubkey)[:20]; the key signs
    const pv = json(home, 'config/priv_validator_key.json') as {
      address: string;
      pub_key: { type: string; value: string };
      priv_key: { type: string; value: string };
    };
    assert.deepEqual(Object.keys(pv), ['address', 'pub_key', 'priv_key']);
    assert.equal(pv.pub_key.type, 'tendermint/PubKeyEd25519');
    assert.equal(pv.priv_key.type, 'tendermint/PrivKeyEd25519');
    const k = privateKeyOf(pv.priv_key.value);
    assert.equal(k.pub.toString('base64'), pv.pub_key.value);
    assert.equal(
      Buffer.from(createPublicKey(k.key).export({ format: 'jwk' }).x as string, 'base64url').toString('base64'),
      pv.pub_key.value,
      'the public half belongs to the seed',
    );
    assert.equal(pv.address, createHash('sha256').update(k.pub).digest().subarray(0, 20).toString('hex').toUpperCase());
    assert.match(pv.address, /^[0-9A-F]{40}$/);
    const sig = sign(null, Buffer.from('vote'), k.key);
    assert.ok(verify(null, Buffer.from('vote'), createPublicKey(k.key), sig));

    // node_key.json: the node id is the key's address in lower case
    const nk = json(home, 'config/node_key.json') as { priv_key: { type: string; value: string } };
    assert.deepEqual(Object.keys(nk), ['priv_key']);
    assert.equal(nk.priv_key.type, 'tendermint/PrivKeyEd25519');
    const node = privateKeyOf(nk.priv_key.value);
    assert.equal(info.node_id, createHash('sha256').update(node.pub).digest().subarray(0, 20).toString('hex'));
    assert.notEqual(nk.priv_key.value, pv.priv_key.value);

    assert.deepEqual(json(home, 'data/priv_validator_state.json'), { height: '0', round: 0, step: 0 });

    // config files: the defaults with this moniker
    const cfg = await loadConfig(home);
    assert.deepEqual(cfg.node, defaultNodeConfig('node0'));
    assert.deepEqual(cfg.app, defaultAppConfig());
    assert.deepEqual(cfg.warnings, []);
    // one home for chaind and CometBFT: config.toml's proxy_app is where chaind's ABCI server listens
    const toml = read(home, 'config/config.toml');
    assert.match(toml, /^proxy_app = "tcp:\/\/127\.0\.0\.1:26658"$/m);
    assert.match(toml, /^abci = "socket"$/m);
    assert.match(read(home, 'config/app.toml'), /^\[abci\]\n(#.*\n)*address = "tcp:\/\/127\.0\.0\.1:26658"\n(#.*\n)*transport = "socket"$/m);
    assert.deepEqual(pairingProblems('config.toml', cfg.node, cfg.app.abci.address), []);

    // genesis.json: CometBFT's document, every module's default state, accepted by the chain's modules
    const text = read(home, 'config/genesis.json');
    const g = JSON.parse(text) as Record<string, unknown>;
    // app_name and app_version first, as the Cosmos SDK writes them: the release that wrote the file
    assert.deepEqual(Object.keys(g), ['app_name', 'app_version', 'genesis_time', 'chain_id', 'initial_height', 'consensus_params', 'app_hash', 'app_state']);
    // as CometBFT v0.38 decodes and validates it (the validator set comes from InitChain, so none here)
    checkCometGenesis(text);
    assert.match(g.genesis_time as string, /^\d{4}-\d\d-\d\dT\d\d:\d\d:\d\d(\.\d{1,9})?Z$/);
    const doc = parseGenesis(text);
    assert.equal(doc.chainId, 'test-chain-1');
    assert.equal(doc.initialHeight, 1n);
    // CometBFT's defaults, but vote extensions (the readiness attestations) on from the first block
    assert.deepEqual(doc.consensusParams, { ...defaultConsensusParams(), abci: { voteExtensionsEnableHeight: 1n } });
    assert.deepEqual((g.consensus_params as { abci: unknown }).abci, { vote_extensions_enable_height: '1' });
    assert.ok(Math.abs(Number(doc.genesisTime.seconds) - Date.now() / 1000) < 60, 'genesis time is now');
    // the latest release by default (compared with its modules below): every module of v1, and v2's chaininfo
    for (const m of ['auth', 'bank', 'chaininfo', 'gov', 'upgrade', 'validators']) assert.ok(m in doc.appState, `${m} in app_state`);
    assert.deepEqual(info.app_message, doc.appState);
    await withChainModules((mm) => {
      assert.deepEqual(doc.appState, defaultAppState(mm));
      mm.validateGenesis(doc.appState);
    });
    // complete but for a validator, which `genesis add-validator` adds; validate says exactly that
    await fails(
      ['genesis', 'validate', '--home', home],
      [`error validating genesis file ${join(home, 'config/genesis.json')}: genesis has no validators: app_state.validators.validators is empty`],
    );
  });

  test('prints where the genesis went and a one-line summary of it, not the whole genesis', async () => {
    const home = join(tmpDir(), 'home');
    const r = await ok(['init', 'node0', '--chain-id', 'summary-1', '--home', home]);
    assert.equal(r.stderr, '');
    const nodeId = (await ok(['comet', 'show-node-id', '--home', home])).stdout.trim();
    assert.deepEqual(r.stdout.split('\n'), [
      `initialized node node0 (node id ${nodeId}) in ${home}`,
      `genesis ${join(home, 'config/genesis.json')}: chain summary-1, 0 validators, 0 accounts, max deposit period 48h, voting period 48h`,
      '',
    ]);
  });

  test('--gov-period sets the max deposit and voting periods (as dev --gov-period); a bad one is refused before anything is written', async () => {
    const home = join(tmpDir(), 'home');
    await fails(
      ['init', 'n', '--chain-id', 'short-1', '--home', home, '--gov-period', 'soon'],
      ['invalid --gov-period "soon": expected a positive duration such as 20s or 1m30s'],
    );
    await fails(['init', 'n', '--chain-id', 'short-1', '--home', home, '--gov-period', '0s'], ['invalid --gov-period "0s"']);
    assert.ok(!existsSync(home), 'nothing written');
    const r = await ok(['init', 'n', '--chain-id', 'short-1', '--home', home, '--gov-period', '1m30s']);
    assert.match(r.stdout, /: chain short-1, 0 validators, 0 accounts, max deposit period 1m30s, voting period 1m30s\n$/);
    // Go's form on the command line, protobuf JSON in genesis; the rest of gov's params are the defaults
    const params = (json(home, 'config/genesis.json') as { app_state: { gov: { params: Record<string, unknown> } } }).app_state.gov.params;
    assert.deepEqual([params.max_deposit_period, params.voting_period], ['90s', '90s']);
    const defaults = await withChainModules(async (mm) => (defaultAppState(mm).gov as { params: Record<string, unknown> }).params);
    assert.deepEqual({ ...params, max_deposit_period: defaults.max_deposit_period, voting_period: defaults.voting_period }, defaults);
  });

  test('refuses a second init; --overwrite replaces genesis and config but keeps the keys', async () => {
    const home = tmpDir();
    await ok(['init', 'a', '--chain-id', 'one', '--home', home]);
    const before = Object.fromEntries(FILES.map((f) => [f, read(home, f)]));
    await fails(['init', 'b', '--chain-id', 'two', '--home', home], [`genesis.json file already exists: ${join(home, 'config/genesis.json')}`, '--overwrite']);
    for (const f of FILES) assert.equal(read(home, f), before[f], `${f} untouched`);

    await ok(['init', 'b', '--chain-id', 'two', '--home', home, '--overwrite']);
    assert.equal(parseGenesis(read(home, 'config/genesis.json')).chainId, 'two');
    assert.equal((await loadConfig(home)).node.moniker, 'b');
    for (const f of ['config/priv_validator_key.json', 'config/node_key.json', 'data/priv_validator_state.json'])
      assert.equal(read(home, f), before[f], `${f} kept`);
  });

  test('home: --home, else $CHAIND_HOME, else ~/.chaind', async () => {
    const fromEnv = join(tmpDir(), 'env-home');
    await ok(['init', 'n', '--chain-id', 'c'], { env: { CHAIND_HOME: fromEnv } });
    assert.ok(existsSync(join(fromEnv, 'config/genesis.json')));
    const user = tmpDir();
    await ok(['init', 'n', '--chain-id', 'c'], { env: { HOME: user } });
    assert.ok(existsSync(join(user, '.chaind/config/genesis.json')));
    const flag = join(tmpDir(), 'flag-home');
    await ok(['init', 'n', '--chain-id', 'c', '--home', flag], { env: { CHAIND_HOME: fromEnv, HOME: user } });
    assert.ok(existsSync(join(flag, 'config/genesis.json')));
  });

  test('bad arguments are one clear line, and nothing is written', async () => {
    const home = join(tmpDir(), 'h');
    await fails(['init', 'n', '--chain-id', 'x'.repeat(51), '--home', home], ['--chain-id is too long: 51 bytes (max: 50)']);
    await fails(['init', 'n', '--chain-id', 'a b', '--home', home], ['invalid --chain-id "a b"']);
    await fails(['init', ' ', '--chain-id', 'c', '--home', home], ['invalid moniker " ": empty']);
    await fails(['init', 'n', '--home', home], ["required option '--chain-id <id>' not specified"]);
    assert.ok(!existsSync(home));
  });
});

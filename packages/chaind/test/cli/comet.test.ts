// `chaind comet show-node-id|show-validator|show-address` and `chaind comet-config`, run as the real binary,
// and a four-validator network's genesis built as the operator guide says (each validator inits its home
// and shows its consensus key; one coordinator adds every account and validator; everyone takes the final
// genesis.json): a genesis CometBFT v0.38 accepts (the kit's checkCometGenesis, CometBFT's rules written
// down), whose InitChain — as CometBFT sends it, with no validators of its own — returns the four validators.
import assert from 'node:assert/strict';
import { createHash } from 'node:crypto';
import { copyFileSync, readFileSync, writeFileSync } from 'node:fs';
import { join } from 'node:path';
import { after, before, describe, test } from 'node:test';
import { fromBech32 } from '@chaind/sdk/crypto';
import { parseGenesis } from '@chaind/sdk/genesis';
import { createChainApp } from '../../src/app.ts';
import { checkCometGenesis, chaind, fails, ok, removeTmpDirs, tmpDir } from '@chaind/chaind/testing';

after(removeTmpDirs);

const CHAIN_ID = 'net-1';
const test_ = ['--keyring-backend', 'test'];
const genesisFile = (home: string): string => join(home, 'config', 'genesis.json');
const configToml = (home: string): string => join(home, 'config', 'config.toml');

interface KeyFiles {
  pv: { address: string; pub_key: { type: string; value: string } };
  nodePub: Buffer;
}

function keyFiles(home: string): KeyFiles {
  const pv = JSON.parse(readFileSync(join(home, 'config', 'priv_validator_key.json'), 'utf8')) as KeyFiles['pv'];
  const nk = JSON.parse(readFileSync(join(home, 'config', 'node_key.json'), 'utf8')) as { priv_key: { value: string } };
  return { pv, nodePub: Buffer.from(nk.priv_key.value, 'base64').subarray(32) };
}

const out = async (args: string[]): Promise<string> => (await ok(args)).stdout.trim();

describe('a network of four validators', () => {
  const homes: string[] = [];
  before(async () => {
    for (let i = 0; i < 4; i++) homes.push(join(tmpDir(), `val${i}`));
    await Promise.all(homes.map((home, i) => ok(['init', `val${i}`, '--chain-id', CHAIN_ID, '--home', home])));
  });

  test('each node shows its p2p id, consensus key and consensus address, from its key files', async () => {
    for (const home of homes) {
      const { pv, nodePub } = keyFiles(home);
      const [id, pubkey, address] = await Promise.all([
        out(['comet', 'show-node-id', '--home', home]),
        out(['comet', 'show-validator', '--home', home]),
        out(['comet', 'show-address', '--home', home]),
      ]);
      // p2p/key.go PubKeyToID: hex of the node key's address
      assert.equal(id, createHash('sha256').update(nodePub).digest().subarray(0, 20).toString('hex'));
      assert.deepEqual(JSON.parse(pubkey), { '@type': '/cosmos.crypto.ed25519.PubKey', key: pv.pub_key.value });
      const decoded = fromBech32(address);
      assert.equal(decoded.prefix, 'chainvalcons');
      assert.equal(Buffer.from(decoded.data).toString('hex').toUpperCase(), pv.address);
    }
    // the Cosmos SDK's other names for the group
    assert.equal(await out(['tendermint', 'show-node-id', '--home', homes[0]]), await out(['cometbft', 'show-node-id', '--home', homes[0]]));
  });

  test('the coordinator collects every validator into one genesis that each home validates and CometBFT v0.38 accepts', async () => {
    const coordinator = homes[0];
    // on each validator's machine: an operator key, and the consensus key to send to the coordinator
    const operators = await Promise.all(
      homes.map(
        async (home) => (JSON.parse(await out(['keys', 'add', 'operator', ...test_, '--output', 'json', '--home', home])) as { address: string }).address,
      ),
    );
    const pubkeys = await Promise.all(homes.map((home) => out(['comet', 'show-validator', '--home', home])));

    // on the coordinator's: every account, then every validator (its own with its own key, the others' by --pubkey)
    for (const address of operators) await ok(['genesis', 'add-account', address, '1000000000stake', '--home', coordinator]);
    await ok(['genesis', 'add-validator', operators[0], '10', '--home', coordinator]);
    for (let i = 1; i < 4; i++)
      await ok(['genesis', 'add-validator', operators[i], '10', '--pubkey', pubkeys[i], '--moniker', `val${i}`, '--home', coordinator]);

    // everyone takes the final genesis.json
    for (const home of homes.slice(1)) copyFileSync(genesisFile(coordinator), genesisFile(home));
    const results = await Promise.all(homes.map((home) => ok(['genesis', 'validate', '--home', home])));
    results.forEach((r, i) => assert.equal(r.stdout, `File at ${genesisFile(homes[i])} is a valid genesis file\n`));

    const text = readFileSync(genesisFile(coordinator), 'utf8');
    checkCometGenesis(text);
    const g = JSON.parse(text) as { validators?: unknown; app_state: { validators: { validators: { consensus_pubkey: { key: string }; moniker: string }[] } } };
    // CometBFT takes the validator set from InitChain when genesis.json lists none (consensus/replay.go)
    assert.equal(g.validators, undefined);
    assert.deepEqual(
      g.app_state.validators.validators.map((v) => [v.moniker, v.consensus_pubkey.key]).sort(),
      homes.map((h, i) => [`val${i}`, keyFiles(h).pv.pub_key.value]).sort(),
    );

    // InitChain as CometBFT sends it from this genesis: no validators of its own, app_state's bytes
    const doc = parseGenesis(text);
    const chain = createChainApp({ dbPath: join(tmpDir(), 'application.db'), chainId: CHAIN_ID, verifyThreads: 0 });
    try {
      const res = chain.app.initChain({
        time: doc.genesisTime,
        chainId: doc.chainId,
        consensusParams: doc.consensusParams,
        validators: [],
        appStateBytes: Buffer.from(JSON.stringify(JSON.parse(text).app_state)),
        initialHeight: doc.initialHeight,
      });
      assert.deepEqual(
        res.validators.map((v) => [Buffer.from(v.pubKey.ed25519 ?? []).toString('base64'), v.power]).sort(),
        homes.map((h) => [keyFiles(h).pv.pub_key.value, 10n]).sort(),
      );
    } finally {
      await chain.close();
    }
  });

  test('persistent_peers from the node ids: chaind reads the file as before, and still pairs with CometBFT', async () => {
    const ids = await Promise.all(homes.map((home) => out(['comet', 'show-node-id', '--home', home])));
    for (const [i, home] of homes.entries()) {
      const peers = ids.flatMap((id, j) => (j === i ? [] : [`${id}@127.0.0.1:${26656 + 100 * j}`])).join(',');
      writeFileSync(configToml(home), readFileSync(configToml(home), 'utf8').replace('persistent_peers = ""', `persistent_peers = "${peers}"`));
    }
    assert.match(
      readFileSync(configToml(homes[0]), 'utf8'),
      /^persistent_peers = "[0-9a-f]{40}@127\.0\.0\.1:26756,[0-9a-f]{40}@127\.0\.0\.1:26856,[0-9a-f]{40}@127\.0\.0\.1:26956"$/m,
    );
    const r = await ok(['comet-config', '--home', homes[0]]);
    assert.equal(r.stderr, '', 'no warning');
  });

  test('the genesis check refuses what CometBFT refuses', () => {
    const good = readFileSync(genesisFile(homes[0]), 'utf8');
    const edit = (f: (g: Record<string, Record<string, Record<string, unknown>>>) => void): string => {
      const g = JSON.parse(good) as Record<string, Record<string, Record<string, unknown>>>;
      f(g);
      return JSON.stringify(g);
    };
    const cases: [string, string][] = [
      [edit((g) => ((g as Record<string, unknown>).initial_height = 1)), 'initial_height: invalid 64-bit integer encoding 1, expected string'],
      [edit((g) => ((g as Record<string, unknown>).chain_id = 'x'.repeat(51))), 'chain_id in genesis doc is too long (max: 50)'],
      [edit((g) => ((g as Record<string, unknown>).genesis_time = '2024-01-02T03:04:05+01:00')), "JSON time must be UTC and end with 'Z'"],
      [edit((g) => (g.consensus_params.block.max_bytes = '0')), 'block.MaxBytes cannot be 0'],
      [edit((g) => (g.consensus_params.evidence.max_age_duration = '0')), 'evidence.MaxAgeDuration must be grater than 0'],
      [edit((g) => (g.consensus_params.evidence.max_bytes = '22020097')), 'evidence.MaxBytesEvidence is greater than upper bound'],
      [edit((g) => (g.consensus_params.validator.pub_key_types = ['sr25519'])), 'is an unknown pubkey type'],
      [
        edit(
          (g) =>
            ((g as Record<string, unknown>).validators = [
              { pub_key: { type: 'tendermint/PubKeyEd25519', value: Buffer.alloc(32).toString('base64') }, power: '0', name: 'x' },
            ]),
        ),
        'cannot contain validators with no voting power',
      ],
    ];
    for (const [text, want] of cases)
      assert.throws(
        () => checkCometGenesis(text),
        (e: Error) => e.message.includes(want),
        want,
      );
  });
});

describe('chaind comet-config', () => {
  let home: string;
  before(async () => {
    home = join(tmpDir(), 'home');
    await ok(['init', 'n', '--chain-id', CHAIN_ID, '--home', home]);
  });

  test("prints the settings to paste into CometBFT's config.toml, which this home's config.toml already has", async () => {
    const r = await ok(['comet-config', '--home', home]);
    assert.equal(r.stderr, '');
    assert.equal(
      r.stdout,
      [
        `# CometBFT v0.38 config.toml settings that pair CometBFT with chaind (home ${home}).`,
        `# They go in the config/config.toml of CometBFT's home: ${configToml(home)} when CometBFT runs with --home ${home}.`,
        '',
        "# Top level, before any [section]. CometBFT dials chaind's ABCI server here (chaind: app.toml [abci] address, --address).",
        'proxy_app = "tcp://127.0.0.1:26658"',
        'abci = "socket"',
        '',
        '[rpc]',
        "# CometBFT's JSON-RPC: chaind forwards broadcast transactions to http://127.0.0.1:26657 (chaind: config.toml [rpc] laddr, --rpc.laddr).",
        'laddr = "tcp://127.0.0.1:26657"',
        '',
      ].join('\n'),
    );
    // the same values as this home's config.toml, where CometBFT started with --home reads them
    const toml = readFileSync(configToml(home), 'utf8');
    for (const line of ['proxy_app = "tcp://127.0.0.1:26658"', 'abci = "socket"', 'laddr = "tcp://127.0.0.1:26657"'])
      assert.ok(toml.includes(`\n${line}\n`), line);
    // `comet config` is the same command under the SDK-style group
    assert.equal((await ok(['comet', 'config', '--home', home])).stdout, r.stdout);
  });

  test('-o json: the same settings as config.toml keys', async () => {
    assert.deepEqual(JSON.parse(await out(['comet-config', '-o', 'json', '--home', home])), {
      proxy_app: 'tcp://127.0.0.1:26658',
      abci: 'socket',
      rpc: { laddr: 'tcp://127.0.0.1:26657' },
    });
  });

  test("app.toml's [abci] address and the flags chaind start takes decide it; config.toml that disagrees is a warning", async () => {
    const h = join(tmpDir(), 'unix');
    await ok(['init', 'n', '--chain-id', CHAIN_ID, '--home', h]);
    const appToml = join(h, 'config', 'app.toml');
    writeFileSync(appToml, readFileSync(appToml, 'utf8').replace('address = "tcp://127.0.0.1:26658"', 'address = "unix:///run/chaind/abci.sock"'));
    const r = await ok(['comet-config', '-o', 'json', '--home', h]);
    assert.deepEqual(JSON.parse(r.stdout), { proxy_app: 'unix:///run/chaind/abci.sock', abci: 'socket', rpc: { laddr: 'tcp://127.0.0.1:26657' } });
    assert.equal(
      r.stderr,
      `Warning: ${configToml(h)}: proxy_app = "tcp://127.0.0.1:26658" is not where chaind's ABCI server listens (unix:///run/chaind/abci.sock): CometBFT reading this file would not reach chaind; set proxy_app = "unix:///run/chaind/abci.sock"\n`,
    );
    // listening on every interface: CometBFT on this machine dials the loopback address
    const flags = await ok(['comet-config', '--home', h, '--address', 'tcp://0.0.0.0:36658', '--rpc.laddr', 'tcp://0.0.0.0:36657']);
    assert.match(flags.stdout, /^proxy_app = "tcp:\/\/127\.0\.0\.1:36658"$/m);
    assert.match(
      flags.stdout,
      /^# chaind listens on every interface \(tcp:\/\/0\.0\.0\.0:36658\): a CometBFT on another machine dials this machine's address instead\.$/m,
    );
    assert.match(flags.stdout, /^laddr = "tcp:\/\/0\.0\.0\.0:36657"$/m);
    assert.match(flags.stdout, /forwards broadcast transactions to http:\/\/127\.0\.0\.1:36657 /);
    assert.match(flags.stderr, /proxy_app = "tcp:\/\/127\.0\.0\.1:26658" is not where chaind's ABCI server listens \(tcp:\/\/0\.0\.0\.0:36658\)/);
  });

  test('mistakes are one line: a malformed --address, an unsupported transport, port 0, no home', async () => {
    await fails(['comet-config', '--home', home, '--address', '127.0.0.1:26658'], ['invalid --address "127.0.0.1:26658": missing "tcp://" or "unix://"']);
    await fails(['comet-config', '--home', home, '--address', 'unix://abci.sock'], ['a unix socket path must be absolute']);
    await fails(['comet-config', '--home', home, '--transport', 'grpc'], ['invalid --transport "grpc": chaind serves ABCI over a socket only']);
    await fails(['comet-config', '--home', home, '--address', 'tcp://127.0.0.1:0'], ['has port 0 (any free port): CometBFT needs a fixed one']);
    const none = tmpDir();
    await fails(['comet-config', '--home', none], [`${configToml(none)} not found: run "chaind init" first`]);
    await fails(['comet', 'show-node-id', '--home', none], [`${join(none, 'config', 'node_key.json')} not found`]);
    const r = await chaind(['comet-config', '--home', home, '-o', 'yaml']);
    assert.equal(r.code, 1);
    assert.match(r.stderr, /argument 'yaml' is invalid\. Allowed choices are text, json/);
  });
});

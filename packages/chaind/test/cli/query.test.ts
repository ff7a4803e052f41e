// `chaind query upgrade …` and `chaind status` as child processes against a running `chaind dev` node.
import assert from 'node:assert/strict';
import { mkdirSync, mkdtempSync, readFileSync, rmSync, writeFileSync } from 'node:fs';
import { createServer } from 'node:http';
import type { AddressInfo } from 'node:net';
import { tmpdir } from 'node:os';
import { join } from 'node:path';
import { after, before, describe, test } from 'node:test';
import { moduleAddress } from '@chaind/sdk/crypto';
import { nodeUrl } from '../../src/cli/query/rpc.ts';
import { toText } from '../../src/cli/query/format.ts';
import { timestampJSON } from '../../src/cli/query/upgrade.ts';
import { chaind as runChaind, startDevNode, type DevNode } from '@chaind/chaind/testing';

/** chaind in a child process (async: a stub server in this process must keep answering meanwhile). */
const chaind = async (args: string[]): Promise<Run> => {
  const r = await runChaind(args);
  return { status: r.code, stdout: r.stdout, stderr: r.stderr };
};
interface Run {
  status: number | null;
  stdout: string;
  stderr: string;
}

const assertFails = (r: Run, message: RegExp): void => {
  assert.equal(r.status, 1, r.stdout + r.stderr);
  assert.equal(r.stdout, '');
  assert.match(r.stderr.trim(), message);
  assert.equal(r.stderr.trim().split('\n').length, 1, `one line, no stack trace: ${r.stderr}`);
};

test('--node forms: tcp:// → http://, http(s):// kept, bare host:port, bad schemes refused', () => {
  assert.equal(nodeUrl('tcp://localhost:26657'), 'http://localhost:26657');
  assert.equal(nodeUrl('http://127.0.0.1:26657/'), 'http://127.0.0.1:26657');
  assert.equal(nodeUrl('https://rpc.example.com'), 'https://rpc.example.com');
  assert.equal(nodeUrl('127.0.0.1:5'), 'http://127.0.0.1:5');
  assert.throws(() => nodeUrl('ftp://x:1'), /invalid --node "ftp:\/\/x:1"/);
});

test('text output is YAML-like key: value lines, numbers-as-strings quoted', () => {
  assert.equal(
    toText({ module_versions: [{ name: 'auth', version: '1' }], address: 'chain1x', plan: null, info: '' }),
    'module_versions:\n- name: auth\n  version: "1"\naddress: chain1x\nplan: null\ninfo: ""',
  );
  assert.equal(timestampJSON(undefined), '0001-01-01T00:00:00Z');
  assert.equal(timestampJSON({ seconds: -62_135_596_800n, nanos: 0 }), '0001-01-01T00:00:00Z', 'Go zero time, as plans are stored');
  assert.equal(timestampJSON({ seconds: 1700000000n, nanos: 5 }), '2023-11-14T22:13:20.000000005Z');
  assert.equal(timestampJSON({ seconds: 1700000000n, nanos: 120_000_000 }), '2023-11-14T22:13:20.120Z');
});

describe('against a running chaind dev node', () => {
  let dir = '';
  let node: DevNode | undefined;
  let url = '';
  const q = (...args: string[]): Promise<Run> => chaind([...args, '--node', url]);

  before(async () => {
    dir = mkdtempSync(join(tmpdir(), 'chaind-query-'));
    // release v2 named, not the latest: module_versions below lists v2's modules
    node = await startDevNode(join(dir, 'home'), { release: 'v2' });
    url = node.rpc;
  });
  after(async () => {
    await node?.stop();
    rmSync(dir, { recursive: true, force: true });
  });

  test('query upgrade --help lists the upgrade queries', async () => {
    const r = await chaind(['query', 'upgrade', '--help']);
    assert.equal(r.status, 0, r.stderr);
    for (const c of ['plan', 'applied', 'module_versions', 'authority']) assert.match(r.stdout, new RegExp(`\\n  ${c}\\b`));
  });

  test('plan: none scheduled → "no upgrade scheduled", exit 1', async () => {
    assertFails(await q('query', 'upgrade', 'plan'), /^Error: no upgrade scheduled$/m);
  });

  test('module_versions: every module at its version (release v2), as JSON and as text; one module; an unknown one', async () => {
    const all = await q('query', 'upgrade', 'module_versions', '-o', 'json');
    assert.equal(all.status, 0, all.stderr);
    assert.deepEqual(JSON.parse(all.stdout), {
      module_versions: ['auth', 'bank', 'chaininfo', 'gov', 'upgrade', 'validators'].map((name) => ({ name, version: name === 'validators' ? '2' : '1' })),
    });
    const text = await q('q', 'upgrade', 'module_versions');
    assert.equal(text.status, 0, text.stderr);
    assert.match(text.stdout, /^module_versions:\n- name: auth\n {2}version: "1"\n/);
    const bank = await q('query', 'upgrade', 'module_versions', 'bank', '-o', 'json');
    assert.equal(bank.status, 0, bank.stderr);
    assert.deepEqual(JSON.parse(bank.stdout), { module_versions: [{ name: 'bank', version: '1' }] });
    assertFails(await q('query', 'upgrade', 'module_versions', 'nope'), /^Error: .*module nope not found/);
  });

  test('authority: the gov module address', async () => {
    const gov = moduleAddress('gov');
    const json = await q('query', 'upgrade', 'authority', '-o', 'json');
    assert.equal(json.status, 0, json.stderr);
    assert.deepEqual(JSON.parse(json.stdout), { address: gov });
    const text = await q('query', 'upgrade', 'authority');
    assert.equal(text.stdout, `address: ${gov}\n`);
  });

  test('applied: an upgrade never applied → "no upgrade found", exit 1; a name no plan can have → one line naming the limit', async () => {
    assertFails(await q('query', 'upgrade', 'applied', 'v2'), /^Error: no upgrade found$/);
    assertFails(await q('query', 'upgrade', 'applied', 'x'.repeat(5000)), /^Error: plan name of 5000 bytes: a plan name has at most 128: invalid request$/);
  });

  test('module-versions: the hyphenated spelling is the same command as module_versions', async () => {
    const r = await q('query', 'upgrade', 'module-versions', 'bank', '-o', 'json');
    assert.equal(r.status, 0, r.stderr);
    assert.deepEqual(JSON.parse(r.stdout), { module_versions: [{ name: 'bank', version: '1' }] });
  });

  test("--home: without --node, every query reads the node address from the home's config.toml [rpc] laddr (0.0.0.0 dialled on loopback)", async () => {
    // a client home as `chaind init` writes it, its node listening on every interface at the dev node's port
    const home = join(dir, 'client-home');
    const init = await chaind(['init', 'client', '--chain-id', 'chain-dev-1', '--home', home]);
    assert.equal(init.status, 0, init.stderr);
    const file = join(home, 'config', 'config.toml');
    const port = new URL(url).port;
    writeFileSync(file, readFileSync(file, 'utf8').replace(/^laddr = "tcp:\/\/127\.0\.0\.1:26657"$/m, `laddr = "tcp://0.0.0.0:${port}"`));
    const cmds = [
      ['query', 'upgrade', 'authority'],
      ['query', 'upgrade', 'module_versions', 'bank'],
      ['query', 'upgrade', 'plan'],
      ['query', 'upgrade', 'applied', 'v2'],
      ['query', 'auth', 'account', moduleAddress('gov')],
      ['query', 'bank', 'balances', moduleAddress('gov')],
      ['query', 'gov', 'params'],
      ['query', 'gov', 'proposals'],
      ['query', 'block', '1'],
      ['status'],
    ];
    for (const args of cmds) {
      const r = await chaind([...args, '--home', home]);
      assert.doesNotMatch(r.stderr, /unknown option|cannot reach node/, `${args.join(' ')}: ${r.stderr}`);
      // plan and applied have nothing to show on a fresh chain: still answered by the node
      if (args[2] === 'plan' || args[2] === 'applied') assert.match(r.stderr, /^Error: no upgrade (scheduled|found)\n$/, args.join(' '));
      else assert.equal(r.status, 0, `${args.join(' ')}: ${r.stderr}`);
    }
    // --node wins over the home's config
    assertFails(
      await chaind(['query', 'upgrade', 'authority', '--home', home, '--node', 'tcp://127.0.0.1:1']),
      /^Error: cannot reach node at http:\/\/127\.0\.0\.1:1: /,
    );
    // a home without a config.toml: the default tcp://localhost:26657
    const empty = join(dir, 'empty-home');
    mkdirSync(empty);
    const r = await chaind(['query', 'upgrade', 'authority', '--home', empty]);
    // (another node on this machine may listen there)
    assert.match(r.stderr + r.stdout, /^Error: cannot reach node at http:\/\/localhost:26657: |^address: /);
  });

  test('status: the node /status result (network chain-dev-1), also with a tcp:// --node', async () => {
    const r = await chaind(['status', '--node', url.replace(/^http:/, 'tcp:')]);
    assert.equal(r.status, 0, r.stderr);
    const s = JSON.parse(r.stdout) as { node_info: { network: string }; sync_info: { latest_block_height: string } };
    assert.equal(s.node_info.network, 'chain-dev-1');
    assert.match(s.sync_info.latest_block_height, /^\d+$/);
  });
});

test('an unreachable node is one clear line and exit 1', async () => {
  // a port that was just free: nothing listens there
  const port = await new Promise<number>((res) => {
    const s = createServer();
    s.listen(0, '127.0.0.1', () => {
      const p = (s.address() as AddressInfo).port;
      s.close(() => res(p));
    });
  });
  assertFails(
    await chaind(['query', 'upgrade', 'plan', '--node', `tcp://127.0.0.1:${port}`]),
    new RegExp(`^Error: cannot reach node at http://127\\.0\\.0\\.1:${port}: connection refused$`),
  );
  assertFails(await chaind(['status', '--node', `http://127.0.0.1:${port}`]), /cannot reach node at .*: connection refused/);
  assertFails(await chaind(['query', 'upgrade', 'plan', '--node', 'ftp://x']), /^Error: invalid --node/);
});

// The success paths of `applied` (a block record) and of `plan` (a scheduled plan) need a real node with
// an applied or scheduled upgrade; they are tested with the `tx upgrade` commands in the node story test.

describe('--height against a chaind dev node with 1-minute blocks (the latest height holds still)', () => {
  let dir = '';
  let node: DevNode | undefined;
  let url = '';
  const q = (...args: string[]): Promise<Run> => chaind([...args, '--node', url]);
  const serve = ['--rpc.laddr', 'tcp://127.0.0.1:0', '--api.enable', 'false', '--grpc.enable', 'false'];

  before(async () => {
    dir = mkdtempSync(join(tmpdir(), 'chaind-query-height-'));
    const home = join(dir, 'home');
    // create the dev chain (it stops at height 1), then restart it with a block every minute
    const created = await chaind(['dev', '--home', home, ...serve, '--halt-height', '1']);
    assert.equal(created.status, 0, created.stderr);
    const file = join(home, 'config', 'config.toml');
    writeFileSync(file, readFileSync(file, 'utf8').replace(/^block_interval = .*$/m, 'block_interval = "1m"'));
    node = await startDevNode(home);
    url = node.rpc;
  });
  after(async () => {
    await node?.stop();
    rmSync(dir, { recursive: true, force: true });
  });

  const rpcQuery = async (height: string): Promise<{ code: number; log: string }> => {
    const body = { jsonrpc: '2.0', id: 1, method: 'abci_query', params: { path: '/chain.upgrade.v1beta1.Query/Authority', data: '', height } };
    const res = await fetch(url, { method: 'POST', headers: { 'content-type': 'application/json' }, body: JSON.stringify(body) });
    return ((await res.json()) as { result: { response: { code: number; log: string } } }).result.response;
  };

  test("the latest height is answered; any other is refused in one line, as the node's abci_query refuses it", async () => {
    // the restarted node commits its next block at once, then none for a minute
    let latest = '1';
    for (let i = 0; i < 50 && latest === '1'; i++) {
      latest = (JSON.parse((await q('status')).stdout) as { sync_info: { latest_block_height: string } }).sync_info.latest_block_height;
    }
    assert.notEqual(latest, '1');
    const gov = moduleAddress('gov');
    const r = await q('query', 'upgrade', 'authority', '--height', latest, '-o', 'json');
    assert.equal(r.status, 0, r.stderr);
    assert.deepEqual(JSON.parse(r.stdout), { address: gov });
    const b = await q('query', 'bank', 'balances', gov, '--height', latest, '-o', 'json');
    assert.equal(b.status, 0, b.stderr);
    const refused = (h: string): RegExp => new RegExp(`^Error: this node keeps only the latest state \\(height ${latest}\\); --height ${h} cannot be served$`);
    assertFails(await q('query', 'upgrade', 'authority', '--height', '1'), refused('1'));
    assertFails(await q('query', 'upgrade', 'module_versions', '--height', '99999999'), refused('99999999'));
    assertFails(await q('query', 'bank', 'balances', gov, '--height', '1'), refused('1'));
    assertFails(await q('query', 'gov', 'params', '--height', '1'), refused('1'));
    // JSON-RPC abci_query: the same heights answered and refused
    assert.equal((await rpcQuery(latest)).code, 0);
    const old = await rpcQuery('1');
    assert.equal(old.code, 26);
    assert.match(old.log, new RegExp(`cannot query height 1: only the latest height ${latest} is available`));
  });
});

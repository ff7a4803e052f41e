// `chaind tx …` over real processes: the upgrade story on a `chaind start` node with 4 s gov periods and
// 200 ms blocks — bank send, software-upgrade proposal, vote, the plan queried, the node halting at the
// upgrade height with exit code 10 and upgrade-info.json — and the user errors.
import assert from 'node:assert/strict';
import { spawn, spawnSync, type ChildProcess } from 'node:child_process';
import { mkdtempSync, readFileSync, rmSync, writeFileSync } from 'node:fs';
import { tmpdir } from 'node:os';
import { join } from 'node:path';
import { after, before, describe, test } from 'node:test';
import { fileURLToPath } from 'node:url';
import { QueryBalanceRequest, QueryBalanceResponse } from 'cosmjs-types/cosmos/bank/v1beta1/query';
import { Keyring } from '@chaind/sdk/keyring';
import { RpcClient } from '../query/rpc.ts';
import { watchNode, type WatchedNode } from '../testkit.ts';

const BIN = fileURLToPath(new URL('../../../bin/chaind.js', import.meta.url));
const HEX64 = 'ab'.repeat(32);
const INFO = JSON.stringify({ binaries: { 'linux/amd64': `https://example.com/v2.tar.gz?checksum=sha256:${HEX64}` } });

interface Run {
  status: number | null;
  stdout: string;
  stderr: string;
}
// every chaind child is release v1 (inherited): the binary without upgrade v2, which halts at the v2 plan's height
process.env.CHAIND_RELEASE = 'v1';
const chaind = (args: string[], stdin = ''): Promise<Run> =>
  new Promise((res, rej) => {
    const child = spawn(process.execPath, [BIN, ...args], { stdio: ['pipe', 'pipe', 'pipe'], timeout: 60_000 });
    let stdout = '';
    let stderr = '';
    child.stdout.on('data', (d: Buffer) => (stdout += d.toString()));
    child.stderr.on('data', (d: Buffer) => (stderr += d.toString()));
    child.on('error', rej);
    child.on('close', (status) => res({ status, stdout, stderr }));
    child.stdin.end(stdin);
  });

const assertFails = (r: Run, message: RegExp): void => {
  assert.equal(r.status, 1, r.stdout + r.stderr);
  assert.match(r.stderr.trim(), message);
  assert.equal(r.stderr.trim().split('\n').length, 1, `one line, no stack trace: ${r.stderr}`);
};

describe('the upgrade story against a chaind start node', () => {
  let home = '';
  let node: ChildProcess | undefined;
  let exited: Promise<number | null> = Promise.resolve(null);
  let watched: WatchedNode | undefined;
  const log = (): string => watched?.log() ?? '';
  let url = '';
  const keyFlags = (): string[] => ['--home', home, '--keyring-backend', 'test', '--node', url];

  before(async () => {
    home = mkdtempSync(join(tmpdir(), 'chaind-tx-'));
    const run = (args: string[]): void => {
      const r = spawnSync(process.execPath, [BIN, ...args, '--home', home], { encoding: 'utf8', timeout: 60_000 });
      assert.equal(r.status, 0, `${args.join(' ')}: ${r.stderr}`);
    };
    run(['init', 'n1', '--chain-id', 'tx-test-1']);
    run(['keys', 'add', 'validator', '--keyring-backend', 'test']);
    run(['keys', 'add', 'bob', '--keyring-backend', 'test']);
    run(['genesis', 'add-account', 'validator', '1000000000stake', '--keyring-backend', 'test']);
    run(['genesis', 'add-validator', 'validator', '10', '--keyring-backend', 'test']);
    const gpath = join(home, 'config', 'genesis.json');
    const g = JSON.parse(readFileSync(gpath, 'utf8')) as { app_state: { gov: { params: Record<string, unknown> } } };
    g.app_state.gov.params = { ...g.app_state.gov.params, voting_period: '4s', max_deposit_period: '4s', min_deposit: [{ denom: 'stake', amount: '1000' }] };
    writeFileSync(gpath, JSON.stringify(g, null, 2));
    const cfg = join(home, 'config', 'config.toml');
    writeFileSync(cfg, readFileSync(cfg, 'utf8').replace(/block_interval = "1s"/, 'block_interval = "200ms"'));
    const child = spawn(process.execPath, [BIN, 'start', '--home', home, '--rpc.laddr', 'tcp://127.0.0.1:0', '--api.enable', 'false', '--grpc.enable', 'false'], {
      stdio: ['ignore', 'ignore', 'pipe'],
    });
    node = child;
    exited = new Promise((res) => child.once('exit', (code) => res(code)));
    watched = watchNode(child, 'chaind start');
    url = await watched.url;
  });
  after(async () => {
    if (node !== undefined && node.exitCode === null) {
      node.kill('SIGTERM');
      await exited;
    }
    rmSync(home, { recursive: true, force: true });
  });

  test('bank send, software-upgrade proposal, vote, plan, halt at the upgrade height', { timeout: 120_000 }, async () => {
    const rpc = new RpcClient(url);
    const bob = (await (await Keyring.open(home, 'test')).get('bob')).address;
    const balance = async (address: string): Promise<bigint> =>
      BigInt(QueryBalanceResponse.decode(await rpc.abciQuery('/cosmos.bank.v1beta1.Query/Balance', QueryBalanceRequest.encode({ address, denom: 'stake' }).finish())).balance?.amount ?? '0');

    // bank send: committed, the balance moves
    const send = await chaind(['tx', 'bank', 'send', 'validator', bob, '1234stake', ...keyFlags(), '-y', '--broadcast-mode', 'commit', '--fees', '2000stake']);
    assert.equal(send.status, 0, send.stderr);
    const sent = JSON.parse(send.stdout) as { code: number; txhash: string; raw_log: string };
    assert.equal(sent.code, 0);
    assert.match(sent.txhash, /^[0-9A-F]{64}$/);
    assert.equal(await balance(bob), 1234n);

    // bad inputs: nothing is broadcast
    const proposalFlags = ['--title', 'v2', '--summary', 'to v2', '--deposit', '1000stake', '--from', 'validator', ...keyFlags(), '-y'];
    assertFails(await chaind(['tx', 'upgrade', 'software-upgrade', '..', '--upgrade-height', '100', '--upgrade-info', INFO, ...proposalFlags]), /^Error: invalid upgrade name: .*"\.\." is not a valid folder name/);
    const noChecksum = '{"binaries":{"linux/amd64":"https://example.com/v2.tar.gz"}}';
    assertFails(await chaind(['tx', 'upgrade', 'software-upgrade', 'v2', '--upgrade-height', '100', '--upgrade-info', noChecksum, ...proposalFlags]), /^Error: .*no checksum=.*https:\/\/example\.com\/v2\.tar\.gz/);
    assertFails(await chaind(['tx', 'gov', 'vote', '1', 'yes', '--from', 'nobody', ...keyFlags(), '-y']), /^Error: .*key "nobody" not found/);
    assertFails(await chaind(['tx', 'upgrade', 'software-upgrade', 'v2', '--upgrade-height', '0', '--upgrade-info', INFO, ...proposalFlags]), /^Error: invalid --upgrade-height "0"/);

    // a near height without -y: the cancel-window WARNING, the summary, and "N" cancels
    // (--no-validate: INFO's URL is not served; the download checks are in upgrade-info.test.ts)
    const declined = await chaind(['tx', 'upgrade', 'software-upgrade', 'v2', '--upgrade-height', '3', '--upgrade-info', INFO, '--no-validate', ...proposalFlags.filter((f) => f !== '-y')], 'N\n');
    assert.equal(declined.status, 0, declined.stderr);
    assert.match(declined.stderr, /^WARNING: upgrade height 3 is below \d+, the lowest height at which the upgrade could still be cancelled/m);
    assert.match(declined.stderr, /"@type": "\/chain\.upgrade\.v1beta1\.MsgSoftwareUpgrade"/);
    assert.match(declined.stderr, /canceled transaction/);
    assert.equal(declined.stdout, '');

    // the real proposal: far enough for the 4 s vote (20 blocks of 200 ms) to pass first
    const now = Number((await rpc.call('status') as { sync_info: { latest_block_height: string } }).sync_info.latest_block_height);
    const H = now + 60;
    const submit = await chaind(['tx', 'upgrade', 'software-upgrade', 'v2', '--upgrade-height', String(H), '--upgrade-info', INFO, '--no-validate', ...proposalFlags, '--broadcast-mode', 'commit', '--gas', 'auto']);
    assert.equal(submit.status, 0, submit.stderr);
    assert.equal((JSON.parse(submit.stdout) as { code: number }).code, 0, submit.stdout);
    const vote = await chaind(['tx', 'gov', 'vote', '1', 'yes', '--from', 'validator', ...keyFlags(), '-y', '--broadcast-mode', 'commit']);
    assert.equal(vote.status, 0, vote.stderr);
    assert.equal((JSON.parse(vote.stdout) as { code: number }).code, 0, vote.stdout);

    // a tx the chain rejects: the response is printed, exit 1 (vote on a proposal that does not exist)
    const rejected = await chaind(['tx', 'gov', 'vote', '99', 'yes', '--from', 'validator', ...keyFlags(), '-y', '--broadcast-mode', 'commit']);
    assert.equal(rejected.status, 1, rejected.stderr);
    assert.notEqual((JSON.parse(rejected.stdout) as { code: number }).code, 0);
    assert.match(rejected.stderr, /^Error: the chain rejected the tx \(code \d+/);

    // the plan appears once the voting period ends
    let plan: { name: string; height: string; info: string } | undefined;
    for (let i = 0; i < 100 && plan === undefined; i++) {
      const q = await chaind(['query', 'upgrade', 'plan', '-o', 'json', '--node', url]);
      if (q.status === 0) plan = JSON.parse(q.stdout) as { name: string; height: string; info: string };
      else await new Promise((r) => setTimeout(r, 300));
    }
    assert.deepEqual(plan && { name: plan.name, height: plan.height, info: plan.info }, { name: 'v2', height: String(H), info: INFO });

    // the node halts by itself at H with exit code 10 and leaves upgrade-info.json
    let timer: NodeJS.Timeout | undefined;
    const code = await Promise.race([exited, new Promise((r) => (timer = setTimeout(() => r('timeout'), 90_000)))]);
    clearTimeout(timer);
    assert.equal(code, 10, log().slice(-3000));
    assert.match(log(), new RegExp(`UPGRADE "v2" NEEDED at height: ${H}: `));
    const info = JSON.parse(readFileSync(join(home, 'data', 'upgrade-info.json'), 'utf8')) as { name: string; height: string | number };
    assert.equal(info.name, 'v2');
    assert.equal(String(info.height), String(H));
  });
});

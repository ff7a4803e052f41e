// `chaind start --with-comet=false` as an operator meets it: the mistakes that stop it at once (a bad
// --address, a port in use, a transport it does not serve) and what happens to a block in flight when
// CometBFT goes away or the node is stopped with SIGTERM: nothing of it is committed, and CometBFT's
// replay after the next handshake reaches the same app hash (cometbft-v038.md §1.5).
import assert from 'node:assert/strict';
import { cpSync, existsSync } from 'node:fs';
import { createServer, type AddressInfo } from 'node:net';
import { join } from 'node:path';
import { after, before, describe, test } from 'node:test';
import { QueryBalanceRequest, QueryBalanceResponse } from 'cosmjs-types/cosmos/bank/v1beta1/query';
import type { ResponseFinalizeBlock } from 'cosmjs-types/tendermint/abci/types';
import { parseGenesis } from '@chaind/sdk/genesis';
import { sendMsg } from '@chaind/sdk/testing';
import { consensusAddress } from '@chaind/sdk/x/validators';
import {
  AbciNode,
  AppConnections,
  chaind,
  CometNetwork,
  DENOM,
  fails,
  makeNetworkHomes,
  one,
  removeTmpDirs,
  tmpDir,
  within,
  type NetworkHomes,
} from '@chaind/chaind/testing';

const CHAIN_ID = 'start-abci-1';
const hex = (b: Uint8Array): string => Buffer.from(b).toString('hex');

async function balance(c: AppConnections, address: string): Promise<bigint> {
  const r = await c.abciQuery('/cosmos.bank.v1beta1.Query/Balance', QueryBalanceRequest.encode({ address, denom: DENOM }).finish());
  assert.equal(r.code, 0, r.log);
  return BigInt(QueryBalanceResponse.decode(r.value).balance?.amount ?? '0');
}

describe('chaind start --with-comet=false', { timeout: 90_000 }, () => {
  let net: NetworkHomes;
  let home = '';
  before(async () => {
    net = await makeNetworkHomes({ chainId: CHAIN_ID, nodes: 1, users: ['alice'], release: 'v2' });
    home = net.homes[0];
  });
  after(async () => {
    await AbciNode.killAll();
    removeTmpDirs();
  });

  /** A copy of the home as `chaind init` and the genesis commands left it: no block yet. */
  const freshHome = (): string => {
    const h = tmpDir('chaind-home-');
    cpSync(home, h, { recursive: true });
    return h;
  };

  /** CometBFT's view of this one-validator chain, over `conns`. */
  const comet = (conns: AppConnections): CometNetwork =>
    new CometNetwork([conns], { genesis: parseGenesis(net.genesisText), validators: [{ address: consensusAddress(net.consensusKeys[0]), power: 10n }] });

  test('a bad --address (unknown scheme, port out of range, no port, relative unix path), --transport grpc, or port 0 for the CometBFT chaind starts: exit 1, one line naming the flag', async () => {
    const start = (...args: string[]): string[] => ['start', '--home', home, '--api.enable=false', '--grpc.enable=false', ...args];
    await Promise.all([
      fails(start('--with-comet=false', '--address', 'udp://x'), ['invalid --address "udp://x"', 'unknown scheme "udp://"', 'tcp://127.0.0.1:26658']),
      fails(start('--with-comet=false', '--address', 'tcp://127.0.0.1:99999'), ['invalid --address "tcp://127.0.0.1:99999"', 'port 99999 is above 65535']),
      fails(start('--with-comet=false', '--address', 'tcp://127.0.0.1'), ['invalid --address "tcp://127.0.0.1"', 'expected host:port']),
      // a relative socket path would depend on the directory each process happens to start in
      fails(start('--with-comet=false', '--address', 'unix://relative'), ['invalid --address "unix://relative"', 'must be absolute']),
      fails(start('--with-comet=false', '--transport', 'grpc'), ['invalid --transport "grpc"', 'socket']),
      // with CometBFT as chaind's child, --address is where the two meet: a port the system picks cannot be told to CometBFT
      fails(start('--address', 'tcp://127.0.0.1:0'), ['--address tcp://127.0.0.1:0 has port 0', 'CometBFT must be told a fixed address']),
    ]);
  });

  test('a port in use: exit 1 naming the address and "address already in use"', async () => {
    const taken = createServer();
    await new Promise<void>((res) => taken.listen(0, '127.0.0.1', res));
    try {
      const address = `tcp://127.0.0.1:${(taken.address() as AddressInfo).port}`;
      const r = await chaind(['start', '--with-comet=false', '--address', address, '--home', home, '--api.enable=false', '--grpc.enable=false']);
      assert.equal(r.code, 1, r.stderr);
      // the last line says why; the only other is the warning that config.toml's proxy_app names another address
      const lines = r.stderr.trimEnd().split('\n');
      assert.deepEqual(
        lines.map((l) => / (ERR|WRN) /.exec(l)?.[1]).filter((l) => l !== 'WRN'),
        ['ERR'],
        r.stderr,
      );
      assert.ok(lines[lines.length - 1].includes(`cannot listen on ${address}: address already in use`), r.stderr);
      assert.doesNotMatch(r.stderr, /\n\s+at /, 'no stack trace');
    } finally {
      await new Promise((res) => taken.close(res));
    }
  });

  test('CometBFT disconnecting between FinalizeBlock and Commit: the node keeps running, and the replay after the next handshake reaches the same app hash, the tx applied once', async () => {
    const node = AbciNode.start(freshHome());
    const conns = await AppConnections.open(await node.address);
    const cn = comet(conns);
    await cn.handshake(0);
    await cn.block();
    const alice = net.users.alice;
    const to = net.operators[0].address;
    const before = await balance(conns, to);
    const tx = await conns.signTx(alice, [sendMsg(alice.address, to, '9')], CHAIN_ID);
    const { request, outcomes } = await cn.finalizeOnly([tx]);
    const first = outcomes[0] as ResponseFinalizeBlock;
    assert.equal(first.txResults[0].code, 0, first.txResults[0].log);
    await conns.close();
    await node.waitForLog(/the consensus connection closed between FinalizeBlock and Commit: the block is dropped and will be replayed height=2/);
    await new Promise((r) => setTimeout(r, 200));
    assert.equal(node.child.exitCode, null, 'still running');

    const again = await AppConnections.open(await node.address);
    cn.apps[0] = again;
    assert.equal((await again.info()).lastBlockHeight, request.height - 1n);
    assert.equal(await balance(again, to), before, 'nothing of the dropped block is visible');
    assert.deepEqual(await cn.handshake(0), [request.height]);
    const info = await again.info();
    assert.equal(info.lastBlockHeight, request.height);
    assert.equal(hex(info.lastBlockAppHash), hex(first.appHash));
    assert.equal(await balance(again, to), before + 9n);
    await again.close();
    assert.deepEqual(await node.kill('SIGTERM'), { code: 0, signal: null });
  });

  test('FinalizeBlock failing with anything but an upgrade halt (here the app refusing a block that is not the next height): exit 1, the exception reaches CometBFT, and one line says why; nothing is committed', async () => {
    const home = freshHome();
    const node = AbciNode.start(home);
    const conns = await AppConnections.open(await node.address);
    const cn = comet(conns);
    await cn.handshake(0);
    await cn.block();
    const committed = await conns.info();
    // what a CometBFT whose block store is not this app's would send: block 3 on an app at height 1
    const skipped = { ...cn.blocks[0], height: 3n };
    await assert.rejects(one(conns.consensus, { finalizeBlock: skipped }, 'finalizeBlock'), /exception: FinalizeBlock for height 3, expected 2/);
    const exit = await within(node.exited, 15_000, () => node.log());
    assert.deepEqual(exit, { code: 1, signal: null }, node.log());
    assert.match(
      node.log(),
      / ERR FinalizeBlock failed: the node stops \(CometBFT would replay the block into the same failure\) .*height=3 .*error="FinalizeBlock for height 3, expected 2"/,
    );
    assert.match(node.log(), / ERR node stopped on an error: FinalizeBlock for height 3, expected 2 height=1\b/);
    await conns.close();
    // the database has block 1 and nothing else
    const again = AbciNode.start(home);
    const reopened = await AppConnections.open(await again.address);
    const info = await reopened.info();
    assert.equal(info.lastBlockHeight, 1n);
    assert.equal(hex(info.lastBlockAppHash), hex(committed.lastBlockAppHash));
    await reopened.close();
    assert.deepEqual(await again.kill('SIGTERM'), { code: 0, signal: null });
  });

  test("SIGTERM with a block in flight, over a unix socket: exit 0, socket removed; the restart reports the last commit and CometBFT's replay reaches the block's app hash", async () => {
    const home = freshHome();
    const socket = join(tmpDir('chaind-sock-'), 'abci.sock');
    const node = AbciNode.start(home, { address: `unix://${socket}` });
    assert.equal(await node.address, `unix://${socket}`);
    const conns = await AppConnections.open(`unix://${socket}`);
    const cn = comet(conns);
    await cn.handshake(0);
    await cn.block();
    const committed = await conns.info();
    assert.equal(committed.lastBlockHeight, 1n);
    const alice = net.users.alice;
    const tx = await conns.signTx(alice, [sendMsg(alice.address, net.operators[0].address, '4')], CHAIN_ID);
    const { outcomes } = await cn.finalizeOnly([tx]);
    const inFlight = outcomes[0] as ResponseFinalizeBlock;

    assert.deepEqual(await node.kill('SIGTERM'), { code: 0, signal: null }, node.log());
    assert.match(node.log(), /received SIGTERM/);
    assert.match(node.log(), /the consensus connection closed between FinalizeBlock and Commit: the block is dropped and will be replayed height=2\b/);
    assert.match(node.log(), /node stopped \(stopped\) height=1\b/);
    assert.ok(!existsSync(socket), 'the socket file is removed');
    await conns.close();

    const next = AbciNode.start(home, { address: `unix://${socket}` });
    const reopened = await AppConnections.open(await next.address);
    cn.apps[0] = reopened;
    const info = await reopened.info();
    assert.equal(info.lastBlockHeight, committed.lastBlockHeight, 'the database has every committed block and not the one in flight');
    assert.equal(hex(info.lastBlockAppHash), hex(committed.lastBlockAppHash));
    assert.deepEqual(await cn.handshake(0), [2n]);
    assert.equal(hex((await reopened.info()).lastBlockAppHash), hex(inFlight.appHash));
    await reopened.close();
    assert.deepEqual(await next.kill('SIGTERM'), { code: 0, signal: null });
  });
});

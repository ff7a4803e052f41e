// One validator as an operator runs it: `chaind start` on a home made by `chaind testnet init`, with the
// pinned CometBFT as chaind's child. CosmJS signs and sends through CometBFT's RPC, REST and gRPC answer
// from chaind; chaind stopped with SIGTERM and killed with SIGKILL comes back with the same state (its
// CometBFT goes with it), CometBFT killed stops chaind with exit 1; and after an upgrade the block header's app version is the new protocol's.
import assert from 'node:assert/strict';
import { existsSync, readFileSync, writeFileSync } from 'node:fs';
import { join } from 'node:path';
import { after, describe, test } from 'node:test';
import { DirectSecp256k1Wallet } from '@cosmjs/proto-signing';
import { assertIsDeliverTxSuccess, GasPrice, SigningStargateClient } from '@cosmjs/stargate';
import { Client, credentials } from '@grpc/grpc-js';
import { QueryBalanceRequest, QueryBalanceResponse } from 'cosmjs-types/cosmos/bank/v1beta1/query';
import { QueryAppliedPlanRequest, QueryAppliedPlanResponse } from '@chaind/sdk/gen/chain/upgrade/v1beta1/query';
import {
  alive,
  chaind,
  cometClient,
  cometForTests,
  cometHeight,
  DENOM,
  endpointsOf,
  eventually,
  GroupChild,
  keyringKey,
  ok,
  proposeAndPassUpgrade,
  removeTmpDirs,
  setTomlValue,
  startValidator,
  testKey,
  tmpDir,
  type GroupChild as Child,
} from '@chaind/chaind/testing';

after(async () => {
  await GroupChild.killAllGroups();
  removeTmpDirs();
});

const CHAIN_ID = 'comet-one-1';
/** Long enough for the CLI's proposal and vote (seconds each from the sources on a busy machine). */
const GOV_PERIOD = '15s';

/** CometBFT's pid, from chaind's `started CometBFT … pid=N` line. */
async function cometPid(node: Child): Promise<number> {
  const m = await node.waitForLog(/started CometBFT .*pid=(\d+)/);
  return Number(m[1]);
}

async function grpcBalance(grpc: string, who: string): Promise<bigint> {
  const client = new Client(grpc, credentials.createInsecure());
  try {
    const bytes = await new Promise<Buffer>((res, rej) =>
      client.makeUnaryRequest(
        '/cosmos.bank.v1beta1.Query/Balance',
        (r: Uint8Array) => Buffer.from(r),
        (b: Buffer) => b,
        Buffer.from(QueryBalanceRequest.encode({ address: who, denom: DENOM }).finish()),
        (err, v) => (err !== null || v === undefined ? rej(err ?? new Error('no answer')) : res(v)),
      ),
    );
    return BigInt(QueryBalanceResponse.decode(bytes).balance?.amount ?? '0');
  } finally {
    client.close();
  }
}

describe('one validator: chaind start runs CometBFT', { skip: cometForTests().skip, timeout: 600_000 }, () => {
  test('CosmJS sends through CometBFT; REST and gRPC answer; SIGTERM and SIGKILL of chaind come back to the same state; the header follows the app version', async () => {
    const dir = tmpDir('chaind-one-');
    await ok(['testnet', 'init', '--validators', '1', '--output', dir, '--chain-id', CHAIN_ID, '--gov-period', GOV_PERIOD, '--block-time', '300ms'], {
      env: { CHAIND_RELEASE: 'v1' },
    });
    const home = join(dir, 'node0');
    // long enough for this test to see CometBFT still up after the halt, on a busy machine
    const appToml = join(home, 'config', 'app.toml');
    writeFileSync(appToml, setTomlValue(readFileSync(appToml, 'utf8'), 'abci', 'halt-linger', '3s'));
    const ends = await endpointsOf(home);
    const validator = await keyringKey(home, 'validator0');
    const bob = testKey(7);

    let node = startValidator(home, 'v1');
    await eventually('block 2', async () => (((await cometHeight(ends.rpc)) ?? 0n) >= 2n ? true : undefined));

    // CosmJS against CometBFT's own RPC: the tx goes through CometBFT's mempool into a block
    const wallet = await DirectSecp256k1Wallet.fromKey(validator.privateKey, 'chain');
    const signer = await SigningStargateClient.connectWithSigner(ends.rpc, wallet, {
      gasPrice: GasPrice.fromString(`0.025${DENOM}`),
      broadcastPollIntervalMs: 200,
      broadcastTimeoutMs: 30_000,
    });
    const sent = await signer.sendTokens(validator.address, bob.address, [{ denom: DENOM, amount: '4321' }], 'auto');
    assertIsDeliverTxSuccess(sent);
    assert.equal((await signer.getBalance(bob.address, DENOM)).amount, '4321');
    signer.disconnect();
    // chaind's REST and gRPC see the same committed state
    const rest = (await (await fetch(`${ends.rest}/cosmos/bank/v1beta1/balances/${bob.address}/by_denom?denom=${DENOM}`)).json()) as {
      balance: { amount: string };
    };
    assert.equal(rest.balance.amount, '4321');
    assert.equal(await grpcBalance(ends.grpc, bob.address), 4321n);

    // SIGTERM of chaind: CometBFT is stopped first, then chaind exits 0; a restart goes on from the same state
    const comet1 = await cometPid(node);
    const stoppedAt = (await cometHeight(ends.rpc)) ?? 0n;
    // the app's state as it stops: the header of the next block must commit to exactly this
    const beforeStop = await cometClient(ends.rpc);
    const stopInfo = await beforeStop.abciInfo();
    beforeStop.disconnect();
    node.signal('SIGTERM');
    assert.deepEqual(await node.exited, { code: 0, signal: null }, node.log().slice(-3000));
    assert.equal(alive(comet1), false, 'CometBFT stopped with chaind');
    assert.match(node.log(), /stopping CometBFT/);
    node = startValidator(home, 'v1');
    await eventually('blocks after the SIGTERM restart', async () => (((await cometHeight(ends.rpc)) ?? 0n) >= stoppedAt + 3n ? true : undefined));
    const client = await cometClient(ends.rpc);
    const hex = (b: Uint8Array | undefined): string => Buffer.from(b ?? []).toString('hex');
    const stopHeight = stopInfo.lastBlockHeight ?? 0;
    // CometBFT stores a block before the app has committed it: the app may be one behind the height /status gave
    assert.ok(stopHeight >= Number(stoppedAt) - 1, `app at ${stopHeight}, CometBFT at ${stoppedAt}`);
    await eventually('the block after the stop', async () => (((await cometHeight(ends.rpc)) ?? 0n) > BigInt(stopHeight) ? true : undefined));
    assert.equal(
      hex((await client.block(stopHeight + 1)).block.header.appHash),
      hex(stopInfo.lastBlockAppHash),
      'the app hash the app had when it stopped is the one the chain carries on with',
    );
    // and the restarted app goes on agreeing with the headers CometBFT makes
    const info = await client.abciInfo();
    await eventually("the block after the restarted app's height", async () =>
      ((await cometHeight(ends.rpc)) ?? 0n) > BigInt(info.lastBlockHeight ?? 0) ? true : undefined,
    );
    assert.equal(hex((await client.block((info.lastBlockHeight ?? 0) + 1)).block.header.appHash), hex(info.lastBlockAppHash));

    // SIGKILL of chaind: its CometBFT exits by itself (the app's socket is gone), both come back
    const comet2 = await cometPid(node);
    node.signal('SIGKILL');
    assert.equal((await node.exited).signal, 'SIGKILL');
    await eventually('CometBFT to exit after chaind was killed', async () => (alive(comet2) ? undefined : true), 30_000);
    const killedAt = (await client.status().catch(() => undefined))?.syncInfo.latestBlockHeight ?? Number(stoppedAt);
    client.disconnect();
    node = startValidator(home, 'v1');
    await eventually('blocks after the SIGKILL restart', async () => (((await cometHeight(ends.rpc)) ?? 0n) >= BigInt(killedAt) + 3n ? true : undefined));
    const again = await SigningStargateClient.connectWithSigner(ends.rpc, wallet, {
      gasPrice: GasPrice.fromString(`0.025${DENOM}`),
      broadcastPollIntervalMs: 200,
      broadcastTimeoutMs: 30_000,
    });
    assert.equal((await again.getBalance(bob.address, DENOM)).amount, '4321', 'the send survived both stops');
    assertIsDeliverTxSuccess(await again.sendTokens(validator.address, bob.address, [{ denom: DENOM, amount: '1' }], 'auto'));
    again.disconnect();

    // CometBFT dying by itself stops chaind: exit 1 with CometBFT's last lines, so a supervisor restarts both
    process.kill(await cometPid(node), 'SIGKILL');
    assert.equal((await node.exited).code, 1, node.log().slice(-3000));
    assert.match(node.log(), /CometBFT exited by itself \(signal SIGKILL\)/);
    node = startValidator(home, 'v1');
    await eventually('blocks after CometBFT was killed', async () => (((await cometHeight(ends.rpc)) ?? 0n) >= BigInt(killedAt) + 5n ? true : undefined));

    // a governance upgrade v1 → v2: chaind halts at H (exit 10) and stops CometBFT; v2 gets block H replayed
    const h = ((await cometHeight(ends.rpc)) ?? 0n) + 80n;
    await proposeAndPassUpgrade({
      cli: (args) => chaind(args),
      node: ends.rpc,
      home,
      name: 'v2',
      height: h,
      proposal: 1,
      from: 'validator0',
      voter: 'validator0',
      summary: 's',
      broadcastMode: 'sync',
      gas: '400000',
      txFlags: ['--fees', '5000stake', '--chain-id', CHAIN_ID],
      context: () => node.log().slice(-3000),
    });
    // halt-linger: CometBFT keeps running a while after the halt (its gossip gives peers H's precommits), then stops
    await node.waitForLog(/ERR halting height=/, 300_000);
    assert.equal((await fetch(`${ends.rpc}/health`)).status, 200, 'CometBFT still answers during halt-linger');
    const halted = await node.exited;
    assert.equal(halted.code, 10, node.log().slice(-4000));
    assert.match(node.log(), new RegExp(`UPGRADE "v2" NEEDED at height: ${h}`));
    assert.ok(existsSync(join(home, 'data', 'upgrade-info.json')));
    node = startValidator(home, 'v2');
    await eventually('H + 2 as v2', async () => (((await cometHeight(ends.rpc)) ?? 0n) >= h + 2n ? true : undefined), 120_000);
    // REST and gRPC start once the network made a block with v2 (H+1), not while block H is replayed and
    // H+1 proposed: their start-up would hold those up
    await node.waitForLog(/REST server listening/);
    const v2log = node.log();
    const firstNewBlock = v2log.search(new RegExp(`committed block height=${h + 1n} `));
    assert.ok(firstNewBlock > v2log.search(new RegExp(`committed block height=${h} `)), v2log.slice(-4000));
    assert.ok(v2log.search(/REST server listening/) > firstNewBlock, v2log.slice(-4000));
    const c2 = await cometClient(ends.rpc);
    const before = (await c2.block(Number(h))).block.header.version.app;
    const afterUpgrade = (await c2.block(Number(h) + 1)).block.header.version.app;
    assert.ok(afterUpgrade > before, `app version ${before} at H, ${afterUpgrade} at H+1`);
    const applied = QueryAppliedPlanResponse.decode(
      (await c2.abciQuery({ path: '/chain.upgrade.v1beta1.Query/AppliedPlan', data: QueryAppliedPlanRequest.encode({ name: 'v2' }).finish() })).value,
    );
    assert.equal(applied.height, h);
    c2.disconnect();
    await node.killGroup();
  });
});

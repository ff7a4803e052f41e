// `chaind dev` (solo) and `chaind start` (CometBFT) as an operator runs them: a real child process over a
// real home; which of the two a home may run, and the CometBFT binary `start` accepts.
import assert from 'node:assert/strict';
import { chmodSync, existsSync, mkdtempSync, readFileSync, rmSync, writeFileSync } from 'node:fs';
import { tmpdir } from 'node:os';
import { join } from 'node:path';
import { after, test } from 'node:test';
import { chaind as runChaind, RPC_ONLY, startDevNode } from '@chaind/chaind/testing';

const homes: string[] = [];
after(() => homes.forEach((h) => rmSync(h, { recursive: true, force: true })));

async function chaind(args: string[], env: Readonly<Record<string, string>> = {}): Promise<{ status: number | null; stdout: string; stderr: string }> {
  const r = await runChaind(args, { env });
  return { status: r.code, stdout: r.stdout, stderr: r.stderr };
}

async function newHome(): Promise<string> {
  const home = mkdtempSync(join(tmpdir(), 'chaind-start-'));
  homes.push(home);
  const run = async (args: string[]): Promise<void> => {
    const r = await chaind([...args, '--home', home]);
    assert.equal(r.status, 0, `${args.join(' ')}: ${r.stderr}`);
  };
  await run(['init', 'n1', '--chain-id', 'start-test-1']);
  await run(['keys', 'add', 'val', '--keyring-backend', 'test']);
  await run(['genesis', 'add-account', 'val', '1000000stake', '--keyring-backend', 'test']);
  await run(['genesis', 'add-validator', 'val', '10', '--keyring-backend', 'test']);
  const cfg = join(home, 'config', 'config.toml');
  writeFileSync(cfg, readFileSync(cfg, 'utf8').replace(/block_interval = "1s"/, 'block_interval = "100ms"'));
  return home;
}

const lastHeight = (log: string): number => Math.max(0, ...[...log.matchAll(/committed block height=(\d+)/g)].map((m) => Number(m[1])));

test('dev (solo) produces blocks, stops at --halt-height with exit 0, and a restart resumes at the next height', async () => {
  const home = await newHome();
  const first = await chaind(['dev', '--home', home, '--halt-height', '3', ...RPC_ONLY]);
  assert.equal(first.status, 0, first.stderr);
  assert.equal(lastHeight(first.stderr), 3);
  assert.match(first.stderr, /node stopped \(halt-height\) height=3/);
  const second = await chaind(['dev', '--home', home, '--halt-height', '6', ...RPC_ONLY]);
  assert.equal(second.status, 0, second.stderr);
  assert.doesNotMatch(second.stderr, /committed block height=[123]\b/, 'no block is produced twice');
  assert.equal(lastHeight(second.stderr), 6);
});

test('SIGTERM stops the node cleanly (exit 0, no half block) and it restarts from there', async () => {
  const home = await newHome();
  const dev = await startDevNode(home, { servers: true });
  // the JSON-RPC, REST and gRPC servers answer while the node runs
  const status = (await (await fetch(`${dev.rpc}/status`)).json()) as { result: { node_info: { network: string; version: string } } };
  assert.equal(status.result.node_info.network, 'start-test-1');
  assert.match(status.result.node_info.version, /^0\.38\./);
  assert.deepEqual(await (await fetch(`${dev.rest}/chain/upgrade/v1beta1/current_plan`)).json(), { plan: null });
  assert.match(dev.grpc ?? '', /^127\.0\.0\.1:\d+$/);
  await dev.proc.waitForLog(/committed block height=([4-9]|\d{2,})\b/);
  dev.proc.signal('SIGTERM');
  const { code } = await dev.proc.exited;
  const log = dev.proc.log();
  assert.equal(code, 0, log);
  assert.match(log, /received SIGTERM/);
  const stoppedAt = lastHeight(log);
  const next = await chaind(['dev', '--home', home, '--halt-height', String(stoppedAt + 2), ...RPC_ONLY]);
  assert.equal(next.status, 0, next.stderr);
  assert.match(next.stderr, new RegExp(`committed block height=${stoppedAt + 1}\\b`));
});

test('bad flags and a broken genesis are one clear line and a non-zero exit', async () => {
  const home = await newHome();
  const bad = await chaind(['dev', '--home', home, '--unsafe-skip-upgrades', 'x,2']);
  assert.equal(bad.status, 1);
  assert.match(bad.stderr, /invalid --unsafe-skip-upgrades "x,2"/);
  const addr = await chaind(['dev', '--home', home, '--rpc.laddr', 'udp://1.2.3.4:5']);
  assert.equal(addr.status, 1);
  assert.match(addr.stderr, /--rpc\.laddr/);
  // Cosmos binaries parse these as Go booleans: a word they refuse must not quietly turn a server off
  const word = await chaind(['dev', '--home', home, '--api.enable', 'yes']);
  assert.equal(word.status, 1, word.stderr);
  assert.match(word.stderr, /invalid --api\.enable "yes": expected true or false/);
  const grpc = await chaind(['dev', '--home', home, '--grpc.enable=off']);
  assert.equal(grpc.status, 1, grpc.stderr);
  assert.match(grpc.stderr, /invalid --grpc\.enable "off": expected true or false/);
  writeFileSync(join(home, 'config', 'genesis.json'), '{"chain_id": ');
  const broken = await chaind(['dev', '--home', home]);
  assert.equal(broken.status, 1);
  assert.match(broken.stderr, /genesis\.json/);
  assert.doesNotMatch(broken.stderr, /\n\s+at /, 'no stack trace');
});

test("a solo chain is refused by start, a validator network's genesis by dev; each one line naming the other command", async () => {
  const home = await newHome();
  const solo = await chaind(['dev', '--home', home, '--halt-height', '2', ...RPC_ONLY]);
  assert.equal(solo.status, 0, solo.stderr);
  assert.ok(existsSync(join(home, 'data', 'solo-blocks.db')), 'the solo block store has a name CometBFT never uses');
  assert.ok(!existsSync(join(home, 'data', 'blockstore.db')));
  const start = await chaind(['start', '--home', home]);
  assert.equal(start.status, 1, start.stderr);
  assert.match(
    start.stderr,
    /this home has run solo \(its blocks are in data\/solo-blocks\.db\): CometBFT cannot take over a solo chain; run it with `chaind dev --home /,
  );
  assert.doesNotMatch(start.stderr, /started CometBFT/);

  // a second validator in the genesis: solo would fork the network
  const net = await newHome();
  const other = await newHome();
  const pv = JSON.parse(readFileSync(join(other, 'config', 'priv_validator_key.json'), 'utf8')) as { pub_key: unknown };
  const op = await chaind(['keys', 'add', 'op2', '--keyring-backend', 'test', '--home', net, '--output', 'json']);
  assert.equal(op.status, 0, op.stderr);
  const addr = (JSON.parse(op.stdout) as { address: string }).address;
  const funded = await chaind(['genesis', 'add-account', addr, '1000stake', '--home', net]);
  assert.equal(funded.status, 0, funded.stderr);
  const added = await chaind(['genesis', 'add-validator', addr, '10', '--pubkey', JSON.stringify(pv.pub_key), '--home', net]);
  assert.equal(added.status, 0, added.stderr);
  const dev = await chaind(['dev', '--home', net]);
  assert.equal(dev.status, 1, dev.stderr);
  assert.match(
    dev.stderr,
    /the genesis gives voting power to 1 other validator: a solo chain would be a private fork of their network; run it with `chaind start --home /,
  );
  assert.ok(!existsSync(join(net, 'data', 'solo-blocks.db')), 'nothing written');
});

test('start refuses a cometbft binary of another version, naming the pinned one', async () => {
  const home = await newHome();
  const fake = join(home, 'cometbft');
  writeFileSync(fake, '#!/bin/sh\necho 0.37.5\n');
  chmodSync(fake, 0o755);
  const r = await chaind(['start', '--home', home], { COMETBFT_BIN: fake });
  assert.equal(r.status, 1, r.stderr);
  assert.match(r.stderr, new RegExp(`cometbft binary ${fake} \\(from COMETBFT_BIN\\) is version 0\\.37\\.5; chaind runs only CometBFT v0\\.38\\.25`));
  assert.doesNotMatch(r.stderr, /\n\s+at /, 'no stack trace');
  const missing = await chaind(['start', '--home', home], { COMETBFT_BIN: join(home, 'nope') });
  assert.equal(missing.status, 1);
  assert.match(missing.stderr, /does not run: .*npm run cometbft:install/);
});

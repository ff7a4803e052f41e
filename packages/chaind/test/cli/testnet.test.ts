// `chaind testnet init` and `start` as a developer runs them: bad arguments refused before anything is
// written; a one-validator testnet started, making blocks under chainvisor, described in testnet.json,
// and stopped by SIGINT with nothing left running.
import assert from 'node:assert/strict';
import { existsSync, mkdirSync, readdirSync, readFileSync, writeFileSync } from 'node:fs';
import { join } from 'node:path';
import { after, describe, test } from 'node:test';
import { BIN, chaind, childEnv, cometbftBin, cometForTests, cometHeight, eventually, GroupChild, ok, removeTmpDirs, tmpDir } from '@chaind/chaind/testing';

after(async () => {
  await GroupChild.killAllGroups();
  removeTmpDirs();
});

test('testnet init refuses a bad count or a non-empty folder with one line, writing nothing', async () => {
  const dir = join(tmpDir('chaind-tn-bad-'), 'net');
  for (const n of ['0', '17', 'x']) {
    const r = await chaind(['testnet', 'init', '--validators', n, '--output', dir]);
    assert.equal(r.code, 1, r.stderr);
    assert.match(r.stderr, /^Error: --validators must be (1 to 16|a number)/m);
    assert.ok(!existsSync(dir), 'nothing written');
  }
  mkdirSync(dir);
  writeFileSync(join(dir, 'keep'), 'x');
  const full = await chaind(['testnet', 'init', '--validators', '1', '--output', dir]);
  assert.equal(full.code, 1);
  assert.match(full.stderr, /is not empty: give a new or empty folder/);
  assert.deepEqual(readdirSync(dir), ['keep']);
  const period = await chaind(['testnet', 'init', '--validators', '1', '--output', join(dir, 'x'), '--gov-period=-5s']);
  assert.equal(period.code, 1);
  assert.match(period.stderr, /invalid --gov-period "-5s"/);
});

describe('testnet start', { skip: cometForTests().skip, timeout: 300_000 }, () => {
  test('one validator under chainvisor: blocks, testnet.json, and SIGINT stops every process', async () => {
    const dir = tmpDir('chaind-tn-');
    await ok(['testnet', 'init', '--validators', '1', '--output', dir, '--chain-id', 'tn-one-1', '--block-time', '300ms']);
    const genesis = JSON.parse(readFileSync(join(dir, 'node0', 'config', 'genesis.json'), 'utf8')) as { app_state: { validators: { validators: unknown[] } } };
    assert.equal(genesis.app_state.validators.validators.length, 1);
    assert.ok(existsSync(join(dir, 'node0', 'cosmovisor', 'upgrades', 'v2', 'bin', 'chaind')), 'the later release installed for chainvisor');
    const net = GroupChild.spawn([BIN, 'testnet', 'start', dir], childEnv({ COMETBFT_BIN: cometbftBin() }), `chaind testnet start ${dir}`);
    await net.waitForLog(/testnet\.json/);
    const file = JSON.parse(readFileSync(join(dir, 'testnet.json'), 'utf8')) as { chain_id: string; nodes: { name: string; rpc: string; key: string }[] };
    assert.equal(file.chain_id, 'tn-one-1');
    assert.deepEqual(
      file.nodes.map((n) => [n.name, n.key]),
      [['node0', 'validator0']],
    );
    await eventually('block 3', async () => (((await cometHeight(file.nodes[0].rpc)) ?? 0n) >= 3n ? true : undefined), 120_000);
    assert.match(net.log(), /node0\| .*committed block height=3/);
    net.signal('SIGINT');
    assert.deepEqual(await net.exited, { code: 0, signal: null }, net.log().slice(-3000));
    // chainvisor, chaind and CometBFT all gone: no process names the testnet's folder
    const left = readdirSync('/proc')
      .filter((p) => /^\d+$/.test(p))
      .filter((p) => {
        try {
          return readFileSync(`/proc/${p}/cmdline`, 'utf8').includes(dir);
        } catch {
          return false;
        }
      });
    assert.deepEqual(left, [], 'nothing left running');
  });
});

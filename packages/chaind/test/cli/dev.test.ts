// `chaind dev` (npm start): the development chain a newcomer gets.
import assert from 'node:assert/strict';
import { existsSync, mkdtempSync, readFileSync, rmSync } from 'node:fs';
import { tmpdir } from 'node:os';
import { join } from 'node:path';
import { after, test } from 'node:test';
import { DirectSecp256k1HdWallet } from '@cosmjs/proto-signing';
import { BIN, RPC_ONLY, runInGroup } from '@chaind/chaind/testing';
import { DEV_MNEMONICS } from '../../src/cli/dev.ts';

const dirs: string[] = [];
after(() => dirs.forEach((d) => rmSync(d, { recursive: true, force: true })));
const chaind = (args: string[]) => runInGroup(process.execPath, [BIN, ...args], { timeoutMs: 60_000 });

test('dev creates chain-dev-1 with funded alice, bob and validator, runs it, and --reset starts afresh', async () => {
  const home = join(mkdtempSync(join(tmpdir(), 'chaind-dev-')), 'home');
  dirs.push(join(home, '..'));
  const first = await chaind(['dev', '--home', home, '--halt-height', '2', ...RPC_ONLY]);
  assert.equal(first.code, 0, first.stderr);
  assert.match(first.stdout, /created a development chain/);
  // a one-line summary of the genesis, not the genesis itself (~80 lines before anything useful)
  assert.match(
    first.stdout,
    new RegExp(`^genesis ${home}/config/genesis\\.json: chain chain-dev-1, 1 validator, 3 accounts, max deposit period 20s, voting period 20s$`, 'm'),
  );
  assert.doesNotMatch(first.stdout + first.stderr, /app_message|"app_state"|"auth":/);
  assert.match(first.stdout, /chain chain-dev-1/);
  assert.match(first.stderr, /committed block height=2/);
  assert.doesNotMatch(first.stderr, /test keyring backend/, 'dev opens its test keyring without the warning');
  const keys = await chaind(['keys', 'list', '--keyring-backend', 'test', '--home', home, '-o', 'json']);
  assert.equal(keys.code, 0, keys.stderr);
  const listed = JSON.parse(keys.stdout) as { name: string; address: string }[];
  for (const [name, mnemonic] of Object.entries(DEV_MNEMONICS)) {
    const [acc] = await (await DirectSecp256k1HdWallet.fromMnemonic(mnemonic, { prefix: 'chain' })).getAccounts();
    assert.equal(listed.find((k) => k.name === name)?.address, acc.address, `${name} is the documented dev key`);
  }
  // the second run continues the same chain
  const second = await chaind(['dev', '--home', home, '--halt-height', '4', ...RPC_ONLY]);
  assert.equal(second.code, 0, second.stderr);
  assert.doesNotMatch(second.stdout, /created a development chain/);
  assert.match(second.stderr, /committed block height=3\b/);
  // --reset starts again from height 1
  const reset = await chaind(['dev', '--home', home, '--reset', '--halt-height', '1', ...RPC_ONLY]);
  assert.equal(reset.code, 0, reset.stderr);
  assert.match(reset.stdout, /created a development chain/);
  assert.match(reset.stderr, /committed block height=1\b/);
});

test("dev --gov-period sets the new chain's deposit and voting periods; a bad one is refused before anything is created", async () => {
  const home = join(mkdtempSync(join(tmpdir(), 'chaind-dev-')), 'home');
  dirs.push(join(home, '..'));
  const bad = await chaind(['dev', '--home', home, '--gov-period', 'soon', '--halt-height', '1']);
  assert.equal(bad.code, 1);
  assert.equal(bad.stderr.trim(), 'Error: invalid --gov-period "soon": expected a positive duration such as 20s or 1m30s');
  assert.equal(existsSync(home), false);
  const ok = await chaind(['dev', '--home', home, '--gov-period', '1m30s', '--halt-height', '1', ...RPC_ONLY]);
  assert.equal(ok.code, 0, ok.stderr);
  const params = (
    JSON.parse(readFileSync(join(home, 'config', 'genesis.json'), 'utf8')) as {
      app_state: { gov: { params: { voting_period: string; max_deposit_period: string } } };
    }
  ).app_state.gov.params;
  // Go's form on the command line, protobuf JSON in genesis
  assert.deepEqual([params.voting_period, params.max_deposit_period], ['90s', '90s']);
});

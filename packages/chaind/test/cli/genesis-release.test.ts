// Issue 31 §5: a home made by the newest release's `chaind init` and started by an older release (v1 under
// chainvisor) stopped with `genesis app_state has an unknown module "chaininfo"` and nothing else. The
// genesis now records the release that wrote it (app_name, app_version: the Cosmos SDK's fields), and the
// refusal says which release wrote it, which one runs, and what to do; as real child processes.
import assert from 'node:assert/strict';
import { readFileSync, writeFileSync } from 'node:fs';
import { join } from 'node:path';
import { after, describe, test } from 'node:test';
import { LATEST_RELEASE, RELEASES } from '../../src/release.ts';
import { chaind, checkCometGenesis, ok, removeTmpDirs, tmpDir } from '@chaind/chaind/testing';

after(removeTmpDirs);

const FIRST = RELEASES[0];
const genesisFile = (home: string): string => join(home, 'config', 'genesis.json');
const WHAT_TO_DO =
  'make the genesis with the binary of the release the chain starts from (under chainvisor: $DAEMON_HOME/cosmovisor/genesis/bin/chaind init …)';

describe('a genesis made by a newer release than the one that runs', () => {
  test('chaind init records its release in genesis.json (app_name, app_version), which CometBFT reads past', async () => {
    const home = tmpDir('chaind-genesis-release-');
    await ok(['init', 'mynode', '--chain-id', 'mychain-1', '--home', home]);
    const text = readFileSync(genesisFile(home), 'utf8');
    const g = JSON.parse(text) as Record<string, unknown>;
    assert.deepEqual(Object.keys(g).slice(0, 3), ['app_name', 'app_version', 'genesis_time'], "the Cosmos SDK's field order");
    assert.equal(g.app_name, 'chaind');
    assert.equal(g.app_version, LATEST_RELEASE);
    checkCometGenesis(text);
    // the other commands keep it
    await ok(['keys', 'add', 'validator', '--keyring-backend', 'test', '--home', home]);
    await ok(['genesis', 'add-account', 'validator', '1000stake', '--keyring-backend', 'test', '--home', home]);
    assert.equal((JSON.parse(readFileSync(genesisFile(home), 'utf8')) as Record<string, unknown>).app_version, LATEST_RELEASE);
  });

  test(`started by ${FIRST}: one line naming the module, the release that wrote the genesis, the running one and what to do; exit 1`, async () => {
    const home = tmpDir('chaind-genesis-release-');
    await ok(['init', 'mynode', '--chain-id', 'mychain-1', '--home', home]);
    const line = `genesis app_state has an unknown module "chaininfo": genesis.json was written by chaind ${LATEST_RELEASE} and this binary is chaind ${FIRST}, which has no such module; ${WHAT_TO_DO}, or run chaind ${LATEST_RELEASE}`;

    const start = await chaind(['start', '--home', home], { env: { CHAIND_RELEASE: FIRST } });
    assert.equal(start.code, 1, start.stderr);
    const errors = start.stderr.split('\n').filter((l) => / ERR /.test(l));
    assert.equal(errors.length, 1, start.stderr);
    assert.ok(errors[0].endsWith(` ERR ${line}`), start.stderr);

    const validate = await chaind(['genesis', 'validate', '--home', home], { env: { CHAIND_RELEASE: FIRST } });
    assert.equal(validate.code, 1);
    assert.equal(validate.stderr, `Error: error validating genesis file ${genesisFile(home)}: ${line}\n`);

    // the docs' next setup step, by the genesis release's binary
    await ok(['keys', 'add', 'validator', '--keyring-backend', 'test', '--home', home], { env: { CHAIND_RELEASE: FIRST } });
    const add = await chaind(['genesis', 'add-account', 'validator', '1000stake', '--keyring-backend', 'test', '--home', home], {
      env: { CHAIND_RELEASE: FIRST },
    });
    assert.equal(add.code, 1);
    assert.match(add.stderr, new RegExp(`^(?:WARNING: .*\\n)?Error: cannot add account chain1\\w+: ${line.replace(/[.*+?^${}()|[\]\\]/g, '\\$&')}\\n$`));
  });

  test('a genesis that does not record its release (written before app_version): the refusal says so', async () => {
    const home = tmpDir('chaind-genesis-release-');
    await ok(['init', 'mynode', '--chain-id', 'mychain-1', '--home', home]);
    const g = JSON.parse(readFileSync(genesisFile(home), 'utf8')) as Record<string, unknown>;
    delete g.app_name;
    delete g.app_version;
    writeFileSync(genesisFile(home), JSON.stringify(g, null, 2));
    const validate = await chaind(['genesis', 'validate', '--home', home], { env: { CHAIND_RELEASE: FIRST } });
    assert.equal(validate.code, 1);
    assert.equal(
      validate.stderr,
      `Error: error validating genesis file ${genesisFile(home)}: genesis app_state has an unknown module "chaininfo": genesis.json does not say which release wrote it (no app_version) and this binary is chaind ${FIRST}, which has no such module; ${WHAT_TO_DO}\n`,
    );
  });

  test(`a genesis made by ${FIRST}'s own init is accepted by ${FIRST}`, async () => {
    const home = tmpDir('chaind-genesis-release-');
    const env = { CHAIND_RELEASE: FIRST };
    await ok(['init', 'mynode', '--chain-id', 'mychain-1', '--home', home], { env });
    assert.equal((JSON.parse(readFileSync(genesisFile(home), 'utf8')) as Record<string, unknown>).app_version, FIRST);
    await ok(['keys', 'add', 'validator', '--keyring-backend', 'test', '--home', home], { env });
    await ok(['genesis', 'add-account', 'validator', '1000000000stake', '--keyring-backend', 'test', '--home', home], { env });
    await ok(['genesis', 'add-validator', 'validator', '10', '--keyring-backend', 'test', '--home', home], { env });
    const v = await ok(['genesis', 'validate', '--home', home], { env });
    assert.match(v.stdout, /is a valid genesis file/);
  });
});

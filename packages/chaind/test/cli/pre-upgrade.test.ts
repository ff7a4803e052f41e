// `chaind pre-upgrade` as a real child process over state a v1 chain left at its halt: 0 ok, 30 fail,
// 31 retry, and the state untouched whatever the answer.
import assert from 'node:assert/strict';
import { cpSync, existsSync, mkdirSync, rmSync, writeFileSync } from 'node:fs';
import { join } from 'node:path';
import { after, describe, test } from 'node:test';
import { toHex } from '@chaind/sdk/store';
import { UpgradeHaltError } from '@chaind/sdk/x/upgrade';
import { upgradeInfoPath, writeUpgradeInfo } from '@chaind/upgrade-plan';
import { chaind, newHome, removeTmpDirs, type Run, softwareUpgrade, TestChain } from '@chaind/chaind/testing';
import type { Upgrade } from '../../src/upgrades/index.ts';
import { v2 } from '../../src/upgrades/v2/index.ts';
import { isBusyError } from '../../src/cli/pre-upgrade.ts';

after(removeTmpDirs);

/** A chain run by a binary knowing `genesisUpgrades` (v1: none), halted at a "v2" plan's height. */
async function haltedAtV2(genesisUpgrades: readonly Upgrade[] = []): Promise<{ home: string; h: bigint; appHash: string }> {
  const home = newHome();
  const c = TestChain.open(home, { upgrades: genesisUpgrades });
  const h = c.height + 25n;
  c.pass([softwareUpgrade('v2', h)]);
  c.blocksUntil(h - 1n);
  assert.throws(
    () => c.block(),
    (e: Error) => e instanceof UpgradeHaltError && e.kind === 'upgrade-needed',
  );
  const appHash = toHex(c.app.store.lastCommitInfo().appHash);
  await c.close();
  return { home, h, appHash };
}

/** The state is exactly as the halt left it. */
async function untouched(home: string, h: bigint, appHash: string): Promise<void> {
  const c = TestChain.open(home);
  assert.equal(c.height, h - 1n);
  assert.equal(toHex(c.app.store.lastCommitInfo().appHash), appHash);
  assert.throws(() => c.raw('chaininfo', Uint8Array.of(1)), { message: 'unknown store "chaininfo": unknown request' });
  await c.close();
}

/** `chaind pre-upgrade` as release v2, the release of the upgrade these tests prepare (not whatever is latest). */
const preUpgradeV2 = (home: string): Promise<Run> => chaind(['pre-upgrade', '--home', home], { env: { CHAIND_RELEASE: 'v2' } });

function answer(r: Run, code: number, line: string | RegExp): void {
  const out = code === 0 ? r.stdout : r.stderr;
  assert.equal(r.code, code, `stdout:\n${r.stdout}\nstderr:\n${r.stderr}`);
  assert.equal(out.trimEnd().split('\n').length, 1, `one line: ${out}`);
  if (typeof line === 'string') assert.equal(out.trimEnd(), line);
  else assert.match(out.trimEnd(), line);
}

describe('chaind pre-upgrade', () => {
  test('0: the v2 binary dry-runs v2 on the halted v1 state (stores and migrations) and writes nothing; the real upgrade then applies', async () => {
    const { home, h, appHash } = await haltedAtV2();
    const r = await preUpgradeV2(home);
    answer(r, 0, `pre-upgrade: upgrade "v2" at height ${h}: dry run passed (module versions: chaininfo new → 1, validators 1 → 2)`);
    await untouched(home, h, appHash);
    const c = TestChain.open(home, { upgrades: [v2] });
    c.block();
    assert.equal(c.height, h);
    await c.close();
    answer(await preUpgradeV2(home), 0, `pre-upgrade: upgrade "v2" was already applied at height ${h}: nothing to prepare`);
  });

  test('0: --upgrade-name and --upgrade-height dry-run an upgrade on a copy of the data without upgrade-info.json; the height defaults to the next block', async () => {
    const { home, h, appHash } = await haltedAtV2();
    // a developer's copy of the node's data: no upgrade-info.json
    const copy = newHome();
    cpSync(join(home, 'data'), join(copy, 'data'), { recursive: true });
    rmSync(upgradeInfoPath(copy));
    answer(await preUpgradeV2(copy), 30, `Error: no upgrade to prepare: ${upgradeInfoPath(copy)} does not exist`);
    const named = await chaind(['pre-upgrade', '--home', copy, '--upgrade-name', 'v2', '--upgrade-height', String(h)], { env: { CHAIND_RELEASE: 'v2' } });
    answer(named, 0, `pre-upgrade: upgrade "v2" at height ${h}: dry run passed (module versions: chaininfo new → 1, validators 1 → 2)`);
    assert.equal(existsSync(upgradeInfoPath(copy)), false, 'no upgrade-info.json written');
    await untouched(copy, h, appHash);

    // a chain with no plan at all (a copy of a running node): the upgrade as the next block would apply it
    const running = newHome();
    const c = TestChain.open(running);
    c.blocksUntil(7n);
    const runningHash = toHex(c.app.store.lastCommitInfo().appHash);
    await c.close();
    const next = await chaind(['pre-upgrade', '--home', running, '--upgrade-name', 'v2'], { env: { CHAIND_RELEASE: 'v2' } });
    answer(next, 0, 'pre-upgrade: upgrade "v2" at height 8: dry run passed (module versions: chaininfo new → 1, validators 1 → 2)');
    const after = TestChain.open(running);
    assert.equal(after.height, 7n);
    assert.equal(toHex(after.app.store.lastCommitInfo().appHash), runningHash, 'state untouched');
    await after.close();

    // the release before it does not know it; a height without a name, or not a height, is a usage error
    answer(
      await chaind(['pre-upgrade', '--home', running, '--upgrade-name', 'v2'], { env: { CHAIND_RELEASE: 'v1' } }),
      30,
      'Error: this binary (release v1) does not know upgrade "v2" (it knows: none): install the release that has it',
    );
    const alone = await chaind(['pre-upgrade', '--home', running, '--upgrade-height', '8'], { env: { CHAIND_RELEASE: 'v2' } });
    assert.equal(alone.code, 1, alone.stderr);
    assert.equal(alone.stderr.trimEnd(), 'Error: --upgrade-height needs --upgrade-name');
    const bad = await chaind(['pre-upgrade', '--home', running, '--upgrade-name', 'v2', '--upgrade-height', 'ten'], { env: { CHAIND_RELEASE: 'v2' } });
    assert.equal(bad.code, 1, bad.stderr);
    assert.match(bad.stderr, /option '--upgrade-height <height>' argument 'ten' is invalid\. a positive integer/);
  });

  test('30: a binary that does not know the upgrade (release v1)', async () => {
    const { home, h, appHash } = await haltedAtV2();
    const r = await chaind(['pre-upgrade', '--home', home], { env: { CHAIND_RELEASE: 'v1' } });
    answer(r, 30, 'Error: this binary (release v1) does not know upgrade "v2" (it knows: none): install the release that has it');
    await untouched(home, h, appHash);
  });

  test('30: no upgrade-info.json, or a malformed one', async () => {
    const home = newHome();
    answer(await preUpgradeV2(home), 30, `Error: no upgrade to prepare: ${upgradeInfoPath(home)} does not exist`);
    mkdirSync(join(home, 'data'));
    writeFileSync(upgradeInfoPath(home), '{"name": "v2", "height": "ten"}');
    answer(await preUpgradeV2(home), 30, `Error: malformed upgrade info file ${upgradeInfoPath(home)}: "height" must be a positive integer, got "ten"`);
  });

  test('30: no application state', async () => {
    const home = newHome();
    writeUpgradeInfo(upgradeInfoPath(home), { name: 'v2', height: 10n, info: '' });
    answer(await preUpgradeV2(home), 30, /^Error: no application state at .*application\.db$/);
  });

  test('30: a store upgrade that cannot apply (the store v2 adds already exists), state untouched', async () => {
    // a chain whose genesis release already had a "chaininfo" store
    const squatter: Upgrade = {
      name: 'v0',
      storeUpgrades: {},
      modules: { squatter: { consensusVersion: 1n, create: () => ({ name: 'squatter', storeKeys: ['chaininfo'], consensusVersion: 1n }) } },
    };
    const { home, h } = await haltedAtV2([squatter]);
    answer(await preUpgradeV2(home), 30, `Error: upgrade "v2" at height ${h} would fail: cannot add store "chaininfo": it already exists`);
  });

  test('30: the handler fails (a module migration cannot run), with its error', async () => {
    // a chain whose validators module is already at consensus version 3: v2 cannot migrate it backwards
    const bump = (name: string, v: bigint): Upgrade => ({ name, storeUpgrades: {}, modules: { validators: { consensusVersion: v, migrate: () => {} } } });
    const ahead = [bump('v0a', 2n), bump('v0b', 3n)];
    const { home, h, appHash } = await haltedAtV2(ahead);
    answer(
      await preUpgradeV2(home),
      30,
      `Error: upgrade "v2" at height ${h} would fail: module "validators" is at version 3 on chain but this binary has version 2: cannot migrate backwards`,
    );
    const c = TestChain.open(home, { upgrades: ahead });
    assert.equal(toHex(c.app.store.lastCommitInfo().appHash), appHash, 'state untouched');
    await c.close();
  });

  test('31: the state has not reached the upgrade height yet (the old binary is still running)', async () => {
    const home = newHome();
    const c = TestChain.open(home);
    const h = c.height + 40n;
    c.pass([softwareUpgrade('v2', h)]);
    const at = c.height;
    await c.close();
    writeUpgradeInfo(upgradeInfoPath(home), { name: 'v2', height: h, info: '' });
    answer(
      await preUpgradeV2(home),
      31,
      `Error: the state is at height ${at}, before the upgrade height ${h} - 1: the old binary has not halted at the upgrade yet`,
    );
  });

  test('busy database errors are the retryable ones', () => {
    assert.equal(isBusyError(Object.assign(new Error('lock'), { code: 'EAGAIN' })), true);
    assert.equal(isBusyError(new Error('MDB_READERS_FULL: Environment maxreaders limit reached')), true);
    assert.equal(isBusyError(Object.assign(new Error('denied'), { code: 'EACCES' })), false);
    assert.equal(isBusyError(new Error('MDB_CORRUPTED: Located page was wrong type')), false);
  });
});

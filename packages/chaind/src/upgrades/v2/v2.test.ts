// Upgrade v2 on the real app over real LMDB: a v1 binary halts at the plan's height, the v2 binary
// applies it there (new store, renamed store, validators migration), and the chain keeps governing.
import assert from 'node:assert/strict';
import { existsSync } from 'node:fs';
import { after, describe, test } from 'node:test';
import { fromBech32 } from '@chaind/sdk/crypto';
import { concatBytes, toHex, u64be, utf8 } from '@chaind/sdk/store';
import { UpgradeHaltError } from '@chaind/sdk/x/upgrade';
import { upgradeInfoPath } from '@chaind/upgrade-plan';
import { validatorKey } from '@chaind/sdk/x/validators';
import { chainModules, moduleVersions } from '../../app.ts';
import { newHome, PASSED, queriedModuleVersions, removeTmpDirs, softwareUpgrade, TestChain, VALIDATOR } from '@chaind/chaind/testing';
import { v2 } from './index.ts';

after(removeTmpDirs);

const hex = (b: Uint8Array): string => toHex(b);
const VALIDATOR_RECORD = validatorKey(fromBech32(VALIDATOR.address, 'chain').data);

const versions = queriedModuleVersions;

/** A proposal after the upgrade: the validators (now in "valset") still tally the vote. */
function governs(c: TestChain): void {
  const p = c.pass([softwareUpgrade('v3', c.height + 1000n)]);
  assert.equal(p.status, PASSED);
  assert.equal(p.finalTallyResult?.yesCount, '10');
}

describe('upgrade v2', () => {
  test('a v1 chain halts at the height; the v2 binary adds chaininfo, renames validators → valset and migrates validators 1 → 2 at exactly that height', async () => {
    const home = newHome();
    const v1 = TestChain.open(home);
    const h = v1.height + 25n;
    v1.pass([softwareUpgrade('v2', h)]);
    v1.blocksUntil(h - 1n);
    assert.notEqual(v1.raw('validators', VALIDATOR_RECORD), undefined, 'v1 keeps the set in "validators"');
    assert.throws(() => v1.raw('valset', VALIDATOR_RECORD), { message: 'unknown store "valset": unknown request' });
    assert.deepEqual(versions(v1), { auth: '1', bank: '1', gov: '1', upgrade: '1', validators: '1' });
    assert.throws(
      () => v1.block(),
      (e: Error) => e instanceof UpgradeHaltError && e.message === `UPGRADE "v2" NEEDED at height: ${h}: `,
    );
    assert.equal(v1.height, h - 1n);
    assert.ok(existsSync(upgradeInfoPath(home)));
    await v1.close();

    const c = TestChain.open(home, { upgrades: [v2] });
    assert.equal(c.height, h - 1n, 'nothing applied before block h');
    c.block();
    assert.equal(c.height, h);
    assert.ok(c.logger.lines.some((l) => l.msg === `applying upgrade "v2" at height: ${h}`));
    assert.deepEqual(versions(c), { auth: '1', bank: '1', chaininfo: '1', gov: '1', upgrade: '1', validators: '2' });
    // the new store and its records
    assert.equal(c.raw('chaininfo', Uint8Array.of(0x01)), hex(u64be(h)), 'chaininfo started at h');
    assert.equal(c.raw('chaininfo', concatBytes(Uint8Array.of(0x02), utf8('v2'))), hex(u64be(h)), 'upgrade history: v2 at h');
    // the renamed store: same records under the new name, the old name gone
    assert.notEqual(c.raw('valset', VALIDATOR_RECORD), undefined);
    assert.throws(() => c.raw('validators', VALIDATOR_RECORD), { message: 'unknown store "validators": unknown request' });
    // the migration's record: total power
    assert.equal(c.raw('valset', Uint8Array.of(0x03)), hex(u64be(10n)));
    governs(c);
    await c.close();

    // a restart applies nothing again and keeps going
    const again = TestChain.open(home, { upgrades: [v2] });
    again.block();
    assert.equal(again.raw('chaininfo', Uint8Array.of(0x01)), hex(u64be(h)));
    assert.equal(again.logger.lines.filter((l) => l.msg.startsWith('applying upgrade')).length, 0);
    await again.close();
  });

  test('a chain started from a v2 genesis has the v2 layout from its first block and governs', async () => {
    const c = TestChain.open(newHome(), { upgrades: [v2] });
    assert.deepEqual(versions(c), { auth: '1', bank: '1', chaininfo: '1', gov: '1', upgrade: '1', validators: '2' });
    assert.equal(c.raw('chaininfo', Uint8Array.of(0x01)), hex(u64be(1n)), 'started at the genesis height');
    assert.equal(c.raw('chaininfo', concatBytes(Uint8Array.of(0x02), utf8('v2'))), undefined, 'no upgrade was applied');
    assert.equal(c.raw('valset', Uint8Array.of(0x03)), hex(u64be(10n)));
    assert.notEqual(c.raw('valset', VALIDATOR_RECORD), undefined);
    assert.throws(() => c.raw('validators', VALIDATOR_RECORD), { message: 'unknown store "validators": unknown request' });
    governs(c);
    await c.close();
  });

  test('the module set is a function of the upgrade list', () => {
    assert.deepEqual(moduleVersions([]), { auth: 1n, bank: 1n, gov: 1n, upgrade: 1n, validators: 1n });
    assert.deepEqual(moduleVersions([v2]), { auth: 1n, bank: 1n, chaininfo: 1n, gov: 1n, upgrade: 1n, validators: 2n });
    assert.equal(chainModules({ upgrades: [] }).validators.keeper.storeKey, 'validators');
    assert.equal(chainModules({ upgrades: [v2] }).validators.keeper.storeKey, 'valset');
  });
});

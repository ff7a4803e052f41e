import assert from 'node:assert/strict';
import { lstatSync, mkdirSync, readdirSync, readlinkSync, rmSync, symlinkSync, unlinkSync } from 'node:fs';
import { join } from 'node:path';
import { afterEach, beforeEach, describe, test } from 'node:test';
import { EXIT } from './exit-codes.ts';
import { layout, readCurrent, switchCurrent, upgradeFolderName, type Layout } from './layout.ts';
import { makeHome, type Home } from '@chaind/chainvisor/testing';

describe('upgrade folder names', () => {
  test("an unsafe name is exit code 6 (the rule and its words are @chaind/upgrade-plan's)", () => {
    assert.equal(upgradeFolderName('V2-Upgrade'), 'v2-upgrade');
    assert.throws(() => upgradeFolderName('..'), { code: EXIT.UPGRADE_INFO_INVALID, message: 'unsafe upgrade name: ".." is not a valid folder name' });
  });
});

describe('current', () => {
  let h: Home;
  let l: Layout;
  beforeEach(() => {
    h = makeHome();
    l = layout(h.home, 'chaind');
  });
  afterEach(() => h.cleanup());

  test('switched atomically to a relative link, no temporary link left behind', () => {
    mkdirSync(join(l.upgradesDir, 'v2', 'bin'), { recursive: true });
    assert.deepEqual(readCurrent(l), { kind: 'genesis', dir: l.genesisDir });
    switchCurrent(l, join(l.upgradesDir, 'v2'));
    assert.equal(readlinkSync(l.current), 'upgrades/v2');
    assert.deepEqual(readCurrent(l), { kind: 'upgrade', folder: 'v2', dir: join(l.upgradesDir, 'v2') });
    assert.deepEqual(readdirSync(l.root).sort(), ['current', 'genesis', 'upgrades']);
  });

  test('a stale temporary link from a crash mid-switch does not block the next switch', () => {
    mkdirSync(join(l.upgradesDir, 'v2'), { recursive: true });
    symlinkSync('genesis', `${l.current}.tmp-${process.pid}`);
    switchCurrent(l, join(l.upgradesDir, 'v2'));
    assert.equal(readlinkSync(l.current), 'upgrades/v2');
  });

  test('a broken current is an error, never reset to genesis', () => {
    unlinkSync(l.current);
    symlinkSync('upgrades/gone', l.current);
    assert.throws(() => readCurrent(l), { code: EXIT.LAYOUT_BROKEN, message: `${l.current} is broken: it points to upgrades/gone, which does not exist` });
    assert.equal(readlinkSync(l.current), 'upgrades/gone');
    unlinkSync(l.current);
    symlinkSync('/etc', l.current);
    assert.throws(() => readCurrent(l), { code: EXIT.LAYOUT_BROKEN, message: `${l.current} points to /etc, which is neither genesis nor a folder of upgrades/` });
    unlinkSync(l.current);
    assert.throws(() => readCurrent(l), { code: EXIT.LAYOUT_BROKEN, message: `${l.current} is missing: run \`chainvisor init <path-to-chaind>\` first` });
    mkdirSync(l.current);
    assert.throws(() => readCurrent(l), { code: EXIT.LAYOUT_BROKEN, message: `${l.current} is not a symlink` });
    assert.ok(lstatSync(l.current).isDirectory());
    rmSync(l.current, { recursive: true });
  });
});

import assert from 'node:assert/strict';
import { lstatSync, mkdirSync, readdirSync, readlinkSync, rmSync, symlinkSync, unlinkSync } from 'node:fs';
import { join } from 'node:path';
import { afterEach, beforeEach, describe, test } from 'node:test';
import { EXIT } from './exit-codes.ts';
import { layout, readCurrent, switchCurrent, upgradeFolderName, type Layout } from './layout.ts';
import { makeHome, type Home } from '@chaind/chainvisor/testing';
import { DEAD_PID } from '@chaind/upgrade-plan/testing';

describe('upgrade folder names', () => {
  test("an unsafe name is exit code 6 (the rule and its words are @chaind/upgrade-plan's)", () => {
    assert.equal(upgradeFolderName('V2-Upgrade'), 'v2-upgrade');
    assert.throws(() => upgradeFolderName('..'), { code: EXIT.UPGRADE_INFO_INVALID, message: 'unsafe upgrade name: ".." is not a valid folder name' });
  });

  test('a folder that differs from an existing one only by case (or Unicode form) is refused: one folder on a case-insensitive file system (names are path-escaped first)', () => {
    const h = makeHome();
    try {
      const l = layout(h.home, 'chaind');
      mkdirSync(join(l.upgradesDir, 'v2'), { recursive: true });
      mkdirSync(join(l.upgradesDir, 'my%20upgrade'));
      mkdirSync(join(l.upgradesDir, '.V3.partial-1-x'));
      // the same folder: fine, with or without recase
      assert.equal(upgradeFolderName('v2', true, l.upgradesDir), 'v2');
      assert.equal(upgradeFolderName('V2', false, l.upgradesDir), 'v2');
      assert.equal(upgradeFolderName('v3', true, l.upgradesDir), 'v3');
      assert.equal(upgradeFolderName('My Upgrade', false, l.upgradesDir), 'my%20upgrade');
      const refused = (folder: string, other: string): { code: number; message: string } => ({
        code: EXIT.UPGRADE_INFO_INVALID,
        message: `unsafe upgrade name: folder ${JSON.stringify(folder)} collides with the existing upgrades/${other} (the same folder on a case-insensitive file system)`,
      });
      assert.throws(() => upgradeFolderName('V2', true, l.upgradesDir), refused('V2', 'v2'));
      assert.throws(() => upgradeFolderName('MY UPGRADE', true, l.upgradesDir), refused('MY%20UPGRADE', 'my%20upgrade'));
    } finally {
      h.cleanup();
    }
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

  test("a temporary link left by a run killed mid-switch (another pid, gone) is removed by the next switch; a live run's is left alone", () => {
    mkdirSync(join(l.upgradesDir, 'v2'), { recursive: true });
    symlinkSync('upgrades/v2', `${l.current}.tmp-${DEAD_PID}`);
    symlinkSync('upgrades/v2', `${l.current}.tmp-${process.ppid}`);
    switchCurrent(l, join(l.upgradesDir, 'v2'));
    assert.equal(readlinkSync(l.current), 'upgrades/v2');
    assert.deepEqual(readdirSync(l.root).sort(), ['current', `current.tmp-${process.ppid}`, 'genesis', 'upgrades']);
  });

  test('a broken current is an error, never reset to genesis', () => {
    unlinkSync(l.current);
    symlinkSync('upgrades/gone', l.current);
    assert.throws(() => readCurrent(l), { code: EXIT.LAYOUT_BROKEN, message: `${l.current} is broken: it points to upgrades/gone, which does not exist` });
    assert.equal(readlinkSync(l.current), 'upgrades/gone');
    unlinkSync(l.current);
    symlinkSync('/etc', l.current);
    assert.throws(() => readCurrent(l), {
      code: EXIT.LAYOUT_BROKEN,
      message: `${l.current} points to /etc, which is neither genesis nor a folder of upgrades/`,
    });
    unlinkSync(l.current);
    assert.throws(() => readCurrent(l), { code: EXIT.LAYOUT_BROKEN, message: `${l.current} is missing: run \`chainvisor init <path-to-chaind>\` first` });
    mkdirSync(l.current);
    assert.throws(() => readCurrent(l), { code: EXIT.LAYOUT_BROKEN, message: `${l.current} is not a symlink` });
    assert.ok(lstatSync(l.current).isDirectory());
    rmSync(l.current, { recursive: true });
  });
});

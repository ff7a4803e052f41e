import assert from 'node:assert/strict';
import { describe, test } from 'node:test';
import { folderNameProblem, upgradeFolderName } from './names.ts';

describe('upgrade folder names', () => {
  test('lower-cased, as cosmovisor does', () => {
    assert.equal(upgradeFolderName('V2-Upgrade'), 'v2-upgrade');
    assert.equal(upgradeFolderName('V2', true), 'V2');
  });

  test('names that are not safe folder names are refused with a clear error', () => {
    const cases: [string, string][] = [
      ['..', 'unsafe upgrade name: ".." is not a valid folder name'],
      ['.', 'unsafe upgrade name: "." is not a valid folder name'],
      ['a/b', 'unsafe upgrade name: "a/b" must not contain path separators'],
      ['a\\b', 'unsafe upgrade name: "a\\\\b" must not contain path separators'],
      ['v2\n', 'unsafe upgrade name: "v2\\n" must not contain control characters'],
      ['v\u00002', 'unsafe upgrade name: "v\\u00002" must not contain control characters'],
      ['v\u00852', 'unsafe upgrade name: "v\u00852" must not contain control characters'],
      ['', 'unsafe upgrade name: "" is empty'],
      ['   ', 'unsafe upgrade name: "   " is empty'],
      ['x'.repeat(129), `unsafe upgrade name: "${'x'.repeat(129)}" is longer than 128 bytes`],
    ];
    for (const [name, message] of cases) assert.throws(() => upgradeFolderName(name), { name: 'UpgradeNameError', message }, JSON.stringify(name));
    assert.equal(folderNameProblem('x'.repeat(128)), undefined);
    for (const ok of ['v2', 'v2.1.0', 'Upgrade_3-rc1', 'é']) assert.equal(folderNameProblem(ok), undefined, ok);
  });
});

import assert from 'node:assert/strict';
import { describe, test } from 'node:test';
import { folderNameProblem, goPathEscape, upgradeFolderName } from './names.ts';

describe('upgrade folder names', () => {
  test('lower-cased, then path-escaped, as cosmovisor names them (strings.ToLower, then url.PathEscape)', () => {
    assert.equal(upgradeFolderName('V2-Upgrade'), 'v2-upgrade');
    assert.equal(upgradeFolderName('V2', true), 'V2');
    // expected folders worked out by hand from Go's net/url shouldEscape(c, encodePathSegment): letters,
    // digits and - _ . ~ $ & + : = @ stay; every other UTF-8 byte becomes %XX in upper-case hex
    const cases: [string, string][] = [
      ['My Upgrade', 'my%20upgrade'],
      ['v2%', 'v2%25'],
      ['v2?x#y', 'v2%3Fx%23y'],
      ['a/b', 'a%2Fb'],
      ['a;b,c', 'a%3Bb%2Cc'],
      ['$&+:=@~', '$&+:=@~'],
      ["!*'()", '%21%2A%27%28%29'],
      ['É', '%C3%A9'],
      ['v2\n', 'v2%0A'],
      ['a\\b', 'a%5Cb'],
      ['ΣΑΣ', '%CF%83%CE%B1%CF%83'], // Go lowers each sigma alike; a whole-string toLowerCase would end in ς
      ['İ', 'i'], // Go's simple lower case of U+0130
    ];
    for (const [name, folder] of cases) assert.equal(upgradeFolderName(name), folder, JSON.stringify(name));
    assert.equal(goPathEscape('V 2'), 'V%202');
  });

  test('names whose folder is still unusable are refused with a clear error', () => {
    const cases: [string, string][] = [
      ['..', 'unsafe upgrade name: ".." is not a valid folder name'],
      ['.', 'unsafe upgrade name: "." is not a valid folder name'],
      ['', 'unsafe upgrade name: "" is empty'],
      ['é'.repeat(43), `unsafe upgrade name: "${'é'.repeat(43)}" is longer than 255 bytes once path-escaped`],
    ];
    for (const [name, message] of cases) assert.throws(() => upgradeFolderName(name), { name: 'UpgradeNameError', message }, JSON.stringify(name));
    assert.equal(upgradeFolderName('x'.repeat(255)), 'x'.repeat(255));
  });

  test('plan names the chain accepts: the rule for names as submitted (unchanged)', () => {
    for (const [name, why] of [
      ['a/b', 'must not contain path separators'],
      ['v2\n', 'must not contain control characters'],
      ['   ', 'is empty'],
      ['x'.repeat(129), 'is longer than 128 bytes'],
    ] as const)
      assert.equal(folderNameProblem(name), why, JSON.stringify(name));
    for (const ok of ['v2', 'v2.1.0', 'Upgrade_3-rc1', 'é', 'x'.repeat(128)]) assert.equal(folderNameProblem(ok), undefined, ok);
  });
});

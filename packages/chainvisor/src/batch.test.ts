import assert from 'node:assert/strict';
import { mkdtempSync, readdirSync, readFileSync, rmSync } from 'node:fs';
import { tmpdir } from 'node:os';
import { join } from 'node:path';
import { describe, test } from 'node:test';
import { batchFilePath, checkBatch, encodeBatch, parseBatch, parseUpgradeCsv, parseUpgradeList, readBatch, splitCsv, writeBatch } from './batch.ts';
import { ChainvisorError, EXIT } from './exit-codes.ts';

const refused = (f: () => unknown, text: string): void =>
  assert.throws(f, (e: unknown) => e instanceof ChainvisorError && e.code === EXIT.CONFIG && e.message === text);

describe('add-batch-upgrade arguments', () => {
  test('--upgrade-list: name:path:height items, comma-separated', () => {
    assert.deepEqual(parseUpgradeList('v2:/opt/v2/chaind:100,v3:rel/v3.tar.gz:200'), [
      { name: 'v2', path: '/opt/v2/chaind', height: 100n },
      { name: 'v3', path: 'rel/v3.tar.gz', height: 200n },
    ]);
  });

  test('--upgrade-list: a bad item names its position and text; nothing installed', () => {
    refused(() => parseUpgradeList('v2:/a:100,v3:/b'), '--upgrade-list item 2 ("v3:/b"): expected name:path:height, got 2 fields; nothing installed');
    refused(() => parseUpgradeList('v2:/a:10x'), '--upgrade-list item 1 ("v2:/a:10x"): the height must be a positive integer, got "10x"; nothing installed');
    refused(() => parseUpgradeList('v2:/a:0'), '--upgrade-list item 1 ("v2:/a:0"): the height must be a positive integer, got "0"; nothing installed');
    refused(() => parseUpgradeList(':/a:5'), '--upgrade-list item 1 (":/a:5"): the upgrade name is empty; nothing installed');
    refused(() => parseUpgradeList('v2::5'), '--upgrade-list item 1 ("v2::5"): the path is empty; nothing installed');
    refused(() => parseUpgradeList('v2:/a:5,'), '--upgrade-list item 2 (""): expected name:path:height, got 1 field; nothing installed');
    refused(
      () => parseUpgradeList('v2:/a:9223372036854775808'),
      '--upgrade-list item 1 ("v2:/a:9223372036854775808"): the height must be a positive integer, got "9223372036854775808"; nothing installed',
    );
  });

  test('--upgrade-file: headerless CSV as Go reads it (quotes, blank lines, leading spaces, CRLF)', () => {
    assert.deepEqual(splitCsv('a,b,c\n\n d, "e,""f""",g\r\nh,i,j'), [
      { line: 1, fields: ['a', 'b', 'c'] },
      { line: 3, fields: ['d', 'e,"f"', 'g'] },
      { line: 4, fields: ['h', 'i', 'j'] },
    ]);
    assert.deepEqual(parseUpgradeCsv('v2,/opt/v2/chaind,100\nv3, /opt/v3/chaind, 200\n', 'b.csv'), [
      { name: 'v2', path: '/opt/v2/chaind', height: 100n },
      { name: 'v3', path: '/opt/v3/chaind', height: 200n },
    ]);
  });

  test('--upgrade-file: a bad line names the file and line; an empty file is refused', () => {
    refused(() => parseUpgradeCsv('v2,/a,100\n\nv3,/b\n', 'b.csv'), 'b.csv line 3: expected name,path,height, got 2 fields; nothing installed');
    refused(() => parseUpgradeCsv('v2,/a,100 \n', 'b.csv'), 'b.csv line 1: the height must be a positive integer, got "100 "; nothing installed');
    refused(() => parseUpgradeCsv('\n\n', 'b.csv'), 'b.csv: no upgrades in it; nothing installed');
    refused(() => parseUpgradeCsv('v2,"/a,100\n', 'b.csv'), 'b.csv line 1: a quoted field is not closed; nothing installed');
  });

  test('one folder or one height twice is refused', () => {
    const lower = (n: string): string => n.toLowerCase();
    assert.deepEqual(checkBatch(parseUpgradeList('V2:/a:1,v3:/b:2'), lower), ['v2', 'v3']);
    refused(() => checkBatch(parseUpgradeList('V2:/a:1,v2:/b:2'), lower), 'upgrades "V2" and "v2" both map to the folder upgrades/v2; nothing installed');
    refused(() => checkBatch(parseUpgradeList('v2:/a:7,v3:/b:7'), lower), 'upgrades "v2" and "v3" are both at height 7; nothing installed');
  });
});

describe('upgrade-info.json.batch', () => {
  test("beside upgrade-info.json; a JSON array of upgrade-info objects in the node's form, read back sorted by height", () => {
    assert.equal(batchFilePath('/h/data/upgrade-info.json'), '/h/data/upgrade-info.json.batch');
    const text = encodeBatch([
      { name: 'v3', height: 200n, info: '' },
      { name: 'v2', height: 100n, info: 'x' },
    ]);
    assert.equal(
      text,
      '[\n  {"name":"v3","time":"0001-01-01T00:00:00Z","height":200,"info":""},\n  {"name":"v2","time":"0001-01-01T00:00:00Z","height":100,"info":"x"}\n]\n',
    );
    assert.deepEqual(parseBatch(text), {
      ok: true,
      infos: [
        { name: 'v2', height: 100n, info: 'x' },
        { name: 'v3', height: 200n, info: '' },
      ],
    });
  });

  test("cosmovisor's own forms: numeric-string heights, no info, null for an empty batch", () => {
    assert.deepEqual(parseBatch('[{"name":"v2","time":"0001-01-01T00:00:00Z","height":"100"}]'), { ok: true, infos: [{ name: 'v2', height: 100n, info: '' }] });
    assert.deepEqual(parseBatch('null'), { ok: true, infos: [] });
    assert.deepEqual(parseBatch('[]'), { ok: true, infos: [] });
  });

  test('an entry that breaks the upgrade-info.json rule makes the file invalid, naming the entry', () => {
    assert.deepEqual(parseBatch('[{"name":"v2","height":1},{"name":"..","height":2}]'), {
      ok: false,
      why: 'entry 2: unsafe upgrade name: ".." is not a valid folder name',
    });
    assert.deepEqual(parseBatch('{"name":"v2","height":1}'), { ok: false, why: 'expected a JSON array of upgrade-info objects' });
    assert.equal(parseBatch('[{"name":"v2","height":0}]').ok, false);
  });

  test('written atomically: no temp file left, read back equal', () => {
    const dir = mkdtempSync(join(tmpdir(), 'batch-'));
    try {
      const f = join(dir, 'upgrade-info.json.batch');
      assert.deepEqual(readBatch(f), { state: 'absent' });
      writeBatch(f, [{ name: 'v2', height: 5n, info: '' }]);
      assert.deepEqual(readdirSync(dir), ['upgrade-info.json.batch']);
      assert.deepEqual(readBatch(f), { state: 'ok', infos: [{ name: 'v2', height: 5n, info: '' }] });
      writeBatch(f, []);
      assert.equal(readFileSync(f, 'utf8'), '[]\n');
    } finally {
      rmSync(dir, { recursive: true, force: true });
    }
  });
});

import assert from 'node:assert/strict';
import { describe, test } from 'node:test';
import { parseUpgradeInfo } from './upgrade-info.ts';

describe('upgrade-info.json', () => {
  test('as the node writes it, height a number or a numeric string', () => {
    const raw = '{"name":"v2","time":"0001-01-01T00:00:00Z","height":20,"info":"{}"}';
    assert.deepEqual(parseUpgradeInfo(raw), { state: 'ok', info: { name: 'v2', height: 20n, info: '{}', raw } });
    const r = parseUpgradeInfo('{"name":"v2","height":"9007199254740993"}');
    assert.equal(r.state === 'ok' && r.info.height, 9007199254740993n);
  });

  test('a half-written file is incomplete (retried), never acted on', () => {
    const full = '{"name":"v2","time":"0001-01-01T00:00:00Z","height":20,"info":""}';
    for (let i = 0; i < full.length; i++) assert.equal(parseUpgradeInfo(full.slice(0, i)).state, 'incomplete', full.slice(0, i));
  });

  test('complete but invalid files say why', () => {
    assert.deepEqual(parseUpgradeInfo('[]'), { state: 'invalid', why: 'expected a JSON object' });
    assert.deepEqual(parseUpgradeInfo('{"name":"","height":1}'), { state: 'invalid', why: '"name" must be a non-empty string' });
    assert.deepEqual(parseUpgradeInfo('{"name":"..","height":1}'), { state: 'invalid', why: 'unsafe upgrade name: ".." is not a folder name' });
    assert.deepEqual(parseUpgradeInfo('{"name":"v2","height":0}'), { state: 'invalid', why: '"height" must be a positive integer, got 0' });
    assert.deepEqual(parseUpgradeInfo('{"name":"v2","height":"-3"}'), { state: 'invalid', why: '"height" must be a positive integer, got "-3"' });
    assert.deepEqual(parseUpgradeInfo('{"name":"v2","height":1.5}'), { state: 'invalid', why: '"height" must be a positive integer, got 1.5' });
    assert.deepEqual(parseUpgradeInfo('{"name":"v2","height":1,"info":{}}'), { state: 'invalid', why: '"info" must be a string' });
  });
});

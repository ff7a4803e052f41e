import assert from 'node:assert/strict';
import { mkdirSync, mkdtempSync, readdirSync, readFileSync, rmSync, symlinkSync, writeFileSync } from 'node:fs';
import { tmpdir } from 'node:os';
import { join } from 'node:path';
import { after, describe, test } from 'node:test';
import { DEFAULT_UPGRADE_INFO_MAX_BYTES, parseUpgradeInfo, readUpgradeInfo, readUpgradeInfoFile, upgradeInfoPath, writeUpgradeInfo } from './upgrade-info.ts';
import { DEAD_PID } from '../test/kit/index.ts';

const dirs: string[] = [];
after(() => dirs.forEach((d) => rmSync(d, { recursive: true, force: true })));
const home = (): string => {
  const d = mkdtempSync(join(tmpdir(), 'upgrade-plan-info-'));
  dirs.push(d);
  return d;
};

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
    assert.deepEqual(parseUpgradeInfo('{"name":"..","height":1}'), { state: 'invalid', why: 'unsafe upgrade name: ".." is not a valid folder name' });
    assert.deepEqual(parseUpgradeInfo('{"name":"v2","height":0}'), { state: 'invalid', why: '"height" must be a positive integer, got 0' });
    assert.deepEqual(parseUpgradeInfo('{"name":"v2","height":"-3"}'), { state: 'invalid', why: '"height" must be a positive integer, got "-3"' });
    assert.deepEqual(parseUpgradeInfo('{"name":"v2","height":1.5}'), { state: 'invalid', why: '"height" must be a positive integer, got 1.5' });
    assert.deepEqual(parseUpgradeInfo('{"name":"v2","height":1,"info":{}}'), { state: 'invalid', why: '"info" must be a string' });
  });

  test('has the SDK shape: height a JSON number, the zero time, no temp file left behind', () => {
    const p = upgradeInfoPath(home());
    writeUpgradeInfo(p, { name: 'v2', height: 123n, info: '{"binaries":{}}' });
    const text = readFileSync(p, 'utf8');
    assert.equal(text, '{"name":"v2","time":"0001-01-01T00:00:00Z","height":123,"info":"{\\"binaries\\":{}}"}');
    assert.deepEqual(JSON.parse(text), { name: 'v2', time: '0001-01-01T00:00:00Z', height: 123, info: '{"binaries":{}}' });
    assert.deepEqual(readdirSync(join(p, '..')), ['upgrade-info.json']);
    assert.deepEqual(readUpgradeInfo(p), { name: 'v2', height: 123n, info: '{"binaries":{}}' });
    // rewriting (the old binary restarted and halted again) replaces the file whole
    writeUpgradeInfo(p, { name: 'v2', height: 123n, info: '' });
    assert.equal(readUpgradeInfo(p)?.info, '');
  });

  test('a file read is written back with its exact text', () => {
    const p = upgradeInfoPath(home());
    const raw = '{"name":"V2", "height":"77"}';
    const r = parseUpgradeInfo(raw);
    assert.ok(r.state === 'ok');
    writeUpgradeInfo(p, r.info);
    assert.equal(readFileSync(p, 'utf8'), raw);
    assert.deepEqual(readUpgradeInfoFile(p), { state: 'ok', info: { name: 'V2', height: 77n, info: '', raw } });
  });

  test('the two readings: states for a reader that polls, an error naming the file for the node', () => {
    const p = upgradeInfoPath(home());
    assert.deepEqual(readUpgradeInfoFile(p), { state: 'absent' });
    assert.equal(readUpgradeInfo(p), undefined);
    writeUpgradeInfo(p, { name: 'v2', height: 5n, info: '' });
    writeFileSync(p, '{"name":"v2","height":');
    assert.equal(readUpgradeInfoFile(p).state, 'incomplete');
    assert.throws(() => readUpgradeInfo(p), { name: 'UpgradeInfoError', message: new RegExp(`^malformed upgrade info file ${p}: not complete JSON \\(`) });
    writeFileSync(p, '{"name":"v2","height":"ten"}');
    assert.throws(() => readUpgradeInfo(p), { message: `malformed upgrade info file ${p}: "height" must be a positive integer, got "ten"` });
    // the node makes no folder of the name: only chainvisor refuses an unsafe one
    writeFileSync(p, '{"name":"..","height":3}');
    assert.deepEqual(readUpgradeInfo(p), { name: '..', height: 3n, info: '' });
    assert.equal(readUpgradeInfoFile(p).state, 'invalid');
  });

  test('a file over the size limit is refused unread by both readers, naming the file, its size and the limit', () => {
    const p = upgradeInfoPath(home());
    writeUpgradeInfo(p, { name: 'v2', height: 5n, info: '' });
    const size = DEFAULT_UPGRADE_INFO_MAX_BYTES + 1;
    writeFileSync(p, Buffer.alloc(size, ' '));
    const why = `it is ${size} bytes, over the limit of ${DEFAULT_UPGRADE_INFO_MAX_BYTES} bytes: not an upgrade the node wrote (a broken release or a wrong file?)`;
    assert.deepEqual(readUpgradeInfoFile(p), { state: 'invalid', why });
    assert.throws(() => readUpgradeInfo(p), { name: 'UpgradeInfoError', message: `upgrade info file ${p} refused: ${why}` });
    // a reader's own limit, and the setting that set it
    writeUpgradeInfo(p, { name: 'v2', height: 5n, info: 'x'.repeat(100) });
    assert.deepEqual(readUpgradeInfoFile(p, { maxBytes: 50, setting: 'DAEMON_UPGRADE_INFO_MAX_BYTES' }), {
      state: 'invalid',
      why: 'it is 164 bytes, over the limit of 50 bytes (set by DAEMON_UPGRADE_INFO_MAX_BYTES): not an upgrade the node wrote (a broken release or a wrong file?)',
    });
    assert.equal(readUpgradeInfoFile(p, { maxBytes: 164 }).state, 'ok');
  });

  test('the largest file the node can write is read: a 1 MiB info of characters JSON escapes sixfold', () => {
    const p = upgradeInfoPath(home());
    const info = '\u0001'.repeat(1024 * 1024);
    writeUpgradeInfo(p, { name: 'v2', height: 5n, info });
    assert.ok(readFileSync(p).length > 6 * 1024 * 1024);
    assert.deepEqual(readUpgradeInfo(p), { name: 'v2', height: 5n, info });
  });

  test('a file that grows while read (its size said nothing) is refused at one byte past the limit', () => {
    const p = upgradeInfoPath(home());
    mkdirSync(join(p, '..'));
    // a character device: fstat says 0 bytes, reading never ends
    symlinkSync('/dev/zero', p);
    assert.deepEqual(readUpgradeInfoFile(p, { maxBytes: 1000 }), {
      state: 'invalid',
      why: 'it is 1001 bytes, over the limit of 1000 bytes: not an upgrade the node wrote (a broken release or a wrong file?)',
    });
    assert.throws(() => readUpgradeInfo(p, { maxBytes: 1000 }), {
      name: 'UpgradeInfoError',
      message: /refused: it is 1001 bytes, over the limit of 1000 bytes/,
    });
  });

  test("a temp file left by a writer killed before its rename is removed by the next write; a live writer's is left alone", () => {
    const h = home();
    const f = upgradeInfoPath(h);
    mkdirSync(join(h, 'data'));
    writeFileSync(`${f}.tmp-${DEAD_PID}`, '{"name":"v2","ti');
    writeFileSync(`${f}.tmp-${process.ppid}`, '');
    writeUpgradeInfo(f, { name: 'v2', height: 20n, info: '' });
    assert.deepEqual(readdirSync(join(h, 'data')).sort(), ['upgrade-info.json', `upgrade-info.json.tmp-${process.ppid}`]);
  });
});

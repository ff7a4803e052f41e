import assert from 'node:assert/strict';
import { mkdtempSync, rmSync, writeFileSync } from 'node:fs';
import { tmpdir } from 'node:os';
import { join } from 'node:path';
import { after, test } from 'node:test';
import { readUpgradeInfo, upgradeInfoPath, writeUpgradeInfo } from '@chaind/upgrade-plan';
import { minCancellableUpgradeHeight } from './cancel-window.ts';
import { validatePlanName } from './plan.ts';
import { storeLoaderFromUpgradeInfo } from './index.ts';

const dirs: string[] = [];
after(() => dirs.forEach((d) => rmSync(d, { recursive: true, force: true })));
const home = (): string => {
  const d = mkdtempSync(join(tmpdir(), 'chaind-upinfo-'));
  dirs.push(d);
  return d;
};

test('a missing file is no upgrade; a malformed one is an error naming the file', () => {
  const h = home();
  const p = upgradeInfoPath(h);
  assert.equal(readUpgradeInfo(p), undefined);
  const cases: [string, RegExp][] = [
    ['{"name":"v2","height":', /not complete JSON/],
    ['[]', /expected a JSON object/],
    ['{"height":5}', /"name" must be a non-empty string/],
    ['{"name":"v2","height":-1}', /"height" must be a positive integer/],
    ['{"name":"v2","height":0}', /"height" must be a positive integer/],
    ['{"name":"v2","height":1.5}', /"height" must be a positive integer/],
    ['{"name":"v2","height":5,"info":7}', /"info" must be a string/],
  ];
  writeUpgradeInfo(p, { name: 'x', height: 1n, info: '' });
  for (const [text, err] of cases) {
    writeFileSync(p, text);
    assert.throws(
      () => readUpgradeInfo(p),
      (e: Error) => err.test(e.message) && e.message.includes(p),
      text,
    );
    // start-up wiring refuses it too, rather than loading normally
    assert.throws(() => storeLoaderFromUpgradeInfo(p, [{ name: 'v2', storeUpgrades: { added: ['x'] } }]), err);
  }
  writeFileSync(p, '{"name":"v2","height":"77"}');
  assert.deepEqual(readUpgradeInfo(p), { name: 'v2', height: 77n, info: '' }, 'a numeric string height is accepted, as cosmovisor does');
});

test('the store loader is installed only for a known, unskipped upgrade', () => {
  const p = upgradeInfoPath(home());
  const known = [{ name: 'v2', storeUpgrades: { added: ['newmod'] } }];
  assert.equal(storeLoaderFromUpgradeInfo(p, known), undefined, 'no file');
  writeUpgradeInfo(p, { name: 'v3', height: 10n, info: '' });
  assert.equal(storeLoaderFromUpgradeInfo(p, known), undefined, 'an upgrade this binary does not know');
  writeUpgradeInfo(p, { name: 'v2', height: 10n, info: '' });
  assert.equal(storeLoaderFromUpgradeInfo(p, known, new Set([10n])), undefined, 'a skipped height');
  assert.equal(typeof storeLoaderFromUpgradeInfo(p, known), 'function');
});

test('plan names must be safe folder names', () => {
  for (const ok of ['v2', 'v2.1.0', 'Upgrade_3-rc1', 'é']) validatePlanName(ok);
  const bad: [string, RegExp][] = [
    ['', /is empty/],
    ['   ', /is empty/],
    ['.', /not a valid folder name/],
    ['..', /not a valid folder name/],
    ['a/b', /path separators/],
    ['a\\b', /path separators/],
    ['a\u0000b', /control characters/],
    ['line\nbreak', /control characters/],
    ['x'.repeat(129), /longer than 128 bytes/],
  ];
  for (const [name, err] of bad) assert.throws(() => validatePlanName(name), err, JSON.stringify(name));
});

test('lowest cancellable height: 2 × (voting + deposit) + safety delta, in blocks, rounded up', () => {
  // 20 s voting + 20 s deposit, 10 s safety, 1 s blocks → 90 blocks after the start
  assert.equal(
    minCancellableUpgradeHeight({
      proposalStartHeight: 100n,
      votingPeriodMs: 20_000n,
      depositPeriodMs: 20_000n,
      safetyDeltaMs: 10_000n,
      blockIntervalMs: 1000n,
    }),
    190n,
  );
  // 2 days each, 1 day safety, 6 s blocks → 777600 s / 6 = 129600 blocks
  assert.equal(
    minCancellableUpgradeHeight({
      proposalStartHeight: 1n,
      votingPeriodMs: 172_800_000n,
      depositPeriodMs: 172_800_000n,
      safetyDeltaMs: 86_400_000n,
      blockIntervalMs: 6000n,
    }),
    1n + 129_600n,
  );
  assert.equal(
    minCancellableUpgradeHeight({ proposalStartHeight: 0n, votingPeriodMs: 1n, depositPeriodMs: 0n, safetyDeltaMs: 0n, blockIntervalMs: 1000n }),
    1n,
  );
  assert.throws(
    () => minCancellableUpgradeHeight({ proposalStartHeight: 0n, votingPeriodMs: 1n, depositPeriodMs: 0n, safetyDeltaMs: 0n, blockIntervalMs: 0n }),
    /block interval/,
  );
});

import assert from 'node:assert/strict';
import { test } from 'node:test';
import { LATEST_RELEASE, RELEASES, upgradeNamesOf } from '../release.ts';
import { UPGRADES, upgradesOf } from './index.ts';

test("a release's upgrades are those of the releases after the genesis release, up to its position in RELEASES", () => {
  assert.deepEqual(upgradesOf(RELEASES[0]), []);
  for (const r of RELEASES)
    assert.deepEqual(
      upgradesOf(r).map((u) => u.name),
      RELEASES.slice(1, RELEASES.indexOf(r) + 1),
    );
  assert.deepEqual(upgradeNamesOf('v2'), ['v2']);
  // from source without CHAIND_RELEASE (the tests' environment): the latest
  assert.deepEqual(UPGRADES, upgradesOf(LATEST_RELEASE));
});

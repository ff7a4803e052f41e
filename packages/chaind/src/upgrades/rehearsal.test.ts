import assert from 'node:assert/strict';
import { describe, test } from 'node:test';
import { RELEASES } from '../release.ts';
import { RehearsalCheckError, rehearsalChecksOf, rehearsalPath } from './rehearsal.ts';

describe('rehearsalPath: the releases `npm run rehearse --from --to` walks', () => {
  const list = ['v1', 'v2', 'v3', 'v4'];
  test('from one release to a later one: every release between, in order', () => {
    assert.deepEqual(rehearsalPath('v1', 'v4', list), ['v1', 'v2', 'v3', 'v4']);
    assert.deepEqual(rehearsalPath('v2', 'v3', list), ['v2', 'v3']);
  });
  test('without --to: the next release (the default run is the first upgrade)', () => {
    assert.deepEqual(rehearsalPath('v3', undefined, list), ['v3', 'v4']);
    assert.deepEqual(rehearsalPath(RELEASES[0]), [RELEASES[0], RELEASES[1]]);
  });
  test('unknown releases, --to not after --from and --from the latest are refused with the list', () => {
    assert.throws(
      () => rehearsalPath('v9', 'v2', list),
      (e: Error) => e instanceof RehearsalCheckError && /unknown release --from "v9": the releases are v1, v2, v3, v4/.test(e.message),
    );
    assert.throws(() => rehearsalPath('v1', 'v9', list), /unknown release --to "v9"/);
    assert.throws(() => rehearsalPath('v3', 'v2', list), /--to v2 is not after --from v3/);
    assert.throws(() => rehearsalPath('v2', 'v2', list), /--to v2 is not after --from v2/);
    assert.throws(() => rehearsalPath('v4', undefined, list), /--from v4 is the latest release/);
  });
});

describe("rehearsalChecksOf: an upgrade folder's rehearsal.ts", () => {
  test('v2 has its checks; a name without a rehearsal.ts has none; a path is not a name', async () => {
    assert.equal(typeof (await rehearsalChecksOf('v2'))?.after, 'function');
    assert.equal(await rehearsalChecksOf('no-such-upgrade'), undefined);
    await assert.rejects(rehearsalChecksOf('../v2'), /not an upgrade name/);
  });
});

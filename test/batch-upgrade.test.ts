// Issue 19, item 9: batch upgrades (cosmovisor v1.6+). A real v1 chain runs under a real chainvisor; the operator
// registers two upgrades with `chainvisor add-batch-upgrade` while it runs, with no governance plan at all. chainvisor
// carries out the first at its height (node stopped, current switched to the v2 release, relaunched) and then moves
// the second into upgrade-info.json, where it waits for its height.
import assert from 'node:assert/strict';
import { chmodSync, readFileSync, readlinkSync, writeFileSync } from 'node:fs';
import { dirname, join } from 'node:path';
import { afterEach, describe, test } from 'node:test';
import { runInGroup } from '@chaind/chaind/testing';
import { CHAINVISOR, chaindScript, cleanupVisorChains, cli, createVisorChain, until, waitForHeight } from './kit/visor-chain.ts';

describe('batch upgrades under chainvisor (add-batch-upgrade, upgrade-info.json.batch)', () => {
  afterEach(cleanupVisorChains);

  test(
    'the first batch entry is carried out at its height without a governance plan; the next one then waits in upgrade-info.json',
    { timeout: 240_000 },
    async () => {
      const c = await createVisorChain();
      // the v2 release: chaind from source as v2
      const v2 = join(dirname(c.home), 'chaind-v2');
      writeFileSync(v2, chaindScript('v2'));
      chmodSync(v2, 0o755);
      const v = c.run();
      await waitForHeight(c, v, 2);
      const h1 = (await c.height()) + 8;
      const h2 = h1 + 10_000;
      const added = await runInGroup(process.execPath, [CHAINVISOR, 'add-batch-upgrade', '--upgrade-list', `v2:${v2}:${h1},later:${v2}:${h2}`], {
        env: { PATH: process.env.PATH ?? '', DAEMON_HOME: c.home, DAEMON_NAME: 'chaind' },
        timeoutMs: 60_000,
      });
      assert.equal(added.code, 0, added.stderr);

      await until('current to be switched to v2', 90_000, async () =>
        readlinkSync(join(c.cv, 'current')) === join('upgrades', 'v2') ? true : undefined,
      ).catch((e: Error) => {
        throw new Error(`${e.message}; chainvisor printed:\n${v.output().slice(-4000)}`);
      });
      await waitForHeight(c, v, h1 + 2);
      const out = v.output();
      assert.match(out, new RegExp(`batch upgrade v2 at height ${h1}: wrote .*upgrade-info\\.json \\(the node is at \\d+\\); 1 left in`));
      assert.ok(out.includes(`starting ${join(c.cv, 'upgrades', 'v2', 'bin', 'chaind')} dev`), 'relaunched with the v2 release');
      assert.doesNotMatch(out, /MaxListenersExceededWarning/);
      assert.match(out, new RegExp(`upgrade v2 at height ${h1} done`));
      // after the relaunch the next entry moved out of the batch into upgrade-info.json, waiting for its height
      await until('the next batch entry to be written', 30_000, async () =>
        readFileSync(join(c.home, 'data', 'upgrade-info.json'), 'utf8').includes('"later"') ? true : undefined,
      );
      assert.deepEqual(JSON.parse(readFileSync(join(c.home, 'data', 'upgrade-info.json.batch'), 'utf8')), []);
      await until('the wait to be logged', 30_000, async () =>
        new RegExp(`upgrade later is due at height ${h2}, the node is at \\d+: waiting`).test(v.output()) ? true : undefined,
      );
      // no governance plan was ever involved
      const plan = await cli(['query', 'upgrade', 'plan', '-o', 'json', '--node', c.rpc]);
      assert.doesNotMatch(plan.stdout, /"v2"|"later"/, plan.stdout + plan.stderr);
    },
  );
});

// Issue 31 §11: at each launch under chainvisor with DAEMON_PREPARE_UPGRADE, the CurrentPlan poll reached the
// node's gRPC before it listened (and again as it stopped) and warned each time: `ECONNREFUSED … Resolution
// note: ` with an empty note. A node starting or stopping is expected not to answer: nothing is said.
import assert from 'node:assert/strict';
import { after, test } from 'node:test';
import { cleanupVisorChains, createVisorChain, waitForHeight } from './kit/visor-chain.ts';

after(cleanupVisorChains);

test(
  'a node launched and stopped under chainvisor with DAEMON_PREPARE_UPGRADE=true: no warning, no ECONNREFUSED, no empty "Resolution note:"',
  { timeout: 120_000 },
  async () => {
    const c = await createVisorChain({ DAEMON_PREPARE_UPGRADE: 'true', DAEMON_ALLOW_DOWNLOAD_BINARIES: 'true' });
    const v = c.run();
    await waitForHeight(c, v, 3);
    // past a poll (every 3 s) that found the node's gRPC up: the poll loop is running, not just started
    await new Promise((r) => setTimeout(r, 3_500));
    v.child.kill('SIGTERM');
    const { code, output } = await v.exit;
    assert.equal(code, 0, output.slice(-3000));
    const visorLines = output.split('\n').filter((l) => l.startsWith('[chainvisor]'));
    assert.ok(
      visorLines.some((l) => /INF starting .*chaind dev/.test(l)),
      output.slice(-3000),
    );
    assert.deepEqual(
      visorLines.filter((l) => / (WRN|ERR) /.test(l)),
      [],
      'chainvisor warned at a launch or a stop',
    );
    assert.doesNotMatch(output, /ECONNREFUSED|Resolution note/);
  },
);

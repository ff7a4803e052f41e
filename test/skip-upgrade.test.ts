// Issue 19, item 6: the standard skip procedure under chainvisor. A real v1 chain halts at a governance
// upgrade whose release is nowhere to be had; the operator restarts with `--unsafe-skip-upgrades H`; the
// daemon's arguments reach chainvisor, which must not carry out the upgrade: the old release runs on,
// the chain clears the plan at H and keeps committing blocks.
import assert from 'node:assert/strict';
import { readdirSync, readlinkSync } from 'node:fs';
import { join } from 'node:path';
import { afterEach, describe, test } from 'node:test';
import { cleanupVisorChains, cli, createVisorChain, passAndWait, proposeV2, waitForHeight } from './kit/visor-chain.ts';

describe('skipping an upgrade under chainvisor (--unsafe-skip-upgrades)', () => {
  afterEach(cleanupVisorChains);

  for (const form of ['=', ' '] as const) {
    test(
      `halt at H, then a restart with --unsafe-skip-upgrades${form}H: the old release runs on, the plan is cleared, nothing is upgraded`,
      { timeout: 240_000 },
      async () => {
        const c = await createVisorChain();
        const first = c.run();
        await waitForHeight(c, first, 2);
        const h = (await c.height()) + 20;
        const submitted = await proposeV2(c, h, '', ['--no-validate']);
        assert.equal(submitted.code, 0, submitted.stderr);
        await passAndWait(c, h);

        // the halt: no release for v2 is installed and downloads are off, so chainvisor gives up
        const halted = await first.exit;
        assert.equal(halted.code, 3, halted.output.slice(-3000));
        assert.match(halted.output, new RegExp(`UPGRADE "v2" NEEDED at height: ${h}`));

        // the operator's skip, in cosmovisor's spaced form or chaind's =H form
        const skip = form === '=' ? [`--unsafe-skip-upgrades=${h}`] : ['--unsafe-skip-upgrades', String(h)];
        const second = c.run(skip);
        await waitForHeight(c, second, h + 3);
        assert.match(second.output(), new RegExp(`upgrade v2 at height ${h} is skipped \\(--unsafe-skip-upgrades\\): starting the current release`));
        assert.doesNotMatch(second.output(), /applying upgrade|switching current|current -> /);
        assert.equal(readlinkSync(join(c.cv, 'current')), 'genesis');
        assert.deepEqual(readdirSync(join(c.cv, 'upgrades')), []);
        // the chain cleared the plan, and v2 was never applied
        const plan = await cli(['query', 'upgrade', 'plan', '-o', 'json', '--node', c.rpc]);
        assert.doesNotMatch(plan.stdout, /"v2"/, plan.stdout + plan.stderr);
        const applied = await cli(['query', 'upgrade', 'applied', 'v2', '-o', 'json', '--node', c.rpc]);
        assert.equal(applied.code, 1, applied.stdout);
        assert.equal(applied.stderr.trim(), 'Error: no upgrade found');
      },
    );
  }
});

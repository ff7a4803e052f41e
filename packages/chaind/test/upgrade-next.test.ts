// The upgrade after the latest, over real processes (issue 20), with today's releases v1 and v2:
// `chaind dev` as release v1 halts at the v2 plan, release v2 applies it, a v3 plan is scheduled; a v3
// binary (the sources plus a v3 release, in a temporary copy) then refuses to prepare v2 (too new) and,
// started before v3's height, stops with BINARY UPDATED BEFORE TRIGGER and exit code 12.
// upgrade-info.json still names v2 at that point: it is history, not a pending upgrade. The releases are
// named from the list (the one before the latest, the latest, the next), so a committed v3 moves the
// story one release on.
import assert from 'node:assert/strict';
import { readFileSync } from 'node:fs';
import { join } from 'node:path';
import { after, describe, test } from 'node:test';
import { binaryTooEarlyMessage, HALT_EXIT_CODES } from '@chaind/sdk/x/upgrade';
import {
  chaind,
  GroupChild,
  proposeAndPassUpgrade,
  removeTmpDirs,
  sourcesWithNextRelease,
  spawnDevNode,
  startDevNode,
  tmpDir,
  withoutWarning,
  within,
  type DevNode,
  type DevNodeOptions,
  type Run,
} from '@chaind/chaind/testing';
import { PRE_UPGRADE_FAIL } from '../src/cli/pre-upgrade.ts';
import { LATEST_RELEASE, RELEASES } from '../src/release.ts';

after(async () => {
  await GroupChild.killAllGroups();
  removeTmpDirs();
});

/** One run of the copy's launcher as `release`, to its end. */
async function run(bin: string, release: string, args: readonly string[]): Promise<Run> {
  const r = await chaind(args, { bin, env: { CHAIND_RELEASE: release } });
  return { ...r, stderr: withoutWarning(r.stderr) };
}

/** `chaind dev` as `release` (10 s gov periods: the vote's CLI run lands in it on a busy machine, every server on a free port). */
const devOptions = (bin: string, release: string): DevNodeOptions => ({ bin, release, servers: true, args: ['--gov-period', '10s'] });

/** Proposes upgrade `name` at a height `ahead` blocks on and votes yes; resolves the height once the plan is scheduled. */
async function scheduleUpgrade(bin: string, release: string, node: DevNode, home: string, name: string, ahead: number, proposal: number): Promise<number> {
  const status = JSON.parse((await run(bin, release, ['status', '--node', node.rpc])).stdout) as { sync_info: { latest_block_height: string } };
  const height = Number(status.sync_info.latest_block_height) + ahead;
  await proposeAndPassUpgrade({
    cli: (args) => run(bin, release, args),
    node: node.rpc,
    home,
    name,
    height,
    proposal,
    context: () => node.proc.log().slice(-3000),
  });
  return height;
}

describe('the upgrade after the latest release', () => {
  // today: v1, v2 and v3
  const [prev, latest] = RELEASES.slice(-2);
  const next = `v${Number(LATEST_RELEASE.slice(1)) + 1}`;
  test(
    `${prev} → ${latest} under the releases, then a ${next} binary: pre-upgrade of ${latest} says too new; started before ${next} it stops with BINARY UPDATED BEFORE TRIGGER (exit 12)`,
    { timeout: 300_000 },
    async () => {
      assert.equal(latest, LATEST_RELEASE);
      const bin = sourcesWithNextRelease(next).bin;
      const home = join(tmpDir('chaind-next-'), 'home');

      // the release before the latest halts at the latest's plan height, leaving upgrade-info.json naming it
      const old = await startDevNode(home, devOptions(bin, prev));
      const hLatest = await scheduleUpgrade(bin, prev, old, home, latest, 25, 1);
      assert.equal(
        await within(
          old.proc.exited.then((e) => e.code),
          90_000,
          () => old.proc.log().slice(-3000),
        ),
        HALT_EXIT_CODES['upgrade-needed'],
        old.proc.log().slice(-3000),
      );

      // the next release's binary cannot prepare the latest's upgrade: its modules and stores are the next's
      const early = await run(bin, next, ['pre-upgrade', '--home', home]);
      assert.equal(early.code, PRE_UPGRADE_FAIL, early.stdout + early.stderr);
      assert.equal(
        early.stderr,
        `Error: this binary (release ${next}) is too new for upgrade "${latest}": it also has the later upgrade ${next}; install the release of upgrade "${latest}" for it\n`,
      );

      // the latest release applies its upgrade and goes on; the next's plan is scheduled well ahead
      const cur = await startDevNode(home, devOptions(bin, latest));
      await cur.proc.waitForLog(new RegExp(`applying upgrade "${latest}" at height: ${hLatest}`), 30_000);
      const hNext = await scheduleUpgrade(bin, latest, cur, home, next, 60, 2);
      assert.equal(await within(cur.stop(), 30_000, () => cur.proc.log().slice(-3000)), 0, cur.proc.log().slice(-3000));
      assert.equal(
        (JSON.parse(readFileSync(join(home, 'data', 'upgrade-info.json'), 'utf8')) as { name: string }).name,
        latest,
        'the file still names the applied upgrade',
      );

      // the next release's binary started before its height: refused at start-up, with the halt's exit code and exact text
      const nxt = spawnDevNode(home, devOptions(bin, next));
      const code = await within(
        nxt.exited.then((e) => e.code),
        60_000,
        () => nxt.log().slice(-3000),
      );
      assert.equal(code, HALT_EXIT_CODES['binary-too-early'], nxt.log().slice(-3000));
      assert.ok(nxt.log().includes(binaryTooEarlyMessage(next)), nxt.log().slice(-3000));
      assert.doesNotMatch(nxt.log(), /StoreUpgrades\.added/);
      assert.ok(hNext > hLatest);
    },
  );
});

// The upgrade module through governance, over real signed txs, real blocks and a real store (issue 4).
import assert from 'node:assert/strict';
import { readFileSync, existsSync } from 'node:fs';
import { after, describe, test } from 'node:test';
import { QueryCurrentPlanRequest, QueryCurrentPlanResponse } from '@chaind/sdk/gen/chain/upgrade/v1beta1/query';
import { MsgSubmitProposal } from 'cosmjs-types/cosmos/gov/v1/tx';
import { UpgradeHaltError } from '@chaind/sdk/x/upgrade';
import { upgradeInfoPath } from '@chaind/upgrade-plan';
import { ALICE, cancelUpgrade, DENOM, FAILED, newHome, PASSED, PERIOD, removeTmpDirs, softwareUpgrade, TestChain, upgradeV2 } from '@chaind/chaind/testing';

after(removeTmpDirs);

function currentPlan(c: TestChain): { name: string; height: bigint } | undefined {
  const r = c.query('/chain.upgrade.v1beta1.Query/CurrentPlan', QueryCurrentPlanRequest.encode({}).finish());
  assert.equal(r.code, 0, r.log);
  const p = QueryCurrentPlanResponse.decode(r.value).plan;
  return p === undefined ? undefined : { name: p.name, height: p.height };
}

/** Runs empty blocks until one throws; returns the error and the last committed height. */
function runUntilHalt(c: TestChain, limit: bigint): { err: UpgradeHaltError; last: bigint } {
  while (c.height < limit) {
    try {
      c.block();
    } catch (e) {
      assert.ok(e instanceof UpgradeHaltError, `expected an upgrade halt, got ${(e as Error).stack}`);
      return { err: e, last: c.height };
    }
  }
  assert.fail(`no halt before height ${limit}`);
}

describe('scheduling through governance', () => {
  test('a passed proposal schedules the plan; the old binary halts at exactly its height, writes upgrade-info.json and logs the exact line', async () => {
    const home = newHome();
    const c = TestChain.open(home);
    const h = c.height + 30n;
    const p = c.pass([softwareUpgrade('v2', h, '{"binaries":{}}')]);
    assert.equal(p.status, PASSED, p.failedReason);
    assert.deepEqual(currentPlan(c), { name: 'v2', height: h });
    const { err, last } = runUntilHalt(c, h + 5n);
    assert.equal(last, h - 1n, 'block H is not committed');
    assert.equal(err.kind, 'upgrade-needed');
    const line = `UPGRADE "v2" NEEDED at height: ${h}: {"binaries":{}}`;
    assert.equal(err.message, line);
    assert.ok(
      c.logger.lines.some((l) => l.level === 'error' && l.msg === line),
      'the exact log line',
    );
    assert.deepEqual(JSON.parse(readFileSync(upgradeInfoPath(home), 'utf8')), {
      name: 'v2',
      time: '0001-01-01T00:00:00Z',
      height: Number(h),
      info: '{"binaries":{}}',
    });
    await c.close();
    // restarting the old binary halts again at the same height and rewrites the same file
    const again = TestChain.open(home);
    assert.equal(again.height, h - 1n);
    assert.throws(
      () => again.block(),
      (e: Error) => e.message === line,
    );
    assert.equal(again.height, h - 1n);
    await again.close();
  });

  test('a second proposal re-heights the upgrade, later and earlier', async () => {
    const c = TestChain.open(newHome());
    const first = c.height + 40n;
    c.pass([softwareUpgrade('v2', first)]);
    const later = first + 20n;
    assert.equal(c.pass([softwareUpgrade('v2', later)]).status, PASSED);
    assert.deepEqual(currentPlan(c), { name: 'v2', height: later });
    const earlier = c.height + 20n;
    assert.equal(c.pass([softwareUpgrade('v2', earlier)]).status, PASSED);
    assert.deepEqual(currentPlan(c), { name: 'v2', height: earlier });
    assert.equal(runUntilHalt(c, later).last, earlier - 1n, 'halts at the newest height, not the first');
    await c.close();
  });

  test('a cancel proposal removes the plan before its height and the chain runs past it', async () => {
    const c = TestChain.open(newHome());
    const h = c.height + 40n;
    c.pass([softwareUpgrade('v2', h)]);
    assert.equal(c.pass([cancelUpgrade()]).status, PASSED);
    assert.equal(currentPlan(c), undefined);
    c.blocksUntil(h + 2n);
    assert.equal(c.height, h + 2n);
    // cancelling with nothing scheduled succeeds
    assert.equal(c.pass([cancelUpgrade()]).status, PASSED);
    await c.close();
  });

  test('a cancel proposal submitted while the upgrade proposal is voting, ending after it, cancels it (spec §3 rule 3)', async () => {
    const c = TestChain.open(newHome());
    const h = c.height + 60n;
    const up = c.propose([softwareUpgrade('v2', h)]);
    c.vote(up);
    c.block([], 3n); // the cancel proposal starts 3+ s later, so its voting ends after the upgrade's
    const cancel = c.propose([cancelUpgrade()]);
    c.vote(cancel);
    // the upgrade proposal's voting ends first: the plan is scheduled…
    while (c.proposal(up).status !== PASSED) c.block();
    assert.deepEqual(currentPlan(c), { name: 'v2', height: h });
    // …then the cancel proposal's ends and removes it
    while (c.proposal(cancel).status !== PASSED) c.block();
    assert.equal(currentPlan(c), undefined);
    c.blocksUntil(h + 1n);
    await c.close();
  });

  test('a plan reusing the name of a done upgrade: the proposal fails with the SDK message', async () => {
    const home = newHome();
    const old = TestChain.open(home);
    const h = old.height + 30n;
    old.pass([softwareUpgrade('v2', h)]);
    runUntilHalt(old, h + 1n);
    await old.close();
    const c = TestChain.open(home, { upgrades: [upgradeV2()] });
    c.block(); // height h: v2 applied
    const again = c.pass([softwareUpgrade('v2', c.height + 30n)]);
    assert.equal(again.status, FAILED);
    assert.match(again.failedReason, /upgrade with name v2 has already been completed: invalid request/);
    assert.equal(currentPlan(c), undefined);
    await c.close();
  });

  test('a plan at the height the proposal passes is scheduled and halts the old binary at the next block; one height lower is the past', async () => {
    const c = TestChain.open(newHome());
    // pass(): propose, vote, then the block that ends the voting period executes the proposal
    const late = c.pass([softwareUpgrade('v2', c.height + 2n)]);
    assert.equal(late.status, FAILED);
    assert.match(late.failedReason, /^.*upgrade cannot be scheduled in the past: invalid request$/);
    const h = c.height + 3n;
    const now = c.pass([softwareUpgrade('v2', h)]);
    assert.equal(c.height, h, 'executed in block h');
    assert.equal(now.status, PASSED, now.failedReason);
    assert.deepEqual(currentPlan(c), { name: 'v2', height: h });
    const { err, last } = runUntilHalt(c, h + 1n);
    assert.equal(last, h, 'nothing of block h + 1 is committed');
    assert.equal(err.message, `UPGRADE "v2" NEEDED at height: ${h + 1n}: `);
    assert.deepEqual(JSON.parse(readFileSync(upgradeInfoPath(c.home), 'utf8')), { name: 'v2', time: '0001-01-01T00:00:00Z', height: Number(h + 1n), info: '' });
    await c.close();
  });

  test('a plan in the past, or an unsafe name, is refused', async () => {
    const c = TestChain.open(newHome());
    const past = c.pass([softwareUpgrade('v2', 2n)]);
    assert.equal(past.status, FAILED);
    assert.match(past.failedReason, /upgrade cannot be scheduled in the past/);
    // unsafe names never reach a vote: the submit tx itself fails
    for (const name of ['..', '.', 'a/b', 'a\\b', 'bad\u0001name', ' ', 'x'.repeat(129)]) {
      const msg = MsgSubmitProposal.fromPartial({
        messages: [softwareUpgrade(name, c.height + 50n)],
        initialDeposit: [{ denom: DENOM, amount: '1000' }],
        proposer: ALICE.address,
        title: 't',
        summary: 's',
      });
      const r = c.run(ALICE, [{ typeUrl: '/cosmos.gov.v1.MsgSubmitProposal', value: MsgSubmitProposal.encode(msg).finish() }]);
      assert.notEqual(r.code, 0, `name ${JSON.stringify(name)} must be refused`);
      assert.match(r.log, /plan name .* (is empty|is not a valid folder name|path separators|control characters|longer than 128 bytes)/);
    }
    assert.equal(existsSync(upgradeInfoPath(c.home)), false);
    void PERIOD;
    await c.close();
  });
});

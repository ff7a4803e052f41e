// The upgrade seen from the binaries: the new one applies the plan at its height, exactly once; a buggy,
// too-early or too-old binary stops with nothing committed (issue 4).
import assert from 'node:assert/strict';
import { existsSync, readFileSync } from 'node:fs';
import { after, describe, test } from 'node:test';
import {
  QueryAppliedPlanRequest,
  QueryAppliedPlanResponse,
  QueryModuleVersionsRequest,
  QueryModuleVersionsResponse,
} from '@chaind/sdk/gen/chain/upgrade/v1beta1/query';
import { Plan } from '@chaind/sdk/gen/chain/upgrade/v1beta1/upgrade';
import { toHex, u64be, utf8 } from '@chaind/sdk/store';
import { GO_ZERO_TIME, UpgradeHaltError } from '@chaind/sdk/x/upgrade';
import { upgradeInfoPath } from '@chaind/upgrade-plan';
import { GOV_AUTHORITY } from '../src/app.ts';
import { newHome, NEWMOD, removeTmpDirs, softwareUpgrade, TestChain, upgradeV2 } from '@chaind/chaind/testing';
import type { Upgrade } from '../src/upgrades/index.ts';

after(removeTmpDirs);

const hex = (b: Uint8Array): string => toHex(b);
const key = (...parts: (number | string)[]): Uint8Array => Buffer.concat(parts.map((p) => (typeof p === 'number' ? Buffer.from([p]) : Buffer.from(p, 'utf8'))));

/** An old binary schedules "v2" at a height ahead and runs to its halt; returns the home and the height. */
async function haltedAtV2(info = ''): Promise<{ home: string; h: bigint }> {
  const home = newHome();
  const old = TestChain.open(home);
  const h = old.height + 25n;
  old.pass([softwareUpgrade('v2', h, info)]);
  old.blocksUntil(h - 1n);
  assert.throws(
    () => old.block(),
    (e: Error) => e instanceof UpgradeHaltError && e.kind === 'upgrade-needed',
  );
  await old.close();
  return { home, h };
}

function appliedHeight(c: TestChain, name: string): bigint {
  const r = c.query('/chain.upgrade.v1beta1.Query/AppliedPlan', QueryAppliedPlanRequest.encode({ name }).finish());
  assert.equal(r.code, 0, r.log);
  return QueryAppliedPlanResponse.decode(r.value).height;
}

describe('the new binary', () => {
  test('runs the handler at H: version map, protocol version, done entry and cleared plan — the raw keys byte for byte', async () => {
    const { home, h } = await haltedAtV2('{"binaries":{}}');
    const runs = { count: 0 };
    const c = TestChain.open(home, { upgrades: [upgradeV2({ runs })] });
    // before: the plan under 0x00 is exactly the protobuf Plan, with Go's zero time as the SDK stores it
    const plan = Plan.encode({ name: 'v2', height: h, info: '{"binaries":{}}', time: GO_ZERO_TIME, upgradedClientState: undefined }).finish();
    assert.equal(c.raw('upgrade', key(0x00)), hex(plan));
    // the genesis version map is stored (InitChain), so v2 migrates rather than re-initialising modules
    assert.equal(c.raw('upgrade', key(0x02, 'bank')), hex(u64be(1n)));
    assert.equal(c.raw('upgrade', key(0x02, NEWMOD)), undefined);
    assert.equal(c.raw('upgrade', key(0x03)), undefined);

    const res = c.block();
    assert.equal(c.height, h);
    assert.equal(runs.count, 1);
    assert.ok(c.logger.lines.some((l) => l.level === 'info' && l.msg === `applying upgrade "v2" at height: ${h}`));
    assert.equal(c.raw('upgrade', key(0x00)), undefined, 'plan cleared');
    assert.equal(c.raw('upgrade', key(0x01, 'v2')), hex(u64be(h)), 'done: 0x01 ‖ name → big-endian height');
    assert.equal(c.raw('upgrade', key(0x02, NEWMOD)), hex(u64be(1n)), 'version map: the new module at its version');
    assert.equal(c.raw('upgrade', key(0x02, 'gov')), hex(u64be(1n)));
    assert.equal(c.raw('upgrade', key(0x03)), hex(u64be(1n)), 'protocol version 0 → 1');
    // the new app version goes to consensus and to Info
    assert.equal(res.consensusParamUpdates?.version?.app, 1n);
    assert.equal(c.app.info({ version: '', blockVersion: 0n, p2pVersion: 0n, abciVersion: '' }).appVersion, 1n);
    // the module v2 adds: its store was added by the store loader, its InitGenesis ran at H
    assert.equal(c.raw(NEWMOD, utf8('initialised-at')), hex(utf8(h.toString())));
    assert.equal(appliedHeight(c, 'v2'), h);
    assert.equal(appliedHeight(c, 'never'), 0n);
    const mv = c.query('/chain.upgrade.v1beta1.Query/ModuleVersions', QueryModuleVersionsRequest.encode({ moduleName: '' }).finish());
    assert.deepEqual(
      QueryModuleVersionsResponse.decode(mv.value).moduleVersions.map((m) => m.name),
      ['auth', 'bank', 'gov', 'newmod', 'upgrade', 'validators'],
    );
    const one = c.query('/chain.upgrade.v1beta1.Query/ModuleVersions', QueryModuleVersionsRequest.encode({ moduleName: NEWMOD }).finish());
    assert.deepEqual(QueryModuleVersionsResponse.decode(one.value).moduleVersions, [{ name: NEWMOD, version: 1n }]);
    const unknown = c.query('/chain.upgrade.v1beta1.Query/ModuleVersions', QueryModuleVersionsRequest.encode({ moduleName: 'nope' }).finish());
    assert.equal(unknown.codespace, 'upgrade');
    assert.equal(unknown.code, 2);
    c.blocksUntil(h + 3n);
    await c.close();
  });

  test('a handler error halts with nothing committed; a fixed binary then applies the upgrade on intact state', async () => {
    const { home, h } = await haltedAtV2();
    const buggy = TestChain.open(home, { upgrades: [upgradeV2({ fail: true })] });
    assert.throws(
      () => buggy.block(),
      (e: Error) => e instanceof UpgradeHaltError && e.kind === 'handler-failed' && /migration bug/.test(e.message),
    );
    assert.equal(buggy.height, h - 1n);
    assert.notEqual(buggy.raw('upgrade', key(0x00)), undefined, 'the plan is still scheduled');
    await buggy.close();
    const fixed = TestChain.open(home, { upgrades: [upgradeV2()] });
    fixed.block();
    assert.equal(fixed.height, h);
    assert.equal(appliedHeight(fixed, 'v2'), h);
    await fixed.close();
  });

  test('a binary with the handler started before the height refuses to run (BINARY UPDATED BEFORE TRIGGER)', async () => {
    const home = newHome();
    const old = TestChain.open(home);
    const h = old.height + 30n;
    old.pass([softwareUpgrade('v2', h)]);
    const at = old.height;
    await old.close();
    const tooEarly = (e: Error): boolean =>
      e instanceof UpgradeHaltError && e.message === 'BINARY UPDATED BEFORE TRIGGER! UPGRADE "v2" - in binary but not executed on chain. Downgrade your binary';
    // an upgrade that adds stores: refused at start-up, before the missing stores could confuse anyone
    assert.throws(() => TestChain.open(home, { upgrades: [upgradeV2()] }), tooEarly);
    // an upgrade without store changes: refused by the pre-blocker at the next block
    const noStores: Upgrade = { name: 'v2', storeUpgrades: {} };
    const early = TestChain.open(home, { upgrades: [noStores] });
    assert.throws(() => early.block(), tooEarly);
    assert.equal(early.height, at, 'nothing committed');
    await early.close();
  });

  test('from the second upgrade on: upgrade-info.json naming the applied v2 is history; a v3 binary started before v3 refuses (BINARY UPDATED BEFORE TRIGGER), not with a missing-store error', async () => {
    const { home, h } = await haltedAtV2();
    const v2Binary = TestChain.open(home, { upgrades: [upgradeV2()] });
    v2Binary.block();
    const h3 = v2Binary.height + 30n;
    v2Binary.pass([softwareUpgrade('v3', h3)]);
    await v2Binary.close();
    assert.equal((JSON.parse(readFileSync(upgradeInfoPath(home), 'utf8')) as { name: string }).name, 'v2', 'the file stays after the upgrade');
    const v3: Upgrade = {
      name: 'v3',
      storeUpgrades: { added: ['newmod3'] },
      modules: { newmod3: { consensusVersion: 1n, create: () => ({ name: 'newmod3', storeKeys: ['newmod3'], consensusVersion: 1n }) } },
    };
    assert.throws(
      () => TestChain.open(home, { upgrades: [upgradeV2(), v3] }),
      (e: Error) =>
        e instanceof UpgradeHaltError &&
        e.kind === 'binary-too-early' &&
        e.message === 'BINARY UPDATED BEFORE TRIGGER! UPGRADE "v3" - in binary but not executed on chain. Downgrade your binary',
    );
    // the v2 binary goes on as before
    const again = TestChain.open(home, { upgrades: [upgradeV2()] });
    again.block();
    assert.ok(again.height > h);
    await again.close();
  });

  test('a binary without the handler of the last applied upgrade refuses to run (downgrade)', async () => {
    const { home, h } = await haltedAtV2();
    const c = TestChain.open(home, { upgrades: [upgradeV2()] });
    c.blocksUntil(h + 2n);
    await c.close();
    const old = TestChain.open(home);
    assert.throws(
      () => old.block(),
      (e: Error) =>
        e instanceof UpgradeHaltError && e.kind === 'downgrade' && e.message === 'wrong app version 1, upgrade handler is missing for v2 upgrade plan',
    );
    assert.equal(old.height, h + 2n);
    await old.close();
  });

  test('--unsafe-skip-upgrades: the plan is skipped and cleared, not marked done, and the old binary continues', async () => {
    const home = newHome();
    const c0 = TestChain.open(home);
    const h = c0.height + 25n;
    c0.pass([softwareUpgrade('v2', h, 'some info')]);
    await c0.close();
    const c = TestChain.open(home, { skipUpgradeHeights: [h] });
    c.blocksUntil(h + 2n);
    assert.ok(c.logger.lines.some((l) => l.msg === `UPGRADE "v2" SKIPPED at ${h}: some info`));
    assert.equal(c.raw('upgrade', key(0x00)), undefined);
    assert.equal(appliedHeight(c, 'v2'), 0n, 'not done: the name can be used again');
    assert.equal(existsSync(upgradeInfoPath(home)), false);
    await c.close();
  });
});

describe('store upgrades', () => {
  test('run exactly once, at H, for the planned upgrade only, across restarts of both binaries', async () => {
    const { home, h } = await haltedAtV2();
    // restarting the old binary halts again at H, rewriting the same file
    const before = readFileSync(upgradeInfoPath(home), 'utf8');
    const old = TestChain.open(home);
    assert.throws(() => old.block(), /UPGRADE "v2" NEEDED/);
    await old.close();
    assert.equal(readFileSync(upgradeInfoPath(home), 'utf8'), before);
    // a binary knowing v2 and another upgrade at the same height applies only v2's store upgrades
    const other: Upgrade = { name: 'v3', storeUpgrades: { added: ['v3store'] } };
    const runs = { count: 0 };
    const c = TestChain.open(home, { upgrades: [upgradeV2({ runs }), other] });
    assert.ok(c.app.store.hasStore(NEWMOD));
    assert.ok(!c.app.store.hasStore('v3store'));
    c.blocksUntil(h + 3n);
    assert.equal(runs.count, 1);
    await c.close();
    // restart the new binary after the upgrade block: nothing is applied again (adding "newmod" twice would fail)
    const runs2 = { count: 0 };
    const again = TestChain.open(home, { upgrades: [upgradeV2({ runs: runs2 })] });
    assert.equal(again.height, h + 3n);
    again.blocksUntil(h + 5n);
    assert.equal(runs2.count, 0);
    assert.equal(again.raw(NEWMOD, utf8('initialised-at')), hex(utf8(h.toString())));
    assert.equal(appliedHeight(again, 'v2'), h);
    await again.close();
    void GOV_AUTHORITY;
  });

  test('a new binary started exactly at H, before the old one halted (no upgrade-info.json), applies the store upgrades too', async () => {
    const home = newHome();
    const old = TestChain.open(home);
    const h = old.height + 25n;
    old.pass([softwareUpgrade('v2', h)]);
    old.blocksUntil(h - 1n);
    await old.close();
    assert.equal(existsSync(upgradeInfoPath(home)), false);
    const c = TestChain.open(home, { upgrades: [upgradeV2()] });
    c.block();
    assert.equal(appliedHeight(c, 'v2'), h);
    assert.equal(c.raw(NEWMOD, utf8('initialised-at')), hex(utf8(h.toString())));
    await c.close();
  });

  test('a new module whose store the upgrade forgot to add stops start-up with the developer-facing error', async () => {
    const { home } = await haltedAtV2();
    const forgot: Upgrade = { ...upgradeV2(), storeUpgrades: {} };
    assert.throws(
      () => TestChain.open(home, { upgrades: [forgot] }),
      /store "newmod" is mounted by the application but does not exist.*add it to StoreUpgrades\.added/,
    );
  });
});

// `chaind upgrade simulate` as real child processes: the v2 binary rehearses the v2 upgrade block on the
// home of a running v1 node (its state from real blocks, committing more while it reads), then the v1
// node halts, the v2 node applies the upgrade, and the upgrade block does what the simulation said. And
// the exit codes: 20 fail, 21 unknown upgrade, 22 state not readable.
import assert from 'node:assert/strict';
import { cpSync, mkdirSync, readFileSync, writeFileSync } from 'node:fs';
import { join } from 'node:path';
import { after, describe, test } from 'node:test';
import { CommitMultiStore, prefixEnd, readU64be, toHex, type ReadMultiStore } from '@chaind/sdk/store';
import { Keyring } from '@chaind/sdk/keyring';
import { HALT_EXIT_CODES } from '@chaind/sdk/x/upgrade';
import {
  chaind,
  cometHeight,
  GroupChild,
  newHome,
  proposeAndPassUpgrade,
  removeTmpDirs,
  softwareUpgrade,
  spawnDevNode,
  startDevNode,
  stateDiff,
  TestChain,
  tmpDir,
  waitForRpcHeight,
  within,
  type Run,
} from '@chaind/chaind/testing';
import { SIMULATE_FAIL, SIMULATE_STATE_UNREADABLE, SIMULATE_UNKNOWN_UPGRADE, type SimulationJSON } from '../../src/cli/upgrade.ts';
import type { Upgrade } from '../../src/upgrades/index.ts';

after(async () => {
  await GroupChild.killAllGroups();
  removeTmpDirs();
});

const as = (release: string, args: readonly string[]): Promise<Run> => chaind(args, { env: { CHAIND_RELEASE: release } });
const simulateJSON = (home: string, ...args: string[]): Promise<Run> => as('v2', ['upgrade', 'simulate', ...args, '--home', home, '-o', 'json']);

function parsed(r: Run, code = 0): SimulationJSON {
  assert.equal(r.code, code, `stdout:\n${r.stdout}\nstderr:\n${r.stderr}`);
  return JSON.parse(r.stdout) as SimulationJSON;
}

async function rpc<T>(url: string, path: string): Promise<T> {
  const res = await fetch(`${url}${path}`);
  return ((await res.json()) as { result: T }).result;
}

const latestHeight = async (url: string): Promise<number> => Number((await cometHeight(url)) ?? assert.fail(`no height from ${url}`));

/** The module version map the upgrade store holds (0x02 ‖ name → u64be). */
function versionMap(s: ReadMultiStore): Record<string, string> {
  const out: Record<string, string> = {};
  const p = Uint8Array.of(0x02);
  for (const e of s.getStore('upgrade').iterator(p, prefixEnd(p))) out[Buffer.from(e.key.subarray(1)).toString('utf8')] = readU64be(e.value).toString();
  return out;
}

const counts = (
  ds: readonly {
    name: string;
    keysAdded?: number;
    keys_added?: number;
    keysChanged?: number;
    keys_changed?: number;
    keysDeleted?: number;
    keys_deleted?: number;
  }[],
): string[] =>
  ds
    .map((d) => [d.name, d.keysAdded ?? d.keys_added ?? 0, d.keysChanged ?? d.keys_changed ?? 0, d.keysDeleted ?? d.keys_deleted ?? 0] as const)
    .filter(([, a, c, d]) => a + c + d > 0)
    .map(([n, a, c, d]) => `${n} +${a} ~${c} -${d}`);

describe('chaind upgrade simulate', () => {
  test(
    'the v2 binary on a running v1 node: a consistent snapshot while blocks with txs commit; the real upgrade then matches it',
    { timeout: 300_000 },
    async () => {
      const home = join(tmpDir('chaind-sim-'), 'home');
      // the development chain as release v1 creates it (its genesis has v1's modules), one block in
      const created = await as('v1', [
        'dev',
        '--home',
        home,
        '--gov-period',
        '10s',
        '--halt-height',
        '1',
        '--rpc.laddr',
        'tcp://127.0.0.1:0',
        '--api.enable',
        'false',
        '--grpc.enable',
        'false',
      ]);
      assert.equal(created.code, 0, created.stderr);
      const cfg = join(home, 'config', 'config.toml');
      writeFileSync(cfg, readFileSync(cfg, 'utf8').replace(/block_interval = "1s"/, 'block_interval = "300ms"'));
      const old = await startDevNode(home, { release: 'v1' });
      const url = old.rpc;
      const flags = ['--home', home, '--keyring-backend', 'test', '--node', url, '-y'];
      const bob = (await (await Keyring.open(home, 'test')).get('bob')).address;
      const h = (await latestHeight(url)) + 80;
      await proposeAndPassUpgrade({ cli: (args) => as('v1', args), node: url, home, name: 'v2', height: h, proposal: 1 });

      // the node commits blocks with sends while the v2 binary reads its state
      const sends = (async () => {
        for (let i = 0; i < 3; i++) {
          const r = await as('v1', ['tx', 'bank', 'send', 'alice', bob, '1stake', '--broadcast-mode', 'sync', ...flags]);
          assert.equal(r.code, 0, r.stderr);
        }
      })();
      const during = parsed(await simulateJSON(home));
      await sends;
      assert.equal(during.name, 'v2');
      assert.equal(during.height, String(h), "the plan's height");
      assert.equal(during.passed, true, during.error);
      assert.equal(during.time_source, 'blocks');
      // measured from the node's blocks (how near to its setting depends on the machine's load: not asserted)
      assert.ok(during.median_block_interval_ms !== undefined && during.median_block_interval_ms > 0, String(during.median_block_interval_ms));
      assert.ok(Date.parse(during.time) > Date.now(), `a block time ahead, at the plan's height: ${during.time}`);
      // the last result is kept for the node's dashboard (/upgrade/status reads it)
      const saved = JSON.parse(readFileSync(join(home, 'data', 'upgrade-simulate.json'), 'utf8')) as SimulationJSON & { finished_at: string };
      assert.deepEqual({ name: saved.name, passed: saved.passed, app_hash: saved.app_hash }, { name: 'v2', passed: true, app_hash: during.app_hash });
      assert.ok(Math.abs(Date.parse(saved.finished_at) - Date.now()) < 60_000, saved.finished_at);
      // the snapshot is one committed state: the app hash the next block's header carries
      const from = Number(during.from_height);
      await waitForRpcHeight(url, from + 1);
      const header = await rpc<{ block: { header: { app_hash: string } } }>(url, `/block?height=${from + 1}`);
      assert.equal(header.block.header.app_hash.toLowerCase(), during.from_app_hash);
      assert.deepEqual(
        Object.entries(during.module_versions).filter(([, v]) => v.from !== v.to),
        [
          ['chaininfo', { from: null, to: '1' }],
          ['validators', { from: '1', to: '2' }],
        ],
      );
      assert.ok(BigInt(during.gas_used) > 0n && during.wall_ms > 0 && during.peak_rss_bytes > 0);

      assert.equal(
        await within(
          old.proc.exited.then((e) => e.code),
          120_000,
          () => old.proc.log(),
        ),
        HALT_EXIT_CODES['upgrade-needed'],
        old.proc.log().slice(-3000),
      );
      // halted: the state the upgrade block will start from (with vote extensions on, every block before it
      // records the validator's attestation, so no earlier state is the same)
      const quiet = parsed(await simulateJSON(home, 'v2'));
      assert.equal(quiet.from_height, String(h - 1));
      const text = await as('v2', ['upgrade', 'simulate', '--home', home]);
      assert.equal(text.code, 0, text.stderr);
      assert.match(
        text.stdout,
        new RegExp(`^upgrade "v2" at height ${h} \\(time .+, extrapolated from blocks every [0-9.]+ ms\\) on the state at height ${h - 1}: PASS$`, 'm'),
      );
      assert.match(text.stdout, /^store valset \(renamed from validators\): \+1 ~0 -0 keys/m);
      const before = newHome();
      cpSync(join(home, 'data'), join(before, 'data'), { recursive: true });
      const cur = spawnDevNode(home, { release: 'v2', args: ['--halt-height', String(h)] });
      assert.equal(
        await within(
          cur.exited.then((e) => e.code),
          60_000,
          () => cur.log(),
        ),
        0,
        cur.log().slice(-3000),
      );

      const a = CommitMultiStore.open(join(before, 'data', 'application.db'));
      const b = CommitMultiStore.open(join(home, 'data', 'application.db'));
      const sa = a.snapshot();
      const sb = b.snapshot();
      try {
        assert.equal(sa.height, BigInt(h - 1));
        assert.equal(toHex(sa.appHash), quiet.from_app_hash, 'the upgrade block started from the simulated state');
        assert.equal(sb.height, BigInt(h));
        assert.equal(toHex(sb.appHash), quiet.app_hash, 'the app hash the upgrade block committed');
        assert.deepEqual(versionMap(sb), Object.fromEntries(Object.entries(quiet.module_versions).map(([m, v]) => [m, v.to])));
        const oracle = stateDiff(sa, sb, new Map([['valset', 'validators']]));
        assert.deepEqual(counts(quiet.stores), counts(oracle));
        // the upgrade store's second deletion: the validator's readiness attestation, dropped as the plan is applied
        assert.deepEqual(counts(quiet.stores), ['chaininfo +2 ~0 -0', 'upgrade +3 ~1 -2', 'valset +1 ~0 -0']);
      } finally {
        sa.release();
        sb.release();
        await a.close();
        await b.close();
      }
      // applied: nothing more to simulate
      const again = await simulateJSON(home, 'v2');
      assert.equal(again.code, SIMULATE_FAIL);
      assert.equal(again.stderr.trimEnd(), `Error: upgrade "v2" was already applied at height ${h}`);
    },
  );

  test('exit codes: 20 a failing handler (its error in the JSON), 21 an unknown or unscheduled upgrade, 22 no readable state', async () => {
    // a chain whose validators module is already at consensus version 3: v2 cannot migrate it backwards
    const bump = (name: string, v: bigint): Upgrade => ({ name, storeUpgrades: {}, modules: { validators: { consensusVersion: v, migrate: () => {} } } });
    const home = newHome();
    const c = TestChain.open(home, { upgrades: [bump('v0a', 2n), bump('v0b', 3n)] });
    const h = c.height + 25n;
    c.pass([softwareUpgrade('v2', h)]);
    await c.close();
    const failed = parsed(await simulateJSON(home), SIMULATE_FAIL);
    assert.equal(failed.passed, false);
    assert.equal(failed.error, 'module "validators" is at version 3 on chain but this binary has version 2: cannot migrate backwards');
    assert.equal(failed.app_hash, undefined);
    assert.deepEqual(failed.stores, []);

    const r1 = await as('v1', ['upgrade', 'simulate', '--home', home]);
    assert.equal(r1.code, SIMULATE_UNKNOWN_UPGRADE, r1.stderr);
    assert.equal(r1.stderr.trimEnd(), 'Error: this binary (release v1) does not know upgrade "v2" (it knows: none): run the release that has it');
    const r9 = await as('v2', ['upgrade', 'simulate', 'v9', '--home', home]);
    assert.equal(r9.code, SIMULATE_UNKNOWN_UPGRADE, r9.stderr);
    assert.equal(r9.stderr.trimEnd(), 'Error: this binary (release v2) does not know upgrade "v9" (it knows: v2): run the release that has it');

    const plain = newHome();
    await TestChain.open(plain).close();
    const none = await as('v2', ['upgrade', 'simulate', '--home', plain]);
    assert.equal(none.code, SIMULATE_UNKNOWN_UPGRADE, none.stderr);
    assert.equal(none.stderr.trimEnd(), 'Error: no upgrade is scheduled: name the upgrade to simulate');
    // named, on a chain with no plan: the next block's height
    assert.equal(parsed(await simulateJSON(plain, 'v2')).height, '2');

    const empty = newHome();
    const r22 = await as('v2', ['upgrade', 'simulate', '--home', empty]);
    assert.equal(r22.code, SIMULATE_STATE_UNREADABLE);
    assert.match(r22.stderr.trimEnd(), /^Error: no application state at .*application\.db$/);
    mkdirSync(join(empty, 'data', 'application.db'), { recursive: true });
    const dir = await as('v2', ['upgrade', 'simulate', '--home', empty]);
    assert.equal(dir.code, SIMULATE_STATE_UNREADABLE);
    assert.match(dir.stderr, /^Error: cannot open .*application\.db: /);
  });
});

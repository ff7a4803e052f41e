// Faults in the upgrade itself, on the node's side (issue 22), over real processes and real LMDB: the
// release after the latest (a temporary copy of the sources) has an upgrade whose handler copies every
// bank key (100k+, funded at genesis) into its new store and counts its own runs. The old binary
// halts at H; then
// - the new binary is SIGKILLed at seeded-random moments across the upgrade block, restarted, again:
//   the upgrade completes exactly once and the app hash at H equals an uninterrupted run's;
// - the old binary is SIGKILLed at seeded-random moments around its halt: upgrade-info.json is whole
//   or absent, and its restart at H writes it again, identical;
// - the new binary meets the state database's size limit (app.toml state-db-max-bytes) in the upgrade
//   block: it stops with a line naming the setting, nothing of H committed; with the limit raised it goes on.
// FAULT_SEED=n reruns with other kill moments, FAULT_KILLS/FAULT_INFO_KILLS=n with more; FAULT_DEBUG=1 prints each kill's phase.
import assert from 'node:assert/strict';
import { cpSync, existsSync, readdirSync, readFileSync, rmSync, writeFileSync } from 'node:fs';
import { dirname, join } from 'node:path';
import { StringDecoder } from 'node:string_decoder';
import { after, before, describe, test } from 'node:test';
import { toBech32 } from '@chaind/sdk/crypto';
import { CommitMultiStore, concatBytes, readU64be, toHex, utf8 } from '@chaind/sdk/store';
import { DONE_PREFIX, HALT_EXIT_CODES, STORE_KEY as UPGRADE_STORE, VERSION_MAP_PREFIX } from '@chaind/sdk/x/upgrade';
import { readUpgradeInfoFile, upgradeInfoPath } from '@chaind/upgrade-plan';
import {
  chaind,
  GroupChild,
  proposeAndPassUpgrade,
  removeTmpDirs,
  sourcesWithNextRelease,
  spawnDevNode,
  tmpDir,
  withoutWarning,
  within,
  type Run,
} from '@chaind/chaind/testing';
import { LATEST_RELEASE } from '../src/release.ts';
import { seededRandom } from '@chaind/upgrade-plan/testing';

/** Accounts funded at genesis besides the dev chain's three: the handler migrates every bank key. */
const ACCOUNTS = 100_000;
/** Kills in the upgrade block and around the old binary's halt: enough for `npm test` to cover the block's
 * phases; FAULT_KILLS and FAULT_INFO_KILLS for longer runs (docs/reliability.md has 20-kill figures). */
const KILLS = Number(process.env.FAULT_KILLS ?? 8);
const INFO_KILLS = Number(process.env.FAULT_INFO_KILLS ?? 4);
const INFO_WINDOW_MS = 250;
/** CI's fixed seed; FAULT_SEED reruns another. */
const SEED = Number(process.env.FAULT_SEED ?? 22);
const OLD = LATEST_RELEASE;
const NEXT = `v${Number(LATEST_RELEASE.slice(1)) + 1}`;
const STORE = `${NEXT}store`;
const RUNS_KEY = Uint8Array.of(0x00);

/** The next release's upgrade: adds STORE, copies every bank key under 0x01 and counts its runs at 0x00 (not idempotent). */
const UPGRADE_SOURCE = `import { concatBytes, readU64be, u64be } from '@chaind/sdk/store';
import type { Upgrade } from '../types.ts';

export const ${NEXT}: Upgrade = {
  name: '${NEXT}',
  storeUpgrades: { added: ['${STORE}'] },
  modules: {
    '${STORE}': {
      consensusVersion: 1n,
      create: () => ({ name: '${STORE}', storeKeys: ['${STORE}'], consensusVersion: 1n, defaultGenesis: () => ({}), initGenesis: () => {} }),
    },
  },
  afterMigrations: (ctx) => {
    ctx.logger.info('fault test migration started');
    const out = ctx.store.getStore('${STORE}');
    let keys = 0;
    for (const e of ctx.store.getStore('bank').iterator()) {
      out.set(concatBytes(Uint8Array.of(0x01), e.key), e.value);
      keys++;
    }
    const runs = out.get(Uint8Array.of(0x00));
    out.set(Uint8Array.of(0x00), u64be((runs === undefined ? 0n : readU64be(runs)) + 1n));
    ctx.logger.info('fault test migration done', { keys });
  },
};
`;

after(async () => {
  await GroupChild.killAllGroups();
  removeTmpDirs();
});

/** One node process (the kit's, in its own group): its log with the moment (ms after spawn) each line arrived, and its end. */
interface NodeRun {
  readonly proc: GroupChild;
  readonly lines: { at: number; text: string }[];
  log(): string;
  /** Ms after spawn of the first line matching `re`, if any yet. */
  at(re: RegExp): number | undefined;
}

function startNode(bin: string, release: string, home: string, extra: readonly string[] = []): NodeRun {
  const t0 = Date.now();
  const proc = spawnDevNode(home, { bin, release, servers: true, args: extra });
  const lines: { at: number; text: string }[] = [];
  const utf8Text = new StringDecoder('utf8');
  let partial = '';
  // the kit's exit is 'close': after the last of its stderr is read, so the phase a killed run reached is all in `lines`
  proc.child.stderr?.on('data', (d: Buffer) => {
    const at = Date.now() - t0;
    const parts = (partial + utf8Text.write(d)).split('\n');
    partial = parts.pop() ?? '';
    for (const text of parts) lines.push({ at, text });
  });
  return {
    proc,
    lines,
    log: () => lines.map((l) => l.text).join('\n') + partial,
    at: (re) => lines.find((l) => re.test(l.text))?.at,
  };
}

/** Resolves once `r` has logged a line matching `re` (checked every 5 ms: the kills' moments depend on it); rejects if it exits first. */
async function untilLine(r: NodeRun, re: RegExp): Promise<void> {
  while (r.at(re) === undefined) {
    if (!r.proc.running) throw new Error(`exited before ${re}:\n${r.log()}`);
    await new Promise((res) => setTimeout(res, 5));
  }
}

async function cli(bin: string, release: string, args: readonly string[]): Promise<Run> {
  const r = await chaind(args, { bin, env: { CHAIND_RELEASE: release } });
  return { ...r, stderr: withoutWarning(r.stderr) };
}

/** What a home's committed state says about the upgrade. */
interface UpgradeState {
  readonly height: bigint;
  readonly appHash: string;
  readonly runs: bigint | undefined;
  readonly migrated: number;
  readonly bankKeys: number;
  readonly done: string[];
  readonly storeVersion: bigint | undefined;
}

async function upgradeState(home: string): Promise<UpgradeState> {
  const store = CommitMultiStore.open(join(home, 'data', 'application.db'));
  try {
    store.mount([]);
    store.loadLatest();
    const info = store.lastCommitInfo();
    const snap = store.snapshot();
    try {
      const has = snap.hasStore(STORE);
      const runs = has ? snap.getStore(STORE).get(RUNS_KEY) : undefined;
      const migrated = has ? [...snap.getStore(STORE).iterator()].length - (runs === undefined ? 0 : 1) : 0;
      const up = snap.getStore(UPGRADE_STORE);
      const done = [...up.iterator(DONE_PREFIX, Uint8Array.of(DONE_PREFIX[0] + 1))].map(
        (e) => `${Buffer.from(e.key.subarray(1)).toString()}@${readU64be(e.value)}`,
      );
      const v = up.get(concatBytes(VERSION_MAP_PREFIX, utf8(STORE)));
      return {
        height: info.height,
        appHash: toHex(info.appHash),
        runs: runs === undefined ? undefined : readU64be(runs),
        migrated,
        bankKeys: [...snap.getStore('bank').iterator()].length,
        done,
        storeVersion: v === undefined ? undefined : readU64be(v),
      };
    } finally {
      snap.release();
    }
  } finally {
    await store.close();
  }
}

describe(`faults in the upgrade ${OLD} → ${NEXT}, node side`, () => {
  let bin = '';
  let halted = '';
  let h = 0n;
  let info = '';

  before(async () => {
    bin = sourcesWithNextRelease(NEXT, STORE, UPGRADE_SOURCE).bin;
    const home = join(tmpDir('chaind-fault-'), 'home');
    // the dev chain's home, its genesis funding ACCOUNTS more addresses (bank balances only)
    const mk = join(dirname(bin), '..', 'make-home.mjs');
    writeFileSync(
      mk,
      `import { register } from 'tsx/esm/api';\nregister();\nconst { createDevHome } = await import('./src/cli/dev.ts');\nawait createDevHome(process.argv[2], '20s');\n`,
    );
    const made = await cli(mk, OLD, [home]);
    assert.equal(made.code, 0, made.stderr);
    const gPath = join(home, 'config', 'genesis.json');
    const g = JSON.parse(readFileSync(gPath, 'utf8')) as { app_state: { bank: { balances: { address: string; coins: unknown[] }[]; supply: unknown[] } } };
    const bank = g.app_state.bank;
    const prefix = bank.balances[0].address.slice(0, bank.balances[0].address.lastIndexOf('1'));
    for (let i = 0; i < ACCOUNTS; i++) {
      const a = Buffer.alloc(20, 0x5a);
      a.writeUInt32BE(i, 0);
      bank.balances.push({ address: toBech32(prefix, a), coins: [{ denom: 'stake', amount: String(1000 + i) }] });
    }
    bank.supply = [];
    writeFileSync(gPath, JSON.stringify(g));
    const cfg = join(home, 'config', 'config.toml');
    writeFileSync(cfg, readFileSync(cfg, 'utf8').replace(/^block_interval = .*$/m, 'block_interval = "100ms"'));

    // the old binary: a governance plan for NEXT, then its halt at H
    const old = startNode(bin, OLD, home);
    const url = (await old.proc.waitForLog(/RPC server listening url=(\S+)/, 120_000))[1];
    const status = JSON.parse((await cli(bin, OLD, ['status', '--node', url])).stdout) as { sync_info: { latest_block_height: string } };
    // 100 ms blocks: the 20 s voting period is 200 of them; the rest is room for the CLI's steps under load,
    // so that the plan is seen scheduled before the node halts at H
    h = BigInt(status.sync_info.latest_block_height) + 500n;
    await proposeAndPassUpgrade({
      cli: (args) => cli(bin, OLD, args),
      node: url,
      home,
      name: NEXT,
      height: h,
      proposal: 1,
      context: () => old.log().slice(-3000),
    });
    const end = await within(old.proc.exited, 120_000, () => old.log().slice(-3000));
    assert.equal(end.code, HALT_EXIT_CODES['upgrade-needed'], old.log().slice(-3000));
    info = readFileSync(upgradeInfoPath(home), 'utf8');
    assert.match(info, new RegExp(`"name":"${NEXT}".*"height":${h}`));
    halted = join(tmpDir('chaind-fault-halted-'), 'home');
    cpSync(home, halted, { recursive: true });
  });

  test(
    `SIGKILL of the new binary ${KILLS} times across the upgrade block (${ACCOUNTS}+ keys migrated): the upgrade completes once, the app hash at H is an uninterrupted run's`,
    { timeout: 400_000 },
    async () => {
      const fresh = (): string => {
        const home = join(tmpDir('chaind-fault-run-'), 'home');
        cpSync(halted, home, { recursive: true });
        return home;
      };
      const halt = ['--halt-height', String(h)];
      const committed = new RegExp(`INF committed block height=${h} `);

      // the uninterrupted run: the reference state, and the moments of the block's phases
      const refHome = fresh();
      const ref = startNode(bin, NEXT, refHome, halt);
      const refEnd = await within(ref.proc.exited, 120_000, () => ref.log().slice(-3000));
      assert.equal(refEnd.code, 0, ref.log().slice(-3000));
      const want = await upgradeState(refHome);
      assert.equal(want.height, h);
      assert.equal(want.runs, 1n);
      assert.ok(want.migrated >= ACCOUNTS, `migrated ${want.migrated} keys`);
      assert.equal(want.migrated, want.bankKeys);
      assert.deepEqual(
        want.done.filter((d) => d.startsWith(`${NEXT}@`)),
        [`${NEXT}@${h}`],
      );
      assert.equal(want.storeVersion, 1n);
      const tHandshake = ref.at(/INF handshake done/) ?? assert.fail(ref.log());
      const tCommitted = ref.at(committed) ?? assert.fail(ref.log());

      // the block at H runs after the handshake at H - 1, or, when a kill left it in the block store but
      // not committed (after the block was saved), as the handshake's replay of H
      const anchor = new RegExp(`INF (handshake done height=${h - 1n} |replaying block height=${h}\\b)`);
      const doneAtH = new RegExp(`INF (committed block|handshake done) height=${h} `);
      /** The phase a killed run had reached, from its log. */
      const phase = (r: NodeRun): string => {
        if (r.at(doneAtH) !== undefined) return 'after commit';
        const replay = r.at(new RegExp(`INF replaying block height=${h}\\b`)) !== undefined ? ' (replay of H)' : '';
        if (r.at(/fault test migration done/) !== undefined) return `end of FinalizeBlock, Commit${replay}`;
        if (r.at(/fault test migration started/) !== undefined) return `mid-migration${replay}`;
        if (r.at(/applying upgrade/) !== undefined) return `module migrations${replay}`;
        if (r.at(anchor) !== undefined) return `store upgrades loaded, before the block${replay}`;
        return 'start-up';
      };
      const rnd = seededRandom(SEED);
      const span = tCommitted - tHandshake;
      const phases = new Map<string, number>();
      const check = async (home: string): Promise<void> => {
        const got = await upgradeState(home);
        assert.deepEqual(got, want, `state at H after kills in ${home}`);
      };
      let home = fresh();
      for (let i = 0; i < KILLS; ) {
        const r = startNode(bin, NEXT, home, halt);
        await within(untilLine(r, new RegExp(`${anchor.source}|${doneAtH.source}`)), 60_000, () => r.log());
        if (r.at(anchor) === undefined) {
          // the last kill came after the commit of H but before its log line: this home is done
          await r.proc.killGroup();
          phases.set('after commit, before its log line', (phases.get('after commit, before its log line') ?? 0) + 1);
          await check(home);
          home = fresh();
          continue;
        }
        const wait = rnd() * span;
        await new Promise((res) => setTimeout(res, wait));
        await within(r.proc.killGroup(), 30_000, () => r.log());
        i++;
        const p = phase(r);
        if (process.env.FAULT_DEBUG) process.stderr.write(`kill ${i}: ${Math.round(wait)} ms -> ${p}\n`);
        phases.set(p, (phases.get(p) ?? 0) + 1);
        if (p === 'after commit') {
          // this home's upgrade block is done: it must be the uninterrupted run's; the next kills start afresh
          await check(home);
          home = fresh();
        }
      }
      // the last killed home, restarted to the end of H
      const last = startNode(bin, NEXT, home, halt);
      const lastEnd = await within(last.proc.exited, 120_000, () => last.log().slice(-3000));
      assert.equal(lastEnd.code, 0, last.log().slice(-3000));
      await check(home);
      const inBlock = new Set([...phases.keys()].filter((p) => p !== 'start-up' && !p.startsWith('after commit')).map((p) => p.replace(' (replay of H)', '')));
      const tApplying = ref.at(/applying upgrade/) ?? 0;
      process.stderr.write(
        `uninterrupted upgrade block: ${tCommitted - tApplying} ms from "applying upgrade" to its commit (${want.migrated} keys migrated)\n`,
      );
      process.stderr.write(`kills by phase (seed ${SEED}, 0–${Math.round(span)} ms after the handshake): ${JSON.stringify(Object.fromEntries(phases))}\n`);
      assert.ok(inBlock.size >= 2, `the kills covered fewer than two phases of the upgrade block: ${JSON.stringify(Object.fromEntries(phases))}`);
    },
  );

  test(
    `SIGKILL of the old binary ${INFO_KILLS} times around its halt: upgrade-info.json is whole or absent, and the restart at H writes it again, identical`,
    { timeout: 200_000 },
    async () => {
      const home = join(tmpDir('chaind-fault-info-'), 'home');
      cpSync(halted, home, { recursive: true });
      const file = upgradeInfoPath(home);
      // the halt comes right after the handshake at H - 1: the kills fall within INFO_WINDOW_MS of that line
      const rnd = seededRandom(SEED + 1);
      const seen = { absent: 0, whole: 0, afterHaltLine: 0 };
      for (let i = 0; i < INFO_KILLS; i++) {
        rmSync(file, { force: true });
        const r = startNode(bin, OLD, home);
        await within(untilLine(r, /INF handshake done/), 60_000, () => r.log());
        await new Promise((res) => setTimeout(res, rnd() * INFO_WINDOW_MS));
        await within(r.proc.killGroup(), 30_000, () => r.log());
        if (r.at(/halting/) !== undefined) seen.afterHaltLine++;
        const read = readUpgradeInfoFile(file);
        if (read.state === 'absent') seen.absent++;
        else {
          if (read.state !== 'ok') assert.fail(`kill ${i}: upgrade-info.json is ${read.state}: ${read.why}`);
          assert.equal(readFileSync(file, 'utf8'), info, `kill ${i}: the file is whole`);
          seen.whole++;
        }
      }
      const leftovers = readdirSync(dirname(file)).filter((f) => f.startsWith('upgrade-info.json.tmp-')).length;
      process.stderr.write(`upgrade-info.json after kills around the halt (seed ${SEED + 1}): ${JSON.stringify({ ...seen, tempFilesLeft: leftovers })}\n`);
      // the restart at H writes it again
      rmSync(file, { force: true });
      const again = startNode(bin, OLD, home);
      const end = await within(again.proc.exited, 120_000, () => again.log().slice(-3000));
      assert.equal(end.code, HALT_EXIT_CODES['upgrade-needed'], again.log().slice(-3000));
      assert.equal(readFileSync(file, 'utf8'), info);
      assert.ok(existsSync(file));
    },
  );

  test(
    'the state database reaching its size limit mid-upgrade-block: the node stops with one line naming app.toml state-db-max-bytes, nothing of H committed; with the limit raised it goes on from H',
    { timeout: 200_000 },
    async () => {
      const home = join(tmpDir('chaind-fault-full-'), 'home');
      cpSync(halted, home, { recursive: true });
      const before = await upgradeState(home);
      assert.equal(before.height, h - 1n);
      const db = CommitMultiStore.open(join(home, 'data', 'application.db'));
      const size = db.sizeBytes();
      await db.close();
      // room for an empty block, not for the upgrade's 100k-key migration
      const appToml = join(home, 'config', 'app.toml');
      const text = readFileSync(appToml, 'utf8');
      const setLimit = (bytes: number): void => {
        assert.match(text, /^state-db-max-bytes = \d+$/m);
        writeFileSync(appToml, text.replace(/^state-db-max-bytes = \d+$/m, `state-db-max-bytes = ${bytes}`));
      };
      setLimit(size + 256 * 1024);
      const full = startNode(bin, NEXT, home, ['--halt-height', String(h + 2n)]);
      const end = await within(full.proc.exited, 120_000, () => full.log().slice(-3000));
      assert.equal(end.code, 1, full.log().slice(-3000));
      const lines = full
        .log()
        .split('\n')
        .filter((l) => l.includes('state database full'));
      assert.ok(lines.length >= 1, full.log().slice(-3000));
      for (const l of lines)
        assert.match(
          l,
          new RegExp(
            `committing height ${h} would grow it to about \\d+ bytes, over its limit of ${size + 256 * 1024} bytes \\(app\\.toml state-db-max-bytes\\)`,
          ),
        );
      process.stderr.write(`the node's stop at the size limit (${lines.length} line(s) in its log): ${lines[lines.length - 1]}\n`);
      // nothing of H: the state at H - 1, its app hash unchanged
      assert.deepEqual(await upgradeState(home), before);

      setLimit(size + 256 * 1024 * 1024);
      const again = startNode(bin, NEXT, home, ['--halt-height', String(h + 2n)]);
      const end2 = await within(again.proc.exited, 120_000, () => again.log().slice(-3000));
      assert.equal(end2.code, 0, again.log().slice(-3000));
      const after = await upgradeState(home);
      assert.equal(after.height, h + 2n);
      assert.equal(after.runs, 1n);
      assert.deepEqual(
        after.done.filter((d) => d.startsWith(`${NEXT}@`)),
        [`${NEXT}@${h}`],
      );
    },
  );
});

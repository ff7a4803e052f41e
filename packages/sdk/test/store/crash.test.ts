// Crash safety of commit: a child process (the kit's crash-child.ts) commits pseudo-random blocks and is SIGKILLed at
// random moments, again and again, each restart continuing from where it stopped. After every kill the store is
// reopened here and must be exactly the state an uninterrupted reference run has at the same height: same app
// hash and the same entries in every store, so a block is committed entirely or not at all.
import assert from 'node:assert/strict';
import { spawn, type ChildProcess } from 'node:child_process';
import { createHash } from 'node:crypto';
import { mkdtempSync, rmSync } from 'node:fs';
import { tmpdir } from 'node:os';
import { join } from 'node:path';
import { after, test } from 'node:test';
import { setImmediate as nextTurn, setTimeout as sleep } from 'node:timers/promises';
import { fileURLToPath } from 'node:url';
import { killGroup } from '@chaind/upgrade-plan/testing';
import { buildBlock, CRASH_STORES } from '../kit/crash-child.ts';
import { CommitMultiStore, toHex, type ReadMultiStore } from '../../src/store/index.ts';

const CHILD = fileURLToPath(new URL('../kit/crash-child.ts', import.meta.url));
const KILLS = 30;
/** The crashy run must get at least this far, or the test proves nothing. */
const MIN_HEIGHT = 50n;

const dirs: string[] = [];
const children = new Set<ChildProcess>();
const opened = new Set<CommitMultiStore>();
after(async () => {
  for (const c of children) killGroup(c.pid);
  for (const ms of opened) await ms.close();
  dirs.forEach((d) => rmSync(d, { recursive: true, force: true }));
});
function tmp(): string {
  const d = mkdtempSync(join(tmpdir(), 'chaind-crash-'));
  dirs.push(d);
  return d;
}

function openStore(dir: string): CommitMultiStore {
  const ms = CommitMultiStore.open(dir);
  ms.mount([...CRASH_STORES]);
  ms.loadLatest();
  opened.add(ms);
  return ms;
}
async function closeStore(ms: CommitMultiStore): Promise<void> {
  opened.delete(ms);
  await ms.close();
}

/** sha256 over every committed store's name and entries, in iteration order. */
function stateDigest(view: ReadMultiStore): string {
  const h = createHash('sha256');
  const len = Buffer.alloc(4);
  const part = (tag: string, b: Uint8Array): void => {
    len.writeUInt32BE(b.byteLength);
    h.update(tag).update(len).update(b);
  };
  for (const name of view.storeNames()) {
    part('s', Buffer.from(name));
    for (const e of view.getStore(name).iterator()) {
      part('k', e.key);
      part('v', e.value);
    }
  }
  return h.digest('hex');
}

function committedState(ms: CommitMultiStore): { height: bigint; appHash: string; digest: string } {
  const snap = ms.snapshot();
  try {
    assert.equal(snap.height, ms.lastCommitInfo().height);
    return { height: snap.height, appHash: toHex(snap.appHash), digest: stateDigest(snap) };
  } finally {
    snap.release();
  }
}

/** The uninterrupted run, advanced lazily: only as far as a crashy height that has to be checked. */
class Reference {
  readonly ms: CommitMultiStore;
  height = 0n;
  private readonly appHashes = new Map<bigint, string>([[0n, '']]);
  private digest: { height: bigint; digest: string } | null = null;

  constructor(dir: string) {
    this.ms = openStore(dir);
  }

  step(): void {
    const h = this.height + 1n;
    buildBlock(this.ms, h);
    this.appHashes.set(h, toHex(this.ms.commit(h).appHash));
    this.height = h;
  }

  /** App hash and state digest at `h`; the reference must not be past `h` yet. */
  at(h: bigint): { appHash: string; digest: string } {
    assert.ok(this.height <= h || this.digest?.height === h, `reference already at ${this.height}, past ${h}`);
    while (this.height < h) this.step();
    if (this.digest?.height !== h) this.digest = { height: h, digest: committedState(this.ms).digest };
    return { appHash: this.appHashes.get(h) as string, digest: this.digest.digest };
  }
}

interface Run {
  child: ChildProcess;
  lines: string[];
  stderr: () => string;
  /** Highest height the child reported as loaded or committed. */
  confirmed: () => bigint;
  ready: Promise<void>;
  closed: Promise<{ code: number | null; signal: NodeJS.Signals | null }>;
  isClosed: () => boolean;
}

function startChild(dir: string, maxHeight?: bigint): Run {
  const args = ['--import', 'tsx', CHILD, dir];
  if (maxHeight !== undefined) args.push(String(maxHeight));
  const child = spawn(process.execPath, args, { stdio: ['ignore', 'pipe', 'pipe'], detached: true });
  children.add(child);
  const lines: string[] = [];
  let partial = '';
  let err = '';
  let confirmed = -1n;
  let closed = false;
  let onReady = (): void => {};
  const ready = new Promise<void>((res) => (onReady = res));
  child.stdout?.setEncoding('utf8').on('data', (chunk: string) => {
    const parts = (partial + chunk).split('\n');
    partial = parts.pop() ?? '';
    for (const line of parts) {
      lines.push(line);
      const [word, h] = line.split(' ');
      if (word === 'ready' || word === 'done') confirmed = BigInt(h);
      if (word === 'ready') onReady();
    }
  });
  child.stderr?.setEncoding('utf8').on('data', (chunk: string) => (err += chunk));
  const exited = new Promise<{ code: number | null; signal: NodeJS.Signals | null }>((res) =>
    child.on('close', (code, signal) => {
      closed = true;
      children.delete(child);
      onReady(); // a child that died before it was ready must not leave the test waiting
      res({ code, signal });
    }),
  );
  return { child, lines, stderr: () => err, confirmed: () => confirmed, ready, closed: exited, isClosed: () => closed };
}

type Phase = 'start-up' | 'between blocks' | 'building block' | 'in commit';
function phaseOf(lines: string[]): Phase {
  const last = lines.at(-1)?.split(' ')[0];
  if (last === undefined) return 'start-up';
  if (last === 'begin') return 'building block';
  if (last === 'commit') return 'in commit';
  return 'between blocks';
}

test('SIGKILL at random moments never leaves a partial block: state after restart equals the uninterrupted run', { timeout: 85_000 }, async (t) => {
  const started = Date.now();
  const dir = tmp();
  const ref = new Reference(tmp());
  const phases: Record<Phase, number> = { 'start-up': 0, 'between blocks': 0, 'building block': 0, 'in commit': 0 };
  let commitLanded = 0; // kills during commit(h) after which h turned out committed
  let advanced = 0;
  let prevH = 0n;

  const check = async (what: string, run: Run): Promise<bigint> => {
    const ms = openStore(dir);
    const got = committedState(ms);
    await closeStore(ms);
    const H = got.height;
    const phase = phaseOf(run.lines);
    const ctx = `${what}: reopened at height ${H}, child's last line "${run.lines.at(-1) ?? ''}"`;
    assert.ok(H >= prevH, `${ctx}: height went back from ${prevH}`);
    // a commit that returned is durable; nothing past it is, unless the kill hit commit() itself
    const confirmed = run.confirmed() < 0n ? prevH : run.confirmed();
    assert.ok(H >= confirmed, `${ctx}: block ${confirmed} was reported committed but is lost`);
    assert.ok(H <= confirmed + (phase === 'in commit' ? 1n : 0n), `${ctx}: more committed than the child reported`);
    const want = ref.at(H);
    assert.equal(got.appHash, want.appHash, `${ctx}: app hash differs from the reference run`);
    assert.equal(got.digest, want.digest, `${ctx}: store contents differ from the reference run`);
    if (phase === 'in commit' && H === confirmed + 1n) commitLanded++;
    if (H > prevH) advanced++;
    prevH = H;
    return H;
  };

  for (let i = 0; i < KILLS; i++) {
    const run = startChild(dir);
    // every fourth kill at a random moment after spawn (often during start-up), the others a while after `ready`
    let killAt: number;
    if (i % 4 === 3) {
      killAt = Date.now() + Math.random() * 400;
    } else {
      await run.ready;
      killAt = Date.now() + 20 + Math.random() * 600;
    }
    // meanwhile advance the reference, never past what the child has committed (it is checked at that height or later)
    while (Date.now() < killAt && !run.isClosed()) {
      if (ref.height < run.confirmed()) ref.step();
      else await sleep(Math.max(0, Math.min(5, killAt - Date.now())));
      await nextTurn();
    }
    assert.ok(!run.isClosed(), `child exited on its own (${run.child.exitCode}): ${run.stderr()}`);
    killGroup(run.child.pid);
    const { signal } = await run.closed;
    assert.equal(signal, 'SIGKILL', `child did not die of the kill: ${run.stderr()}`);
    phases[phaseOf(run.lines)]++;
    await check(`kill ${i + 1}`, run);
  }

  // a last, uninterrupted run continues from the final state, exits cleanly and still matches
  const end = prevH + 5n;
  const last = startChild(dir, end);
  const { code } = await last.closed;
  assert.equal(code, 0, `final run failed: ${last.stderr()}`);
  assert.equal(last.lines.at(-1), 'exit');
  assert.equal(await check('final run', last), end);
  await closeStore(ref.ms);

  const secs = ((Date.now() - started) / 1000).toFixed(1);
  t.diagnostic(
    `${KILLS} kills in ${secs}s, reached height ${end}; kills by phase: ${JSON.stringify(phases)}; ` +
      `${commitLanded} kills inside commit() found that block committed; height advanced across ${advanced} kills`,
  );
  assert.ok(prevH >= MIN_HEIGHT, `only reached height ${prevH}`);
  assert.ok(advanced >= KILLS / 2, `height advanced across only ${advanced} of ${KILLS} kills`);
  assert.ok(phases['building block'] + phases['in commit'] >= KILLS / 2, `too few kills landed mid-block: ${JSON.stringify(phases)}`);
  assert.ok(phases['in commit'] >= 1, `no kill landed inside commit(): ${JSON.stringify(phases)}`);
});

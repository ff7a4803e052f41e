// Child process for crash.test.ts: opens the multistore at `dir` and commits pseudo-random blocks from the
// last committed height + 1 on, until `maxHeight` (argv) or until the test SIGKILLs it. What a block writes
// depends only on its height (and on the state it reads), so an uninterrupted run is the reference.
// Progress goes to stdout with synchronous writes, one line per step:
//   ready <H>      store opened and loaded at committed height H
//   begin <h>      building block h (tx branches into the block's write set)
//   commit <h>     calling commit(h)
//   done <h>       commit(h) returned
//   exit           reached maxHeight and closed the store
import { Buffer } from 'node:buffer';
import { writeSync } from 'node:fs';
import { resolve } from 'node:path';
import { pathToFileURL } from 'node:url';
import { seededRandom } from '@chaind/upgrade-plan/testing';
import { CommitMultiStore, type KVStore, type MultiStore } from '../../src/store/index.ts';

export const CRASH_STORES = ['acc', 'bank', 'blob', 'idx'] as const;

/** uint32s from the tests' seeded generator (its [0, 1) numbers are uint32 ÷ 2^32: scaled back exactly). */
export function mulberry32(seed: number): () => number {
  const next = seededRandom(seed);
  return () => next() * 4294967296;
}

class Rng {
  private readonly next: () => number;
  constructor(seed: number) {
    this.next = mulberry32(seed);
  }
  /** Uniform integer in [0, n). */
  int(n: number): number {
    return this.next() % n;
  }
  chance(p: number): boolean {
    return this.next() / 0x1_0000_0000 < p;
  }
  bytes(n: number): Buffer {
    const b = Buffer.allocUnsafe(n + 3);
    for (let i = 0; i < n; i += 4) b.writeUInt32LE(this.next(), i);
    return b.subarray(0, n);
  }
}

/** Key spaces are bounded so deletes and overwrites hit existing keys and the state stays a few MB. */
const KEYSPACE: Record<(typeof CRASH_STORES)[number], number> = { acc: 3000, bank: 3000, blob: 48, idx: 4000 };

/** Variable-length key for index i of a store: tag byte, u32be(i), then i % 7 filler bytes. */
function keyOf(tag: number, i: number): Buffer {
  const k = Buffer.alloc(5 + (i % 7), i & 0xff);
  k[0] = tag;
  k.writeUInt32BE(i, 1);
  return k;
}

/** One random operation of a transaction, on store `name` of branch `ms`. */
function op(r: Rng, ms: MultiStore, name: (typeof CRASH_STORES)[number]): void {
  const st: KVStore = ms.getStore(name);
  const key = keyOf(name.charCodeAt(0), r.int(KEYSPACE[name]));
  const roll = r.int(100);
  if (roll < 25) {
    st.delete(key);
  } else if (roll < 40 && name !== 'blob') {
    // read-modify-write: the result depends on the state the earlier blocks and txs left
    const cur = st.get(key);
    const n = cur === undefined || cur.byteLength < 4 ? 0 : Buffer.from(cur.buffer, cur.byteOffset, 4).readUInt32BE(0);
    const v = Buffer.alloc(4 + r.int(24));
    v.writeUInt32BE((n + 1 + r.int(1000)) >>> 0, 0);
    st.set(key, v);
  } else {
    const len = name === 'blob' ? 10_000 + r.int(70_000) : name === 'idx' ? r.int(3) : 8 + r.int(200);
    st.set(key, r.bytes(len));
  }
}

/**
 * Builds block `height` into the block's write set of `ms` (not committed): 3–14 transactions, each a branch
 * that is written (or, one time in four, dropped), some with a nested branch, 200–2000 small operations and
 * up to 24 large values (10–80 KB) in all.
 */
export function buildBlock(ms: CommitMultiStore, height: bigint): void {
  const r = new Rng(Math.imul(Number(height & 0xffffffffn), 0x9e3779b1) ^ 0x5eed);
  const txs = 3 + r.int(12);
  const small = 200 + r.int(1801);
  const large = r.int(25);
  for (let t = 0; t < txs; t++) {
    const tx = ms.branch();
    const n = Math.ceil(small / txs);
    for (let i = 0; i < n; i++) {
      const roll = r.int(100);
      op(r, tx, roll < 35 ? 'acc' : roll < 65 ? 'bank' : 'idx');
    }
    for (let i = t; i < large; i += txs) op(r, tx, 'blob');
    if (r.chance(0.3)) {
      const inner = tx.branch();
      for (let i = 0; i < 20; i++) op(r, inner, r.chance(0.5) ? 'acc' : 'idx');
      if (r.chance(0.7)) inner.write();
    }
    if (r.chance(0.75)) tx.write();
  }
}

function say(line: string): void {
  writeSync(1, line + '\n');
}

async function main(): Promise<void> {
  const [dir, maxArg] = process.argv.slice(2);
  if (dir === undefined) throw new Error('usage: crash-child.ts <dir> [maxHeight]');
  const max = BigInt(maxArg ?? '1000000');
  const ms = CommitMultiStore.open(dir);
  ms.mount([...CRASH_STORES]);
  ms.loadLatest();
  const last = ms.lastCommitInfo().height;
  say(`ready ${last}`);
  for (let h = last + 1n; h <= max; h++) {
    say(`begin ${h}`);
    buildBlock(ms, h);
    say(`commit ${h}`);
    ms.commit(h);
    say(`done ${h}`);
  }
  await ms.close();
  say('exit');
}

if (process.argv[1] !== undefined && import.meta.url === pathToFileURL(resolve(process.argv[1])).href) {
  await main();
}

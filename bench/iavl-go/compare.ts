// Cross-check of packages/sdk/src/store/iavl against cosmos/iavl (main.go, pinned in go.mod): one seeded
// write stream through both, then every saved root and the proofs' protobuf bytes must be equal.
// `node --import tsx bench/iavl-go/compare.ts [seed] [versions]`; needs Go (PATH or /usr/local/go/bin).
import { spawnSync } from 'node:child_process';
import { existsSync, mkdtempSync, rmSync, writeFileSync } from 'node:fs';
import { tmpdir } from 'node:os';
import { dirname, join } from 'node:path';
import { fileURLToPath } from 'node:url';
import { Buffer } from 'node:buffer';
import { CommitmentProof } from 'cosmjs-types/cosmos/ics23/v1/proofs';
import { iavl } from '@chaind/sdk/store';

const seed = Number(process.argv[2] ?? 1);
const versions = Number(process.argv[3] ?? 200);

/** mulberry32, as the tests use. */
function prng(s0: number): () => number {
  let s = s0 >>> 0;
  return () => {
    s = (s + 0x6d2b79f5) >>> 0;
    let t = s;
    t = Math.imul(t ^ (t >>> 15), t | 1);
    t ^= t + Math.imul(t ^ (t >>> 7), t | 61);
    return ((t ^ (t >>> 14)) >>> 0) / 4294967296;
  };
}

const rand = prng(seed);
const bytesOf = (min: number, max: number, alphabet: number): Uint8Array =>
  Uint8Array.from({ length: min + Math.floor(rand() * (max - min + 1)) }, () => Math.floor(rand() * alphabet));
const hex = (b: Uint8Array): string => Buffer.from(b).toString('hex');

// the stream, and our answers to it line by line
const lines: string[] = [];
const ours: string[] = [];
const tree = new iavl.IavlTree();
for (let v = 1; v <= versions; v++) {
  // version 1 saves the empty tree; every 50th version is a bulk load, for deeper trees
  const ops = v === 1 ? 0 : v % 50 === 0 ? 2000 : Math.floor(rand() * 60);
  for (let i = 0; i < ops; i++) {
    const key = bytesOf(1, 3, 40);
    if (rand() < 0.3) {
      lines.push(`r ${hex(key)}`);
      tree.remove(key);
    } else {
      const value = bytesOf(1, 16, 256);
      lines.push(`s ${hex(key)} ${hex(value)}`);
      tree.set(key, value);
    }
  }
  lines.push('v');
  const saved = tree.saveVersion();
  ours.push(`root ${saved.version} ${hex(saved.root)}`);
  const view = tree.at(saved.version);
  if (view === undefined || view.root === null) continue;
  for (let i = 0; i < 5; i++) {
    const key = bytesOf(1, 3, 40);
    const proof = iavl.existenceProof(view, key) ?? iavl.nonExistenceProof(view, key);
    if (proof === undefined) throw new Error('no proof');
    lines.push(`p ${hex(key)}`);
    ours.push(`proof ${hex(key)} ${hex(CommitmentProof.encode(proof).finish())}`);
  }
}

const here = dirname(fileURLToPath(import.meta.url));
const dir = mkdtempSync(join(tmpdir(), 'iavl-go-'));
try {
  const stream = join(dir, 'stream.txt');
  writeFileSync(stream, lines.join('\n') + '\n');
  const go = existsSync('/usr/local/go/bin/go') ? '/usr/local/go/bin/go' : 'go';
  const run = spawnSync(go, ['run', '.', stream], { cwd: here, encoding: 'utf8', maxBuffer: 1 << 28 });
  if (run.status !== 0) throw new Error(`go run failed: ${run.stderr}`);
  const theirs = run.stdout.trimEnd().split('\n');
  let roots = 0;
  let proofs = 0;
  for (let i = 0; i < Math.max(ours.length, theirs.length); i++) {
    if (ours[i] !== theirs[i]) {
      console.error(`differs at output line ${i + 1}:\n  ours   ${ours[i]}\n  iavl   ${theirs[i]}`);
      process.exit(1);
    }
    if (ours[i]?.startsWith('root ') === true) roots++;
    else proofs++;
  }
  console.log(`seed ${seed}: ${roots} roots and ${proofs} proofs equal to cosmos/iavl's (${lines.length} ops)`);
} finally {
  rmSync(dir, { recursive: true, force: true });
}

// How much this machine slows one thread's work while another thread is busy: a memory-bound loop
// (random reads over 16 MB, as V8's heap and GC are) and a compute loop, alone and beside a worker
// spinning on secp256k1 verifies (what the node's signature worker does during a burst).
// ante-verify compares admission (JS on the main thread beside a busy worker) with raw verifies on an
// otherwise idle machine, so a host where the first figure doubles gives lower, noisier ratios.
// Run: node --import tsx bench/support/host-contention.ts
import { Worker } from 'node:worker_threads';
import { secp256k1ModulePath } from '@chaind/sdk/crypto';
import { median, row } from '../lib.ts';

const big = new Uint32Array(4_000_000);
const small = new Uint32Array(65_536);

/** Random-stride reads and writes over `a`, `passes` times. */
function touch(a: Uint32Array, passes: number): number {
  let acc = 0;
  for (let r = 0; r < passes; r++) {
    for (let i = 0; i < a.length; i += 16) {
      const j = (i * 7919) % a.length;
      a[j] += i;
      acc += a[i];
    }
  }
  return acc;
}

function compute(): number {
  let a = 0;
  for (let i = 0; i < 30_000_000; i++) a = (a * 31 + i) | 0;
  return a;
}

const pieces: Record<string, () => number> = {
  'random reads over 16 MB (memory-bound)': () => touch(big, 4),
  'random reads over 256 KB (fits L2)': () => touch(small, 200),
  'the same over 16 MB freshly allocated (page faults)': () => touch(new Uint32Array(4_000_000), 4),
  'integer loop (compute-bound)': compute,
};

function timeAll(): Record<string, number> {
  const out: Record<string, number> = {};
  for (const [name, f] of Object.entries(pieces)) {
    const ts: number[] = [];
    for (let i = 0; i < 7; i++) {
      const t = performance.now();
      f();
      ts.push(performance.now() - t);
    }
    out[name] = median(ts);
  }
  return out;
}

const SPIN = `
const secp = require(${JSON.stringify(secp256k1ModulePath)});
const { createHash, randomBytes } = require('node:crypto');
const key = randomBytes(32);
const pub = secp.publicKeyCreate(key);
const msg = createHash('sha256').update('spin').digest();
const sig = secp.ecdsaSign(msg, key).signature;
for (;;) secp.ecdsaVerify(sig, msg, pub);
`;

for (const f of Object.values(pieces)) f(); // compiled before timing
const alone = timeAll();
const worker = new Worker(SPIN, { eval: true });
await new Promise((r) => setTimeout(r, 200));
const beside = timeAll();
await worker.terminate();

console.log('== host contention: one thread alone, then beside a worker verifying secp256k1 signatures (medians of 7)');
for (const name of Object.keys(pieces)) {
  row(name, `${alone[name].toFixed(1)} ms`, `${beside[name].toFixed(1)} ms`, `${(beside[name] / alone[name]).toFixed(2)}x the time alone`);
}

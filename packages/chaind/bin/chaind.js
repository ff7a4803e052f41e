#!/usr/bin/env -S node --max-semi-space-size=128 --min-semi-space-size=128
// Runs the TypeScript sources through tsx, so a fresh `npm ci` needs no build step.
// The shebang's Node flags are chaind's (a release's launcher copies this line): 128 MB semi-spaces,
// V8's default being 16 MB. Admitting a burst of broadcast txs allocates about 30 KB per tx, and a
// burst of 4,000 keeps about 6 MB alive through each scavenge (pending arrivals, the txs being
// pre-verified, the admitted ones): each scavenge copies it, on the main thread and on helper threads
// beside the signature worker. 128 MB halves the scavenges of 64 MB (bench/ante-verify.ts, 10
// interleaved pairs: admission faster in 8, median ratio 0.74x -> 0.80x on a slow day); 64 MB was
// itself about 10% faster than the default. The minimum keeps the size once grown, so V8 does not
// hand its pages back and fault them in again (slow on our 2-core test host while the signature
// worker is busy: bench/support/host-contention.ts). The young generation takes 256 MB (two
// semi-spaces; at most 32 MB by default) and keeps it.
import { register } from 'tsx/esm/api';

register();
await import('../src/cli/main.ts');

#!/usr/bin/env -S node --max-semi-space-size=64 --min-semi-space-size=64
// Runs the TypeScript sources through tsx, so a fresh `npm ci` needs no build step.
// The shebang's Node flags are chaind's (a release's launcher copies this line): a 64 MB young
// generation, V8's default being 16 MB. Admitting a burst of broadcast txs allocates many short-lived
// objects per tx; with the default young generation, most of the txs in flight outlive a scavenge and
// are copied into the old one (bench/ante-verify.ts: admission about 10% faster). The minimum keeps it
// at 64 MB once grown, so V8 does not hand its pages back and fault them in again (slow on our 2-core
// test host while the signature worker is busy: bench/support/host-contention.ts; paired ante-verify
// runs showed a small gain or none). It takes up to 128 MB of memory more, and keeps it.
import { register } from 'tsx/esm/api';

register();
await import('../src/cli/main.ts');

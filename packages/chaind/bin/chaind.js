#!/usr/bin/env -S node --max-semi-space-size=64 --min-semi-space-size=64
// Runs the TypeScript sources through tsx, so a fresh `npm ci` needs no build step.
// The shebang's Node flags are chaind's (a release's launcher copies this line): a 64 MB young
// generation, kept once grown, so the short-lived objects of a burst of broadcast txs die young instead
// of being copied to the old generation; it costs up to 128 MB more (bench/README.md).
import { register } from 'tsx/esm/api';

register();
await import('../src/cli/main.ts');

#!/usr/bin/env -S node --max-semi-space-size=64 --min-semi-space-size=64
// Runs the bundle `npm ci` built while it is current, else the TypeScript sources through tsx
// (scripts/launch.mjs), so a fresh `npm ci` needs no build step and answers in a fraction of a second.
// The shebang's Node flags are chaind's (a release's launcher copies this line): a 64 MB young
// generation, kept once grown, so the short-lived objects of a burst of broadcast txs die young instead
// of being copied to the old generation; it costs up to 128 MB more (bench/README.md).
import { currentBundle } from '../../../scripts/launch.mjs';

const bundle = currentBundle(new URL('../dist/', import.meta.url), 'chaind.mjs');
if (bundle !== undefined) await import(bundle);
else {
  const { register } = await import('tsx/esm/api');
  register();
  await import('../src/cli/main.ts');
}

#!/usr/bin/env node
// Runs the bundle `npm ci` built while it is current, else the TypeScript sources through tsx
// (scripts/launch.mjs), so a fresh `npm ci` needs no build step.
import { currentBundle } from '../../../scripts/launch.mjs';

const bundle = currentBundle(new URL('../dist/', import.meta.url), 'chainvisor.mjs');
let main;
if (bundle !== undefined) ({ main } = await import(bundle));
else {
  const { register } = await import('tsx/esm/api');
  register();
  ({ main } = await import('../src/main.ts'));
}
// exit explicitly: a gRPC channel or timer left by a failure must not keep the process alive
process.exit(await main(process.argv.slice(2)));

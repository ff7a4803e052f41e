#!/usr/bin/env node
// Runs the TypeScript sources through tsx, so a fresh `npm ci` needs no build step.
import { register } from 'tsx/esm/api';

register();
const { main } = await import('../src/main.ts');
// exit explicitly: a gRPC channel or timer left by a failure must not keep the process alive
process.exit(await main(process.argv.slice(2)));

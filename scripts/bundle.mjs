// esbuild's options for chaind's and chainvisor's bundles, shared by the releases (scripts/release.mjs)
// and the development bundles `npm ci` builds (scripts/dev-bundle.mjs), so both load the same way.
import { cpSync } from 'node:fs';
import { dirname, join, resolve } from 'node:path';
import { fileURLToPath } from 'node:url';
import { build } from 'esbuild';

export const ROOT = resolve(dirname(fileURLToPath(import.meta.url)), '..');
/** Loaded from node_modules at run time rather than bundled. */
export const EXTERNAL = ['lmdb', 'secp256k1', '@fastify/swagger-ui', '@grpc/grpc-js', '@grpc/reflection'];

// CommonJS dependencies in an ESM bundle call require() and use __dirname; give them both.
const BANNER = [
  "import { createRequire as __chaindCreateRequire } from 'node:module';",
  "import { fileURLToPath as __chaindFileURLToPath } from 'node:url';",
  "import { dirname as __chaindDirname } from 'node:path';",
  'const require = __chaindCreateRequire(import.meta.url);',
  'const __filename = __chaindFileURLToPath(import.meta.url);',
  'const __dirname = __chaindDirname(__filename);',
].join('\n');

/** Common options: ESM for Node 20, each lazily imported module a chunk of its own beside the entries. */
function options(entryPoints, outdir, extra) {
  return {
    entryPoints,
    outdir,
    outExtension: { '.js': '.mjs' },
    bundle: true,
    // what a command imports lazily (its module, REST and gRPC) is a chunk of its own, loaded only by that command
    splitting: true,
    // beside the entry: modules find their data files (descriptors, the dashboard) beside themselves
    chunkNames: '[name]-[hash]',
    platform: 'node',
    format: 'esm',
    target: 'node20',
    external: EXTERNAL,
    banner: { js: BANNER },
    legalComments: 'none',
    logLevel: 'warning',
    metafile: true,
    ...extra,
  };
}

/**
 * Bundles chaind's CLI into `outdir` (bin/chaind.mjs's chunks, the signature worker's entry, and the data
 * files modules read beside themselves). `extra`: esbuild options a release adds (define, plugins).
 * Resolves to esbuild's metafile.
 */
export async function bundleChaind(outdir, extra = {}) {
  const r = await build(
    options(
      {
        chaind: join(ROOT, 'packages/chaind/src/cli/main.ts'),
        // a worker thread runs an entry file, found beside the node's bundle (sdk admission/verify-pool.ts)
        'verify-worker': join(ROOT, 'packages/sdk/src/admission/verify-worker.ts'),
      },
      outdir,
      extra,
    ),
  );
  // descriptors.ts reads this one beside itself (import.meta.url): beside the bundle
  cpSync(join(ROOT, 'packages/chaind/src/node/query/cosmos-descriptors.binpb'), join(outdir, 'cosmos-descriptors.binpb'));
  // …and dashboard.ts serves this page beside itself too
  cpSync(join(ROOT, 'packages/chaind/src/node/rest/dashboard.html'), join(outdir, 'dashboard.html'));
  return r.metafile;
}

/** Bundles chainvisor's CLI into `outdir` (chainvisor.mjs and its chunks). Resolves to esbuild's metafile. */
export async function bundleChainvisor(outdir) {
  const r = await build(options({ chainvisor: join(ROOT, 'packages/chainvisor/src/main.ts') }, outdir, {}));
  return r.metafile;
}

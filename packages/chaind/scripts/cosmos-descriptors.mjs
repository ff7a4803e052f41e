// Builds the FileDescriptorSet (with imports) of the hand-written Cosmos SDK protos that chaind's REST
// gateway and gRPC reflection use: src/node/query/proto → src/node/query/cosmos-descriptors.binpb.
// No npm package ships the Cosmos SDK v0.50 .proto files (see src/node/query/proto/README.md).
//
//   node packages/chaind/scripts/cosmos-descriptors.mjs             # writes the committed file
//   node packages/chaind/scripts/cosmos-descriptors.mjs --out FILE  # writes FILE (the staleness test)
//
// Deterministic: the same protos and buf version give the same bytes.
import { spawnSync } from 'node:child_process';
import { dirname, join, resolve } from 'node:path';
import { fileURLToPath } from 'node:url';

const pkg = resolve(dirname(fileURLToPath(import.meta.url)), '..');
const PROTO_DIR = join(pkg, 'src', 'node', 'query', 'proto');
const DEFAULT_OUT = join(pkg, 'src', 'node', 'query', 'cosmos-descriptors.binpb');

function parseArgs(argv) {
  let out = DEFAULT_OUT;
  for (let i = 0; i < argv.length; i++) {
    const a = argv[i];
    if (a === '--out' || a === '-o') {
      if (!argv[i + 1]) throw new Error(`${a} needs a file`);
      out = resolve(argv[++i]);
    } else if (a.startsWith('--out=')) {
      out = resolve(a.slice('--out='.length));
    } else {
      throw new Error(`unknown argument: ${a} (usage: node scripts/cosmos-descriptors.mjs [--out FILE])`);
    }
  }
  return { out };
}

const { out } = parseArgs(process.argv.slice(2));
// `npx --no`: use the repository's pinned @bufbuild/buf, never download one
const r = spawnSync('npx', ['--no', '--', 'buf', 'build', PROTO_DIR, '--as-file-descriptor-set', '-o', out], {
  cwd: pkg,
  stdio: ['ignore', 'inherit', 'inherit'],
});
if (r.error) throw r.error;
if (r.status !== 0) {
  console.error(`buf build failed with status ${r.status}`);
  process.exit(1);
}
console.log(`wrote ${out}`);

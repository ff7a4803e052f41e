// Regenerates the protobuf TypeScript (ts-proto via buf.gen.yaml) and the
// FileDescriptorSet (with imports, for gRPC reflection) from proto/.
//
//   node scripts/proto.mjs               # writes packages/sdk/src/gen
//   node scripts/proto.mjs --out DIR     # writes DIR instead (used by the staleness test)
//
// Everything is generated into a scratch directory first and then copied, so the
// output directory only ever holds a complete generation. Generated files (*.ts,
// *.binpb) in the output directory that are no longer produced are removed; other
// files (README.md) are left alone. Output is deterministic: two runs give
// identical bytes.
import { spawnSync } from 'node:child_process';
import { existsSync, mkdirSync, mkdtempSync, readdirSync, readFileSync, rmSync, rmdirSync, statSync, writeFileSync } from 'node:fs';
import { tmpdir } from 'node:os';
import { dirname, join, relative, resolve } from 'node:path';
import { fileURLToPath } from 'node:url';

const root = resolve(dirname(fileURLToPath(import.meta.url)), '..');
// Must match `out` in buf.gen.yaml.
const GEN_REL = join('packages', 'sdk', 'src', 'gen');
const DESCRIPTOR_SET = 'descriptor-set.binpb';
const GENERATED = /\.(ts|binpb)$/;

function parseArgs(argv) {
  let out = join(root, GEN_REL);
  for (let i = 0; i < argv.length; i++) {
    const a = argv[i];
    if (a === '--out' || a === '-o') {
      if (!argv[i + 1]) throw new Error(`${a} needs a directory`);
      out = resolve(argv[++i]);
    } else if (a.startsWith('--out=')) {
      out = resolve(a.slice('--out='.length));
    } else {
      throw new Error(`unknown argument: ${a} (usage: node scripts/proto.mjs [--out DIR])`);
    }
  }
  return { out };
}

function buf(args) {
  const r = spawnSync('npx', ['--no', '--', 'buf', ...args], { cwd: root, stdio: ['ignore', 'inherit', 'inherit'] });
  if (r.error) throw r.error;
  if (r.status !== 0) throw new Error(`buf ${args.join(' ')} failed with status ${r.status}`);
}

function listFiles(dir, base = dir) {
  if (!existsSync(dir)) return [];
  const files = [];
  for (const name of readdirSync(dir).sort()) {
    const p = join(dir, name);
    if (statSync(p).isDirectory()) files.push(...listFiles(p, base));
    else files.push(relative(base, p));
  }
  return files;
}

function removeEmptyDirs(dir, keep) {
  for (const name of readdirSync(dir)) {
    const p = join(dir, name);
    if (statSync(p).isDirectory()) removeEmptyDirs(p, keep);
  }
  if (dir !== keep && readdirSync(dir).length === 0) rmdirSync(dir);
}

function main() {
  const { out } = parseArgs(process.argv.slice(2));
  const scratch = mkdtempSync(join(tmpdir(), 'chaind-proto-'));
  try {
    buf(['generate', '--output', scratch]);
    const staged = join(scratch, GEN_REL);
    if (!existsSync(staged)) throw new Error(`buf generate wrote nothing to ${GEN_REL}; does buf.gen.yaml still use that out?`);
    buf(['build', '--as-file-descriptor-set', '-o', join(staged, DESCRIPTOR_SET)]);

    const fresh = listFiles(staged);
    const freshSet = new Set(fresh);
    mkdirSync(out, { recursive: true });
    for (const f of listFiles(out)) {
      if (GENERATED.test(f) && !freshSet.has(f)) rmSync(join(out, f));
    }
    let written = 0;
    for (const f of fresh) {
      const data = readFileSync(join(staged, f));
      const dest = join(out, f);
      if (existsSync(dest) && readFileSync(dest).equals(data)) continue;
      mkdirSync(dirname(dest), { recursive: true });
      writeFileSync(dest, data);
      written++;
    }
    removeEmptyDirs(out, out);
    console.log(`proto: ${fresh.length} files in ${relative(process.cwd(), out) || '.'} (${written} changed)`);
  } finally {
    rmSync(scratch, { recursive: true, force: true });
  }
}

main();

// Packages chaind releases: dist/releases/chaind-<release>-<os>-<arch>.tar.gz and SHA256SUMS.
//
//   node scripts/release.mjs [--release <name>]… [--out <dir>]     (default: every release)
//
// A release is the upgrades up to its name (RELEASES in packages/chaind/src/release.ts, the one list):
// the bundle is built with `process.env.CHAIND_RELEASE` defined as that name, and the upgrade folders of
// later releases are left out (laterUpgrades below), so the v1 bundle contains no code of v2.
// Archive layout (cosmovisor's expectation: bin/<daemon> at the archive root):
//   bin/chaind                       executable launcher (#!/usr/bin/env node): checks Node ≥ 20.19
//   bin/chaind.mjs                   the esbuild bundle (ESM, platform node, target node20), with
//   bin/chunk-*.mjs, bin/servers-*.mjs  its chunks: code shared with the worker, and what loads lazily
//   bin/verify-worker.mjs            the signature worker's own bundle (a worker thread runs an entry
//                                    file, found beside the node's bundle: sdk admission/verify-pool.ts)
//   bin/cosmos-descriptors.binpb     gRPC descriptors, found beside the bundle (import.meta.url)
//   bin/dashboard.html               the upgrade dashboard page (GET /upgrade), found beside the bundle too
//   node_modules/…                   what cannot be bundled, with its dependency closure: lmdb and
//                                    secp256k1 (native addons and their prebuilt binaries),
//                                    @fastify/swagger-ui (serves its static files from its folder),
//                                    @grpc/grpc-js and @grpc/reflection (load .proto files from theirs),
//                                    and an @chaind/sdk stub holding only the sdk's descriptor set
//   package.json                     {"type":"commonjs"}: fixes the module type of the launcher
// The archive is built for this machine's platform (the native binaries are this platform's).
// Entries are sorted, owners dropped and mtimes fixed, so the same tree gives the same archive.
import { execFileSync } from 'node:child_process';
import { createHash } from 'node:crypto';
import {
  chmodSync,
  cpSync,
  existsSync,
  lstatSync,
  mkdirSync,
  mkdtempSync,
  readdirSync,
  readFileSync,
  realpathSync,
  rmSync,
  statSync,
  writeFileSync,
} from 'node:fs';
import { tmpdir } from 'node:os';
import { dirname, join, relative, resolve, sep } from 'node:path';
import { fileURLToPath } from 'node:url';
import { parseArgs } from 'node:util';
import { create as createTar } from 'tar';
import { register } from 'tsx/esm/api';
import { bundleChaind, EXTERNAL, ROOT } from './bundle.mjs';

// @chaind/upgrade-plan is TypeScript: loaded through tsx, as the bin/ launchers load the sources
register();
const { goPlatform } = await import('@chaind/upgrade-plan');
// the one list of releases, oldest first
const { RELEASES } = await import('@chaind/chaind/release');

const MIN_NODE = '20.19';
/** 2000-01-01T00:00:00Z: every entry's mtime. */
const FIXED_MTIME = new Date(Date.UTC(2000, 0, 1));

function usage(msg) {
  console.error(`release: ${msg}\nusage: node scripts/release.mjs [--release ${RELEASES.join('|')}]… [--out <dir>]`);
  process.exit(2);
}

/** The package folder Node would load `name` from, looking up from `fromDir`. */
function findPackage(name, fromDir) {
  for (let d = fromDir; ; d = dirname(d)) {
    const c = join(d, 'node_modules', name);
    if (existsSync(join(c, 'package.json'))) return realpathSync(c);
    if (dirname(d) === d) return undefined;
  }
}

/** Folders and files a package needs only for development: left out to keep archives small and quick to unpack. */
const DEV_DIRS = new Set(['node_modules', 'test', 'tests', '__tests__', 'example', 'examples', 'benchmark', 'benchmarks', '.github', 'coverage']);
const DEV_FILES = /(\.d\.[cm]?ts|\.map|\.md|\.markdown|\.tsbuildinfo)$/i;
/**
 * Sources nothing loads at run time: TypeScript (Node loads none from node_modules; grpc-js ships its src/*.ts beside
 * the build), and the C/C++ sources and build files of native addons (their prebuilt binaries are what loads).
 */
const SOURCE_FILES = /\.([cm]?ts|tsx|c|cc|cpp|cxx|h|hh|hpp|gyp|gypi)$/i;
/**
 * Folders of a package that nothing loads at run time, relative to it: yaml's browser build (Node resolves its
 * `node` export, dist/), and the rest of the native addons' sources (the C library trees and their build scripts).
 */
const UNUSED_DIRS = { yaml: ['browser'], lmdb: ['dependencies'], secp256k1: ['src'] };
/** License and notice files: shipped wherever they are, in a folder left out too (LMDB's is in lmdb/dependencies). */
const LEGAL = /^(LICEN[CS]E|COPYING|COPYRIGHT|NOTICE)/i;
/** Prebuilt native binaries of other platforms (node-gyp-build's prebuilds/<platform>-<arch>). */
const OTHER_PREBUILDS = new RegExp(`(^|[/\\\\])prebuilds[/\\\\](?!${process.platform}-${process.arch}([/\\\\]|$))[^/\\\\]+`);

/** Whether a path inside the package `name` (relative to its folder; `dir`: it is a folder) goes into the release. */
function shipped(name, rel, dir) {
  if (rel === '') return true;
  const segs = rel.split(sep);
  // nested node_modules are copied through the closure; .bin holds symlinks to tools we do not ship
  if (segs.some((s) => DEV_DIRS.has(s))) return false;
  if (OTHER_PREBUILDS.test(rel)) return false;
  // a folder is walked (the files in it decide), so that a license deep in a folder left out is found
  if (dir) return true;
  const file = segs[segs.length - 1];
  if (LEGAL.test(file)) return true;
  if ((UNUSED_DIRS[name] ?? []).some((d) => rel.startsWith(d + sep))) return false;
  return !DEV_FILES.test(file) && !SOURCE_FILES.test(file);
}

/**
 * Copies `name` (resolved from `fromDir`) and its dependencies, recursively, into stage/node_modules at
 * the same place relative to the workspace's node_modules, so Node resolves them the same way.
 * Optional dependencies that are not installed (other platforms' binaries) are skipped.
 */
function copyClosure(name, fromDir, stage, copied, optional = false) {
  const dir = findPackage(name, fromDir);
  if (dir === undefined) {
    if (optional) return;
    throw new Error(`release: dependency "${name}" (needed from ${relative(ROOT, fromDir) || '.'}) is not installed; run npm ci`);
  }
  if (copied.has(dir)) return;
  copied.add(dir);
  const rel = relative(join(ROOT, 'node_modules'), dir);
  if (rel.startsWith('..')) throw new Error(`release: ${name} resolves outside node_modules (${dir}); a workspace package cannot be shipped this way`);
  cpSync(dir, join(stage, 'node_modules', rel), {
    recursive: true,
    // nested node_modules are copied through the closure; .bin holds symlinks to tools we do not ship
    filter: (src) => shipped(name, relative(dir, src), lstatSync(src).isDirectory()),
  });
  const pkg = JSON.parse(readFileSync(join(dir, 'package.json'), 'utf8'));
  for (const dep of Object.keys(pkg.dependencies ?? {}).sort()) copyClosure(dep, dir, stage, copied);
  for (const dep of Object.keys(pkg.optionalDependencies ?? {}).sort()) copyClosure(dep, dir, stage, copied, true);
}

// the development launcher's shebang, Node flags included: a release runs as the sources do
const SHEBANG = readFileSync(join(ROOT, 'packages/chaind/bin/chaind.js'), 'utf8').split('\n')[0];
const LAUNCHER = `${SHEBANG}
// chaind launcher: refuses a Node.js older than ${MIN_NODE} with a clear message, then runs the bundle beside it.
'use strict';
const [major, minor] = process.versions.node.split('.').map(Number);
if (major < ${MIN_NODE.split('.')[0]} || (major === ${MIN_NODE.split('.')[0]} && minor < ${MIN_NODE.split('.')[1]})) {
  process.stderr.write('chaind needs Node.js >= ${MIN_NODE}; this is Node.js ' + process.versions.node + '\\n');
  process.exit(1);
}
import(require('node:url').pathToFileURL(require('node:path').join(__dirname, 'chaind.mjs')).href).catch((e) => {
  process.stderr.write('chaind: cannot start: ' + (e && e.stack ? e.stack : String(e)) + '\\n');
  process.exit(1);
});
`;

/** HEAD of the checkout, or "" outside one. */
function gitCommit() {
  try {
    return execFileSync('git', ['rev-parse', 'HEAD'], { cwd: ROOT, encoding: 'utf8', stdio: ['ignore', 'pipe', 'ignore'] }).trim();
  } catch {
    return '';
  }
}

/** Every file under `dir`, relative, sorted (so the archive's order never depends on the filesystem). */
function listFiles(dir, prefix = '') {
  const out = [];
  for (const name of readdirSync(join(dir, prefix)).sort()) {
    const rel = prefix === '' ? name : `${prefix}/${name}`;
    if (statSync(join(dir, rel)).isDirectory()) out.push(...listFiles(dir, rel));
    else out.push(rel);
  }
  return out;
}

const UPGRADES_INDEX = join(ROOT, 'packages/chaind/src/upgrades/index.ts');

/**
 * Replaces the import of each later release's upgrade folder (`./<name>/index.ts` in
 * src/upgrades/index.ts) with a module whose `<name>` is undefined: that release's code stays out.
 */
function laterUpgrades(release) {
  const later = new Set(RELEASES.slice(RELEASES.indexOf(release) + 1));
  return {
    name: 'chaind-later-upgrades',
    setup(b) {
      b.onResolve({ filter: /^\.\/[^/]+\/index\.ts$/ }, (a) => {
        const name = a.path.split('/')[1];
        if (a.importer !== UPGRADES_INDEX || !later.has(name)) return undefined;
        return { path: name, namespace: 'chaind-later-upgrade' };
      });
      b.onLoad({ filter: /.*/, namespace: 'chaind-later-upgrade' }, (a) => ({ contents: `export const ${a.path} = undefined;\n`, loader: 'js' }));
    },
  };
}

async function stageRelease(release, stage) {
  const bin = join(stage, 'bin');
  mkdirSync(bin, { recursive: true });
  await bundleChaind(bin, {
    // the release, and the commit `chaind version --long` reports
    define: { 'process.env.CHAIND_RELEASE': JSON.stringify(release), __CHAIND_COMMIT__: JSON.stringify(gitCommit()) },
    // folds what the release literal decides
    minifySyntax: true,
    plugins: [laterUpgrades(release)],
  });
  writeFileSync(join(bin, 'chaind'), LAUNCHER);
  chmodSync(join(bin, 'chaind'), 0o755);
  // the sdk finds its descriptor set through import.meta.resolve('@chaind/sdk/gen/…'): a stub package with the same exports map
  const sdk = join(stage, 'node_modules/@chaind/sdk');
  const gen = 'src/gen/chain/upgrade/v1beta1';
  mkdirSync(join(sdk, gen), { recursive: true });
  writeFileSync(
    join(sdk, 'package.json'),
    `${JSON.stringify({ name: '@chaind/sdk', private: true, type: 'module', exports: { './gen/*': './src/gen/*.ts' } }, null, 2)}\n`,
  );
  writeFileSync(join(sdk, gen, 'query.ts'), '// placeholder: resolved (never loaded) to locate the descriptor set\nexport {};\n');
  cpSync(join(ROOT, 'packages/sdk/src/gen/descriptor-set.binpb'), join(sdk, 'src/gen/descriptor-set.binpb'));
  const copied = new Set();
  for (const name of EXTERNAL) copyClosure(name, join(ROOT, 'packages/chaind'), stage, copied);
  writeFileSync(join(stage, 'package.json'), `${JSON.stringify({ name: `chaind-${release}`, private: true, type: 'commonjs' }, null, 2)}\n`);
}

async function main() {
  let args;
  try {
    args = parseArgs({ options: { release: { type: 'string', multiple: true }, out: { type: 'string' } }, strict: true, allowPositionals: false }).values;
  } catch (e) {
    usage(e.message);
  }
  const releases = args.release ?? RELEASES;
  for (const r of releases) if (!RELEASES.includes(r)) usage(`unknown release "${r}": expected one of ${RELEASES.join(', ')}`);
  const out = resolve(args.out ?? join(ROOT, 'dist/releases'));
  mkdirSync(out, { recursive: true });
  const { os, arch } = goPlatform();
  for (const release of releases) {
    const started = Date.now();
    const stage = mkdtempSync(join(tmpdir(), `chaind-release-${release}-`));
    try {
      await stageRelease(release, stage);
      const file = join(out, `chaind-${release}-${os}-${arch}.tar.gz`);
      await createTar({ gzip: true, file, cwd: stage, portable: true, mtime: FIXED_MTIME, noDirRecurse: true }, listFiles(stage));
      const size = statSync(file).size;
      console.log(`${file}  ${(size / 1e6).toFixed(1)} MB  ${Date.now() - started} ms`);
    } finally {
      rmSync(stage, { recursive: true, force: true });
    }
  }
  // the manifest covers every archive in the folder (sha256sum -c SHA256SUMS checks them all)
  const sums = readdirSync(out)
    .filter((f) => /^chaind-.*\.tar\.gz$/.test(f))
    .sort()
    .map(
      (f) =>
        `${createHash('sha256')
          .update(readFileSync(join(out, f)))
          .digest('hex')}  ${f}\n`,
    );
  writeFileSync(join(out, 'SHA256SUMS'), sums.join(''));
  console.log(`${join(out, 'SHA256SUMS')}\n${sums.join('').trimEnd()}`);
}

if (process.argv[1] !== undefined && resolve(process.argv[1]) === fileURLToPath(import.meta.url)) await main();

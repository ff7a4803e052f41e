import assert from 'node:assert/strict';
import { existsSync, mkdirSync, readdirSync, readFileSync, readlinkSync, statSync, symlinkSync, writeFileSync } from 'node:fs';
import { join } from 'node:path';
import { afterEach, beforeEach, describe, test } from 'node:test';
import { EXIT } from '../src/exit-codes.ts';
import { tarGzOf, tgz } from '@chaind/upgrade-plan/testing';
import { baseEnv, chainvisor, killAll, makeHome, writeDaemon, type Home } from '@chaind/chainvisor/testing';

/** A daemon that cannot run alone: it loads ../lib/message.js (through the symlink lib/current.js) beside its bin/. */
const NEEDS_LIB = "const m = require(path.join(__dirname, '..', 'lib', 'current.js')); log(m);";

/** Every path under `dir` (folders end with /), sorted. */
function tree(dir: string): string[] {
  if (!existsSync(dir)) return [];
  return readdirSync(dir, { recursive: true, withFileTypes: true })
    .map((e) => join(e.parentPath, e.name).slice(dir.length + 1) + (e.isDirectory() ? '/' : ''))
    .sort();
}

describe('init and add-upgrade with release folders and archives', () => {
  let h: Home;
  beforeEach(() => (h = makeHome()));
  afterEach(() => {
    killAll();
    h.cleanup();
  });
  const cv = (args: string[], extra: Record<string, string> = {}) => chainvisor(args, baseEnv(h, extra)).exit;

  /** A release folder like `npm run release` makes: bin/chaind + what it needs beside it. */
  function releaseFolder(who: string, body: string): string {
    const rel = join(h.root, `release-${who}`);
    writeDaemon(join(rel, 'bin', 'chaind'), who, body);
    mkdirSync(join(rel, 'lib'));
    writeFileSync(join(rel, 'lib', 'message.js'), `module.exports = ${JSON.stringify(`${who} loaded its lib`)};`);
    symlinkSync('message.js', join(rel, 'lib', 'current.js'));
    mkdirSync(join(rel, 'node_modules', 'dep'), { recursive: true });
    writeFileSync(join(rel, 'node_modules', 'dep', 'index.js'), '');
    writeFileSync(join(rel, 'package.json'), '{"type":"commonjs"}');
    return rel;
  }

  test('init with a release folder: the whole folder becomes genesis and `run` starts it; a second init keeps it', async () => {
    const fresh = join(h.root, 'fresh');
    mkdirSync(fresh);
    const rel = releaseFolder('genesis', `${NEEDS_LIB} process.exit(0);`);
    const r = await cv(['init', rel], { DAEMON_HOME: fresh });
    assert.equal(r.code, EXIT.OK, r.stderr);
    const g = join(fresh, 'cosmovisor', 'genesis');
    assert.match(r.stderr, new RegExp(`INF installed the release folder ${rel} as ${g}\n`));
    assert.deepEqual(tree(g), [
      'bin/',
      'bin/chaind',
      'lib/',
      'lib/current.js',
      'lib/message.js',
      'node_modules/',
      'node_modules/dep/',
      'node_modules/dep/index.js',
      'package.json',
    ]);
    assert.equal(readlinkSync(join(g, 'lib', 'current.js')), 'message.js');
    assert.equal(statSync(join(g, 'bin', 'chaind')).mode & 0o777, 0o755);
    assert.equal(readlinkSync(join(fresh, 'cosmovisor', 'current')), 'genesis');
    assert.deepEqual(tree(join(fresh, 'cosmovisor', 'upgrades')), []);

    const run = await cv(['run', 'start'], { DAEMON_HOME: fresh });
    assert.equal(run.code, EXIT.OK, run.stderr);
    assert.deepEqual(readFileSync(join(fresh, 'launches.log'), 'utf8').split('\n').filter(Boolean), ['genesis start', 'genesis loaded its lib']);

    const again = await cv(['init', releaseFolder('other', '')], { DAEMON_HOME: fresh });
    assert.equal(again.code, EXIT.OK, again.stderr);
    assert.match(again.stderr, new RegExp(`INF ${join(g, 'bin', 'chaind')} already exists: kept\n`));
    assert.equal(readFileSync(join(g, 'lib', 'message.js'), 'utf8'), 'module.exports = "genesis loaded its lib";');
  });

  test('add-upgrade with a .tar.gz: extracted as upgrades/<name>, used at the halt; --force replaces it and keeps the recorded plan', async () => {
    writeDaemon(join(h.cv, 'genesis', 'bin', 'chaind'), 'old', "writeInfo({ name: 'v2', height: 20 }); process.exit(10);");
    const built = join(h.root, 'build');
    writeDaemon(join(built, 'tmp-chaind'), 'new', `${NEEDS_LIB} if (args[0] === 'pre-upgrade') process.exit(0);`);
    const archive = `${join(h.root, 'chaind-v2')}.tar.gz`;
    writeFileSync(
      archive,
      tgz([
        { path: 'bin/', type: 'Directory' },
        { path: 'bin/chaind', body: readFileSync(join(built, 'tmp-chaind')), mode: 0o644 },
        { path: 'lib/message.js', body: 'module.exports = "v2 loaded its lib";' },
        { path: 'lib/current.js', type: 'SymbolicLink', linkpath: 'message.js' },
      ]),
    );
    const r = await cv(['add-upgrade', 'v2', archive]);
    assert.equal(r.code, EXIT.OK, r.stderr);
    const dir = join(h.cv, 'upgrades', 'v2');
    assert.equal(r.stderr, `[chainvisor] INF installed the release archive ${archive} as ${dir}\n`);
    assert.deepEqual(tree(join(h.cv, 'upgrades')), ['v2/', 'v2/bin/', 'v2/bin/chaind', 'v2/lib/', 'v2/lib/current.js', 'v2/lib/message.js']);
    assert.equal(statSync(join(dir, 'bin', 'chaind')).mode & 0o777, 0o755);

    const run = await cv(['run', 'start'], { DAEMON_RESTART_AFTER_UPGRADE: 'false', UNSAFE_SKIP_BACKUP: 'true' });
    assert.equal(run.code, EXIT.OK, run.stderr);
    assert.deepEqual(h.launches(), ['old start', `new pre-upgrade --home ${h.home}`, 'v2 loaded its lib']);
    assert.equal(readlinkSync(join(h.cv, 'current')), 'upgrades/v2');

    const again = await cv(['add-upgrade', 'v2', archive]);
    assert.equal(again.code, EXIT.CONFIG);
    assert.equal(again.stderr, `[chainvisor] ERR ${join(dir, 'bin', 'chaind')} already exists: use --force to overwrite it\n`);
    const plan = readFileSync(join(dir, 'upgrade-info.json'), 'utf8');
    const forced = await cv(['add-upgrade', 'v2', archive, '--force']);
    assert.equal(forced.code, EXIT.OK, forced.stderr);
    assert.equal(readFileSync(join(dir, 'upgrade-info.json'), 'utf8'), plan);
    assert.deepEqual(tree(join(h.cv, 'upgrades')), [
      'v2/',
      'v2/bin/',
      'v2/bin/chaind',
      'v2/lib/',
      'v2/lib/current.js',
      'v2/lib/message.js',
      'v2/upgrade-info.json',
    ]);
  });

  test('a .tgz made by tar with the binary at the root is accepted too', async () => {
    const archive = await tarGzOf(join(h.root, 'flat'), { chaind: '#!/bin/sh\n' });
    writeFileSync(join(h.root, 'flat.tgz'), archive);
    const r = await cv(['add-upgrade', 'v3', join(h.root, 'flat.tgz')]);
    assert.equal(r.code, EXIT.OK, r.stderr);
    assert.deepEqual(tree(join(h.cv, 'upgrades', 'v3')), ['bin/', 'bin/chaind']);
  });

  describe('refused releases: exit 2, one clear line, nothing left behind', () => {
    const cases: { name: string; make: (h: Home) => string; error: (src: string) => string }[] = [
      {
        name: 'a folder without bin/chaind',
        make: (h) => {
          const rel = join(h.root, 'rel');
          mkdirSync(join(rel, 'bin'), { recursive: true });
          writeFileSync(join(rel, 'bin', 'otherd'), '');
          return rel;
        },
        error: (src) => `${src} is not a release folder: it has no bin/chaind`,
      },
      {
        name: 'a folder whose bin/chaind is a symlink',
        make: (h) => {
          const rel = join(h.root, 'rel');
          writeDaemon(join(rel, 'bin', 'real'), 'real', '');
          symlinkSync('real', join(rel, 'bin', 'chaind'));
          return rel;
        },
        error: (src) => `${src}/bin/chaind is a symbolic link; the daemon binary must be a regular file`,
      },
      {
        name: 'a folder with a symlink pointing outside it',
        make: (h) => {
          const rel = join(h.root, 'rel');
          writeDaemon(join(rel, 'bin', 'chaind'), 'x', '');
          mkdirSync(join(rel, 'lib'));
          symlinkSync('../../launches.log', join(rel, 'lib', 'escape'));
          return rel;
        },
        error: (src) =>
          `unsafe release folder ${src}: entry "lib/escape" is a symbolic link to ../../launches.log, which points outside the release folder; nothing installed`,
      },
      {
        name: 'an archive with a ../ entry',
        make: (h) => {
          const p = join(h.root, 'evil.tar.gz');
          writeFileSync(
            p,
            tgz([
              { path: 'bin/chaind', body: '#!/bin/sh\n' },
              { path: '../../evil', body: 'x' },
            ]),
          );
          return p;
        },
        error: (src) => `unsafe archive ${src}: entry "../../evil" has a ".." path segment; nothing installed`,
      },
      {
        name: 'an archive with an absolute path',
        make: (h) => {
          const p = join(h.root, 'evil.tgz');
          writeFileSync(
            p,
            tgz([
              { path: 'bin/chaind', body: '#!/bin/sh\n' },
              { path: join(h.root, 'evil'), body: 'x' },
            ]),
          );
          return p;
        },
        error: (src) => `unsafe archive ${src}: entry ${JSON.stringify(join(src, '..', 'evil'))} has an absolute path; nothing installed`,
      },
      {
        name: 'an archive without the binary',
        make: (h) => {
          const p = join(h.root, 'empty.tar.gz');
          writeFileSync(p, tgz([{ path: 'README', body: 'x' }]));
          return p;
        },
        error: (src) => `release ${src} has no daemon binary: expected bin/chaind or chaind at the archive root; nothing installed`,
      },
      { name: 'a path that does not exist', make: (h) => join(h.root, 'nope'), error: (src) => `${src} does not exist` },
    ];
    for (const c of cases) {
      test(`add-upgrade: ${c.name}`, async () => {
        const src = c.make(h);
        const before = tree(h.root);
        const r = await cv(['add-upgrade', 'v2', src]);
        assert.equal(r.code, EXIT.CONFIG, r.stderr);
        assert.equal(r.stderr, `[chainvisor] ERR ${c.error(src)}\n`);
        assert.deepEqual(tree(h.root), before);
      });
    }

    test('init: a folder without bin/chaind creates nothing', async () => {
      const fresh = join(h.root, 'fresh');
      mkdirSync(fresh);
      const rel = join(h.root, 'rel');
      mkdirSync(rel);
      const r = await cv(['init', rel], { DAEMON_HOME: fresh });
      assert.equal(r.code, EXIT.CONFIG);
      assert.equal(r.stderr, `[chainvisor] ERR ${rel} is not a release folder: it has no bin/chaind\n`);
      assert.deepEqual(tree(fresh), []);
    });
  });
});

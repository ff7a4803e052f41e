// The house rules of docs/development.md ("What may import what"), checked over every import of the
// workspace: the arrows between packages point one way, node/ never imports cli/, src/ never imports
// test code, modules reach each other only through routed messages, and there are no import loops.
import assert from 'node:assert/strict';
import { existsSync, readdirSync, readFileSync, statSync } from 'node:fs';
import { dirname, join, relative, resolve, sep } from 'node:path';
import { describe, test } from 'node:test';
import { fileURLToPath } from 'node:url';
import ts from 'typescript';

const ROOT = resolve(dirname(fileURLToPath(import.meta.url)), '..');
const SKIP = new Set(['node_modules', 'gen', 'dist', '.bench-data']);

function walk(dir: string, out: string[] = []): string[] {
  if (!existsSync(dir)) return out;
  for (const name of readdirSync(dir).sort()) {
    if (SKIP.has(name)) continue;
    const p = join(dir, name);
    if (statSync(p).isDirectory()) walk(p, out);
    else if (/\.(ts|mjs|js)$/.test(name) && !name.endsWith('.d.ts')) out.push(p);
  }
  return out;
}

const rel = (p: string): string => relative(ROOT, p).split(sep).join('/');

/** `@chaind/<pkg>[/<sub>]` → the file its package.json "exports" names (undefined: not a workspace package). */
function resolvePackage(spec: string): string | undefined {
  const m = /^@chaind\/([^/]+)(\/.*)?$/.exec(spec);
  if (m === null) return undefined;
  const dir = join(ROOT, 'packages', m[1]);
  const pkg = JSON.parse(readFileSync(join(dir, 'package.json'), 'utf8')) as { exports?: Record<string, string> };
  const sub = `.${m[2] ?? ''}`;
  for (const [key, target] of Object.entries(pkg.exports ?? {})) {
    if (key === sub) return join(dir, target);
    const star = key.indexOf('*');
    if (star >= 0 && sub.startsWith(key.slice(0, star)) && sub.endsWith(key.slice(star + 1))) {
      const mid = sub.slice(star, sub.length - (key.length - star - 1));
      return join(dir, target.replace('*', mid));
    }
  }
  return join(dir, 'package.json'); // a package without exports: the package itself
}

interface Edge {
  readonly from: string;
  /** Repository-relative path of a workspace file, or the bare specifier of a dependency. */
  readonly to: string;
  readonly spec: string;
}

function importsOf(file: string): Edge[] {
  const info = ts.preProcessFile(readFileSync(file, 'utf8'), true, true);
  const edges: Edge[] = [];
  for (const { fileName: spec } of info.importedFiles) {
    let to: string;
    if (spec.startsWith('.')) to = rel(resolve(dirname(file), spec));
    else {
      const p = resolvePackage(spec);
      to = p === undefined ? spec : rel(p);
    }
    edges.push({ from: rel(file), to, spec });
  }
  return edges;
}

const FILES = [...walk(join(ROOT, 'packages')), ...walk(join(ROOT, 'bench')), ...walk(join(ROOT, 'scripts')), ...walk(join(ROOT, 'test'))];
const EDGES = FILES.flatMap(importsOf);

const isTest = (p: string): boolean => /\.test\.ts$/.test(p) || /^packages\/[^/]+\/test\//.test(p) || p.startsWith('test/');
const inSrc = (p: string): boolean => /^packages\/[^/]+\/src\//.test(p);
const pkgOf = (p: string): string | undefined => /^packages\/([^/]+)\//.exec(p)?.[1];
const show = (es: readonly Edge[]): string => es.map((e) => `${e.from} -> ${e.spec}`).join('\n');

describe('import rules (docs/development.md)', () => {
  test('the workspace packages depend one way: errors ← upgrade-plan ← sdk ← chaind; errors ← abci ← chaind; chainvisor uses upgrade-plan and errors only', () => {
    const allowed: Record<string, readonly string[]> = {
      errors: [],
      'upgrade-plan': ['errors'],
      abci: ['errors'],
      sdk: ['errors', 'upgrade-plan'],
      chaind: ['errors', 'sdk', 'upgrade-plan', 'abci'],
      chainvisor: ['errors', 'upgrade-plan'],
    };
    const bad = EDGES.filter((e) => {
      const a = pkgOf(e.from);
      const b = pkgOf(e.to);
      if (a === undefined || b === undefined || a === b || !inSrc(e.from)) return false;
      return !(allowed[a] ?? []).includes(b);
    });
    assert.deepEqual(show(bad), '');
  });

  test('each test file is in the tier its folder says: one beside the code (fast: `npm run test:fast`) imports no child_process', () => {
    // scripts/test-guard.mjs also refuses their child processes at run time, through a kit or a library
    const bad = EDGES.filter((e) => inSrc(e.from) && e.from.endsWith('.test.ts') && /^(node:)?child_process$/.test(e.spec));
    assert.deepEqual(show(bad), '');
  });

  test("chaind's node/ never imports cli/", () => {
    const bad = EDGES.filter((e) => e.from.startsWith('packages/chaind/src/node/') && e.to.startsWith('packages/chaind/src/cli/'));
    assert.deepEqual(show(bad), '');
  });

  test('nothing under src/ imports test code, and no test scaffolding lives under src/', () => {
    const bad = EDGES.filter((e) => inSrc(e.from) && !isTest(e.from) && isTest(e.to));
    assert.deepEqual(show(bad), '');
    const scaffolding = FILES.map(rel).filter((p) => inSrc(p) && /\/(testutil|testkit|test-helpers|testing|harness|testnode)(\.ts|\/)/.test(p));
    assert.deepEqual(scaffolding, []);
  });

  test("test helpers live only in the kits: a package's test/kit.ts or test/kit/, the root's test/kit/; `./testing` exports a kit", () => {
    const helpers = FILES.map(rel).filter((p) => /^(packages\/[^/]+\/)?test\//.test(p) && !p.endsWith('.test.ts'));
    assert.deepEqual(
      helpers.filter((p) => !/^(packages\/[^/]+\/test\/(kit\.ts$|kit\/)|test\/kit\/)/.test(p)),
      [],
    );
    const exports = readdirSync(join(ROOT, 'packages')).flatMap((pkg) => {
      const file = join(ROOT, 'packages', pkg, 'package.json');
      const testing = existsSync(file) ? (JSON.parse(readFileSync(file, 'utf8')) as { exports?: Record<string, string> }).exports?.['./testing'] : undefined;
      return testing === undefined || ['./test/kit.ts', './test/kit/index.ts'].includes(testing) ? [] : [`${pkg}: ${testing}`];
    });
    assert.deepEqual(exports, []);
  });

  test("inside the sdk, a module never imports another module's files", () => {
    const mod = (p: string): string | undefined => /^packages\/sdk\/src\/x\/([^/]+)\//.exec(p)?.[1];
    const bad = EDGES.filter((e) => !isTest(e.from) && mod(e.from) !== undefined && mod(e.to) !== undefined && mod(e.from) !== mod(e.to));
    assert.deepEqual(show(bad), '');
  });

  test('benches and scripts import package exports, not deep paths into packages/', () => {
    const bad = EDGES.filter((e) => (e.from.startsWith('bench/') || e.from.startsWith('scripts/')) && /^(\.\.\/)+packages\//.test(e.spec));
    assert.deepEqual(show(bad), '');
  });

  test('no import loops between source files', () => {
    const graph = new Map<string, string[]>();
    for (const e of EDGES) {
      if (isTest(e.from) || !inSrc(e.from) || !inSrc(e.to)) continue;
      const list = graph.get(e.from) ?? [];
      list.push(e.to);
      graph.set(e.from, list);
    }
    // Tarjan's strongly connected components: any component of more than one file is a loop
    let next = 0;
    const index = new Map<string, number>();
    const low = new Map<string, number>();
    const stack: string[] = [];
    const onStack = new Set<string>();
    const loops: string[][] = [];
    const visit = (v: string): void => {
      index.set(v, next);
      low.set(v, next++);
      stack.push(v);
      onStack.add(v);
      for (const w of graph.get(v) ?? []) {
        if (!index.has(w)) {
          visit(w);
          low.set(v, Math.min(low.get(v) as number, low.get(w) as number));
        } else if (onStack.has(w)) low.set(v, Math.min(low.get(v) as number, index.get(w) as number));
      }
      if (low.get(v) === index.get(v)) {
        const c: string[] = [];
        let w: string;
        do {
          w = stack.pop() as string;
          onStack.delete(w);
          c.push(w);
        } while (w !== v);
        if (c.length > 1) loops.push(c.sort());
      }
    };
    for (const v of [...graph.keys()].sort()) if (!index.has(v)) visit(v);
    assert.deepEqual(loops, []);
  });

  test('the rules see the whole workspace (a sanity check of the import reader)', () => {
    assert.ok(FILES.length > 200, `only ${FILES.length} files found`);
    assert.ok(EDGES.some((e) => e.spec === '@chaind/sdk/app' && e.to === 'packages/sdk/src/app/index.ts'));
  });
});

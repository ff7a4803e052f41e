// Test helpers for the fetch tests: a loopback HTTP server and tar archives, good ones built with `tar`
// and hostile ones written header by header; and, as the lowest kit, how every package's tests run a child
// process (process.ts: its own process group, killed with it).
import assert from 'node:assert/strict';
import { createHash } from 'node:crypto';
import { mkdir, readFile, writeFile } from 'node:fs/promises';
import { createServer, type IncomingMessage, type ServerResponse } from 'node:http';
import type { AddressInfo } from 'node:net';
import { dirname, join } from 'node:path';
import { gzipSync } from 'node:zlib';
import { Header, create as tarCreate, types } from 'tar';
import { FetchError } from '../../src/errors.ts';

type EntryTypeName = types.EntryTypeName;

export type Handler = (req: IncomingMessage, res: ServerResponse) => void;

export interface Served {
  /** http://127.0.0.1:<port> */
  readonly base: string;
  readonly hits: string[];
  route(path: string, h: Handler): void;
  /** serves `body` with a Content-Length */
  file(path: string, body: Buffer): void;
  close(): Promise<void>;
}

export async function serve(): Promise<Served> {
  const routes = new Map<string, Handler>();
  const hits: string[] = [];
  const server = createServer((req, res) => {
    const path = new URL(req.url ?? '/', 'http://x').pathname;
    hits.push(req.url ?? '');
    const h = routes.get(path);
    if (h) return h(req, res);
    res.writeHead(404, 'Not Found').end('no such file');
  });
  await new Promise<void>((r) => server.listen(0, '127.0.0.1', r));
  const port = (server.address() as AddressInfo).port;
  return {
    base: `http://127.0.0.1:${port}`,
    hits,
    route: (p, h) => void routes.set(p, h),
    file: (p, body) =>
      void routes.set(p, (_req, res) => {
        res.writeHead(200, { 'content-length': body.length, 'content-type': 'application/octet-stream' });
        res.end(body);
      }),
    close: () =>
      new Promise<void>((r) => {
        server.closeAllConnections();
        server.close(() => r());
      }),
  };
}

export interface RawEntry {
  readonly path: string;
  readonly type?: EntryTypeName;
  readonly body?: string | Buffer;
  readonly linkpath?: string;
  readonly mode?: number;
}

/** An uncompressed tar written header by header: nothing is normalised, so any hostile entry can be built. */
export function rawTar(entries: readonly RawEntry[]): Buffer {
  const blocks: Buffer[] = [];
  for (const e of entries) {
    const body = e.body === undefined ? Buffer.alloc(0) : Buffer.from(e.body);
    const type = e.type ?? 'File';
    const h = new Header({
      path: e.path,
      type,
      mode: e.mode ?? (type === 'Directory' ? 0o755 : 0o644),
      size: type === 'File' ? body.length : 0,
      linkpath: e.linkpath ?? '',
      uid: 0,
      gid: 0,
      uname: '',
      gname: '',
      mtime: new Date(0),
    });
    const block = Buffer.alloc(512);
    h.encode(block, 0);
    blocks.push(block);
    if (type === 'File' && body.length) {
      blocks.push(body, Buffer.alloc((512 - (body.length % 512)) % 512));
    }
  }
  blocks.push(Buffer.alloc(1024));
  return Buffer.concat(blocks);
}

export const tgz = (entries: readonly RawEntry[]): Buffer => gzipSync(rawTar(entries));

/** A .tar.gz made by `tar` from real files written under `dir` (path → content; mode 0o644 unless given). */
export async function tarGzOf(dir: string, files: Record<string, string | Buffer>): Promise<Buffer> {
  for (const [p, body] of Object.entries(files)) {
    await mkdir(dirname(join(dir, p)), { recursive: true });
    await writeFile(join(dir, p), body, { mode: 0o644 });
  }
  const out = `${dir}.tar.gz`;
  await tarCreate(
    { gzip: true, file: out, cwd: dir, portable: true },
    Object.keys(files)
      .map((p) => p.split('/')[0])
      .filter((v, i, a) => a.indexOf(v) === i),
  );
  return readFile(out);
}

export const hex = (algo: 'sha256' | 'sha512' | 'md5' | 'sha1', b: Buffer): string => createHash(algo).update(b).digest('hex');

/** upgrade info JSON with one binaries entry for `key` */
export const infoFor = (key: string, url: string): string => JSON.stringify({ binaries: { [key]: url } });

/** Asserts that `p` rejects with a FetchError of this kind and exactly this message. */
export async function refused(p: Promise<unknown>, kind: string, message: string): Promise<void> {
  await assert.rejects(p, (err: unknown) => {
    assert.ok(err instanceof FetchError, `expected a FetchError, got ${String(err)}`);
    assert.equal(err.message, message);
    assert.equal(err.kind, kind);
    return true;
  });
}

/**
 * A small seeded generator (mulberry32) for tests that pick moments or inputs at random: the same seed
 * gives the same numbers on every run, so a failure in CI reproduces. Numbers in [0, 1).
 */
export function seededRandom(seed: number): () => number {
  let a = seed >>> 0;
  return () => {
    a = (a + 0x6d2b79f5) >>> 0;
    let t = a;
    t = Math.imul(t ^ (t >>> 15), t | 1);
    t ^= t + Math.imul(t ^ (t >>> 7), t | 61);
    return ((t ^ (t >>> 14)) >>> 0) / 4294967296;
  };
}

/** A pid no process has: above Linux's largest pid_max (2^22), for "left behind by a process that is gone". */
export const DEAD_PID = 2 ** 22 + 1;
export * from './process.ts';

// Safe tar(.gz) extraction: every entry is checked before tar writes it, and one bad entry fails the
// whole install with the entry named (node-tar alone would strip or skip such entries with a warning).
import { createReadStream } from 'node:fs';
import { lstat, readdir, readlink, realpath } from 'node:fs/promises';
import { isAbsolute, join, posix, relative, sep } from 'node:path';
import type { Parser, ReadEntry } from 'tar';
import { FetchError } from './errors.ts';
import { clip, quote } from './quote.ts';
import { errorMessage, errnoCode } from '@chaind/errors';

const ALLOWED = new Set(['File', 'OldFile', 'ContiguousFile', 'Directory', 'SymbolicLink', 'Link']);
const TYPE_NAMES: Record<string, string> = {
  CharacterDevice: 'a character device',
  BlockDevice: 'a block device',
  FIFO: 'a FIFO',
};

const isAbs = (p: string): boolean => p.startsWith('/') || p.startsWith('\\') || /^[a-zA-Z]:/.test(p);
const parts = (p: string): string[] => p.split(/[/\\]/).filter((s) => s !== '' && s !== '.');

/**
 * Walks `target` from the folder `from` (components relative to the archive root), as the kernel would.
 * Returns why it escapes, or null. Going through a symlink seen earlier in the archive is refused: a
 * symlink to `.` followed by `..` would escape while every path looks fine on its own.
 */
function escapes(from: string[], target: string, symlinks: ReadonlySet<string>): string | null {
  const stack = [...from];
  const comps = parts(target);
  for (let i = 0; i < comps.length; i++) {
    const c = comps[i];
    if (c === '..') {
      if (stack.length === 0) return 'points outside the release folder';
      stack.pop();
      continue;
    }
    stack.push(c);
    if (i < comps.length - 1 && symlinks.has(stack.join('/'))) return `goes through the symbolic link ${stack.join('/')}`;
  }
  return null;
}

/**
 * Why this entry may not be extracted, or null. Updates `symlinks` with accepted symlink entries, `folders`
 * with the folders the accepted entries make (their own, and their parents), `files` with the other entries.
 */
function refusal(entry: ReadEntry, symlinks: Set<string>, folders: Set<string>, files: Set<string>): string | null {
  const why = refusalOf(entry, symlinks, folders, files);
  if (why === null) {
    const comps = parts(entry.path);
    if (entry.type !== 'Directory' && entry.type !== 'SymbolicLink') files.add(comps.join('/'));
    for (let i = 1; i < comps.length; i++) folders.add(comps.slice(0, i).join('/'));
    if (entry.type === 'Directory') folders.add(comps.join('/'));
  }
  return why;
}

function refusalOf(entry: ReadEntry, symlinks: Set<string>, folders: ReadonlySet<string>, files: ReadonlySet<string>): string | null {
  const path = entry.path;
  if (!ALLOWED.has(entry.type)) return `is ${TYPE_NAMES[entry.type] ?? `of unsupported type ${entry.type}`}`;
  if (isAbs(path)) return 'has an absolute path';
  const comps = parts(path);
  if (comps.includes('..')) return 'has a ".." path segment';
  for (let i = 1; i < comps.length; i++) {
    const prefix = comps.slice(0, i).join('/');
    if (symlinks.has(prefix)) return `is inside the symbolic link ${prefix}`;
  }
  // tar would have to replace a folder holding earlier entries (and node-tar never finishes doing so)
  if (entry.type !== 'Directory' && folders.has(comps.join('/'))) return 'replaces a folder made by an earlier entry';
  if (entry.type === 'SymbolicLink' || entry.type === 'Link') {
    const target = entry.linkpath ?? '';
    const what = entry.type === 'SymbolicLink' ? 'symbolic link' : 'hard link';
    if (target === '') return `is a ${what} without a target`;
    if (isAbs(target)) return `is a ${what} to the absolute path ${clip(target)}`;
    // a symlink's target is relative to its own folder, a hard link's to the archive root
    const from = entry.type === 'SymbolicLink' ? comps.slice(0, -1) : [];
    const why = escapes(from, target, symlinks);
    if (why) return `is a ${what} to ${clip(target)}, which ${why}`;
    // link(2) does not follow a symlink: the hard link would be a copy of the symlink, its relative target
    // now read from the hard link's folder
    if (entry.type === 'Link' && symlinks.has(parts(target).join('/'))) return `is a hard link to the symbolic link ${clip(target)}`;
    // link(2) needs its target in place: tar would fail half-way (and node-tar may never finish)
    if (entry.type === 'Link' && !files.has(parts(target).join('/'))) return `is a hard link to ${clip(target)}, which no earlier entry made as a file`;
    if (entry.type === 'SymbolicLink') symlinks.add(comps.join('/'));
  }
  return null;
}

/** Caps on what one archive may unpack to: a small archive must not fill the disk or the inode table. */
export interface ExtractLimits {
  /** the sum of the regular files' sizes, in bytes */
  readonly maxBytes: number;
  /** entries of any type (files, folders, links) */
  readonly maxEntries: number;
  /** the settings that set the two caps, named in a refusal (chainvisor: DAEMON_MAX_EXTRACT_BYTES / _ENTRIES) */
  readonly settings?: { readonly bytes: string; readonly entries: string };
}

/**
 * 2 GiB, the download cap: a node release unpacks to a few hundred MB at most. 100,000 entries: a packaged
 * Node.js release with its node_modules has tens of thousands of files.
 */
export const DEFAULT_EXTRACT_LIMITS: ExtractLimits = { maxBytes: 2 * 1024 ** 3, maxEntries: 100_000 };

/** Modes as extracted: no setuid/setgid/sticky, no group or world write (whatever the process umask). */
const MODE_MASK = 0o755;

/** One pass's verdict on the entries as they stream: the caps and the refusals, in archive order. */
interface Checks {
  /** false for an entry that must not be written; the first such refusal is `bad` */
  accept(entry: ReadEntry): boolean;
  readonly bad: FetchError | null;
}

/** The checks of one pass. */
function checks(name: string, limits: ExtractLimits): Checks {
  const symlinks = new Set<string>();
  const folders = new Set<string>();
  const files = new Set<string>();
  let bad: FetchError | null = null;
  let entries = 0;
  let bytes = 0;
  const over = (what: string, limit: number, setting: string | undefined): FetchError =>
    new FetchError('too-large', `archive ${name} refused: it unpacks to more than ${limit} ${what}${setting ? ` (limit set by ${setting})` : ''}`);
  return {
    get bad() {
      return bad;
    },
    accept(entry) {
      if (bad) return false; // the install fails anyway: skip the rest quickly
      entries += 1;
      if (entry.type === 'File' || entry.type === 'OldFile' || entry.type === 'ContiguousFile') bytes += entry.size ?? 0;
      let why: FetchError | null = null;
      if (entries > limits.maxEntries) why = over('entries', limits.maxEntries, limits.settings?.entries);
      else if (bytes > limits.maxBytes) why = over('bytes', limits.maxBytes, limits.settings?.bytes);
      if (why) {
        bad = why;
        return false;
      }
      const unsafe = refusal(entry, symlinks, folders, files);
      if (unsafe) {
        bad = new FetchError('unsafe-archive', `unsafe archive ${name}: entry ${quote(entry.path)} ${unsafe}`);
        return false;
      }
      if (typeof entry.mode === 'number') entry.mode &= MODE_MASK;
      return true;
    },
  };
}

const badArchive = (name: string, err: unknown): FetchError => new FetchError('bad-archive', `could not extract ${name}: ${clip(errorMessage(err))}`);

/**
 * Feeds the archive to `p` as it is read, one chunk of the file at a time. tar's Parser and UnpackSync work on a
 * chunk synchronously (gunzip, headers, and for UnpackSync the files written), so the event loop waits at most
 * one chunk's work between reads. Stops reading when `stop()` says so (a crossed cap, a refusal, an error).
 */
async function feed(archive: string, p: Parser, stop: () => boolean): Promise<void> {
  for await (const chunk of createReadStream(archive)) {
    p.write(chunk as Buffer);
    if (stop()) return;
  }
  p.end();
}

/** What tar reported during one pass: its first error and warning, and whether it reached the archive's end. */
interface Seen {
  error: unknown;
  warning: string | null;
  ended: boolean;
}

function watch(p: Parser): Seen {
  const seen: Seen = { error: null, warning: null, ended: false };
  p.on('error', (err: unknown) => (seen.error ??= err));
  p.on('warn', (_code: string, msg: unknown) => (seen.warning ??= String(msg)));
  p.on('end', () => (seen.ended = true));
  return seen;
}

/**
 * One pass over the archive: `make(accept)` builds the parser (the scan's Parser, the writing pass's UnpackSync)
 * with `accept` as its filter. Throws the first refusal, crossed cap, or error; a pass that does not reach the
 * archive's end is an error too.
 */
async function pass(archive: string, name: string, limits: ExtractLimits, make: (accept: (entry: ReadEntry) => boolean) => Parser): Promise<void> {
  const c = checks(name, limits);
  const p = make((e) => c.accept(e));
  const seen = watch(p);
  try {
    await feed(archive, p, () => c.bad !== null || seen.error !== null);
  } catch (err) {
    throw badArchive(name, err); // the archive could not be read
  }
  if (c.bad) throw c.bad;
  if (seen.error !== null) throw seen.error instanceof FetchError ? seen.error : badArchive(name, seen.error);
  if (seen.warning !== null) throw badArchive(name, seen.warning);
  if (!seen.ended) throw badArchive(name, 'tar stopped before the end of the archive');
}

/**
 * Extracts the tar or tar.gz `archive` into the existing, empty folder `dir`. Owners are not restored,
 * setuid/setgid/sticky and group/world write bits are dropped. Throws 'unsafe-archive' naming the first
 * bad entry, 'too-large' past `limits` (counted from the headers as tar streams), or 'bad-archive' when the
 * archive does not unpack. The archive is read twice: checked whole first, so a bad one writes nothing;
 * then written by tar's UnpackSync, chunk by chunk as the file is read (half the CPU of its asynchronous
 * Unpack: bench/README.md, "Installing a release"), so nothing is still being written when this returns or throws.
 */
export async function extractTar(archive: string, dir: string, name: string, limits: ExtractLimits = DEFAULT_EXTRACT_LIMITS): Promise<void> {
  // tar loads with the first archive: the commands that never extract one do not load it
  const { Parser, UnpackSync } = await import('tar');
  // the first pass: the whole archive read and checked, nothing written. A corrupt gzip, a damaged header, a
  // truncated body, an unsafe entry or a crossed cap is found here, so the writing pass never starts on an
  // archive that fails half-way
  await pass(archive, name, limits, (accept) => new Parser({ strict: true, filter: (_p, e) => accept(e as ReadEntry), onReadEntry: (e) => e.resume() }));
  // the second pass writes, with the same checks (the archive may have changed since the scan)
  await pass(
    archive,
    name,
    limits,
    (accept) =>
      new UnpackSync({
        cwd: dir,
        preserveOwner: false,
        strict: true,
        // folders tar creates on its own (a file's missing parent), whatever the process umask
        dmode: MODE_MASK,
        fmode: 0o644,
        filter: (_p, e) => accept(e as ReadEntry),
      }),
  );
  await checkTree(dir, `archive ${name}`);
}

/**
 * Where `p` really leads, resolving symlinks in the part that exists (a dangling link's target may not).
 * `p` is not normalised first: `l/..` with `l` a symlink is the parent of l's target, not `.`, so only the
 * kernel's walk (realpath) is right. A missing part followed by `..` cannot be resolved: an error.
 */
async function realTarget(p: string): Promise<string> {
  try {
    return await realpath(p);
  } catch (err) {
    if (errnoCode(err) !== 'ENOENT') throw err;
    const i = p.lastIndexOf('/');
    const last = p.slice(i + 1);
    if (i <= 0) return p;
    if (last === '..') throw new Error(`${p.slice(0, i)} does not exist`);
    const parent = await realTarget(p.slice(0, i));
    return last === '' || last === '.' ? parent : join(parent, last);
  }
}

/**
 * Final check on what tar actually wrote (or a release folder copied as is): every symlink must resolve
 * inside `dir` (catches a folder replaced by a symlink after another link was made through it), and only
 * files, folders and links exist. `what` names the source in messages: `archive x.tar.gz`, `release folder /p`.
 */
export async function checkTree(dir: string, what: string): Promise<void> {
  const root = await realpath(dir);
  const inside = (p: string): boolean => p === root || p.startsWith(root + sep);
  const walk = async (d: string): Promise<void> => {
    for (const ent of await readdir(d, { withFileTypes: true })) {
      const p = join(d, ent.name);
      const rel = relative(dir, p).split(sep).join(posix.sep);
      if (ent.isSymbolicLink()) {
        const target = await readlink(p);
        let real: string;
        try {
          real = await realTarget(isAbsolute(target) ? target : `${d}/${target}`);
        } catch (err) {
          throw new FetchError(
            'unsafe-archive',
            `unsafe ${what}: symbolic link ${quote(rel)} to ${clip(target)} cannot be resolved (${clip(errorMessage(err))})`,
          );
        }
        if (!inside(real)) {
          throw new FetchError(
            'unsafe-archive',
            `unsafe ${what}: entry ${quote(rel)} is a symbolic link to ${clip(target)}, which points outside the release folder`,
          );
        }
      } else if (ent.isDirectory()) {
        await walk(p);
      } else if (!ent.isFile()) {
        const st = await lstat(p);
        throw new FetchError('unsafe-archive', `unsafe ${what}: entry ${quote(rel)} is not a regular file, folder or link (mode ${st.mode.toString(8)})`);
      }
    }
  };
  await walk(dir);
}

import { watch, type FSWatcher } from 'node:fs';

export interface Watcher {
  /** resolves once `check` returned true */
  readonly detected: Promise<void>;
  close(): void;
}

/**
 * Runs `check` on every file event in `dir` naming `file` and every `pollMs` (both: events can be missed on some
 * filesystems, polling alone is slow). Checks never overlap; an event during a check schedules one more.
 */
export function watchFile(dir: string, file: string, pollMs: number, check: () => Promise<boolean>, onError: (e: unknown) => void): Watcher {
  let closed = false;
  let running = false;
  let again = false;
  let resolveDetected!: () => void;
  const detected = new Promise<void>((r) => (resolveDetected = r));
  let fsw: FSWatcher | undefined;
  const run = async (): Promise<void> => {
    if (closed) return;
    if (running) {
      again = true;
      return;
    }
    running = true;
    try {
      do {
        again = false;
        if (await check()) {
          close();
          resolveDetected();
          return;
        }
      } while (again && !closed);
    } catch (e) {
      onError(e);
    } finally {
      running = false;
    }
  };
  const timer = setInterval(() => void run(), pollMs);
  try {
    fsw = watch(dir, { persistent: false }, (_event, name) => {
      if (name === null || name === file) void run();
    });
    fsw.on('error', () => fsw?.close()); // e.g. the folder was removed: polling carries on
  } catch {
    // fs.watch unsupported here: polling alone
  }
  function close(): void {
    closed = true;
    clearInterval(timer);
    fsw?.close();
  }
  void run();
  return { detected, close };
}

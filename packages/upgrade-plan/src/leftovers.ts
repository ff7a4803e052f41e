// Temp files and folders named after their writer's pid (`<prefix><pid>` or `<prefix><pid>-…`): a writer killed
// before its rename leaves one behind, which the next writer removes once it knows that pid is gone.
import { readdirSync } from 'node:fs';
import { errnoCode } from '@chaind/errors';

/** Whether process `pid` exists (EPERM: it does, owned by another user). */
export function pidAlive(pid: number): boolean {
  try {
    process.kill(pid, 0);
    return true;
  } catch (err) {
    return errnoCode(err) === 'EPERM';
  }
}

/**
 * The names in `dir` that start with `prefix` and a pid whose process is gone, or is this one (a restart that got
 * the same pid): a killed writer's leftovers, safe to remove. A live other process's are not listed.
 */
export function leftoversIn(dir: string, prefix: string): string[] {
  let names: string[];
  try {
    names = readdirSync(dir);
  } catch {
    return [];
  }
  return names.filter((n) => {
    if (!n.startsWith(prefix)) return false;
    const m = /^(\d+)(?:-|$)/.exec(n.slice(prefix.length));
    if (!m) return false;
    const pid = Number(m[1]);
    return pid === process.pid || !pidAlive(pid);
  });
}

// What the soak reads of the processes and the disk: RSS from /proc/<pid>/status, CPU time from
// /proc/<pid>/stat, open descriptors from /proc/<pid>/fd, the node's pid as chainvisor's child, and the
// bytes the data folder takes on disk.
import { readFileSync, readdirSync, statSync } from 'node:fs';
import { join } from 'node:path';

export interface Memory {
  /** VmRSS */
  readonly rssKiB: number;
  /** RssAnon: the heap and other private memory */
  readonly anonKiB: number;
  /** RssFile: mapped files, LMDB's pages among them */
  readonly fileKiB: number;
}

export function memoryOf(pid: number): Memory | undefined {
  try {
    const status = readFileSync(`/proc/${pid}/status`, 'utf8');
    const kib = (field: string): number => Number(new RegExp(`^${field}:\\s+(\\d+) kB`, 'm').exec(status)?.[1] ?? NaN);
    return { rssKiB: kib('VmRSS'), anonKiB: kib('RssAnon'), fileKiB: kib('RssFile') };
  } catch {
    return undefined;
  }
}

/** CPU seconds `pid` has used, user + system (fields 14 and 15 of its stat, in clock ticks of 1/100 s). */
export function cpuSecondsOf(pid: number): number | undefined {
  try {
    const stat = readFileSync(`/proc/${pid}/stat`, 'utf8');
    const f = stat.slice(stat.lastIndexOf(')') + 2).split(' ');
    return (Number(f[11]) + Number(f[12])) / 100;
  } catch {
    return undefined;
  }
}

export function fdCount(pid: number): number | undefined {
  try {
    return readdirSync(`/proc/${pid}/fd`).length;
  } catch {
    return undefined;
  }
}

/** The pids whose parent is `pid` (from each process's stat: field 4 is the parent). */
export function childrenOf(pid: number): number[] {
  const out: number[] = [];
  for (const name of readdirSync('/proc')) {
    if (!/^\d+$/.test(name)) continue;
    try {
      const stat = readFileSync(`/proc/${name}/stat`, 'utf8');
      // the command name (field 2) may hold spaces and parentheses: parse after its last ')'
      const ppid = Number(stat.slice(stat.lastIndexOf(')') + 2).split(' ')[1]);
      if (ppid === pid) out.push(Number(name));
    } catch {
      // gone meanwhile
    }
  }
  return out;
}

/** A process's arguments (argv[0] first); empty once it is gone. */
export function commandLineOf(pid: number): string[] {
  try {
    return readFileSync(`/proc/${pid}/cmdline`, 'utf8')
      .split('\0')
      .filter((a) => a !== '');
  } catch {
    return [];
  }
}

/** Bytes allocated on disk (st_blocks) and apparent bytes of every file under `dir`. */
export function diskUsage(dir: string): { allocated: number; apparent: number } {
  let allocated = 0;
  let apparent = 0;
  const walk = (d: string): void => {
    for (const e of readdirSync(d, { withFileTypes: true })) {
      const p = join(d, e.name);
      try {
        if (e.isDirectory()) walk(p);
        else if (e.isFile()) {
          const s = statSync(p);
          allocated += s.blocks * 512;
          apparent += s.size;
        }
      } catch {
        // removed meanwhile
      }
    }
  };
  walk(dir);
  return { allocated, apparent };
}

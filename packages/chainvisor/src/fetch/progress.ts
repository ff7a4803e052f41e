// Download progress: a bar on a terminal (cli-progress, stderr), else a log line every ~10 % or 2 s.
import cliProgress from 'cli-progress';
import type { Progress } from '@chaind/upgrade-plan';

const MiB = 1024 * 1024;
const mib = (n: number): string => `${(n / MiB).toFixed(1)} MiB`;

function rate(bytes: number, ms: number): string {
  return `${(ms > 0 ? (bytes / MiB / ms) * 1000 : 0).toFixed(1)} MiB/s`;
}

/** A progress reporter for a download of `total` bytes (null = unknown) named `name`. */
export function makeProgress(mode: 'bar' | 'lines' | 'none', name: string, total: number | null, log: (msg: string) => void): Progress {
  const start = performance.now();
  if (mode === 'bar') {
    const bar = new cliProgress.SingleBar(
      {
        stream: process.stderr,
        format: total === null ? `${name} {bytes} {rate}` : `${name} [{bar}] {percentage}% {bytes} of {totalBytes} {rate}`,
        hideCursor: false, // a killed chainvisor must not leave the terminal without a cursor
        clearOnComplete: false,
        fps: 10,
      },
      cliProgress.Presets.shades_classic,
    );
    const payload = (b: number): Record<string, string> => ({
      bytes: mib(b),
      totalBytes: total === null ? '?' : mib(total),
      rate: rate(b, performance.now() - start),
    });
    bar.start(total ?? 1, 0, payload(0));
    let last = 0;
    return {
      update(b) {
        last = b;
        bar.update(total === null ? 0 : b, payload(b));
      },
      done(ok) {
        if (ok) bar.update(total ?? 1, payload(last));
        bar.stop();
      },
    };
  }
  if (mode === 'lines') {
    let nextPct = 10;
    let lastLog = start;
    let last = 0;
    const line = (b: number): void => {
      const pct = total ? ` (${Math.floor((b / total) * 100)}%)` : '';
      log(`downloading ${name}: ${mib(b)}${total === null ? '' : ` of ${mib(total)}`}${pct} at ${rate(b, performance.now() - start)}`);
    };
    return {
      update(b) {
        last = b;
        const now = performance.now();
        const pctNow = total ? (b / total) * 100 : 0;
        if ((total && pctNow >= nextPct && pctNow < 100) || now - lastLog >= 2000) {
          while (total && nextPct <= pctNow) nextPct += 10;
          lastLog = now;
          line(b);
        }
      },
      done(ok) {
        if (ok) line(last);
      },
    };
  }
  return { update() {}, done() {} };
}

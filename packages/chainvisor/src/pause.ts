/** Waits `ms`, or less when `signal` aborts; the abort listener goes with its timer (one left per call piles up on a long-lived signal). */
export function pause(ms: number, signal: AbortSignal): Promise<void> {
  return new Promise<void>((r) => {
    if (signal.aborted) return r();
    const stop = (): void => (clearTimeout(t), r());
    const t = setTimeout(() => (signal.removeEventListener('abort', stop), r()), ms);
    signal.addEventListener('abort', stop, { once: true });
  });
}

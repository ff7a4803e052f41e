/** Whether process `pid` exists (EPERM: it does, owned by another user). Tells a killed run's leftovers from a live run's. */
export function pidAlive(pid: number): boolean {
  try {
    process.kill(pid, 0);
    return true;
  } catch (err) {
    return (err as NodeJS.ErrnoException).code === 'EPERM';
  }
}

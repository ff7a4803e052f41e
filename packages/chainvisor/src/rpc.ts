/** The node's CometBFT JSON-RPC `status`: latest committed height, or undefined when the node does not answer. */
export async function latestHeight(rpcAddress: string, timeoutMs = 2000): Promise<bigint | undefined> {
  try {
    const res = await fetch(rpcAddress, {
      method: 'POST',
      headers: { 'content-type': 'application/json' },
      body: JSON.stringify({ jsonrpc: '2.0', id: 1, method: 'status', params: {} }),
      signal: AbortSignal.timeout(timeoutMs),
    });
    if (!res.ok) return undefined;
    const body = (await res.json()) as { result?: { sync_info?: { latest_block_height?: unknown } } };
    const h = body.result?.sync_info?.latest_block_height;
    return typeof h === 'string' && /^\d+$/.test(h) ? BigInt(h) : undefined;
  } catch {
    return undefined;
  }
}

/**
 * Polls until the node reports a committed height ≥ `height`; resolves with performance.now() at that moment,
 * or undefined when `signal` aborts first (the node exited, chainvisor is stopping).
 */
export async function waitForHeight(rpcAddress: string, height: bigint, signal: AbortSignal, everyMs = 100): Promise<number | undefined> {
  while (!signal.aborted) {
    const h = await latestHeight(rpcAddress, 1000);
    if (h !== undefined && h >= height) return performance.now();
    // the listener is removed after each wait: one per poll would pile up on the signal (MaxListenersExceededWarning)
    await new Promise<void>((r) => {
      const done = (): void => {
        clearTimeout(t);
        signal.removeEventListener('abort', done);
        r();
      };
      const t = setTimeout(done, everyMs);
      signal.addEventListener('abort', done, { once: true });
    });
  }
  return undefined;
}

/**
 * The node's height as CometBFT JSON-RPC `status` reports it: `busy` when a listener took the request and gave
 * no answer within `timeoutMs` (a node alive but loaded), `down` when nothing answered with a height (nothing
 * listening, another server, a malformed answer).
 */
export type NodeHeight = { readonly state: 'height'; readonly height: bigint } | { readonly state: 'busy' } | { readonly state: 'down' };

export async function nodeHeight(rpcAddress: string, timeoutMs = 2000): Promise<NodeHeight> {
  try {
    const res = await fetch(rpcAddress, {
      method: 'POST',
      headers: { 'content-type': 'application/json' },
      body: JSON.stringify({ jsonrpc: '2.0', id: 1, method: 'status', params: {} }),
      signal: AbortSignal.timeout(timeoutMs),
    });
    if (!res.ok) return { state: 'down' };
    const body = (await res.json()) as { result?: { sync_info?: { latest_block_height?: unknown } } };
    const h = body.result?.sync_info?.latest_block_height;
    return typeof h === 'string' && /^\d+$/.test(h) ? { state: 'height', height: BigInt(h) } : { state: 'down' };
  } catch (e) {
    return e instanceof DOMException && e.name === 'TimeoutError' ? { state: 'busy' } : { state: 'down' };
  }
}

/** The node's latest committed height, or undefined when it gives none (busy or down alike). */
export async function latestHeight(rpcAddress: string, timeoutMs = 2000): Promise<bigint | undefined> {
  const r = await nodeHeight(rpcAddress, timeoutMs);
  return r.state === 'height' ? r.height : undefined;
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

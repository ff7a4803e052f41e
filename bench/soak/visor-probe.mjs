// Preloaded into the soak's chainvisor (NODE_OPTIONS=--import): every SOAK_VISOR_GC_MS it forces a full
// collection and writes the heap left after it to SOAK_VISOR_PROBE_FILE (JSON, replaced whole). Without it,
// chainvisor's RSS measures when V8 chooses to collect, not what chainvisor keeps: its old generation fills
// with garbage for longer than a run before the first full collection. Nothing here reaches chainvisor's
// children: the variables are removed before chainvisor starts the node.
import { renameSync, writeFileSync } from 'node:fs';
import { setFlagsFromString } from 'node:v8';
import { runInNewContext } from 'node:vm';
import { isMainThread } from 'node:worker_threads';

const file = process.env.SOAK_VISOR_PROBE_FILE;
const everyMs = Number(process.env.SOAK_VISOR_GC_MS);
// tsx's loader thread gets the preload too: the probe belongs to the main thread only
if (isMainThread) {
  for (const k of ['NODE_OPTIONS', 'SOAK_VISOR_PROBE_FILE', 'SOAK_VISOR_GC_MS']) delete process.env[k];
  if (file !== undefined && everyMs > 0) {
    setFlagsFromString('--expose-gc');
    const gc = runInNewContext('gc');
    const probe = () => {
      gc();
      const m = process.memoryUsage();
      writeFileSync(
        `${file}.tmp`,
        JSON.stringify({ at: Date.now(), heapUsed: m.heapUsed, heapTotal: m.heapTotal, external: m.external, arrayBuffers: m.arrayBuffers }),
      );
      renameSync(`${file}.tmp`, file);
    };
    globalThis.setInterval(probe, everyMs).unref();
  }
}

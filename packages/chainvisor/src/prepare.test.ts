import assert from 'node:assert/strict';
import { getEventListeners } from 'node:events';
import { mkdtempSync, rmSync } from 'node:fs';
import { createServer } from 'node:net';
import type { AddressInfo } from 'node:net';
import { tmpdir } from 'node:os';
import { join } from 'node:path';
import { test } from 'node:test';
import { loadConfig } from './config.ts';
import { layout } from './layout.ts';
import { createLogger } from './log.ts';
import { autoPrepare } from './prepare.ts';

test('DAEMON_PREPARE_UPGRADE polling leaves no abort listener behind: the count stays flat over many polls (once one per poll, MaxListenersExceededWarning after 11)', async () => {
  const home = mkdtempSync(join(tmpdir(), 'chainvisor-poll-'));
  try {
    // a gRPC address nothing listens on: every poll fails fast as "node unreachable" and waits for the next
    const port = await new Promise<number>((res) => {
      const s = createServer().listen(0, '127.0.0.1', () => {
        const { port: p } = s.address() as AddressInfo;
        s.close(() => res(p));
      });
    });
    const cfg = loadConfig({ env: { DAEMON_HOME: home, DAEMON_NAME: 'chaind', DAEMON_GRPC_ADDRESS: `127.0.0.1:${port}` } });
    const lines: string[] = [];
    const log = createLogger({ disabled: false, color: false, timeFormat: 'none', write: (l) => lines.push(l) });
    const ac = new AbortController();
    const counts: number[] = [];
    const polling = autoPrepare({ cfg, l: layout(home, 'chaind'), log, install: () => Promise.reject(new Error('not called')) }, ac.signal, 5);
    for (let i = 0; i < 40; i++) {
      await new Promise((r) => setTimeout(r, 10));
      counts.push(getEventListeners(ac.signal, 'abort').length);
    }
    ac.abort();
    await polling;
    assert.ok(Math.max(...counts) <= 1, `abort listeners while polling: ${counts.join(' ')}`);
    assert.equal(getEventListeners(ac.signal, 'abort').length, 0);
    assert.equal(lines.filter((l) => /prepare-upgrade: /.test(l)).length, 1, `the unreachable node is said once:\n${lines.join('')}`);
  } finally {
    rmSync(home, { recursive: true, force: true });
  }
});

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
import { autoPrepare, grpcFailureText } from './prepare.ts';

/** A loopback port nothing listens on: every poll there fails fast as "node unreachable". */
const closedPort = (): Promise<number> =>
  new Promise<number>((res) => {
    const s = createServer().listen(0, '127.0.0.1', () => {
      const { port: p } = s.address() as AddressInfo;
      s.close(() => res(p));
    });
  });

/** A chainvisor home whose node's gRPC address is a closed port, and a logger that keeps its lines. */
async function unreachableNode(): Promise<{
  home: string;
  port: number;
  cfg: ReturnType<typeof loadConfig>;
  lines: string[];
  log: ReturnType<typeof createLogger>;
}> {
  const home = mkdtempSync(join(tmpdir(), 'chainvisor-poll-'));
  const port = await closedPort();
  const cfg = loadConfig({ env: { DAEMON_HOME: home, DAEMON_NAME: 'chaind', DAEMON_GRPC_ADDRESS: `127.0.0.1:${port}` } });
  const lines: string[] = [];
  const log = createLogger({ disabled: false, color: false, timeFormat: 'none', write: (l) => lines.push(l) });
  return { home, port, cfg, lines, log };
}

test('DAEMON_PREPARE_UPGRADE polling leaves no abort listener behind: the count stays flat over many polls (once one per poll, MaxListenersExceededWarning after 11)', async () => {
  const { home, cfg, lines, log } = await unreachableNode();
  try {
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
    // a node not answering for well under UNREACHABLE_QUIET_MS is one starting or stopping: nothing said
    assert.deepEqual(lines, [], 'a node briefly unreachable is not warned about');
  } finally {
    rmSync(home, { recursive: true, force: true });
  }
});

test('DAEMON_PREPARE_UPGRADE: a node that stays unreachable past the quiet period is said once, on one line with no empty "Resolution note:"', async () => {
  const { home, port, cfg, lines, log } = await unreachableNode();
  try {
    const ac = new AbortController();
    const polling = autoPrepare({ cfg, l: layout(home, 'chaind'), log, install: () => Promise.reject(new Error('not called')) }, ac.signal, 5, 100);
    await new Promise((r) => setTimeout(r, 400));
    ac.abort();
    await polling;
    assert.equal(lines.length, 1, lines.join(''));
    assert.match(
      lines[0],
      new RegExp(
        `^\\[chainvisor\\] WRN prepare-upgrade: the node's gRPC has not answered for [0-9.]+m?s \\(CurrentPlan query to 127\\.0\\.0\\.1:${port} failed: No connection established\\. Last error: connect ECONNREFUSED 127\\.0\\.0\\.1:${port}\\): no release is prepared ahead of the halt until it does; check DAEMON_GRPC_ADDRESS against app\\.toml \\[grpc\\] address$`,
      ),
    );
  } finally {
    rmSync(home, { recursive: true, force: true });
  }
});

test("grpc-js's failure text loses an empty resolution note, keeps one that says something", () => {
  assert.equal(
    grpcFailureText('No connection established. Last error: Error: connect ECONNREFUSED 127.0.0.1:9090. Resolution note: '),
    'No connection established. Last error: connect ECONNREFUSED 127.0.0.1:9090',
  );
  assert.equal(
    grpcFailureText('No addresses resolved. Resolution note: DNS lookup of node.invalid failed'),
    'No addresses resolved. Resolution note: DNS lookup of node.invalid failed',
  );
});

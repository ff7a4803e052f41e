// `npm run load`, bounded to a few seconds: a real node, two client processes, and the accounting of every
// tx CheckTx accepted (committed, or evicted with a reason; none lost) in the JSON report. Figures are not
// asserted: they depend on the machine (docs/reliability.md holds them).
import assert from 'node:assert/strict';
import { mkdtempSync, readFileSync, rmSync } from 'node:fs';
import { tmpdir } from 'node:os';
import { join } from 'node:path';
import { after, test } from 'node:test';
import { ROOT, runNode } from './kit/repo.ts';

interface Report {
  readonly reports: readonly {
    readonly mode: string;
    readonly accounting: {
      readonly accepted: number;
      readonly committed: number;
      readonly evicted: number;
      readonly pendingAfterDrain: number;
      readonly lost: number;
      readonly checkedByHash: number;
      readonly byHashMismatches: number;
    };
  }[];
}

const dir = mkdtempSync(join(tmpdir(), 'chaind-load-test-'));
after(() => rmSync(dir, { recursive: true, force: true }));

test('npm run load: every tx CheckTx accepted is accounted for, none lost', async () => {
  const out = join(dir, 'report.json');
  const args = [
    '--import',
    'tsx',
    join(ROOT, 'bench/load/index.ts'),
    '--seconds',
    '3',
    '--clients',
    '2',
    '--lanes',
    '8',
    '--rate',
    '400',
    '--mode',
    'send',
    '--no-profile',
    '--out',
    out,
  ];
  const run = await runNode(args, { cwd: ROOT, timeoutMs: 120_000 });
  assert.equal(run.code, 0, run.out);
  const [r] = (JSON.parse(readFileSync(out, 'utf8')) as Report).reports;
  assert.equal(r.mode, 'send');
  const a = r.accounting;
  assert.ok(a.committed > 0, run.out);
  assert.equal(a.lost, 0, run.out);
  assert.equal(a.accepted, a.committed + a.evicted + a.pendingAfterDrain, run.out);
  assert.ok(a.checkedByHash > 0, run.out);
  assert.equal(a.byHashMismatches, 0, run.out);
});

// The governance steps of an upgrade test, as an operator types them: `tx upgrade software-upgrade`
// with the deposit, the validator's yes vote, then `query upgrade plan` until the plan is scheduled.
import assert from 'node:assert/strict';
import type { Run } from './cli.ts';

export interface GovUpgradeOptions {
  /** Runs the CLI (the binary and release the test runs) with these arguments. */
  readonly cli: (args: readonly string[]) => Promise<Run>;
  /** The node's RPC, for --node. */
  readonly node: string;
  /** The home holding the test keyring with `validator` (and `from`). */
  readonly home: string;
  readonly name: string;
  readonly height: bigint | number;
  /** The proposal's id: the chain's count of proposals so far plus one. */
  readonly proposal: number;
  /** --upgrade-info; without it the proposal carries none (--no-validate). */
  readonly info?: string;
  /** The proposer (default `validator`). */
  readonly from?: string;
  /** How long to wait for the plan after the vote (default 60 s). */
  readonly waitMs?: number;
  /** What to add to a failure's message (e.g. the node's last log lines). */
  readonly context?: () => string;
}

/** Proposes upgrade `name` at `height`, votes yes as `validator`, and resolves once `query upgrade plan` names it. */
export async function proposeAndPassUpgrade(o: GovUpgradeOptions): Promise<void> {
  const context = (): string => (o.context === undefined ? '' : `\n${o.context()}`);
  const flags = ['--home', o.home, '--keyring-backend', 'test', '--node', o.node, '-y', '--broadcast-mode', 'commit'];
  const info = o.info === undefined ? ['--no-validate'] : ['--upgrade-info', o.info, '--allow-loopback-http'];
  const submit = await o.cli([
    'tx',
    'upgrade',
    'software-upgrade',
    o.name,
    '--upgrade-height',
    String(o.height),
    ...info,
    '--title',
    o.name,
    '--summary',
    `to ${o.name}`,
    '--deposit',
    '10000000stake',
    '--from',
    o.from ?? 'validator',
    '--gas',
    'auto',
    ...flags,
  ]);
  assert.equal(submit.code, 0, `${submit.stderr}${context()}`);
  const vote = await o.cli(['tx', 'gov', 'vote', String(o.proposal), 'yes', '--from', 'validator', ...flags]);
  assert.equal(vote.code, 0, `${vote.stderr}${context()}`);
  for (const end = Date.now() + (o.waitMs ?? 60_000); Date.now() < end; await new Promise((r) => setTimeout(r, 300))) {
    const q = await o.cli(['query', 'upgrade', 'plan', '-o', 'json', '--node', o.node]);
    if (q.code === 0 && (JSON.parse(q.stdout) as { name?: string }).name === o.name) return;
  }
  assert.fail(`the ${o.name} plan was not scheduled${context()}`);
}

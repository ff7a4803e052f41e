// The governance steps of an upgrade test, as an operator types them: `tx upgrade software-upgrade`
// with the deposit, the validator's yes vote, then `query upgrade plan` once the plan is scheduled.
// Broadcast in commit mode (a dev node), or in sync mode (CometBFT) waiting for the proposal before the vote.
// Every upgrade test takes them from here, the root ones (test/kit/visor-chain.ts) included.
// The waits poll the node's JSON-RPC from this process: a CLI run per poll cost a node start each.
import assert from 'node:assert/strict';
import { writeFileSync } from 'node:fs';
import { join } from 'node:path';
import { ProposalStatus } from 'cosmjs-types/cosmos/gov/v1/gov';
import { QueryProposalRequest, QueryProposalResponse } from 'cosmjs-types/cosmos/gov/v1/query';
import { QueryCurrentPlanRequest, QueryCurrentPlanResponse } from '@chaind/sdk/gen/chain/upgrade/v1beta1/query';
import { errorMessage } from '@chaind/errors';
import { RpcClient } from '../../src/cli/query/rpc.ts';
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
  /** Who votes yes (default `validator`). */
  readonly voter?: string;
  /** --gas of both txs (default: `auto` for the proposal, the CLI's default for the vote). */
  readonly gas?: string;
  /** --broadcast-mode (default commit); in sync mode the vote waits for the proposal's voting period. */
  readonly broadcastMode?: 'commit' | 'sync';
  /** --summary (default `to <name>`). */
  readonly summary?: string;
  /** More flags for both txs (e.g. fees). */
  readonly txFlags?: readonly string[];
  /** How long to wait for the plan after the vote (default 60 s). */
  readonly waitMs?: number;
  /** What to add to a failure's message (e.g. the node's last log lines). */
  readonly context?: () => string;
}

const contextOf = (o: GovUpgradeOptions): string => (o.context === undefined ? '' : `\n${o.context()}`);
const txFlags = (o: GovUpgradeOptions): string[] => [
  '--home',
  o.home,
  '--keyring-backend',
  'test',
  '--node',
  o.node,
  '-y',
  '--broadcast-mode',
  o.broadcastMode ?? 'commit',
  ...(o.gas === undefined ? [] : ['--gas', o.gas]),
  ...(o.txFlags ?? []),
];

/** The tx's own result code in the CLI's JSON output (0: accepted, in sync mode by CheckTx). */
function assertTxOk(r: Run, what: string, o: GovUpgradeOptions): void {
  assert.equal(r.code, 0, `${what}: ${r.stderr}${contextOf(o)}`);
  assert.equal((JSON.parse(r.stdout) as { code: number }).code, 0, `${what}: ${r.stdout}${contextOf(o)}`);
}

/** Submits the software-upgrade proposal with its deposit (`extra` flags appended); the CLI's run, for the test to judge. */
export function submitUpgradeProposal(o: GovUpgradeOptions, extra: readonly string[] = []): Promise<Run> {
  const info = o.info === undefined ? ['--no-validate'] : ['--upgrade-info', o.info, '--allow-loopback-http'];
  return o.cli([
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
    o.summary ?? `to ${o.name}`,
    '--deposit',
    '10000000stake',
    '--from',
    o.from ?? 'validator',
    ...(o.gas === undefined ? ['--gas', 'auto'] : []),
    ...txFlags(o),
    ...extra,
  ]);
}

/** Submits the proposal and asserts it was accepted; in sync mode, waits until it is in its voting period. */
export async function proposeUpgrade(o: GovUpgradeOptions): Promise<void> {
  assertTxOk(await submitUpgradeProposal(o), 'the proposal', o);
  await waitForVotingPeriod(o);
}

/**
 * Submits a proposal of `messages` (proto JSON with "@type", as `tx gov submit-proposal` reads them) titled after
 * the upgrade, with the deposit, from a file in the home; asserts it was accepted and, in sync mode, waits for its voting period.
 */
export async function proposeMessages(o: GovUpgradeOptions, messages: readonly Record<string, unknown>[]): Promise<void> {
  const file = join(o.home, `proposal-${o.proposal}.json`);
  writeFileSync(file, JSON.stringify({ messages, deposit: '10000000stake', title: o.name, summary: o.summary ?? `to ${o.name}` }));
  assertTxOk(
    await o.cli(['tx', 'gov', 'submit-proposal', file, '--from', o.from ?? 'validator', ...(o.gas === undefined ? ['--gas', 'auto'] : []), ...txFlags(o)]),
    'the proposal',
    o,
  );
  await waitForVotingPeriod(o);
}

async function waitForVotingPeriod(o: GovUpgradeOptions): Promise<void> {
  if (o.broadcastMode !== 'sync') return;
  const rpc = new RpcClient(o.node);
  const req = QueryProposalRequest.encode({ proposalId: BigInt(o.proposal) }).finish();
  let last = '';
  for (const end = Date.now() + 30_000; ; await new Promise((r) => setTimeout(r, 300))) {
    try {
      const status = QueryProposalResponse.decode(await rpc.abciQuery('/cosmos.gov.v1.Query/Proposal', req)).proposal?.status;
      if (status === ProposalStatus.PROPOSAL_STATUS_VOTING_PERIOD) return;
      last = `status ${String(status)}`;
    } catch (e) {
      last = errorMessage(e); // not in a block yet: the query says the proposal does not exist
    }
    if (Date.now() > end) assert.fail(`proposal ${o.proposal} is not in its voting period: ${last}${contextOf(o)}`);
  }
}

/** `voter` votes yes on the proposal; the tx must be accepted. */
export async function voteYes(o: GovUpgradeOptions): Promise<void> {
  assertTxOk(await o.cli(['tx', 'gov', 'vote', String(o.proposal), 'yes', '--from', o.voter ?? 'validator', ...txFlags(o)]), 'the vote', o);
}

/** Resolves once the node's plan is the upgrade, and `query upgrade plan` says so; fails after `waitMs`. */
export async function waitForPlan(o: GovUpgradeOptions): Promise<void> {
  const rpc = new RpcClient(o.node);
  const req = QueryCurrentPlanRequest.encode({}).finish();
  const scheduled = async (): Promise<boolean> => {
    try {
      return QueryCurrentPlanResponse.decode(await rpc.abciQuery('/chain.upgrade.v1beta1.Query/CurrentPlan', req)).plan?.name === o.name;
    } catch {
      return false; // a node restarting, or between blocks: asked again
    }
  };
  for (const end = Date.now() + (o.waitMs ?? 60_000); Date.now() < end; await new Promise((r) => setTimeout(r, 300))) {
    if (!(await scheduled())) continue;
    const q = await o.cli(['query', 'upgrade', 'plan', '-o', 'json', '--node', o.node]);
    assert.equal(q.code, 0, `query upgrade plan: ${q.stderr}${contextOf(o)}`);
    assert.equal((JSON.parse(q.stdout) as { name?: string }).name, o.name, `query upgrade plan: ${q.stdout}${contextOf(o)}`);
    return;
  }
  assert.fail(`the ${o.name} plan was not scheduled${contextOf(o)}`);
}

/** Votes yes on the proposal as `voter` and resolves once `query upgrade plan` names the upgrade. */
export async function voteAndWaitForPlan(o: GovUpgradeOptions): Promise<void> {
  await voteYes(o);
  await waitForPlan(o);
}

/** Proposes upgrade `name` at `height`, votes yes as `voter`, and resolves once `query upgrade plan` names it. */
export async function proposeAndPassUpgrade(o: GovUpgradeOptions): Promise<void> {
  await proposeUpgrade(o);
  await voteAndWaitForPlan(o);
}

// Gov's EndBlock (the SDK's x/gov/abci.go): proposals whose deposit period ended short of min_deposit
// are dropped, those whose voting period ended are tallied, and the passed ones' messages executed.
import { ProposalStatus, proposalStatusToJSON, type Proposal } from 'cosmjs-types/cosmos/gov/v1/gov';
import type { Context } from '../../app/context.ts';
import { CodedError, errorMessage } from '../../app/errors.ts';
import { readU64be } from '../../store/index.ts';
import { coinsToString, fromProtoCoins } from '../../types/coins.ts';
import { settleDeposits } from './deposits.ts';
import type { GovKeeper } from './keeper.ts';
import { ACTIVE_QUEUE_PREFIX, MODULE_NAME, INACTIVE_QUEUE_PREFIX, queueEndAt } from './keys.ts';
import { deleteProposal, getProposal, setProposal } from './proposals.ts';
import { tallyProposal } from './tally.ts';
import { deleteVotes } from './votes.ts';

/** Queue entries at or before the block time, collected before any of them is processed. */
function due(ctx: Context, k: GovKeeper, prefix: Uint8Array): { key: Uint8Array; id: bigint }[] {
  return [...k.store(ctx).iterator(prefix, queueEndAt(prefix, ctx.header.time))].map((e) => ({ key: e.key, id: readU64be(e.value) }));
}

/**
 * EndBlock: drops proposals whose deposit period ended short of min_deposit (refunding), then
 * tallies those whose voting period ended, in (end time, id) order, and executes the passed ones.
 */
export function endBlocker(ctx: Context, k: GovKeeper): void {
  const params = k.getParsedParams(ctx);
  for (const { key, id } of due(ctx, k, INACTIVE_QUEUE_PREFIX)) {
    k.store(ctx).delete(key);
    const proposal = getProposal(ctx, k, id);
    if (proposal === undefined) continue;
    deleteProposal(ctx, k, id);
    settleDeposits(ctx, k, id, params.burnProposalDepositPrevote);
    ctx.events.emit('inactive_proposal', [
      ['proposal_id', id.toString()],
      ['proposal_result', 'proposal_dropped'],
    ]);
    ctx.logger.info('proposal did not meet minimum deposit; deleted', {
      module: MODULE_NAME,
      proposal: id.toString(),
      title: proposal.title,
      min_deposit: coinsToString(params.minDeposit),
      total_deposit: coinsToString(fromProtoCoins(proposal.totalDeposit)),
    });
  }
  for (const { key, id } of due(ctx, k, ACTIVE_QUEUE_PREFIX)) {
    k.store(ctx).delete(key);
    const proposal = getProposal(ctx, k, id);
    if (proposal === undefined || proposal.status !== ProposalStatus.PROPOSAL_STATUS_VOTING_PERIOD) continue;
    finishVoting(ctx, k, proposal);
  }
}

function finishVoting(ctx: Context, k: GovKeeper, proposal: Proposal): void {
  const id = proposal.id;
  const outcome = tallyProposal(ctx, k, proposal);
  deleteVotes(ctx, k, id);
  settleDeposits(ctx, k, id, outcome.burnDeposits);
  let status: ProposalStatus;
  let failedReason = '';
  let result: string;
  let logMsg: string;
  if (outcome.passes) {
    const run = execute(ctx, k, proposal);
    if (run === undefined) {
      status = ProposalStatus.PROPOSAL_STATUS_PASSED;
      result = 'proposal_passed';
      logMsg = 'passed';
    } else {
      status = ProposalStatus.PROPOSAL_STATUS_FAILED;
      failedReason = run.error;
      result = 'proposal_failed';
      logMsg = `passed, but msg ${run.index} (${run.typeUrl}) failed on execution: ${run.error}`;
      if (run.detail !== undefined) {
        ctx.logger.error('proposal message threw', {
          module: MODULE_NAME,
          proposal: id.toString(),
          msg: String(run.index),
          type_url: run.typeUrl,
          error: run.detail,
        });
      }
    }
  } else {
    status = ProposalStatus.PROPOSAL_STATUS_REJECTED;
    failedReason = 'proposal did not get enough votes to pass';
    result = 'proposal_rejected';
    logMsg = 'rejected';
  }
  // re-read: a message of the proposal may have touched it (a deposit, say)
  const latest = getProposal(ctx, k, id) ?? proposal;
  setProposal(ctx, k, { ...latest, status, failedReason, finalTallyResult: outcome.result });
  ctx.logger.info('proposal tallied', {
    module: MODULE_NAME,
    proposal: id.toString(),
    status: proposalStatusToJSON(status),
    title: proposal.title,
    results: logMsg,
  });
  ctx.events.emit('active_proposal', [
    ['proposal_id', id.toString()],
    ['proposal_result', result],
    ['proposal_log', logMsg],
  ]);
}

/** failed_reason for a message that threw something other than a registered error. */
export const MSG_EXECUTION_FAILED = 'proposal message execution failed';

/**
 * Runs a passed proposal's messages in order through the router, all in one branch of the block:
 * written only if every one succeeds. Returns the first failure, undefined on success. `error`
 * goes into state, so it is a registered error's text or a fixed one: a runtime exception's
 * message can differ between Node versions and would split the app hash; it goes in `detail`, for the log.
 */
function execute(ctx: Context, k: GovKeeper, proposal: Proposal): { index: number; typeUrl: string; error: string; detail?: string } | undefined {
  const router = k.msgRouter;
  const b = ctx.branch();
  for (const [index, any] of proposal.messages.entries()) {
    try {
      const { route, msg } = router.decode(any);
      router.execute(b.ctx, route, msg);
    } catch (e) {
      if (e instanceof CodedError) return { index, typeUrl: any.typeUrl, error: e.message };
      return { index, typeUrl: any.typeUrl, error: MSG_EXECUTION_FAILED, detail: errorMessage(e) };
    }
  }
  b.write();
  return undefined;
}

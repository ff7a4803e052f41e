// `chaind tx upgrade software-upgrade|cancel-software-upgrade`: a gov v1 MsgSubmitProposal carrying the
// upgrade module's MsgSoftwareUpgrade or MsgCancelUpgrade, authority = the gov module account (spec §4.3;
// Cosmos SDK x/upgrade client/cli, reference §7).
import type { Command } from 'commander';
import { QueryParamsRequest, QueryParamsResponse } from 'cosmjs-types/cosmos/gov/v1/query';
import { MsgSubmitProposal } from 'cosmjs-types/cosmos/gov/v1/tx';
import type { Duration } from 'cosmjs-types/google/protobuf/duration';
import { moduleAddress } from '@chaind/sdk/crypto';
import { MsgCancelUpgrade, MsgSoftwareUpgrade } from '@chaind/sdk/gen/chain/upgrade/v1beta1/tx';
import { MSG_CANCEL_UPGRADE, MSG_SOFTWARE_UPGRADE, minCancellableUpgradeHeight, validatePlanName } from '@chaind/sdk/x/upgrade';
import { printErrLine, UserError } from '../common.ts';
import type { RpcClient } from '../query/rpc.ts';
import { addressArg, addTxOptions, coinsArg, latestHeight, runTx, type TxMsg, type TxOptions } from './client.ts';
import { checkUpgradeInfo } from './upgrade-info.ts';
import { errorMessage } from '@chaind/errors';

/**
 * The block interval assumed to turn the gov periods into blocks for the cancel-window warning: the chain
 * does not publish its block time, so 1 s (CometBFT's default timeout_commit scale) is assumed.
 */
export const ASSUMED_BLOCK_INTERVAL_MS = 1000n;

const durationMs = (d: Duration | undefined): bigint => (d === undefined ? 0n : d.seconds * 1000n + BigInt(Math.floor(d.nanos / 1e6)));

/**
 * Warns on stderr when the upgrade height leaves no time to cancel it (spec §3 rule 2), and says what
 * the chain does with a near height: the SDK's rule, a plan below the block executing the proposal is refused.
 */
async function warnIfNotCancellable(rpc: RpcClient, height: bigint): Promise<void> {
  const params = async (paramsType: string): Promise<QueryParamsResponse> =>
    QueryParamsResponse.decode(await rpc.abciQuery('/cosmos.gov.v1.Query/Params', QueryParamsRequest.encode({ paramsType }).finish()));
  const voting = await params('voting');
  const deposit = await params('deposit');
  const min = minCancellableUpgradeHeight({
    proposalStartHeight: await latestHeight(rpc),
    votingPeriodMs: durationMs(voting.params?.votingPeriod ?? voting.votingParams?.votingPeriod),
    depositPeriodMs: durationMs(deposit.params?.maxDepositPeriod ?? deposit.depositParams?.maxDepositPeriod),
    safetyDeltaMs: 0n,
    blockIntervalMs: ASSUMED_BLOCK_INTERVAL_MS,
  });
  if (height < min) {
    // the height once: naming H and H + 1 (where a proposal passing in block H itself runs it) read as two heights
    printErrLine(
      `WARNING: upgrade height ${height} is too close to be cancelled by governance, which would need until height ${min} (2 × (voting period + deposit period) from now, assuming ${ASSUMED_BLOCK_INTERVAL_MS} ms blocks); ` +
        `this proposal itself fails unless it passes by block ${height} (upgrade cannot be scheduled in the past)`,
    );
  }
}

interface ProposalOptions extends TxOptions {
  title?: string;
  summary: string;
  deposit?: string;
  metadata: string;
  expedited?: boolean;
  authority?: string;
}

interface SoftwareUpgradeOptions extends ProposalOptions {
  upgradeHeight?: string;
  upgradeInfo: string;
  validate: boolean;
  checksumRequired: boolean;
  allowLoopbackHttp?: boolean;
  daemonName: string;
}

function addProposalOptions(cmd: Command): Command {
  return addTxOptions(
    cmd
      .option('--title <text>', 'the proposal title (required)')
      .option('--summary <text>', 'the proposal summary', '')
      .option('--deposit <coins>', 'the deposit of the proposal, e.g. 10000000stake')
      .option('--metadata <text>', 'the proposal metadata', '')
      .option('--expedited', 'an expedited proposal')
      .option('--authority <address>', 'the authority of the upgrade message (default: the gov module account)'),
  );
}

function proposal(o: ProposalOptions, content: TxMsg): (proposer: string) => TxMsg[] {
  if (o.title === undefined || o.title.trim() === '') throw new UserError('--title is required');
  const initialDeposit = coinsArg(o.deposit, '--deposit');
  return (proposer) => [
    {
      any: {
        typeUrl: '/cosmos.gov.v1.MsgSubmitProposal',
        value: MsgSubmitProposal.encode({
          messages: [content.any],
          initialDeposit,
          proposer,
          metadata: o.metadata,
          title: o.title ?? '',
          summary: o.summary,
          expedited: o.expedited === true,
        }).finish(),
      },
      json: {
        messages: [{ '@type': content.any.typeUrl, ...content.json }],
        initial_deposit: initialDeposit,
        proposer,
        metadata: o.metadata,
        title: o.title,
        summary: o.summary,
        expedited: o.expedited === true,
      },
    },
  ];
}

const authorityOf = (o: ProposalOptions): string => (o.authority !== undefined ? addressArg(o.authority, '--authority') : moduleAddress('gov'));

export function registerUpgradeTxCommands(tx: Command): void {
  const upgrade = tx.command('upgrade').description('upgrade transaction subcommands (governance proposals)');

  addProposalOptions(
    upgrade
      .command('software-upgrade')
      .alias('software-proposal')
      .description('submit a governance proposal to schedule a software upgrade')
      .argument('<name>', 'the upgrade (plan) name')
      .option('--upgrade-height <height>', 'the height at which the upgrade must happen (required)')
      .option('--upgrade-info <info>', 'the plan info: JSON {"binaries":{"os/arch":"url?checksum=sha256:…"}} or a URL', '')
      .option('--no-validate', 'skip the checks of --upgrade-info (which fetch it when it is a URL and download every binary)')
      .option('--no-checksum-required', 'accept binaries URLs without a checksum')
      .option(
        '--allow-loopback-http',
        'accept plain http from a loopback host and redirects to loopback or private addresses (a local mirror; chainvisor: DAEMON_ALLOW_LOOPBACK_HTTP)',
      )
      .option(
        '--daemon-name <name>',
        'the executable every binaries archive must hold, as bin/<name> or <name> ($DAEMON_NAME)',
        process.env.DAEMON_NAME || 'chaind',
      ),
  ).action(async (name: string, o: SoftwareUpgradeOptions) => {
    try {
      validatePlanName(name);
    } catch (e) {
      throw new UserError(`invalid upgrade name: ${errorMessage(e)}`);
    }
    const h = o.upgradeHeight;
    if (h === undefined) throw new UserError('--upgrade-height is required');
    if (!/^\d+$/.test(h.trim()) || BigInt(h.trim()) <= 0n) throw new UserError(`invalid --upgrade-height ${JSON.stringify(h)}: expected a height > 0`);
    const height = BigInt(h.trim());
    const authority = authorityOf(o);
    const plan = { name, height, info: o.upgradeInfo, time: undefined, upgradedClientState: undefined };
    const msgs = proposal(o, {
      any: { typeUrl: MSG_SOFTWARE_UPGRADE, value: MsgSoftwareUpgrade.encode({ authority, plan }).finish() },
      json: { authority, plan: { name, height: height.toString(), info: o.upgradeInfo } },
    });
    // the flags are checked first: the info check downloads every binary
    if (o.validate)
      await checkUpgradeInfo(o.upgradeInfo, {
        daemonName: o.daemonName,
        checksumRequired: o.checksumRequired,
        allowLoopbackHttp: o.allowLoopbackHttp === true,
      });
    await runTx(o, msgs, (rpc) => warnIfNotCancellable(rpc, height));
  });

  addProposalOptions(upgrade.command('cancel-software-upgrade').description('submit a governance proposal to cancel the scheduled software upgrade')).action(
    async (o: ProposalOptions) => {
      const authority = authorityOf(o);
      const msgs = proposal(o, {
        any: { typeUrl: MSG_CANCEL_UPGRADE, value: MsgCancelUpgrade.encode({ authority }).finish() },
        json: { authority },
      });
      await runTx(o, msgs);
    },
  );
}

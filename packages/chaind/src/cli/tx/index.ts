// `chaind tx …`: build, sign (SIGN_MODE_DIRECT, a key of the keyring) and broadcast txs over the node's
// JSON-RPC, as the Cosmos SDK CLI: `tx bank send`, `tx gov vote`, `tx upgrade software-upgrade|cancel-software-upgrade`.
import type { Command } from 'commander';
import { MsgSend } from 'cosmjs-types/cosmos/bank/v1beta1/tx';
import { VoteOption } from 'cosmjs-types/cosmos/gov/v1/gov';
import { MsgVote } from 'cosmjs-types/cosmos/gov/v1/tx';
import { UserError } from '../common.ts';
import { addressArg, addTxOptions, coinsArg, runTx, type TxOptions } from './client.ts';
import { registerUpgradeTxCommands } from './upgrade.ts';

const VOTE_OPTIONS: Readonly<Record<string, { option: VoteOption; json: string }>> = {
  yes: { option: VoteOption.VOTE_OPTION_YES, json: 'VOTE_OPTION_YES' },
  abstain: { option: VoteOption.VOTE_OPTION_ABSTAIN, json: 'VOTE_OPTION_ABSTAIN' },
  no: { option: VoteOption.VOTE_OPTION_NO, json: 'VOTE_OPTION_NO' },
  no_with_veto: { option: VoteOption.VOTE_OPTION_NO_WITH_VETO, json: 'VOTE_OPTION_NO_WITH_VETO' },
};

export function registerTxCommands(program: Command): void {
  const tx = program.command('tx').description('transaction subcommands (signed with a keyring key, broadcast over the node\'s JSON-RPC)');

  const bank = tx.command('bank').description('bank transaction subcommands');
  addTxOptions(
    bank
      .command('send')
      .description('send coins from one account to another')
      .argument('<from>', 'the sending key (name or address); it signs the tx')
      .argument('<to>', 'the receiving address')
      .argument('<amount>', 'the coins to send, e.g. 1000stake'),
    false,
  ).action(async (from: string, to: string, amount: string, o: TxOptions) => {
    addressArg(to, 'to address');
    const coins = coinsArg(amount, 'amount');
    if (coins.length === 0) throw new UserError('amount must not be empty');
    await runTx({ ...o, from }, (signer) => [
      {
        any: { typeUrl: '/cosmos.bank.v1beta1.MsgSend', value: MsgSend.encode({ fromAddress: signer, toAddress: to, amount: coins }).finish() },
        json: { from_address: signer, to_address: to, amount: coins },
      },
    ]);
  });

  const gov = tx.command('gov').description('governance transaction subcommands');
  addTxOptions(
    gov
      .command('vote')
      .description('vote on an active proposal')
      .argument('<proposal-id>', 'the proposal id')
      .argument('<option>', 'yes, no, abstain or no_with_veto')
      .option('--metadata <text>', 'metadata of the vote', ''),
  ).action(async (id: string, option: string, o: TxOptions & { metadata: string }) => {
    if (!/^\d+$/.test(id)) throw new UserError(`invalid proposal id ${JSON.stringify(id)}: expected a non-negative integer`);
    const vote = VOTE_OPTIONS[option.toLowerCase()];
    if (vote === undefined) throw new UserError(`invalid vote option ${JSON.stringify(option)}: expected yes, no, abstain or no_with_veto`);
    const proposalId = BigInt(id);
    await runTx(o, (voter) => [
      {
        any: { typeUrl: '/cosmos.gov.v1.MsgVote', value: MsgVote.encode({ proposalId, voter, option: vote.option, metadata: o.metadata }).finish() },
        json: { proposal_id: id, voter, option: vote.json, metadata: o.metadata },
      },
    ]);
  });

  registerUpgradeTxCommands(tx);
}

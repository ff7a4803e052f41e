// `chaind tx gov …` as the Cosmos SDK v0.50 CLI: submit-proposal <file.json>, deposit, vote and
// weighted-vote, each one gov v1 message signed by --from.
import { readFile } from 'node:fs/promises';
import type { JsonValue } from '@bufbuild/protobuf';
import type { Command } from 'commander';
import { VoteOption, voteOptionToJSON, type WeightedVoteOption } from 'cosmjs-types/cosmos/gov/v1/gov';
import { MsgDeposit, MsgSubmitProposal, MsgVote, MsgVoteWeighted } from 'cosmjs-types/cosmos/gov/v1/tx';
import { decToString, parseDec } from '@chaind/sdk/types';
import { validateVoteOptions } from '@chaind/sdk/x/gov';
import { UserError } from '../common.ts';
import { msgFromJSON } from '../query/gateway.ts';
import { proposalIdArg } from '../query/modules.ts';
import { addTxOptions, coinsArg, runTx, type TxOptions } from './client.ts';
import { errorMessage, errnoCode } from '@chaind/errors';

const OPTIONS: Readonly<Record<string, VoteOption>> = {
  yes: VoteOption.VOTE_OPTION_YES,
  abstain: VoteOption.VOTE_OPTION_ABSTAIN,
  no: VoteOption.VOTE_OPTION_NO,
  no_with_veto: VoteOption.VOTE_OPTION_NO_WITH_VETO,
};

/** A vote option as the SDK's VoteOptionFromString: yes, no, abstain, no_with_veto, or VOTE_OPTION_YES, … */
export function voteOptionArg(s: string): VoteOption {
  const option = OPTIONS[s.toLowerCase().replace(/^vote_option_/, '')];
  if (option === undefined) throw new UserError(`invalid vote option ${JSON.stringify(s)}: expected yes, no, abstain or no_with_veto`);
  return option;
}

/** "yes=0.6,no=0.4" → weighted options, each weight a decimal, together exactly 1 (checked as the chain does). */
export function weightedOptionsArg(s: string): WeightedVoteOption[] {
  const options = s.split(',').map((part) => {
    const m = /^\s*([A-Za-z_]+)\s*=\s*(\S+)\s*$/.exec(part);
    if (m === null)
      throw new UserError(`invalid weighted vote options ${JSON.stringify(s)}: expected option=weight pairs separated by commas, e.g. yes=0.6,no=0.4`);
    let weight: bigint;
    try {
      weight = parseDec(m[2]);
    } catch (e) {
      throw new UserError(`invalid weight ${JSON.stringify(m[2])} for ${m[1]}: ${errorMessage(e)}`);
    }
    return { option: voteOptionArg(m[1]), weight: decToString(weight) };
  });
  try {
    return validateVoteOptions(options);
  } catch (e) {
    throw new UserError(`invalid weighted vote options ${JSON.stringify(s)}: ${errorMessage(e)}`);
  }
}

const PROPOSAL_KEYS = ['messages', 'metadata', 'deposit', 'title', 'summary', 'expedited'];

export interface ProposalFile {
  messages: { typeUrl: string; value: Uint8Array }[];
  messagesJSON: JsonValue[];
  metadata: string;
  deposit: { denom: string; amount: string }[];
  title: string;
  summary: string;
  expedited: boolean;
}

/** The SDK v0.50 proposal file: {"messages": [{"@type", …}], "metadata", "deposit", "title", "summary", "expedited"?}. */
export function parseProposalFile(text: string, file: string): ProposalFile {
  let v: unknown;
  try {
    v = JSON.parse(text);
  } catch (e) {
    throw new UserError(`invalid proposal file ${file}: not JSON: ${errorMessage(e)}`);
  }
  if (typeof v !== 'object' || v === null || Array.isArray(v)) throw new UserError(`invalid proposal file ${file}: expected a JSON object`);
  const o = v as Record<string, JsonValue>;
  const unknown = Object.keys(o).filter((k) => !PROPOSAL_KEYS.includes(k));
  if (unknown.length > 0)
    throw new UserError(`invalid proposal file ${file}: unknown field ${JSON.stringify(unknown[0])}; expected ${PROPOSAL_KEYS.join(', ')}`);
  const str = (k: string): string => {
    const x = o[k] ?? '';
    if (typeof x !== 'string') throw new UserError(`invalid proposal file ${file}: "${k}" must be a string`);
    return x;
  };
  const messages = o.messages ?? [];
  if (!Array.isArray(messages)) throw new UserError(`invalid proposal file ${file}: "messages" must be an array`);
  const expedited = o.expedited ?? false;
  if (typeof expedited !== 'boolean') throw new UserError(`invalid proposal file ${file}: "expedited" must be true or false`);
  const title = str('title');
  if (title.trim() === '') throw new UserError(`invalid proposal file ${file}: "title" is required`);
  return {
    messages: messages.map((m, i) => msgFromJSON(m, `invalid proposal file ${file}: messages[${i}]`)),
    messagesJSON: messages,
    metadata: str('metadata'),
    deposit: coinsArg(str('deposit'), `deposit in ${file}`),
    title,
    summary: str('summary'),
    expedited,
  };
}

export function registerGovTxCommands(tx: Command): void {
  const gov = tx.command('gov').description('governance transaction subcommands');

  addTxOptions(
    gov
      .command('submit-proposal')
      .description('submit a proposal from a JSON file: {"messages":[{"@type":"/…", …}], "metadata", "deposit":"10stake", "title", "summary", "expedited"}')
      .argument('<proposal-file>', 'the proposal JSON file'),
  ).action(async (file: string, o: TxOptions) => {
    let text: string;
    try {
      text = await readFile(file, 'utf8');
    } catch (e) {
      throw new UserError(`cannot read proposal file ${file}: ${errnoCode(e) === 'ENOENT' ? 'no such file' : errorMessage(e)}`);
    }
    const p = parseProposalFile(text, file);
    await runTx(o, (proposer) => [
      {
        any: {
          typeUrl: '/cosmos.gov.v1.MsgSubmitProposal',
          value: MsgSubmitProposal.encode({
            messages: p.messages,
            initialDeposit: p.deposit,
            proposer,
            metadata: p.metadata,
            title: p.title,
            summary: p.summary,
            expedited: p.expedited,
          }).finish(),
        },
        json: {
          messages: p.messagesJSON,
          initial_deposit: p.deposit,
          proposer,
          metadata: p.metadata,
          title: p.title,
          summary: p.summary,
          expedited: p.expedited,
        },
      },
    ]);
  });

  addTxOptions(
    gov
      .command('deposit')
      .description('deposit coins on a proposal in its deposit period')
      .argument('<proposal-id>', 'the proposal id')
      .argument('<deposit>', 'the coins to deposit, e.g. 10000000stake'),
  ).action(async (id: string, deposit: string, o: TxOptions) => {
    const proposalId = BigInt(proposalIdArg(id));
    const amount = coinsArg(deposit, 'deposit');
    if (amount.length === 0) throw new UserError('deposit must not be empty');
    await runTx(o, (depositor) => [
      {
        any: { typeUrl: '/cosmos.gov.v1.MsgDeposit', value: MsgDeposit.encode({ proposalId, depositor, amount }).finish() },
        json: { proposal_id: id, depositor, amount },
      },
    ]);
  });

  addTxOptions(
    gov
      .command('vote')
      .description('vote on an active proposal')
      .argument('<proposal-id>', 'the proposal id')
      .argument('<option>', 'yes, no, abstain or no_with_veto')
      .option('--metadata <text>', 'metadata of the vote', ''),
  ).action(async (id: string, option: string, o: TxOptions & { metadata: string }) => {
    const proposalId = BigInt(proposalIdArg(id));
    const vote = voteOptionArg(option);
    await runTx(o, (voter) => [
      {
        any: { typeUrl: '/cosmos.gov.v1.MsgVote', value: MsgVote.encode({ proposalId, voter, option: vote, metadata: o.metadata }).finish() },
        json: { proposal_id: id, voter, option: voteOptionToJSON(vote), metadata: o.metadata },
      },
    ]);
  });

  addTxOptions(
    gov
      .command('weighted-vote')
      .description('vote on an active proposal with several options, each with a weight; the weights add up to 1')
      .argument('<proposal-id>', 'the proposal id')
      .argument('<weighted-options>', 'e.g. yes=0.6,no=0.3,abstain=0.1')
      .option('--metadata <text>', 'metadata of the vote', ''),
  ).action(async (id: string, weighted: string, o: TxOptions & { metadata: string }) => {
    const proposalId = BigInt(proposalIdArg(id));
    const options = weightedOptionsArg(weighted);
    await runTx(o, (voter) => [
      {
        any: { typeUrl: '/cosmos.gov.v1.MsgVoteWeighted', value: MsgVoteWeighted.encode({ proposalId, voter, options, metadata: o.metadata }).finish() },
        json: { proposal_id: id, voter, options: options.map((x) => ({ option: voteOptionToJSON(x.option), weight: x.weight })), metadata: o.metadata },
      },
    ]);
  });
}

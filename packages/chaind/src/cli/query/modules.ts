// `chaind query auth|bank|gov …`: the Cosmos SDK CLI's module queries, answered over abci_query and
// printed in gateway JSON (-o json) or its YAML-like text form (-o text, the default).
import type { JsonObject } from '@bufbuild/protobuf';
import type { Command } from 'commander';
import { UserError } from '../common.ts';
import { printOutput } from './format.ts';
import { addPageOptions, gatewayQuery, pageRequest, type PageOptions } from './gateway.ts';
import { addStateQueryOptions, heightArg, RpcClient, type HeightOptions } from './rpc.ts';

const AUTH = '/cosmos.auth.v1beta1.Query';
const BANK = '/cosmos.bank.v1beta1.Query';
const GOV = '/cosmos.gov.v1.Query';

/** A proposal id argument: a uint64 in decimal. */
export function proposalIdArg(id: string): string {
  if (!/^\d+$/.test(id) || BigInt(id) >= 2n ** 64n) throw new UserError(`invalid proposal id ${JSON.stringify(id)}: expected a non-negative integer`);
  return id;
}

/** --status as the SDK accepts it (NormalizeProposalStatus): deposit_period, DepositPeriod, PROPOSAL_STATUS_DEPOSIT_PERIOD, … */
export function proposalStatusArg(s: string): string {
  const key = s
    .replace(/^PROPOSAL_STATUS_/i, '')
    .replace(/[_\s-]/g, '')
    .toLowerCase();
  const status = { depositperiod: 'DEPOSIT_PERIOD', votingperiod: 'VOTING_PERIOD', passed: 'PASSED', rejected: 'REJECTED', failed: 'FAILED' }[key];
  if (status === undefined) throw new UserError(`invalid --status ${JSON.stringify(s)}: expected deposit_period, voting_period, passed, rejected or failed`);
  return `PROPOSAL_STATUS_${status}`;
}

/** tx/client.ts's address rule, loaded only by the queries that take an address: it brings the signing code. */
async function addressArg(address: string, what: string): Promise<string> {
  return (await import('../tx/client.ts')).addressArg(address, what);
}

async function run(o: HeightOptions, path: string, request: JsonObject): Promise<JsonObject> {
  return gatewayQuery(new RpcClient(o.node), path, request, heightArg(o));
}

function registerAuth(query: Command): void {
  const auth = query.command('auth').description('querying commands for the auth module');
  addStateQueryOptions(auth.command('account').description('query an account by its address').argument('<address>', 'the account address')).action(
    async (address: string, o: HeightOptions) => {
      await addressArg(address, 'address');
      printOutput(await run(o, `${AUTH}/Account`, { address }), o.output);
    },
  );
}

interface BalancesOptions extends HeightOptions, PageOptions {
  denom?: string;
}

function registerBank(query: Command): void {
  const bank = query.command('bank').description('querying commands for the bank module');
  addStateQueryOptions(
    addPageOptions(
      bank
        .command('balances')
        .description('query the balances of an account; with --denom, the balance of that denomination only')
        .argument('<address>', 'the account address')
        .option('--denom <denom>', 'the one denomination to query'),
      'all balances',
    ),
  ).action(async (address: string, o: BalancesOptions) => {
    await addressArg(address, 'address');
    if (o.denom !== undefined) {
      // as the SDK's --denom: the coin itself
      const res = await run(o, `${BANK}/Balance`, { address, denom: o.denom });
      printOutput(res.balance, o.output);
      return;
    }
    printOutput(await run(o, `${BANK}/AllBalances`, { address, pagination: pageRequest(o) }), o.output);
  });
}

interface ProposalsOptions extends HeightOptions, PageOptions {
  status?: string;
  voter?: string;
  depositor?: string;
}

function registerGov(query: Command): void {
  const gov = query.command('gov').description('querying commands for the governance module');

  addStateQueryOptions(gov.command('proposal').description('query the details of a proposal').argument('<proposal-id>', 'the proposal id')).action(
    async (id: string, o: HeightOptions) => {
      printOutput(await run(o, `${GOV}/Proposal`, { proposal_id: proposalIdArg(id) }), o.output);
    },
  );

  addStateQueryOptions(
    addPageOptions(
      gov
        .command('proposals')
        .description('query proposals, optionally filtered by status, voter and depositor')
        .option('--status <status>', 'deposit_period, voting_period, passed, rejected or failed')
        .option('--voter <address>', 'only proposals this address voted on')
        .option('--depositor <address>', 'only proposals this address deposited on'),
      'proposals',
    ),
  ).action(async (o: ProposalsOptions) => {
    const req: JsonObject = { pagination: pageRequest(o) };
    if (o.status !== undefined) req.proposal_status = proposalStatusArg(o.status);
    if (o.voter !== undefined) req.voter = await addressArg(o.voter, '--voter');
    if (o.depositor !== undefined) req.depositor = await addressArg(o.depositor, '--depositor');
    printOutput(await run(o, `${GOV}/Proposals`, req), o.output);
  });

  addStateQueryOptions(
    gov.command('tally').description('query the tally of a proposal (live while it is being voted on)').argument('<proposal-id>', 'the proposal id'),
  ).action(async (id: string, o: HeightOptions) => {
    printOutput(await run(o, `${GOV}/TallyResult`, { proposal_id: proposalIdArg(id) }), o.output);
  });

  addStateQueryOptions(
    addPageOptions(gov.command('votes').description('query the votes on a proposal').argument('<proposal-id>', 'the proposal id'), 'votes'),
  ).action(async (id: string, o: HeightOptions & PageOptions) => {
    printOutput(await run(o, `${GOV}/Votes`, { proposal_id: proposalIdArg(id), pagination: pageRequest(o) }), o.output);
  });

  addStateQueryOptions(
    gov
      .command('params')
      .description('query the parameters of the governance process; a params type (voting, tallying or deposit) also fills its legacy field')
      .argument('[params_type]', 'voting, tallying or deposit'),
  ).action(async (paramsType: string | undefined, o: HeightOptions) => {
    if (paramsType !== undefined && !['voting', 'tallying', 'deposit'].includes(paramsType)) {
      throw new UserError(`invalid params type ${JSON.stringify(paramsType)}: expected voting, tallying or deposit`);
    }
    printOutput(await run(o, `${GOV}/Params`, { params_type: paramsType ?? '' }), o.output);
  });
}

export function registerModuleQueries(query: Command): void {
  registerAuth(query);
  registerBank(query);
  registerGov(query);
}

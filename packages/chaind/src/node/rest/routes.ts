// The REST routes: each a GET path of the Cosmos SDK's gateway (or of spec §4.1 for the upgrade
// module) bound to the gRPC method it calls. Path parameters are named after request fields; any
// other request field can be set by a query parameter. Everything else is generic.
//
// The tx service's routes (TX_ROUTES) are not query methods: they call tx-service.ts, and two of them
// take the request as a JSON body (grpc-gateway's `body: "*"`).
export interface GatewayRoute {
  /** OpenAPI style: `/cosmos/gov/v1/proposals/{proposal_id}`. */
  readonly path: string;
  /** The gRPC method path the query router serves. */
  readonly method: string;
  readonly summary: string;
}

const UPGRADE = '/chain.upgrade.v1beta1.Query';
const AUTH = '/cosmos.auth.v1beta1.Query';
const BANK = '/cosmos.bank.v1beta1.Query';
const GOV = '/cosmos.gov.v1.Query';

export const GATEWAY_ROUTES: readonly GatewayRoute[] = [
  {
    path: '/chain/upgrade/v1beta1/current_plan',
    method: `${UPGRADE}/CurrentPlan`,
    summary: 'The currently scheduled upgrade plan ({"plan": null} when none).',
  },
  {
    path: '/chain/upgrade/v1beta1/applied_plan/{name}',
    method: `${UPGRADE}/AppliedPlan`,
    summary: 'The height at which the named plan was applied ("0" when never).',
  },
  {
    path: '/chain/upgrade/v1beta1/module_versions',
    method: `${UPGRADE}/ModuleVersions`,
    summary: 'Consensus versions of the modules; ?module_name= selects one (404 when unknown).',
  },
  { path: '/chain/upgrade/v1beta1/authority', method: `${UPGRADE}/Authority`, summary: 'The address allowed to schedule and cancel upgrades.' },
  {
    path: '/chain/upgrade/v1beta1/readiness',
    method: `${UPGRADE}/Readiness`,
    summary: "Voting power whose validators attested a prepared release for the scheduled plan, per validator (chaind's extension).",
  },
  {
    path: '/chain/upgrade/v1beta1/params',
    method: `${UPGRADE}/Params`,
    summary: "The upgrade module's parameters: the readiness gate (chaind's extension; readiness_threshold 0: off).",
  },
  {
    path: '/chain/upgrade/v1beta1/upgraded_consensus_state/{last_height}',
    method: `${UPGRADE}/UpgradedConsensusState`,
    summary: 'Deprecated (as in the Cosmos SDK): the upgraded IBC consensus state stored under last_height, base64 (404 when none).',
  },

  { path: '/cosmos/auth/v1beta1/accounts', method: `${AUTH}/Accounts`, summary: 'All accounts.' },
  { path: '/cosmos/auth/v1beta1/accounts/{address}', method: `${AUTH}/Account`, summary: 'An account by address.' },
  { path: '/cosmos/auth/v1beta1/account_info/{address}', method: `${AUTH}/AccountInfo`, summary: 'Account number, sequence and public key of an account.' },
  { path: '/cosmos/auth/v1beta1/address_by_id/{id}', method: `${AUTH}/AccountAddressByID`, summary: 'The address of an account number.' },
  { path: '/cosmos/auth/v1beta1/module_accounts', method: `${AUTH}/ModuleAccounts`, summary: 'All module accounts.' },
  { path: '/cosmos/auth/v1beta1/module_accounts/{name}', method: `${AUTH}/ModuleAccountByName`, summary: 'A module account by module name.' },
  { path: '/cosmos/auth/v1beta1/bech32', method: `${AUTH}/Bech32Prefix`, summary: 'The bech32 address prefix.' },
  { path: '/cosmos/auth/v1beta1/params', method: `${AUTH}/Params`, summary: 'The auth module parameters.' },

  { path: '/cosmos/bank/v1beta1/balances/{address}', method: `${BANK}/AllBalances`, summary: 'All balances of an address.' },
  { path: '/cosmos/bank/v1beta1/balances/{address}/by_denom', method: `${BANK}/Balance`, summary: 'The balance of an address in one denomination (?denom=).' },
  { path: '/cosmos/bank/v1beta1/spendable_balances/{address}', method: `${BANK}/SpendableBalances`, summary: 'The spendable balances of an address.' },
  {
    path: '/cosmos/bank/v1beta1/spendable_balances/{address}/by_denom',
    method: `${BANK}/SpendableBalanceByDenom`,
    summary: 'The spendable balance of an address in one denomination (?denom=).',
  },
  { path: '/cosmos/bank/v1beta1/supply', method: `${BANK}/TotalSupply`, summary: 'The total supply of every denomination.' },
  { path: '/cosmos/bank/v1beta1/supply/by_denom', method: `${BANK}/SupplyOf`, summary: 'The supply of one denomination (?denom=).' },
  { path: '/cosmos/bank/v1beta1/params', method: `${BANK}/Params`, summary: 'The bank module parameters.' },

  { path: '/cosmos/gov/v1/constitution', method: `${GOV}/Constitution`, summary: 'The chain constitution.' },
  { path: '/cosmos/gov/v1/params/{params_type}', method: `${GOV}/Params`, summary: 'Governance parameters (params_type: voting, tallying or deposit).' },
  { path: '/cosmos/gov/v1/proposals', method: `${GOV}/Proposals`, summary: 'Proposals, filtered by proposal_status, voter and depositor, paginated.' },
  { path: '/cosmos/gov/v1/proposals/{proposal_id}', method: `${GOV}/Proposal`, summary: 'A proposal by id.' },
  { path: '/cosmos/gov/v1/proposals/{proposal_id}/tally', method: `${GOV}/TallyResult`, summary: 'The tally of a proposal (live during voting).' },
  { path: '/cosmos/gov/v1/proposals/{proposal_id}/votes', method: `${GOV}/Votes`, summary: 'The votes on a proposal.' },
  { path: '/cosmos/gov/v1/proposals/{proposal_id}/votes/{voter}', method: `${GOV}/Vote`, summary: "A voter's vote on a proposal." },
  { path: '/cosmos/gov/v1/proposals/{proposal_id}/deposits', method: `${GOV}/Deposits`, summary: 'The deposits on a proposal.' },
  { path: '/cosmos/gov/v1/proposals/{proposal_id}/deposits/{depositor}', method: `${GOV}/Deposit`, summary: "A depositor's deposit on a proposal." },
];

const TX = '/cosmos.tx.v1beta1.Service';

export interface TxRoute extends GatewayRoute {
  readonly httpMethod: 'GET' | 'POST';
}

export const TX_ROUTES: readonly TxRoute[] = [
  {
    httpMethod: 'POST',
    path: '/cosmos/tx/v1beta1/txs',
    method: `${TX}/BroadcastTx`,
    summary: 'Broadcasts a signed tx: {"tx_bytes": <base64 TxRaw>, "mode": "BROADCAST_MODE_SYNC" (CheckTx result) or "BROADCAST_MODE_ASYNC" (hash only)}.',
  },
  {
    httpMethod: 'POST',
    path: '/cosmos/tx/v1beta1/simulate',
    method: `${TX}/Simulate`,
    summary: 'Runs a tx on the latest state without committing it: gas used and the result.',
  },
  {
    httpMethod: 'GET',
    path: '/cosmos/tx/v1beta1/txs/{hash}',
    method: `${TX}/GetTx`,
    summary: 'A committed tx by its hash (64 hex characters): the tx and its result.',
  },
];

/** `{name}` → `:name`, Fastify's syntax. */
export function fastifyPath(path: string): string {
  return path.replace(/\{([^}]+)\}/g, ':$1');
}

export function pathParamNames(path: string): string[] {
  return [...path.matchAll(/\{([^}]+)\}/g)].map((m) => m[1]);
}

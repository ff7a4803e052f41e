// `chaind query upgrade …`: the upgrade module's queries over the node's JSON-RPC abci_query
// (spec §4.3; Cosmos SDK x/upgrade client/cli behaviour).
import { Buffer } from 'node:buffer';
import type { Command } from 'commander';
import type { Any } from '@chaind/sdk/gen/google/protobuf/any';
import type { Timestamp } from '@chaind/sdk/gen/google/protobuf/timestamp';
import {
  QueryAppliedPlanRequest,
  QueryAppliedPlanResponse,
  QueryAuthorityRequest,
  QueryAuthorityResponse,
  QueryCurrentPlanRequest,
  QueryCurrentPlanResponse,
  QueryModuleVersionsRequest,
  QueryModuleVersionsResponse,
  QueryParamsRequest,
  QueryParamsResponse,
} from '@chaind/sdk/gen/chain/upgrade/v1beta1/query';
import { DEFAULT_PARAMS, paramsToJSON } from '@chaind/sdk/x/upgrade';
import { QueryReadinessRequest, QueryReadinessResponse, simulateResultToJSON } from '@chaind/sdk/gen/chain/upgrade/v1beta1/readiness';
import type { Plan } from '@chaind/sdk/gen/chain/upgrade/v1beta1/upgrade';
import { formatRFC3339 } from '@chaind/sdk/types';
import { UserError } from '../common.ts';
import { printOutput } from './format.ts';
import { addStateQueryOptions, heightArg, RpcClient, type HeightOptions } from './rpc.ts';

const SERVICE = '/chain.upgrade.v1beta1.Query';

/** RFC 3339 as protobuf JSON renders it (0, 3, 6 or 9 fractional digits); unset → the zero time. */
export function timestampJSON(t: Timestamp | undefined): string {
  return t === undefined ? '0001-01-01T00:00:00Z' : formatRFC3339(t, 'proto');
}

const anyJSON = (a: Any | undefined): unknown => (a === undefined ? null : { type_url: a.typeUrl, value: Buffer.from(a.value).toString('base64') });

/** A Plan with its proto (snake_case) field names, int64 as a string. */
export function planJSON(p: Plan): Record<string, unknown> {
  return {
    name: p.name,
    time: timestampJSON(p.time),
    height: p.height.toString(),
    info: p.info,
    upgraded_client_state: anyJSON(p.upgradedClientState),
  };
}

async function query<Req, Res>(
  rpc: RpcClient,
  method: string,
  req: Req,
  codec: { req: { encode(m: Req): { finish(): Uint8Array } }; res: { decode(b: Uint8Array): Res } },
  o: HeightOptions,
): Promise<Res> {
  return codec.res.decode(await rpc.abciQuery(`${SERVICE}/${method}`, codec.req.encode(req).finish(), heightArg(o)));
}

interface BlockMeta {
  block_id: unknown;
  block_size: string;
  header: unknown;
  num_txs: string;
}

export function registerUpgradeQueries(queryCmd: Command): void {
  const upgrade = queryCmd.command('upgrade').description('querying commands for the upgrade module');

  addStateQueryOptions(upgrade.command('plan').description('get the upgrade plan (if one exists)')).action(async (o: HeightOptions) => {
    const res = await query(new RpcClient(o.node), 'CurrentPlan', {}, { req: QueryCurrentPlanRequest, res: QueryCurrentPlanResponse }, o);
    if (res.plan === undefined) throw new UserError('no upgrade scheduled');
    printOutput(planJSON(res.plan), o.output);
  });

  addStateQueryOptions(
    upgrade
      .command('applied')
      .description('the block header of the height at which a completed upgrade was applied')
      .argument('<upgrade-name>', 'the name of the applied upgrade'),
    'json',
  ).action(async (name: string, o: HeightOptions) => {
    const rpc = new RpcClient(o.node);
    const res = await query(rpc, 'AppliedPlan', { name }, { req: QueryAppliedPlanRequest, res: QueryAppliedPlanResponse }, o);
    if (res.height === 0n) throw new UserError('no upgrade found');
    const h = res.height.toString();
    const chain = (await rpc.call('blockchain', { minHeight: h, maxHeight: h })) as { block_metas?: BlockMeta[] };
    const meta = chain.block_metas?.[0];
    if (meta === undefined) throw new UserError(`no headers returned for height ${h}`);
    const { block_id, block_size, header, num_txs } = meta;
    printOutput({ block_id, block_size, header, num_txs }, o.output, true);
  });

  addStateQueryOptions(
    upgrade
      .command('module_versions')
      // the SDK's autocli spelling
      .alias('module-versions')
      .description('get the list of module versions; with a module name, only that module')
      .argument('[module_name]', 'the module to show'),
  ).action(async (moduleName: string | undefined, o: HeightOptions) => {
    const res = await query(
      new RpcClient(o.node),
      'ModuleVersions',
      { moduleName: moduleName ?? '' },
      { req: QueryModuleVersionsRequest, res: QueryModuleVersionsResponse },
      o,
    );
    printOutput({ module_versions: res.moduleVersions.map((v) => ({ name: v.name, version: v.version.toString() })) }, o.output);
  });

  addStateQueryOptions(
    upgrade.command('readiness').description('how much voting power attested a prepared release for the scheduled plan, per validator'),
  ).action(async (o: HeightOptions) => {
    const res = await query(new RpcClient(o.node), 'Readiness', {}, { req: QueryReadinessRequest, res: QueryReadinessResponse }, o);
    printOutput(readinessJSON(res), o.output);
  });

  addStateQueryOptions(upgrade.command('params').description("the upgrade module's parameters (the readiness gate; threshold 0: off)")).action(
    async (o: HeightOptions) => {
      const res = await query(new RpcClient(o.node), 'Params', {}, { req: QueryParamsRequest, res: QueryParamsResponse }, o);
      printOutput({ params: paramsToJSON(res.params ?? DEFAULT_PARAMS) }, o.output);
    },
  );

  addStateQueryOptions(upgrade.command('authority').description('get the upgrade authority address')).action(async (o: HeightOptions) => {
    const res = await query(new RpcClient(o.node), 'Authority', {}, { req: QueryAuthorityRequest, res: QueryAuthorityResponse }, o);
    printOutput({ address: res.address }, o.output);
  });
}

/** The Readiness answer with its proto (snake_case) field names, int64 as strings, as the SDK CLI prints. */
export function readinessJSON(r: QueryReadinessResponse): Record<string, unknown> {
  return {
    plan: r.plan === undefined ? null : planJSON(r.plan),
    enabled: r.enabled,
    total_power: r.totalPower.toString(),
    ready_power: r.readyPower.toString(),
    ready_fraction: r.readyFraction,
    validators: r.validators.map((v) => ({
      operator_address: v.operatorAddress,
      moniker: v.moniker,
      consensus_address: v.consensusAddress,
      power: v.power.toString(),
      ready: v.ready,
      release_checksum: v.releaseChecksum,
      simulate: simulateResultToJSON(v.simulate),
      attested_height: v.attestedHeight.toString(),
    })),
    scheduled_height: r.scheduledHeight.toString(),
    delays: r.delays,
    threshold: r.threshold,
  };
}

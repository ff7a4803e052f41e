// Generated protobuf code: freshness, wire compatibility with the Cosmos SDK
// (through cosmjs-types) and registrability in CosmJS's Registry.
import { test } from 'node:test';
import assert from 'node:assert/strict';
import { runInGroup } from '@chaind/upgrade-plan/testing';
import { existsSync, mkdtempSync, readdirSync, readFileSync, rmSync, statSync } from 'node:fs';
import { tmpdir } from 'node:os';
import { dirname, join, relative, resolve } from 'node:path';
import { fileURLToPath } from 'node:url';

import { Registry, type GeneratedType } from '@cosmjs/proto-signing';
import { fromBinary, createFileRegistry } from '@bufbuild/protobuf';
import { FileDescriptorSetSchema } from '@bufbuild/protobuf/wkt';
import * as sdkUpgrade from 'cosmjs-types/cosmos/upgrade/v1beta1/upgrade';
import * as sdkTx from 'cosmjs-types/cosmos/upgrade/v1beta1/tx';
import * as sdkQuery from 'cosmjs-types/cosmos/upgrade/v1beta1/query';
import { TxBody } from 'cosmjs-types/cosmos/tx/v1beta1/tx';

// Imported through the package export "./gen/*" (the way other packages import it) ...
import { Plan, ModuleVersion } from '@chaind/sdk/gen/chain/upgrade/v1beta1/upgrade';
import { MsgSoftwareUpgrade, MsgCancelUpgrade, MsgDefinition } from '@chaind/sdk/gen/chain/upgrade/v1beta1/tx';
import {
  QueryAppliedPlanResponse,
  QueryModuleVersionsResponse,
  QueryDefinition,
  QueryUpgradedConsensusStateRequest,
  QueryUpgradedConsensusStateResponse,
} from '@chaind/sdk/gen/chain/upgrade/v1beta1/query';
// ... and relatively (the way code inside packages/sdk imports it).
import { Plan as PlanRelative } from '../src/gen/chain/upgrade/v1beta1/upgrade.ts';

const root = resolve(dirname(fileURLToPath(import.meta.url)), '..', '..', '..');
const genDir = join(root, 'packages', 'sdk', 'src', 'gen');

function listFiles(dir: string, base = dir): string[] {
  if (!existsSync(dir)) return [];
  const out: string[] = [];
  for (const name of readdirSync(dir).sort()) {
    const p = join(dir, name);
    if (statSync(p).isDirectory()) out.push(...listFiles(p, base));
    else out.push(relative(base, p));
  }
  return out;
}

test('committed generated code is current (npm run proto)', async () => {
  const tmp = mkdtempSync(join(tmpdir(), 'chaind-proto-test-'));
  try {
    const r = await runInGroup(process.execPath, [join(root, 'scripts', 'proto.mjs'), '--out', tmp], { cwd: root, timeoutMs: 300_000 });
    assert.equal(r.code, 0, `scripts/proto.mjs failed:\n${r.stdout}\n${r.stderr}`);
    const fresh = listFiles(tmp);
    assert.ok(fresh.includes(join('chain', 'upgrade', 'v1beta1', 'upgrade.ts')), `unexpected output: ${fresh.join(', ')}`);
    assert.ok(fresh.includes('descriptor-set.binpb'), `no descriptor set in: ${fresh.join(', ')}`);
    const stale: string[] = [];
    for (const f of fresh) {
      const committed = join(genDir, f);
      if (!existsSync(committed)) stale.push(`${f} (missing)`);
      else if (!readFileSync(committed).equals(readFileSync(join(tmp, f)))) stale.push(`${f} (differs)`);
    }
    for (const f of listFiles(genDir)) {
      if (f !== 'README.md' && !fresh.includes(f)) stale.push(`${f} (no longer generated)`);
    }
    assert.deepEqual(stale, [], `stale generated files, run \`npm run proto\`:\n  ${stale.join('\n  ')}`);
  } finally {
    rmSync(tmp, { recursive: true, force: true });
  }
});

test('package-export import and relative import are the same module', () => {
  assert.equal(Plan, PlanRelative);
});

const plan: Plan = {
  name: 'v2',
  // Go's zero time: what Go tooling writes for the unset, non-nullable Plan.time
  time: { seconds: -62_135_596_800n, nanos: 0 },
  height: 123n,
  info: '{"binaries":{"linux/amd64":"https://example.com/chaind"}}',
  upgradedClientState: undefined,
};

test('Plan bytes are interchangeable with cosmos.upgrade.v1beta1.Plan', () => {
  const ours = Plan.encode(plan).finish();
  assert.deepEqual(ours, sdkUpgrade.Plan.encode(sdkUpgrade.Plan.fromPartial(plan)).finish());
  const decoded = sdkUpgrade.Plan.decode(ours);
  assert.equal(decoded.name, 'v2');
  assert.equal(decoded.height, 123n);
  assert.equal(decoded.info, plan.info);
  assert.deepEqual(decoded.time, { seconds: -62_135_596_800n, nanos: 0 });
  assert.equal(decoded.upgradedClientState, undefined);

  const back = Plan.decode(
    sdkUpgrade.Plan.encode(sdkUpgrade.Plan.fromPartial({ name: 'x', height: -5n, info: 'i', time: { seconds: 1700000000n, nanos: 7 } })).finish(),
  );
  assert.deepEqual(back, { name: 'x', height: -5n, info: 'i', time: { seconds: 1700000000n, nanos: 7 }, upgradedClientState: undefined });
});

test('Plan.upgraded_client_state (field 5) round-trips with the SDK type', () => {
  const any = { typeUrl: '/ibc.lightclients.tendermint.v1.ClientState', value: Uint8Array.from([1, 2, 3]) };
  const decoded = sdkUpgrade.Plan.decode(Plan.encode({ ...plan, upgradedClientState: any }).finish());
  assert.equal(decoded.upgradedClientState?.typeUrl, any.typeUrl);
  assert.deepEqual(decoded.upgradedClientState?.value, any.value);
});

test('MsgSoftwareUpgrade and MsgCancelUpgrade bytes are interchangeable', () => {
  const authority = 'cosmos10d07y265gmmuvt4z0w9aw880jnsr700j6zn9kn';
  const msg: MsgSoftwareUpgrade = { authority, plan };
  const ours = MsgSoftwareUpgrade.encode(msg).finish();
  // cosmjs-types types nested messages as required (no `| undefined`), hence fromPartial.
  assert.deepEqual(ours, sdkTx.MsgSoftwareUpgrade.encode(sdkTx.MsgSoftwareUpgrade.fromPartial(msg)).finish());
  const theirs = sdkTx.MsgSoftwareUpgrade.decode(ours);
  assert.equal(theirs.authority, authority);
  assert.equal(theirs.plan.name, 'v2');
  assert.equal(theirs.plan.height, 123n);
  assert.equal(theirs.plan.info, plan.info);
  assert.deepEqual(theirs.plan.time, { seconds: -62_135_596_800n, nanos: 0 });
  assert.deepEqual(MsgSoftwareUpgrade.decode(sdkTx.MsgSoftwareUpgrade.encode(theirs).finish()), msg);

  const cancel = MsgCancelUpgrade.encode({ authority }).finish();
  assert.deepEqual(cancel, sdkTx.MsgCancelUpgrade.encode({ authority }).finish());
  assert.equal(sdkTx.MsgCancelUpgrade.decode(cancel).authority, authority);
  assert.equal(MsgCancelUpgrade.decode(sdkTx.MsgCancelUpgrade.encode({ authority: 'gov' }).finish()).authority, 'gov');
});

test('query responses are interchangeable', () => {
  const applied = QueryAppliedPlanResponse.encode({ height: 9_007_199_254_740_993n }).finish();
  assert.equal(sdkQuery.QueryAppliedPlanResponse.decode(applied).height, 9_007_199_254_740_993n);
  assert.equal(QueryAppliedPlanResponse.decode(sdkQuery.QueryAppliedPlanResponse.encode({ height: 42n }).finish()).height, 42n);

  const moduleVersions: ModuleVersion[] = [
    { name: 'bank', version: 4n },
    { name: 'upgrade', version: 18_446_744_073_709_551_615n },
  ];
  const ours = QueryModuleVersionsResponse.encode({ moduleVersions }).finish();
  assert.deepEqual(ours, sdkQuery.QueryModuleVersionsResponse.encode({ moduleVersions }).finish());
  assert.deepEqual(sdkQuery.QueryModuleVersionsResponse.decode(ours).moduleVersions, moduleVersions);
  assert.deepEqual(QueryModuleVersionsResponse.decode(sdkQuery.QueryModuleVersionsResponse.encode({ moduleVersions }).finish()).moduleVersions, moduleVersions);

  // the SDK's deprecated IBC query: last_height 1, upgraded_consensus_state 2 (1 reserved)
  const req = QueryUpgradedConsensusStateRequest.encode({ lastHeight: 9_007_199_254_740_993n }).finish();
  assert.deepEqual(req, sdkQuery.QueryUpgradedConsensusStateRequest.encode({ lastHeight: 9_007_199_254_740_993n }).finish());
  const cons = Uint8Array.of(0x0a, 0x00, 0xff);
  const res = QueryUpgradedConsensusStateResponse.encode({ upgradedConsensusState: cons }).finish();
  assert.deepEqual(res, sdkQuery.QueryUpgradedConsensusStateResponse.encode({ upgradedConsensusState: cons }).finish());
  assert.deepEqual(
    QueryUpgradedConsensusStateResponse.decode(sdkQuery.QueryUpgradedConsensusStateResponse.encode({ upgradedConsensusState: cons }).finish())
      .upgradedConsensusState,
    cons,
  );
});

test('MsgSoftwareUpgrade is registrable in a CosmJS Registry', () => {
  const typeUrl = '/chain.upgrade.v1beta1.MsgSoftwareUpgrade';
  const registry = new Registry();
  assert.throws(() => registry.encode({ typeUrl, value: { authority: 'gov', plan } }), /Unregistered type url/);
  // the runtime shape is CosmJS's; only the nominal BinaryWriter type differs (CosmJS sees
  // @bufbuild/protobuf's CommonJS build, we the ESM one), hence the cast a CosmJS user writes too
  registry.register(typeUrl, MsgSoftwareUpgrade as unknown as GeneratedType);

  const value = MsgSoftwareUpgrade.fromPartial({ authority: 'gov', plan });
  const any = registry.encodeAsAny({ typeUrl, value });
  assert.equal(any.typeUrl, typeUrl);
  assert.deepEqual(any.value, MsgSoftwareUpgrade.encode(value).finish());
  assert.deepEqual(registry.decode({ typeUrl, value: any.value }), value);

  const bytes = registry.encode({ typeUrl, value });
  const decoded: MsgSoftwareUpgrade = registry.decode({ typeUrl, value: bytes });
  assert.deepEqual(decoded.plan, plan);

  const body = registry.encodeTxBody({ messages: [{ typeUrl, value }], memo: 'upgrade' });
  const tx = TxBody.decode(body);
  assert.equal(tx.memo, 'upgrade');
  assert.equal(tx.messages.length, 1);
  assert.equal(tx.messages[0].typeUrl, typeUrl);
  assert.deepEqual(MsgSoftwareUpgrade.decode(tx.messages[0].value), value);
  assert.deepEqual(registry.decodeTxBody(body).messages[0], value);
});

test('generic service definitions give the method paths', () => {
  const paths = (def: { fullName: string; methods: Record<string, { name: string }> }) => Object.values(def.methods).map((m) => `/${def.fullName}/${m.name}`);
  assert.deepEqual(paths(MsgDefinition), [
    '/chain.upgrade.v1beta1.Msg/SoftwareUpgrade',
    '/chain.upgrade.v1beta1.Msg/CancelUpgrade',
    '/chain.upgrade.v1beta1.Msg/UpdateParams',
  ]);
  assert.deepEqual(paths(QueryDefinition), [
    '/chain.upgrade.v1beta1.Query/CurrentPlan',
    '/chain.upgrade.v1beta1.Query/AppliedPlan',
    '/chain.upgrade.v1beta1.Query/ModuleVersions',
    '/chain.upgrade.v1beta1.Query/Authority',
    '/chain.upgrade.v1beta1.Query/UpgradedConsensusState',
    '/chain.upgrade.v1beta1.Query/Readiness',
    '/chain.upgrade.v1beta1.Query/Params',
  ]);
  assert.equal(MsgDefinition.methods.softwareUpgrade.requestType, MsgSoftwareUpgrade);
});

test('descriptor set is self-contained and has the Cosmos SDK field numbers', () => {
  const set = fromBinary(FileDescriptorSetSchema, readFileSync(join(genDir, 'descriptor-set.binpb')));
  const names = set.file.map((f) => f.name).sort();
  assert.deepEqual(names, [
    'chain/upgrade/v1beta1/query.proto',
    'chain/upgrade/v1beta1/readiness.proto',
    'chain/upgrade/v1beta1/tx.proto',
    'chain/upgrade/v1beta1/upgrade.proto',
    'google/protobuf/any.proto',
    'google/protobuf/timestamp.proto',
  ]);
  const reg = createFileRegistry(set); // throws if an import is missing
  const fields = (typeName: string) => {
    const m = reg.getMessage(typeName);
    assert.ok(m, `${typeName} missing`);
    return Object.fromEntries(m.fields.map((f) => [f.name, f.number]));
  };
  assert.deepEqual(fields('chain.upgrade.v1beta1.Plan'), { name: 1, time: 2, height: 3, info: 4, upgraded_client_state: 5 });
  assert.deepEqual(fields('chain.upgrade.v1beta1.ModuleVersion'), { name: 1, version: 2 });
  assert.deepEqual(fields('chain.upgrade.v1beta1.MsgSoftwareUpgrade'), { authority: 1, plan: 2 });
  assert.deepEqual(fields('chain.upgrade.v1beta1.QueryModuleVersionsRequest'), { module_name: 1 });
  assert.deepEqual(fields('chain.upgrade.v1beta1.QueryUpgradedConsensusStateRequest'), { last_height: 1 });
  assert.deepEqual(fields('chain.upgrade.v1beta1.QueryUpgradedConsensusStateResponse'), { upgraded_consensus_state: 2 });
  assert.deepEqual(
    reg.getService('chain.upgrade.v1beta1.Query')?.methods.map((m) => m.name),
    ['CurrentPlan', 'AppliedPlan', 'ModuleVersions', 'Authority', 'UpgradedConsensusState', 'Readiness', 'Params'],
  );
  assert.deepEqual(fields('chain.upgrade.v1beta1.Params'), { readiness_threshold: 1, readiness_delay: 2, readiness_max_delays: 3 });
  assert.deepEqual(fields('chain.upgrade.v1beta1.MsgUpdateParams'), { authority: 1, params: 2 });
  assert.deepEqual(fields('chain.upgrade.v1beta1.ReadinessAttestation'), {
    plan_name: 1,
    plan_height: 2,
    plan_info_sha256: 3,
    release_checksum: 4,
    simulate: 5,
  });
});

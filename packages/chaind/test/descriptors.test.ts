// The descriptors behind gateway JSON and gRPC reflection: the committed Cosmos set is what the script
// builds, and the hand-written Cosmos protos agree with what the app encodes (cosmjs-types) — same
// fields, same numbers, same types — for every query it serves and every type an Any can carry.
import assert from 'node:assert/strict';
import { execFile } from 'node:child_process';
import { mkdtempSync, readFileSync, rmSync } from 'node:fs';
import { tmpdir } from 'node:os';
import { join } from 'node:path';
import { after, before, describe, test } from 'node:test';
import { fileURLToPath } from 'node:url';
import { promisify } from 'node:util';
import { fromJson, ScalarType, toBinary, type DescField, type DescMessage, type JsonObject, type JsonValue } from '@bufbuild/protobuf';
import type { MessageCodec } from '@chaind/sdk/app';
import { BaseAccount, ModuleAccount } from 'cosmjs-types/cosmos/auth/v1beta1/auth';
import { PubKey as Ed25519PubKey } from 'cosmjs-types/cosmos/crypto/ed25519/keys';
import { LegacyAminoPubKey } from 'cosmjs-types/cosmos/crypto/multisig/keys';
import { PubKey as Secp256k1PubKey } from 'cosmjs-types/cosmos/crypto/secp256k1/keys';
import { ABCIMessageLog, GasInfo, Result, TxResponse } from 'cosmjs-types/cosmos/base/abci/v1beta1/abci';
import { CompactBitArray } from 'cosmjs-types/cosmos/crypto/multisig/v1beta1/multisig';
import {
  BroadcastTxRequest,
  BroadcastTxResponse,
  GetTxRequest,
  GetTxResponse,
  SimulateRequest,
  SimulateResponse,
} from 'cosmjs-types/cosmos/tx/v1beta1/service';
import { AuthInfo, Fee, ModeInfo, ModeInfo_Multi, ModeInfo_Single, SignerInfo, Tx, TxBody, TxRaw } from 'cosmjs-types/cosmos/tx/v1beta1/tx';
import { newHome, removeTmpDirs, TestChain } from '@chaind/chaind/testing';
import { servicesOf } from '../src/node/grpc/server.ts';
import { COSMOS_DESCRIPTOR_SET, loadDescriptors } from '../src/node/query/descriptors.ts';

const run = promisify(execFile);
const SCRIPT = fileURLToPath(new URL('../scripts/cosmos-descriptors.mjs', import.meta.url));

interface CosmjsCodec extends MessageCodec<unknown> {
  readonly typeUrl: string;
  fromPartial(object: object): unknown;
}
const isCosmjs = (c: MessageCodec<unknown>): c is CosmjsCodec => typeof (c as { typeUrl?: unknown }).typeUrl === 'string';

/** A message of `desc` with every field set to a non-default value (lists of two), as proto3 JSON. */
function populated(desc: DescMessage, depth = 0): JsonObject {
  const out: JsonObject = {};
  const oneofs = new Set<string>();
  for (const f of desc.fields) {
    // one member per oneof: the first
    if (f.oneof !== undefined) {
      if (oneofs.has(f.oneof.name)) continue;
      oneofs.add(f.oneof.name);
    }
    const one = (i: number): JsonValue | undefined => value(f, i, depth);
    if (f.fieldKind === 'list') {
      const vs = [one(0), one(1)].filter((v): v is JsonValue => v !== undefined);
      if (vs.length > 0) out[f.name] = vs;
    } else {
      const v = one(0);
      if (v !== undefined) out[f.name] = v;
    }
  }
  return out;
}

function value(f: DescField, i: number, depth: number): JsonValue | undefined {
  const n = f.number + i;
  if (f.fieldKind === 'map') return undefined;
  if (f.enum !== undefined) return f.enum.values[f.enum.values.length > 1 ? 1 : 0].name;
  if (f.message !== undefined) {
    switch (f.message.typeName) {
      case 'google.protobuf.Timestamp':
        return `2024-01-02T03:04:0${n % 10}.000000006Z`;
      case 'google.protobuf.Duration':
        return `${n}s`;
      case 'google.protobuf.Any':
        return { '@type': '/cosmos.crypto.secp256k1.PubKey', key: Buffer.from([2, n]).toString('base64') };
      default:
        return depth < 4 ? populated(f.message, depth + 1) : undefined;
    }
  }
  switch (f.scalar) {
    case undefined:
      return undefined;
    case ScalarType.BOOL:
      return true;
    case ScalarType.STRING:
      return `${f.name}-${n}`;
    case ScalarType.BYTES:
      return Buffer.from([n, 255 - n]).toString('base64');
    case ScalarType.DOUBLE:
    case ScalarType.FLOAT:
      return n + 0.5;
    default: // integers; 64-bit ones as strings, as proto3 JSON allows for all
      return String(100 + n);
  }
}

describe('cosmos descriptors', () => {
  let chain: TestChain;
  before(() => {
    chain = TestChain.open(newHome());
  });
  after(async () => {
    await chain.close();
    removeTmpDirs();
  });

  test('the committed cosmos-descriptors.binpb is what scripts/cosmos-descriptors.mjs builds', async () => {
    const dir = mkdtempSync(join(tmpdir(), 'chaind-desc-'));
    try {
      const out = join(dir, 'fresh.binpb');
      await run(process.execPath, [SCRIPT, '--out', out]);
      assert.ok(
        readFileSync(out).equals(readFileSync(COSMOS_DESCRIPTOR_SET)),
        'stale: run `node packages/chaind/scripts/cosmos-descriptors.mjs` and commit the result',
      );
    } finally {
      rmSync(dir, { recursive: true, force: true });
    }
  });

  test('every query method the app serves has a descriptor, and the cosmos services have no method the app lacks', () => {
    const { registry } = loadDescriptors();
    const paths = chain.app.modules.queryRouter.paths();
    for (const [svc, list] of servicesOf(paths)) {
      const d = registry.getService(svc);
      assert.ok(d, `no descriptor for service ${svc}`);
      assert.deepEqual(d.methods.map((m) => `/${svc}/${m.name}`).sort(), [...list].sort(), `methods of ${svc}`);
    }
  });

  test('request and response descriptors match the codecs the app uses: names, numbers and types', () => {
    const { registry } = loadDescriptors();
    const router = chain.app.modules.queryRouter;
    let checked = 0;
    for (const path of router.paths()) {
      const [, svc, name] = path.split('/');
      const m = registry.getService(svc)?.methods.find((x) => x.name === name);
      assert.ok(m, path);
      const route = router.route(path);
      for (const [desc, codec] of [
        [m.input, route.requestType],
        [m.output, route.responseType],
      ] as const) {
        if (isCosmjs(codec)) assert.equal(codec.typeUrl, `/${desc.typeName}`, `${path}: type`);
        assertSameWire(desc, codec);
        checked++;
      }
    }
    assert.ok(checked >= 60, `checked ${checked}`);
  });

  test('every type an Any can carry in a response resolves: accounts, public keys, routed messages', () => {
    const { registry } = loadDescriptors();
    for (const url of chain.app.modules.msgRouter.typeUrls()) {
      const desc = registry.getMessage(url.slice(1));
      assert.ok(desc, `no descriptor for ${url}`);
      assertSameWire(desc, chain.app.modules.msgRouter.route(url).codec);
    }
    for (const codec of [BaseAccount, ModuleAccount, Secp256k1PubKey, Ed25519PubKey, LegacyAminoPubKey] as readonly CosmjsCodec[]) {
      const desc = registry.getMessage(codec.typeUrl.slice(1));
      assert.ok(desc, `no descriptor for ${codec.typeUrl}`);
      assertSameWire(desc, codec);
    }
  });

  test('the tx service messages match cosmjs-types: requests, responses, the tx and its parts', () => {
    const { registry } = loadDescriptors();
    const codecs: readonly CosmjsCodec[] = [
      SimulateRequest,
      SimulateResponse,
      GetTxRequest,
      GetTxResponse,
      BroadcastTxRequest,
      BroadcastTxResponse,
      Tx,
      TxRaw,
      TxBody,
      AuthInfo,
      SignerInfo,
      ModeInfo,
      Fee,
      TxResponse,
      GasInfo,
      Result,
      ABCIMessageLog,
      CompactBitArray,
    ];
    // cosmjs-types names nested messages without their parent ("/cosmos.tx.v1beta1.Single")
    const named: readonly (readonly [string, CosmjsCodec])[] = [
      ...codecs.map((c) => [c.typeUrl.slice(1), c] as const),
      ['cosmos.tx.v1beta1.ModeInfo.Single', ModeInfo_Single],
      ['cosmos.tx.v1beta1.ModeInfo.Multi', ModeInfo_Multi],
    ];
    for (const [name, codec] of named) {
      const desc = registry.getMessage(name);
      assert.ok(desc, `no descriptor for ${name}`);
      assertSameWire(desc, codec);
    }
    const svc = registry.getService('cosmos.tx.v1beta1.Service');
    assert.deepEqual(
      svc?.methods.map((m) => `${m.name}(${m.input.typeName}) ${m.output.typeName}`),
      [
        'Simulate(cosmos.tx.v1beta1.SimulateRequest) cosmos.tx.v1beta1.SimulateResponse',
        'GetTx(cosmos.tx.v1beta1.GetTxRequest) cosmos.tx.v1beta1.GetTxResponse',
        'BroadcastTx(cosmos.tx.v1beta1.BroadcastTxRequest) cosmos.tx.v1beta1.BroadcastTxResponse',
      ],
    );
  });

  /** Encoded from the descriptor with every field set, the codec decodes and re-encodes the same bytes, and knows no other field. */
  function assertSameWire(desc: DescMessage, codec: MessageCodec<unknown>): void {
    const { registry } = loadDescriptors();
    const bytes = toBinary(desc, fromJson(desc, populated(desc), { registry }));
    const again = codec.encode(codec.decode(bytes)).finish();
    assert.deepEqual(Buffer.from(again).toString('hex'), Buffer.from(bytes).toString('hex'), `${desc.typeName}: a field the codec does not know`);
    if (isCosmjs(codec)) {
      const keys = Object.keys(codec.fromPartial({}) as object).sort();
      assert.deepEqual(keys, desc.fields.map((f) => f.localName).sort(), `${desc.typeName}: fields`);
    }
  }
});

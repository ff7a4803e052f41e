// cosmos.tx.v1beta1.Service over gRPC, against a real node producing blocks on its own: grpc-js with
// cosmjs-types codecs (as a generated client) and `buf curl` (a separate process, through server
// reflection). Broadcast, find after inclusion, simulate; status codes for bad requests; the node
// goes on making blocks.
import assert from 'node:assert/strict';
import { after, before, describe, test } from 'node:test';
import { Client, credentials, Metadata, status, type ServiceError } from '@grpc/grpc-js';
import { MsgSend } from 'cosmjs-types/cosmos/bank/v1beta1/tx';
import {
  BroadcastMode,
  BroadcastTxRequest,
  BroadcastTxResponse,
  GetTxRequest,
  GetTxResponse,
  SimulateRequest,
  SimulateResponse,
} from 'cosmjs-types/cosmos/tx/v1beta1/service';
import { Tx } from 'cosmjs-types/cosmos/tx/v1beta1/tx';
import type { MessageCodec } from '@chaind/sdk/app';
import { bufCurl, ALICE, BOB, DENOM, removeTmpDirs, TestNode } from '@chaind/chaind/testing';
import { sha256 } from '../src/node/hash.ts';
import { startGrpcServer, type GrpcServer } from '../src/node/grpc/server.ts';

let node: TestNode;
let s: GrpcServer;
let client: Client;

before(
  async () => {
    node = await TestNode.start();
    s = await startGrpcServer({
      port: 0,
      app: node.chain.app,
      txNode: { driver: node.driver, admission: node.driver.admission, app: node.chain.app, logger: node.logger },
    });
    client = new Client(s.address, credentials.createInsecure());
  },
  { timeout: 30_000 },
);

after(
  async () => {
    client?.close();
    await s?.close();
    await node?.stop();
    removeTmpDirs();
  },
  { timeout: 30_000 },
);

function unary<Req, Res>(path: string, req: MessageCodec<Req>, res: MessageCodec<Res>, message: Req): Promise<Res> {
  return new Promise((resolve, reject) => {
    client.makeUnaryRequest(
      path,
      (m: Req) => Buffer.from(req.encode(m).finish()),
      (b: Buffer) => res.decode(b),
      message,
      new Metadata(),
      {},
      (err: ServiceError | null, value?: Res) => (err !== null ? reject(err) : resolve(value as Res)),
    );
  });
}

const RAW: MessageCodec<Uint8Array> = { encode: (b) => ({ finish: () => b }), decode: (b) => b };
const SVC = '/cosmos.tx.v1beta1.Service';
const HEX = (b: Uint8Array): string => Buffer.from(b).toString('hex').toUpperCase();

const broadcast = (txBytes: Uint8Array, mode = BroadcastMode.BROADCAST_MODE_SYNC): Promise<BroadcastTxResponse> =>
  unary(`${SVC}/BroadcastTx`, BroadcastTxRequest, BroadcastTxResponse, { txBytes, mode });

async function rejects(p: Promise<unknown>, code: status, details: string): Promise<void> {
  await assert.rejects(p, (e: ServiceError) => {
    assert.deepEqual({ code: e.code, details: e.details }, { code, details });
    return true;
  });
}

describe('gRPC tx service', { timeout: 120_000 }, () => {
  test('buf curl lists cosmos.tx.v1beta1.Service beside the query services, with its three methods', async () => {
    const r = await bufCurl(['--list-services', `http://${s.address}`]);
    assert.ok(r.ok, r.out);
    assert.deepEqual(r.out.trim().split('\n').sort(), [
      'chain.upgrade.v1beta1.Query',
      'cosmos.auth.v1beta1.Query',
      'cosmos.bank.v1beta1.Query',
      'cosmos.gov.v1.Query',
      'cosmos.tx.v1beta1.Service',
    ]);
    const methods = await bufCurl(['--list-methods', `http://${s.address}`]);
    const tx = methods.out.split('\n').filter((l) => l.startsWith('cosmos.tx.'));
    assert.deepEqual(tx.sort(), ['cosmos.tx.v1beta1.Service/BroadcastTx', 'cosmos.tx.v1beta1.Service/GetTx', 'cosmos.tx.v1beta1.Service/Simulate']);
  });

  test('BroadcastTx SYNC: code 0 and the hash; GetTx after its block: height, result, the decoded tx', async () => {
    const tx = node.send(ALICE, BOB.address, '9');
    const hash = HEX(sha256(tx));
    const included = node.waitForBlock((e) => e.block.data.txs.some((x) => HEX(sha256(x)) === hash));
    const r = await broadcast(tx);
    assert.equal(r.txResponse?.code, 0);
    assert.equal(r.txResponse?.txhash, hash);
    assert.equal(r.txResponse?.height, 0n);
    const e = await included;

    const got = await unary(`${SVC}/GetTx`, GetTxRequest, GetTxResponse, { hash });
    assert.equal(got.txResponse?.height, e.block.header.height);
    assert.equal(got.txResponse?.code, 0);
    assert.ok((got.txResponse?.gasUsed ?? 0n) > 0n);
    assert.equal(got.txResponse?.tx?.typeUrl, '/cosmos.tx.v1beta1.Tx');
    assert.deepEqual(Tx.decode(got.txResponse?.tx?.value ?? new Uint8Array()), got.tx);
    const msg = got.tx?.body?.messages[0];
    assert.equal(msg?.typeUrl, '/cosmos.bank.v1beta1.MsgSend');
    assert.deepEqual(MsgSend.decode(msg?.value ?? new Uint8Array()), {
      fromAddress: ALICE.address,
      toAddress: BOB.address,
      amount: [{ denom: DENOM, amount: '9' }],
    });
  });

  test('Simulate through grpc-js and through buf curl with JSON: gas used and the message responses', async () => {
    const tx = node.send(ALICE, BOB.address, '2');
    const sim = await unary(`${SVC}/Simulate`, SimulateRequest, SimulateResponse, SimulateRequest.fromPartial({ txBytes: tx }));
    assert.ok((sim.gasInfo?.gasUsed ?? 0n) > 0n);
    assert.deepEqual(
      sim.result?.msgResponses.map((m) => m.typeUrl),
      ['/cosmos.bank.v1beta1.MsgSendResponse'],
    );

    const curl = await bufCurl(['-d', JSON.stringify({ tx_bytes: Buffer.from(tx).toString('base64') }), `http://${s.address}${SVC}/Simulate`]);
    assert.ok(curl.ok, curl.out);
    const out = JSON.parse(curl.out) as { gasInfo: { gasUsed: string }; result: { msgResponses: { '@type': string }[] } };
    assert.match(out.gasInfo.gasUsed, /^[1-9][0-9]*$/);
    assert.deepEqual(out.result.msgResponses, [{ '@type': '/cosmos.bank.v1beta1.MsgSendResponse' }]);
  });

  test('bad requests: INVALID_ARGUMENT, NOT_FOUND, UNIMPLEMENTED with clear details; then blocks keep coming', async () => {
    await rejects(
      unary(`${SVC}/BroadcastTx`, RAW, RAW, Uint8Array.of(0x0a, 0xff)),
      status.INVALID_ARGUMENT,
      `cannot decode request for ${SVC}/BroadcastTx: premature EOF`,
    );
    await rejects(
      unary(`${SVC}/Simulate`, RAW, RAW, Uint8Array.of(0x12, 0x05, 1)),
      status.INVALID_ARGUMENT,
      `cannot decode request for ${SVC}/Simulate: premature EOF`,
    );
    await rejects(broadcast(new Uint8Array(0)), status.INVALID_ARGUMENT, 'invalid empty tx');
    await rejects(
      broadcast(Uint8Array.of(1), BroadcastMode.BROADCAST_MODE_BLOCK),
      status.INVALID_ARGUMENT,
      'unsupported broadcast mode BROADCAST_MODE_BLOCK: use BROADCAST_MODE_SYNC or BROADCAST_MODE_ASYNC',
    );
    await rejects(
      broadcast(Uint8Array.of(1), 9 as BroadcastMode),
      status.INVALID_ARGUMENT,
      'unsupported broadcast mode 9: use BROADCAST_MODE_SYNC or BROADCAST_MODE_ASYNC',
    );
    await rejects(
      unary(`${SVC}/Simulate`, SimulateRequest, SimulateResponse, SimulateRequest.fromPartial({ txBytes: Uint8Array.of(1, 2, 3) })),
      status.INVALID_ARGUMENT,
      "cannot decode TxRaw: index out of range: 1 + 8 > 3: tx parse error With gas wanted: '0' and gas used: '0' ",
    );
    await rejects(
      unary(`${SVC}/Simulate`, SimulateRequest, SimulateResponse, SimulateRequest.fromPartial({})),
      status.INVALID_ARGUMENT,
      'empty txBytes is not allowed',
    );
    await rejects(unary(`${SVC}/GetTx`, GetTxRequest, GetTxResponse, { hash: '' }), status.INVALID_ARGUMENT, 'tx hash cannot be empty');
    await rejects(
      unary(`${SVC}/GetTx`, GetTxRequest, GetTxResponse, { hash: 'zz' }),
      status.INVALID_ARGUMENT,
      'invalid tx hash "zz": expected 64 hex characters',
    );
    await rejects(unary(`${SVC}/GetTx`, GetTxRequest, GetTxResponse, { hash: 'F'.repeat(64) }), status.NOT_FOUND, `tx not found: ${'F'.repeat(64)}`);
    await rejects(
      unary(`${SVC}/GetTxsEvent`, RAW, RAW, new Uint8Array(0)),
      status.UNIMPLEMENTED,
      `The server does not implement the method ${SVC}/GetTxsEvent`,
    );

    // garbage tx bytes are CheckTx's answer, not a call failure (the SDK's broadcast)
    const garbage = await broadcast(Uint8Array.of(1, 2, 3));
    assert.deepEqual([garbage.txResponse?.code, garbage.txResponse?.codespace], [2, 'sdk']);

    const h = node.driver.height;
    const tx = node.send(ALICE, BOB.address, '1');
    const included = node.waitForBlock((e) => e.block.data.txs.some((x) => HEX(sha256(x)) === HEX(sha256(tx))));
    assert.equal((await broadcast(tx, BroadcastMode.BROADCAST_MODE_ASYNC)).txResponse?.txhash, HEX(sha256(tx)));
    assert.ok((await included).block.header.height > h);
  });

  test('Simulate is metered up to the gas cap (query-gas-limit) and refuses a tx over the size cap (max_tx_bytes)', async () => {
    const capped = await TestNode.start({ manual: true, chain: { simulationGasLimit: 5000n, simulationMaxTxBytes: 2000 } });
    const g = await startGrpcServer({
      port: 0,
      app: capped.chain.app,
      txNode: { driver: capped.driver, admission: capped.driver.admission, app: capped.chain.app, logger: capped.logger },
    });
    const c = new Client(g.address, credentials.createInsecure());
    const sim = (txBytes: Uint8Array): Promise<SimulateResponse> =>
      new Promise((resolve, reject) =>
        c.makeUnaryRequest(
          `${SVC}/Simulate`,
          (m: SimulateRequest) => Buffer.from(SimulateRequest.encode(m).finish()),
          (b: Buffer) => SimulateResponse.decode(b),
          SimulateRequest.fromPartial({ txBytes }),
          (err: ServiceError | null, v?: SimulateResponse) => (err !== null ? reject(err) : resolve(v as SimulateResponse)),
        ),
      );
    try {
      await assert.rejects(sim(capped.send(ALICE, BOB.address, '1')), (e: ServiceError) => {
        assert.match(e.details, /out of gas/);
        return true;
      });
      await assert.rejects(sim(new Uint8Array(3000)), (e: ServiceError) => {
        assert.match(e.details, /exceeds the simulation limit of 2000 bytes/);
        return true;
      });
      // the default cap leaves room for an ordinary tx (the suite's node)
      const ok = await unary(
        `${SVC}/Simulate`,
        SimulateRequest,
        SimulateResponse,
        SimulateRequest.fromPartial({ txBytes: node.send(ALICE, BOB.address, '1') }),
      );
      assert.ok((ok.gasInfo?.gasUsed ?? 0n) > 5000n);
    } finally {
      c.close();
      await g.close();
      await capped.stop();
    }
  });
});

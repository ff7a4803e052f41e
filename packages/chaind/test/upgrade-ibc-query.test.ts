// The Cosmos SDK's deprecated UpgradedConsensusState query on a real `chaind start`: nothing sets the
// IBC upgrade state on this chain yet, so every interface must answer the SDK's "not found"
// (codespace upgrade, code 5) the way it answers any other registered not-found error.
import assert from 'node:assert/strict';
import { readFileSync, writeFileSync } from 'node:fs';
import { join } from 'node:path';
import { after, before, describe, test } from 'node:test';
import { Client, credentials, Metadata, status, type ServiceError } from '@grpc/grpc-js';
import { connectComet, type CometClient } from '@cosmjs/tendermint-rpc';
import { QueryUpgradedConsensusStateRequest, QueryUpgradedConsensusStateResponse } from 'cosmjs-types/cosmos/upgrade/v1beta1/query';
import { ok, removeTmpDirs, startDevNode, tmpDir, type DevNode } from '@chaind/chaind/testing';

const METHOD = '/chain.upgrade.v1beta1.Query/UpgradedConsensusState';
const NOT_FOUND_TEXT = 'upgraded consensus state not found';

async function newHome(): Promise<string> {
  const home = tmpDir('chaind-ibc-query-');
  const run = (args: string[]): Promise<unknown> => ok([...args, '--home', home]);
  await run(['init', 'n1', '--chain-id', 'ibc-query-1']);
  await run(['keys', 'add', 'val', '--keyring-backend', 'test']);
  await run(['genesis', 'add-account', 'val', '1000000stake', '--keyring-backend', 'test']);
  await run(['genesis', 'add-validator', 'val', '10', '--keyring-backend', 'test']);
  const cfg = join(home, 'config', 'config.toml');
  writeFileSync(cfg, readFileSync(cfg, 'utf8').replace(/block_interval = "1s"/, 'block_interval = "100ms"'));
  return home;
}

describe('UpgradedConsensusState on a running chaind', () => {
  let node: DevNode | undefined;
  let rest: string;
  let grpcAddress: string;
  let comet: CometClient;
  let rpc: string;

  before(async () => {
    const home = await newHome();
    node = await startDevNode(home, { servers: true });
    await node.proc.waitForLog(/committed block height=2\b/);
    [rest, grpcAddress, rpc] = [node.rest ?? '', node.grpc ?? '', node.rpc];
    comet = await connectComet(rpc);
  });

  after(async () => {
    comet?.disconnect();
    await node?.proc.killGroup();
    removeTmpDirs();
  });

  test('REST: 404 with gRPC code 5 and the SDK text; a last_height that is no int64 is 400', async () => {
    const r = await fetch(`${rest}/chain/upgrade/v1beta1/upgraded_consensus_state/100`);
    assert.equal(r.status, 404);
    assert.deepEqual(await r.json(), { code: 5, message: NOT_FOUND_TEXT, details: [] });
    const bad = await fetch(`${rest}/chain/upgrade/v1beta1/upgraded_consensus_state/abc`);
    assert.equal(bad.status, 400);
  });

  test('gRPC (cosmjs-types codecs): NOT_FOUND with the SDK text', async () => {
    const client = new Client(grpcAddress, credentials.createInsecure());
    try {
      const call = new Promise<QueryUpgradedConsensusStateResponse>((resolve, reject) => {
        client.makeUnaryRequest(
          METHOD,
          (m: QueryUpgradedConsensusStateRequest) => Buffer.from(QueryUpgradedConsensusStateRequest.encode(m).finish()),
          (b: Buffer) => QueryUpgradedConsensusStateResponse.decode(b),
          QueryUpgradedConsensusStateRequest.fromPartial({ lastHeight: 100n }),
          new Metadata(),
          {},
          (err: ServiceError | null, value?: QueryUpgradedConsensusStateResponse) =>
            err !== null ? reject(err) : resolve(value as QueryUpgradedConsensusStateResponse),
        );
      });
      await assert.rejects(call, (e: ServiceError) => {
        assert.equal(e.code, status.NOT_FOUND, `${e.code} ${e.details}`);
        assert.ok(e.details.includes(NOT_FOUND_TEXT), e.details);
        return true;
      });
    } finally {
      client.close();
    }
  });

  test('abci_query (CosmJS): codespace upgrade, code 5, the SDK log, no value', async () => {
    const res = await comet.abciQuery({ path: METHOD, data: QueryUpgradedConsensusStateRequest.encode({ lastHeight: 100n }).finish() });
    assert.equal(res.code, 5);
    assert.equal(res.codespace, 'upgrade');
    assert.equal(res.log, NOT_FOUND_TEXT);
    assert.equal(res.value.length, 0);
  });

  test('abci_query in the GET URI form of docs/interfaces.md', async () => {
    const r = await fetch(`${rpc}/abci_query?path="${METHOD}"&data=0x087b`);
    const body = (await r.json()) as { result: { response: { code: number; codespace: string; log: string } } };
    assert.deepEqual(
      { code: body.result.response.code, codespace: body.result.response.codespace, log: body.result.response.log },
      { code: 5, codespace: 'upgrade', log: NOT_FOUND_TEXT },
    );
  });
});

// A single-validator chain made as the operator guide makes it (`chaind init`, keys, genesis accounts and
// validator), run solo by `chaind dev`: `chaind init` turns vote extensions on, so every block from the
// second carries the extended commit as its first tx. A user who sends one bank send sees one tx: in the
// block, its meta and results over JSON-RPC, in tx_search, in REST and gRPC GetTx, in the node's log and
// its metrics; the block as stored still leads with the extended commit.
import assert from 'node:assert/strict';
import { mkdtempSync, readFileSync, rmSync, writeFileSync } from 'node:fs';
import { tmpdir } from 'node:os';
import { join } from 'node:path';
import { after, before, describe, test } from 'node:test';
import { GetTxRequest, GetTxResponse } from 'cosmjs-types/cosmos/tx/v1beta1/service';
import { credentials, Client, Metadata, status, type ServiceError } from '@grpc/grpc-js';
import { isInjectedTx } from '@chaind/sdk/app';
import { Keyring } from '@chaind/sdk/keyring';
import { chaind, freePort, ok, startDevNode, withoutWarning, type DevNode } from '@chaind/chaind/testing';
import { BlockStore } from '../../src/node/blockstore.ts';
import { dataHash, sha256 } from '../../src/node/hash.ts';
import { SOLO_BLOCK_STORE } from '../../src/node/home-mode.ts';

const HEX = (b: Uint8Array): string => Buffer.from(b).toString('hex').toUpperCase();

async function call(url: string, method: string, params: Record<string, unknown>): Promise<{ result?: unknown; error?: { data?: string; message?: string } }> {
  const r = await fetch(url, {
    method: 'POST',
    headers: { 'content-type': 'application/json' },
    body: JSON.stringify({ jsonrpc: '2.0', id: 1, method, params }),
    signal: AbortSignal.timeout(15_000),
  });
  return (await r.json()) as { result?: unknown; error?: { data?: string; message?: string } };
}

async function rpc<T>(url: string, method: string, params: Record<string, unknown> = {}): Promise<T> {
  const body = await call(url, method, params);
  if (body.result === undefined) throw new Error(`${method}: ${body.error?.data ?? body.error?.message ?? 'no result'}`);
  return body.result as T;
}

/** One Prometheus sample's value by its full name (no labels), undefined when absent. */
function sample(text: string, name: string): number | undefined {
  const line = text.split('\n').find((l) => l.startsWith(`${name} `));
  return line === undefined ? undefined : Number(line.slice(name.length + 1));
}

describe('solo mode after `chaind init`: the extended commit every block carries is no user tx', () => {
  let home = '';
  let dev: DevNode | undefined;
  let metricsUrl = '';

  before(
    async () => {
      home = join(mkdtempSync(join(tmpdir(), 'chaind-user-txs-')), 'home');
      const keys = ['--keyring-backend', 'test', '--home', home];
      await ok(['init', 'node0', '--chain-id', 'user-txs-1', '--home', home]);
      for (const k of ['validator', 'alice', 'bob']) await ok(['keys', 'add', k, ...keys]);
      for (const k of ['validator', 'alice']) await ok(['genesis', 'add-account', k, '1000000000stake', ...keys]);
      await ok(['genesis', 'add-validator', 'validator', '10', ...keys]);
      await ok(['genesis', 'validate', '--home', home]);
      const port = await freePort();
      metricsUrl = `http://127.0.0.1:${port}/metrics`;
      const cfg = join(home, 'config', 'config.toml');
      writeFileSync(
        cfg,
        readFileSync(cfg, 'utf8')
          .replace(/^prometheus = false$/m, 'prometheus = true')
          .replace(/^prometheus_listen_addr = .*$/m, `prometheus_listen_addr = "127.0.0.1:${port}"`),
      );
      dev = await startDevNode(home, { servers: true });
    },
    { timeout: 120_000 },
  );
  after(async () => {
    await dev?.stop();
    rmSync(join(home, '..'), { recursive: true, force: true });
  });

  test(
    'one bank send: num_txs 1, tx_search finds exactly it, GetTx finds it and not the extended commit, the log and metrics count 1',
    { timeout: 120_000 },
    async () => {
      const genesis = JSON.parse(readFileSync(join(home, 'config', 'genesis.json'), 'utf8')) as {
        consensus_params: { abci: { vote_extensions_enable_height: string } };
      };
      assert.equal(genesis.consensus_params.abci.vote_extensions_enable_height, '1', '`chaind init` turns vote extensions on');
      const url = dev?.rpc ?? '';
      const bob = (await (await Keyring.open(home, 'test')).get('bob')).address;
      const send = await chaind([
        'tx',
        'bank',
        'send',
        'alice',
        bob,
        '5stake',
        '--keyring-backend',
        'test',
        '--home',
        home,
        '--node',
        url,
        '-y',
        '--broadcast-mode',
        'commit',
      ]);
      assert.equal(send.code, 0, withoutWarning(send.stderr));
      const sent = JSON.parse(send.stdout) as { code: number; txhash: string; height: string };
      assert.equal(sent.code, 0);
      const h = sent.height;
      assert.ok(Number(h) >= 2, `a block that carries an extended commit: ${h}`);

      // JSON-RPC: the block lists the send alone; its meta counts 1; its results are the send's
      const blk = await rpc<{ block: { header: { data_hash: string }; data: { txs: string[] } } }>(url, 'block', { height: h });
      assert.deepEqual(
        blk.block.data.txs.map((t) => HEX(sha256(Buffer.from(t, 'base64')))),
        [sent.txhash],
      );
      const metas = await rpc<{ block_metas: { header: { height: string }; num_txs: string }[] }>(url, 'blockchain', { minHeight: '1', maxHeight: h });
      assert.deepEqual(
        metas.block_metas.filter((m) => m.num_txs !== '0').map((m) => [m.header.height, m.num_txs]),
        [[h, '1']],
      );
      const results = await rpc<{ txs_results: { code: number; gas_used: string }[] }>(url, 'block_results', { height: h });
      assert.equal(results.txs_results.length, 1);
      assert.notEqual(results.txs_results[0].gas_used, '0', "the send's own result");

      // tx_search: exactly the send, at its height and over every block so far
      const atH = await rpc<{ total_count: string; txs: { hash: string; index: number }[] }>(url, 'tx_search', { query: `tx.height=${h}` });
      assert.deepEqual([atH.total_count, atH.txs.map((t) => [t.hash, t.index])], ['1', [[sent.txhash, 0]]]);
      const all = await rpc<{ total_count: string; txs: { hash: string }[] }>(url, 'tx_search', { query: 'tx.height>=1' });
      assert.deepEqual([all.total_count, all.txs.map((t) => t.hash)], ['1', [sent.txhash]]);

      // the block as stored leads with the extended commit, and its header's data_hash is over both txs
      const store = BlockStore.openReadOnly(join(home, 'data', SOLO_BLOCK_STORE));
      let extended: Uint8Array;
      try {
        const stored = store.block(BigInt(h));
        assert.ok(stored !== undefined);
        assert.equal(stored.data.txs.length, 2);
        assert.ok(isInjectedTx(stored.data.txs[0]));
        assert.equal(HEX(sha256(stored.data.txs[1])), sent.txhash);
        assert.equal(blk.block.header.data_hash, HEX(dataHash(stored.data.txs)));
        extended = stored.data.txs[0];
      } finally {
        await store.close();
      }
      const extendedHash = HEX(sha256(extended));
      assert.match((await call(url, 'tx', { hash: Buffer.from(extendedHash, 'hex').toString('base64') })).error?.data ?? '', /not found/);

      // REST and gRPC GetTx: the send, and no tx by the extended commit's hash
      const rest = dev?.rest ?? '';
      const got = (await (await fetch(`${rest}/cosmos/tx/v1beta1/txs/${sent.txhash}`)).json()) as {
        tx_response: { height: string; txhash: string; code: number };
      };
      assert.deepEqual([got.tx_response.height, got.tx_response.txhash, got.tx_response.code], [h, sent.txhash, 0]);
      assert.equal((await fetch(`${rest}/cosmos/tx/v1beta1/txs/${extendedHash}`)).status, 404);
      const client = new Client(dev?.grpc ?? '', credentials.createInsecure());
      const getTx = (hash: string): Promise<GetTxResponse> =>
        new Promise((resolve, reject) =>
          client.makeUnaryRequest(
            '/cosmos.tx.v1beta1.Service/GetTx',
            (m: GetTxRequest) => Buffer.from(GetTxRequest.encode(m).finish()),
            (b: Buffer) => GetTxResponse.decode(b),
            { hash },
            new Metadata(),
            {},
            (err: ServiceError | null, v?: GetTxResponse) => (err !== null ? reject(err) : resolve(v as GetTxResponse)),
          ),
        );
      try {
        assert.equal((await getTx(sent.txhash)).txResponse?.height, BigInt(h));
        await assert.rejects(getTx(extendedHash), (e: ServiceError) => e.code === status.NOT_FOUND);
      } finally {
        client.close();
      }

      // the log: one line per block, txs=1 for the send's block and 0 for every other
      const next = Number(h) + 2;
      await dev?.proc.waitForLog(new RegExp(`committed block height=${next} `));
      const counted = [...(dev?.proc.log() ?? '').matchAll(/committed block height=(\d+) txs=(\d+)/g)].map((m) => [m[1], m[2]]);
      assert.ok(counted.length >= next, counted.join(' '));
      assert.deepEqual(
        counted.filter(([, n]) => n !== '0'),
        [[h, '1']],
      );

      // the metrics: one user tx committed since the start, none in the latest block
      const m = await (await fetch(metricsUrl)).text();
      assert.equal(sample(m, 'cometbft_consensus_block_txs_sum'), 1, m);
      assert.ok((sample(m, 'cometbft_consensus_block_txs_count') ?? 0) >= next);
      assert.equal(sample(m, 'cometbft_consensus_num_txs'), 0);
    },
  );
});

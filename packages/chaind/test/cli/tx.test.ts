// `chaind tx …` over real processes, the upgrade story of issue 5: `chaind dev` (release v1, 10 s gov
// periods) → bank send → `tx upgrade software-upgrade v2` → `tx gov vote` by the validator → the plan over
// the CLI, REST and gRPC → the node halting at the height with exit code 10 and upgrade-info.json → the
// v2 binary continuing from there → `query upgrade applied v2` printing the block record of that height;
// and the user errors on the way.
import assert from 'node:assert/strict';
import { mkdtempSync, readFileSync, rmSync } from 'node:fs';
import { tmpdir } from 'node:os';
import { join } from 'node:path';
import { after, before, describe, test } from 'node:test';
import { QueryBalanceRequest, QueryBalanceResponse } from 'cosmjs-types/cosmos/bank/v1beta1/query';
import { Keyring } from '@chaind/sdk/keyring';
import { credentials, Client, type ServiceError } from '@grpc/grpc-js';
import { QueryCurrentPlanRequest, QueryCurrentPlanResponse } from '@chaind/sdk/gen/chain/upgrade/v1beta1/query';
import { RpcClient } from '../../src/cli/query/rpc.ts';
import { chaind as runChaind, startDevNode, withoutWarning, type DevNode } from '@chaind/chaind/testing';

const HEX64 = 'ab'.repeat(32);
const INFO = JSON.stringify({ binaries: { 'linux/amd64': `https://example.com/v2.tar.gz?checksum=sha256:${HEX64}` } });

interface Run {
  status: number | null;
  stdout: string;
  stderr: string;
}
// every chaind CLI child is release v1: the binary without upgrade v2, which halts at the v2 plan's height
const chaind = async (args: string[], stdin = ''): Promise<Run> => {
  const r = await runChaind(args, { input: stdin, env: { CHAIND_RELEASE: 'v1' } });
  // keyFlags() use the test backend: its warning line is not what these tests are about
  return { status: r.code, stdout: r.stdout, stderr: withoutWarning(r.stderr) };
};

const assertFails = (r: Run, message: RegExp): void => {
  assert.equal(r.status, 1, r.stdout + r.stderr);
  assert.match(r.stderr.trim(), message);
  assert.equal(r.stderr.trim().split('\n').length, 1, `one line, no stack trace: ${r.stderr}`);
};

describe('the upgrade story against a chaind dev node', () => {
  let home = '';
  let dev: DevNode | undefined;
  const log = (): string => dev?.proc.log() ?? '';
  let url = '';
  const keyFlags = (): string[] => ['--home', home, '--keyring-backend', 'test', '--node', url];

  /** Starts `chaind dev` as `release` on the home with every server on a free port; resolves its REST and gRPC addresses. */
  const startDev = async (release: string): Promise<{ rest: string; grpc: string }> => {
    dev = await startDevNode(home, { release, servers: true, args: ['--gov-period', '10s'] });
    url = dev.rpc;
    return { rest: dev.rest ?? '', grpc: dev.grpc ?? '' };
  };

  let servers = { rest: '', grpc: '' };
  before(async () => {
    home = join(mkdtempSync(join(tmpdir(), 'chaind-tx-')), 'home');
    servers = await startDev('v1');
  });
  after(async () => {
    await dev?.stop();
    rmSync(join(home, '..'), { recursive: true, force: true });
  });

  test(
    'bank send, software-upgrade proposal, vote, plan over CLI/REST/gRPC, halt at the height, v2 continues, applied prints the block',
    { timeout: 240_000 },
    async () => {
      const rpc = new RpcClient(url);
      const bob = (await (await Keyring.open(home, 'test')).get('bob')).address;
      const balance = async (address: string): Promise<bigint> =>
        BigInt(
          QueryBalanceResponse.decode(
            await rpc.abciQuery('/cosmos.bank.v1beta1.Query/Balance', QueryBalanceRequest.encode({ address, denom: 'stake' }).finish()),
          ).balance?.amount ?? '0',
        );

      // bank send: committed, the balance moves
      const before = await balance(bob);
      const send = await chaind([
        'tx',
        'bank',
        'send',
        'validator',
        bob,
        '1234stake',
        ...keyFlags(),
        '-y',
        '--broadcast-mode',
        'commit',
        '--fees',
        '2000stake',
      ]);
      assert.equal(send.status, 0, send.stderr);
      const sent = JSON.parse(send.stdout) as { code: number; txhash: string; raw_log: string };
      assert.equal(sent.code, 0);
      assert.match(sent.txhash, /^[0-9A-F]{64}$/);
      assert.equal(await balance(bob), before + 1234n);

      // bad inputs: nothing is broadcast
      const proposalFlags = ['--title', 'v2', '--summary', 'to v2', '--deposit', '10000000stake', '--from', 'validator', ...keyFlags(), '-y'];
      assertFails(
        await chaind(['tx', 'upgrade', 'software-upgrade', '..', '--upgrade-height', '100', '--upgrade-info', INFO, ...proposalFlags]),
        /^Error: invalid upgrade name: .*"\.\." is not a valid folder name/,
      );
      const noChecksum = '{"binaries":{"linux/amd64":"https://example.com/v2.tar.gz"}}';
      assertFails(
        await chaind(['tx', 'upgrade', 'software-upgrade', 'v2', '--upgrade-height', '100', '--upgrade-info', noChecksum, ...proposalFlags]),
        /^Error: .*refusing to download https:\/\/example\.com\/v2\.tar\.gz: no checksum given/,
      );
      assertFails(await chaind(['tx', 'gov', 'vote', '1', 'yes', '--from', 'nobody', ...keyFlags(), '-y']), /^Error: .*key "nobody" not found/);
      assertFails(
        await chaind(['tx', 'upgrade', 'software-upgrade', 'v2', '--upgrade-height', '0', '--upgrade-info', INFO, ...proposalFlags]),
        /^Error: invalid --upgrade-height "0"/,
      );

      // a near height without -y: the cancel-window WARNING, the summary, and "N" cancels
      // (--no-validate: INFO's URL is not served; the download checks are in upgrade-info.test.ts)
      const declined = await chaind(
        [
          'tx',
          'upgrade',
          'software-upgrade',
          'v2',
          '--upgrade-height',
          '3',
          '--upgrade-info',
          INFO,
          '--no-validate',
          ...proposalFlags.filter((f) => f !== '-y'),
        ],
        'N\n',
      );
      assert.equal(declined.status, 0, declined.stderr);
      // one line, the height said once
      const warning = declined.stderr.split('\n').filter((l) => l.startsWith('WARNING: upgrade height'));
      assert.equal(warning.length, 1, declined.stderr);
      assert.match(
        warning[0],
        /^WARNING: upgrade height 3 is too close to be cancelled by governance, which would need until height \d+ \(2 × \(voting period \+ deposit period\) from now, assuming 1000 ms blocks\); this proposal itself fails unless it passes by block 3 \(upgrade cannot be scheduled in the past\)$/,
      );
      assert.doesNotMatch(warning[0], /\b4\b/, 'no second height');
      assert.match(declined.stderr, /"@type": "\/chain\.upgrade\.v1beta1\.MsgSoftwareUpgrade"/);
      assert.match(declined.stderr, /canceled transaction/);
      assert.equal(declined.stdout, '');

      // the real proposal: far enough for the 10 s vote (1 s blocks) to pass first
      const now = Number(((await rpc.call('status')) as { sync_info: { latest_block_height: string } }).sync_info.latest_block_height);
      const H = now + 25;
      const submit = await chaind([
        'tx',
        'upgrade',
        'software-upgrade',
        'v2',
        '--upgrade-height',
        String(H),
        '--upgrade-info',
        INFO,
        '--no-validate',
        ...proposalFlags,
        '--broadcast-mode',
        'commit',
        '--gas',
        'auto',
      ]);
      assert.equal(submit.status, 0, submit.stderr);
      assert.equal((JSON.parse(submit.stdout) as { code: number }).code, 0, submit.stdout);
      const vote = await chaind(['tx', 'gov', 'vote', '1', 'yes', '--from', 'validator', ...keyFlags(), '-y', '--broadcast-mode', 'commit']);
      assert.equal(vote.status, 0, vote.stderr);
      assert.equal((JSON.parse(vote.stdout) as { code: number }).code, 0, vote.stdout);

      // a tx the chain rejects: the response is printed, exit 1 (vote on a proposal that does not exist)
      const rejected = await chaind(['tx', 'gov', 'vote', '99', 'yes', '--from', 'validator', ...keyFlags(), '-y', '--broadcast-mode', 'commit']);
      assert.equal(rejected.status, 1, rejected.stderr);
      assert.notEqual((JSON.parse(rejected.stdout) as { code: number }).code, 0);
      assert.match(rejected.stderr, /^Error: the chain rejected the tx \(code \d+/);

      // the plan appears once the voting period ends: CLI, then REST and gRPC say the same
      let plan: { name: string; height: string; info: string } | undefined;
      for (let i = 0; i < 100 && plan === undefined; i++) {
        const q = await chaind(['query', 'upgrade', 'plan', '-o', 'json', '--node', url]);
        if (q.status === 0) plan = JSON.parse(q.stdout) as { name: string; height: string; info: string };
        else await new Promise((r) => setTimeout(r, 300));
      }
      assert.deepEqual(plan && { name: plan.name, height: plan.height, info: plan.info }, { name: 'v2', height: String(H), info: INFO });
      const rest = (await (await fetch(`${servers.rest}/chain/upgrade/v1beta1/current_plan`)).json()) as {
        plan: { name: string; height: string; info: string; time: string };
      };
      assert.deepEqual(
        { name: rest.plan.name, height: rest.plan.height, info: rest.plan.info, time: rest.plan.time },
        { name: 'v2', height: String(H), info: INFO, time: '0001-01-01T00:00:00Z' },
      );
      const client = new Client(servers.grpc, credentials.createInsecure());
      const grpcPlan = await new Promise<QueryCurrentPlanResponse>((res, rej) =>
        client.makeUnaryRequest(
          '/chain.upgrade.v1beta1.Query/CurrentPlan',
          (m: QueryCurrentPlanRequest) => Buffer.from(QueryCurrentPlanRequest.encode(m).finish()),
          (b: Buffer) => QueryCurrentPlanResponse.decode(b),
          {},
          (e: ServiceError | null, r?: QueryCurrentPlanResponse) => (e || r === undefined ? rej(e ?? new Error('no response')) : res(r)),
        ),
      );
      client.close();
      assert.deepEqual({ name: grpcPlan.plan?.name, height: grpcPlan.plan?.height, info: grpcPlan.plan?.info }, { name: 'v2', height: BigInt(H), info: INFO });

      // the node halts by itself at H with exit code 10 and leaves upgrade-info.json
      let timer: NodeJS.Timeout | undefined;
      const exited = dev?.proc.exited.then((e) => e.code);
      const code = await Promise.race([exited, new Promise((r) => (timer = setTimeout(() => r('timeout'), 90_000)))]);
      clearTimeout(timer);
      assert.equal(code, 10, log().slice(-3000));
      assert.match(log(), new RegExp(`UPGRADE "v2" NEEDED at height: ${H}: `));
      const info = JSON.parse(readFileSync(join(home, 'data', 'upgrade-info.json'), 'utf8')) as { name: string; height: string | number };
      assert.equal(info.name, 'v2');
      assert.equal(String(info.height), String(H));

      // the binary with the v2 handler continues from the same home: it applies v2 at H and goes on
      await startDev('v2');
      assert.match(log(), new RegExp(`applying upgrade "v2" at height: ${H}`));
      const applied = await chaind(['query', 'upgrade', 'applied', 'v2', '--node', url]);
      assert.equal(applied.status, 0, applied.stderr);
      const record = JSON.parse(applied.stdout) as {
        block_id: { hash: string };
        block_size: string;
        header: { height: string; chain_id: string };
        num_txs: string;
      };
      assert.equal(record.header.height, String(H));
      assert.equal(record.header.chain_id, 'chain-dev-1');
      assert.match(record.block_id.hash, /^[0-9A-F]{64}$/);
      assert.match(record.block_size, /^[1-9]\d*$/);
      assert.equal(record.num_txs, '0');
      const versions = await chaind(['query', 'upgrade', 'module_versions', '-o', 'json', '--node', url]);
      assert.equal(versions.status, 0, versions.stderr);
      const mv = (JSON.parse(versions.stdout) as { module_versions: { name: string; version: string }[] }).module_versions;
      assert.deepEqual(
        mv.filter((m) => m.name === 'chaininfo' || m.name === 'validators'),
        [
          { name: 'chaininfo', version: '1' },
          { name: 'validators', version: '2' },
        ],
      );
      const gone = await chaind(['query', 'upgrade', 'plan', '--node', url]);
      assert.equal(gone.status, 1);
      assert.match(gone.stderr, /no upgrade scheduled/);
    },
  );
});

// The external-CometBFT variant: `chaind start --with-comet=false` and a `cometbft start` the operator
// runs, sharing a home made with chaind's CLI (the pinned CometBFT, as npm test installs it). One
// validator: blocks seen through CometBFT's RPC, a bank send through its broadcast_tx_sync, and the
// upgrade v1 → v2: chaind halts at H with code 10, CometBFT stops, both are restarted (chaind as v2),
// CometBFT replays block H to the new binary and the chain goes on (cometbft-v038.md §1.5–1.6). Four
// validators under `chaind start` and chainvisor: comet-network.test.ts.
import assert from 'node:assert/strict';
import { readFileSync, writeFileSync } from 'node:fs';
import { join } from 'node:path';
import { after, describe, test } from 'node:test';
import { BaseAccount } from 'cosmjs-types/cosmos/auth/v1beta1/auth';
import { QueryAccountRequest, QueryAccountResponse } from 'cosmjs-types/cosmos/auth/v1beta1/query';
import { QueryBalanceRequest, QueryBalanceResponse } from 'cosmjs-types/cosmos/bank/v1beta1/query';
import { VoteOption } from 'cosmjs-types/cosmos/gov/v1/gov';
import { QueryProposalRequest } from 'cosmjs-types/cosmos/gov/v1/query';
import { MsgSubmitProposal, MsgVote } from 'cosmjs-types/cosmos/gov/v1/tx';
import type { Any } from 'cosmjs-types/google/protobuf/any';
import {
  QueryAppliedPlanRequest,
  QueryAppliedPlanResponse,
  QueryCurrentPlanRequest,
  QueryCurrentPlanResponse,
} from '@chaind/sdk/gen/chain/upgrade/v1beta1/query';
import { BlockIDFlag } from 'cosmjs-types/tendermint/types/validator';
import type { ExtendedVoteInfo } from 'cosmjs-types/tendermint/abci/types';
import { decodeInjectedTx, encodeInjectedTx, isInjectedTx } from '@chaind/sdk/app';
import { SimulateResult } from '@chaind/sdk/gen/chain/upgrade/v1beta1/readiness';
import { sendMsg } from '@chaind/sdk/testing';
import { encodeAttestation } from '@chaind/sdk/x/upgrade';
import { encodeTx } from '@chaind/sdk/tx';
import { RpcClient } from '../src/cli/query/rpc.ts';
import { setTomlValue } from '../src/config/toml-edit.ts';
import {
  abciProxy,
  AbciNode,
  cometbftBin,
  cometForTests,
  DENOM,
  eventually,
  freePorts,
  GroupChild,
  makeNetworkHomes,
  ok,
  removeTmpDirs,
  runInGroup,
  softwareUpgrade,
  tmpDir,
  type NetworkHomes,
  type TestKey,
} from '@chaind/chaind/testing';

const SKIP = cometForTests().skip;
const CHAIN_ID = 'comet-real-1';
/** Gov voting period: CometBFT's block time is wall-clock time, so this is how long the vote lasts. */
const GOV_PERIOD = '5s';
/** Blocks between the proposal and the plan height: more than the voting period holds at 200 ms per block. */
const PLAN_MARGIN = 40n;

/** `value` after `ms`, on a timer that keeps no process alive. */
const resolveAfter = <T>(ms: number, value: T): Promise<T> => new Promise((r) => setTimeout(() => r(value), ms).unref());

/** One validator: its home, chaind and CometBFT processes, and CometBFT's RPC. */
class Validator {
  chaind: AbciNode | undefined;
  comet: GroupChild | undefined;
  readonly rpc: RpcClient;

  constructor(
    readonly home: string,
    readonly abci: string,
    rpcPort: number,
  ) {
    this.rpc = new RpcClient(`tcp://127.0.0.1:${rpcPort}`, 5_000);
  }

  async start(release: string): Promise<void> {
    this.chaind = AbciNode.start(this.home, { release, address: this.abci });
    await this.chaind.address;
    this.comet = GroupChild.spawnProgram(cometbftBin(), ['start', '--home', this.home], process.env, `cometbft start --home ${this.home}`);
  }

  async height(): Promise<bigint> {
    const s = (await this.rpc.call('status')) as { sync_info: { latest_block_height: string } };
    return BigInt(s.sync_info.latest_block_height);
  }

  query(path: string, data: Uint8Array): Promise<Uint8Array> {
    return this.rpc.abciQuery(path, data);
  }

  async balance(address: string): Promise<bigint> {
    const r = QueryBalanceResponse.decode(
      await this.query('/cosmos.bank.v1beta1.Query/Balance', QueryBalanceRequest.encode({ address, denom: DENOM }).finish()),
    );
    return BigInt(r.balance?.amount ?? '0');
  }

  /** Signs with the account's committed number and sequence, broadcasts through broadcast_tx_sync; the tx must pass CheckTx. Its hash (upper-case hex). */
  async broadcast(key: TestKey, msgs: Any[]): Promise<string> {
    const res = QueryAccountResponse.decode(
      await this.query('/cosmos.auth.v1beta1.Query/Account', QueryAccountRequest.encode({ address: key.address }).finish()),
    );
    const acc = BaseAccount.decode((res.account as Any).value);
    const tx = encodeTx(
      { msgs, fee: { amount: [], gasLimit: 10_000_000n } },
      [{ privateKey: key.privateKey, accountNumber: acc.accountNumber, sequence: acc.sequence }],
      CHAIN_ID,
    );
    const r = (await this.rpc.call('broadcast_tx_sync', { tx: Buffer.from(tx).toString('base64') })) as { code: number; log: string; hash: string };
    assert.equal(r.code, 0, r.log);
    return r.hash;
  }

  /** Waits for chaind's exit (the halt) and CometBFT's (it stops itself when the app connection fails; if not, SIGTERM). */
  async halted(): Promise<number | null> {
    const exit = await Promise.race([this.chaind?.exited, resolveAfter(120_000, undefined)]);
    assert.ok(exit !== undefined, `chaind did not halt:\n${this.chaind?.log()}\n${this.comet?.log().slice(-5_000)}`);
    const stopped = await Promise.race([(this.comet?.exited ?? Promise.resolve()).then(() => true), resolveAfter(20_000, false)]);
    if (!stopped) {
      this.comet?.signal('SIGTERM');
      await this.comet?.exited;
    }
    return exit.code;
  }

  /** SIGKILL to CometBFT's process group; resolves with its exit. */
  async kill(): Promise<void> {
    await this.comet?.killGroup();
  }
}

after(async () => {
  await GroupChild.killAllGroups();
  await AbciNode.killAll();
  removeTmpDirs();
});

/** Homes for `n` validators, each config.toml set for CometBFT on loopback with free ports. */
async function network(n: number): Promise<{ homes: NetworkHomes; vals: Validator[] }> {
  const homes = await makeNetworkHomes({ chainId: CHAIN_ID, nodes: n, users: ['alice', 'bob'], govPeriod: GOV_PERIOD });
  const ids = await Promise.all(homes.homes.map(async (h) => (await ok(['comet', 'show-node-id', '--home', h])).stdout.trim()));
  const free = await freePorts(2 * n);
  const ports = homes.homes.map((_, i) => ({ rpc: free[2 * i], p2p: free[2 * i + 1] }));
  const vals = homes.homes.map((home, i) => {
    const abci = `unix://${join(tmpDir('chaind-abci-'), 'abci.sock')}`;
    const peers = ids.flatMap((id, j) => (j === i ? [] : [`${id}@127.0.0.1:${ports[j].p2p}`])).join(',');
    const file = join(home, 'config', 'config.toml');
    let t = readFileSync(file, 'utf8');
    t = setTomlValue(t, '', 'proxy_app', abci);
    t = setTomlValue(t, 'rpc', 'laddr', `tcp://127.0.0.1:${ports[i].rpc}`);
    t = setTomlValue(t, 'p2p', 'laddr', `tcp://127.0.0.1:${ports[i].p2p}`);
    t = setTomlValue(t, 'p2p', 'persistent_peers', peers);
    // not written by chaind init, and needed for peers on one machine: CometBFT's defaults refuse
    // loopback addresses in the address book and a second peer from the same IP
    t = setTomlValue(t, 'p2p', 'addr_book_strict', false);
    t = setTomlValue(t, 'p2p', 'allow_duplicate_ip', true);
    t = setTomlValue(t, 'consensus', 'timeout_commit', '200ms');
    writeFileSync(file, t);
    return new Validator(home, abci, ports[i].rpc);
  });
  return { homes, vals };
}

/** Blocks, a bank send, the upgrade to v2 and the chain going on after it, over `n` validators. */
async function upgradeStory(n: number): Promise<void> {
  const { homes, vals } = await network(n);
  const { alice, bob } = homes.users;
  await Promise.all(vals.map((v) => v.start('v1')));
  await eventually('block 2 on every node', async () => ((await Promise.all(vals.map((v) => v.height()))).every((h) => h >= 2n) ? true : undefined));

  const before = await vals[0].balance(bob.address);
  const sent = await vals[0].broadcast(alice, [sendMsg(alice.address, bob.address, '123')]);
  for (const v of vals) await eventually('the send on every node', async () => ((await v.balance(bob.address)) === before + 123n ? true : undefined));
  // vote extensions on (`chaind init`): CometBFT's own RPC shows the block as it is, the extended commit first;
  // chaind's log counts the send alone (interfaces.md, "The extended commit is not a transaction")
  const found = (await vals[0].rpc.call('tx', { hash: Buffer.from(sent, 'hex').toString('base64') })) as { height: string; index: number };
  assert.equal(found.index, 1);
  const blk = (await vals[0].rpc.call('block', { height: found.height })) as { block: { data: { txs: string[] } } };
  assert.equal(blk.block.data.txs.length, 2);
  assert.ok(isInjectedTx(Buffer.from(blk.block.data.txs[0], 'base64')));
  const line = new RegExp(`committed block height=${found.height} txs=1 `);
  for (const v of vals) await eventually('the log line of the send block', async () => (line.test(v.chaind?.log() ?? '') ? true : undefined));

  const H = (await vals[0].height()) + PLAN_MARGIN;
  const proposal = MsgSubmitProposal.fromPartial({
    messages: [softwareUpgrade('v2', H, 'real cometbft')],
    initialDeposit: [{ denom: DENOM, amount: '1000' }],
    proposer: alice.address,
    title: 'v2',
    summary: 'v2',
  });
  await vals[n - 1].broadcast(alice, [{ typeUrl: '/cosmos.gov.v1.MsgSubmitProposal', value: MsgSubmitProposal.encode(proposal).finish() }]);
  await eventually('proposal 1', () => vals[0].query('/cosmos.gov.v1.Query/Proposal', QueryProposalRequest.encode({ proposalId: 1n }).finish()));
  await Promise.all(
    vals.map((v, i) => {
      const op = homes.operators[i];
      return v.broadcast(op, [
        {
          typeUrl: '/cosmos.gov.v1.MsgVote',
          value: MsgVote.encode({ proposalId: 1n, voter: op.address, option: VoteOption.VOTE_OPTION_YES, metadata: '' }).finish(),
        },
      ]);
    }),
  );
  const plan = await eventually(
    'the plan',
    async () =>
      QueryCurrentPlanResponse.decode(await vals[0].query('/chain.upgrade.v1beta1.Query/CurrentPlan', QueryCurrentPlanRequest.encode({}).finish())).plan,
  );
  assert.equal(plan.name, 'v2');
  assert.equal(plan.height, H);
  assert.ok((await vals[0].height()) < H, 'the plan is set before its height');

  const codes = await Promise.all(vals.map((v) => v.halted()));
  assert.deepEqual(
    codes,
    vals.map(() => 10),
    vals.map((v) => v.chaind?.log()).join('\n'),
  );
  for (const v of vals) {
    assert.match(v.chaind?.log() ?? '', new RegExp(`UPGRADE "v2" NEEDED at height: ${H}: real cometbft`));
    assert.doesNotMatch(v.chaind?.log() ?? '', new RegExp(`committed block height=${H}\\b`));
  }
  const infos = homes.homes.map((h) => readFileSync(join(h, 'data', 'upgrade-info.json'), 'utf8'));
  for (const f of infos) assert.equal(f, infos[0]);
  assert.equal((JSON.parse(infos[0]) as { height: number }).height, Number(H));

  // the operator's part: v2 in place of v1, CometBFT started again; its handshake replays H
  await Promise.all(vals.map((v) => v.start('v2')));
  await eventually('H + 3 on every node', async () => ((await Promise.all(vals.map((v) => v.height()))).every((h) => h >= H + 3n) ? true : undefined), 120_000);
  for (const v of vals) {
    assert.match(v.chaind?.log() ?? '', new RegExp(`committed block height=${H}\\b`), 'block H replayed to v2');
    const applied = QueryAppliedPlanResponse.decode(
      await v.query('/chain.upgrade.v1beta1.Query/AppliedPlan', QueryAppliedPlanRequest.encode({ name: 'v2' }).finish()),
    );
    assert.equal(applied.height, H);
  }
  for (const v of vals) {
    await v.kill();
    await v.chaind?.kill('SIGTERM');
  }
}

describe('chaind behind a CometBFT v0.38 the operator runs (--with-comet=false)', { skip: SKIP, timeout: 600_000 }, () => {
  test('the binary is CometBFT v0.38', async () => {
    const r = await runInGroup(cometbftBin(), ['version'], { timeoutMs: 30_000 });
    assert.equal(r.code, 0, r.stderr);
    assert.equal(r.stdout.trim(), '0.38.25');
  });

  test('one validator: blocks, a bank send, the upgrade v1 → v2 with both processes restarted', () => upgradeStory(1));
});

/** How the misbehaving proposer changes the extended commit it puts first in its proposal, one way per proposal. */
const FORGERIES = {
  // another attestation in a validator's place, its signature kept
  forge: (c: ExtendedVoteInfo[]): void => {
    c[0].voteExtension = encodeAttestation(
      { name: 'v9', height: 999n, info: '', time: undefined, upgradedClientState: undefined },
      { releaseChecksum: `sha256:${'ab'.repeat(32)}`, simulate: SimulateResult.SIMULATE_RESULT_PASSED },
    );
  },
  // two validators' signed extensions swapped
  swap: (c: ExtendedVoteInfo[]): void => {
    [c[0].extensionSignature, c[1].extensionSignature] = [c[1].extensionSignature, c[0].extensionSignature];
  },
  // a validator's power overstated
  overstate: (c: ExtendedVoteInfo[]): void => {
    c[0].validator.power += 100n;
  },
  // a validator's attestation dropped, its vote relabelled absent
  drop: (c: ExtendedVoteInfo[]): void => {
    Object.assign(c[0], { blockIdFlag: BlockIDFlag.BLOCK_ID_FLAG_ABSENT, voteExtension: new Uint8Array(0), extensionSignature: new Uint8Array(0) });
  },
} as const;
/** What an honest validator's ProcessProposal says of each. */
const REFUSALS: Record<keyof typeof FORGERIES, RegExp> = {
  forge: /failed to verify validator [0-9A-F]{40} vote extension signature/,
  swap: /failed to verify validator [0-9A-F]{40} vote extension signature/,
  overstate: /extended commit vote 0 \([0-9A-F]{40}, power 110\) is not the last commit's/,
  drop: /extended commit vote of [0-9A-F]{40} has flag 1, the last commit 2/,
};

describe('a proposer that forges the extended commit (vote extensions on, four validators)', { skip: SKIP, timeout: 600_000 }, () => {
  test("every honest validator's ProcessProposal refuses its proposals; the chain goes on without a block of its", async () => {
    const { homes, vals } = await network(4);
    // `chaind init` turns vote extensions on from the first block
    for (const h of homes.homes) {
      const g = JSON.parse(readFileSync(join(h, 'config', 'genesis.json'), 'utf8')) as {
        consensus_params: { abci: { vote_extensions_enable_height: string } };
      };
      assert.equal(g.consensus_params.abci.vote_extensions_enable_height, '1');
    }
    // validator 3's PrepareProposal answer is changed between its chaind and its CometBFT
    const modes = Object.keys(FORGERIES) as (keyof typeof FORGERIES)[];
    const used: (keyof typeof FORGERIES)[] = [];
    const proxy = await abciProxy(vals[3].abci, (r) => {
      const pp = r.prepareProposal;
      if (pp === undefined || pp.txs.length === 0 || !isInjectedTx(pp.txs[0])) return undefined;
      const ec = decodeInjectedTx(pp.txs[0]);
      const commits = ec.votes.filter((v) => v.blockIdFlag === BlockIDFlag.BLOCK_ID_FLAG_COMMIT);
      if (commits.length < 2) return undefined;
      const mode = modes[used.length % modes.length];
      used.push(mode);
      FORGERIES[mode](commits);
      return { ...r, prepareProposal: { txs: [encodeInjectedTx(ec), ...pp.txs.slice(1)] } };
    });
    try {
      const cfg = join(homes.homes[3], 'config', 'config.toml');
      writeFileSync(cfg, setTomlValue(readFileSync(cfg, 'utf8'), '', 'proxy_app', proxy.address));
      await Promise.all(vals.map((v) => v.start('v1')));
      const from = await eventually('block 2 on every node', async () => {
        const hs = await Promise.all(vals.map((v) => v.height()));
        return hs.every((h) => h >= 2n) ? hs[0] : undefined;
      });
      await eventually('each forgery proposed once', async () => (used.length >= modes.length ? true : undefined), 180_000);
      // the last forgery has just left the proxy: the honest validators' ProcessProposal of it comes after
      const refusedAll = (v: Validator): boolean => modes.every((m) => REFUSALS[m].test(v.chaind?.log() ?? ''));
      await eventually('every honest validator refused each forgery', async () => (vals.slice(0, 3).every(refusedAll) ? true : undefined), 60_000).catch(
        () => undefined,
      );
      const to = await vals[0].height();
      assert.ok(to > from + 4n, `the chain went on: ${from} → ${to}`);
      for (const [i, v] of vals.slice(0, 3).entries()) {
        const log = v.chaind?.log() ?? '';
        for (const m of modes) assert.match(log, REFUSALS[m], `validator ${i} refused the ${m} proposal:\n${log.slice(-3000)}`);
      }
      const byzantine = (JSON.parse(readFileSync(join(homes.homes[3], 'config', 'priv_validator_key.json'), 'utf8')) as { address: string }).address;
      // a commit has more than 2/3 of the votes, so at least three COMMIT votes: each of its proposals was forged
      for (let h = from + 1n; h <= to; h++) {
        const b = (await vals[0].rpc.call('block', { height: h.toString() })) as { block: { header: { proposer_address: string }; data: { txs: string[] } } };
        assert.notEqual(b.block.header.proposer_address, byzantine, `block ${h} was proposed by the forging validator`);
        assert.ok(isInjectedTx(Buffer.from(b.block.data.txs[0] ?? '', 'base64')), `block ${h} carries the extended commit first`);
      }
    } finally {
      for (const v of vals) {
        await v.kill();
        await v.chaind?.kill('SIGTERM');
      }
      await proxy.close();
    }
  });
});

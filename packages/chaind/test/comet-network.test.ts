// Four validators on CometBFT v0.38.25, each `chaind start` under its own chainvisor, on homes made by
// `chaind testnet init` (genesis = v1, v2's release taken away): one network shared by the tests below, in order.
//   1. a governance upgrade v1 → v2 whose plan names v2's release archive: readiness 0 % on every node,
//      75 % once chainvisor prepared it on three, 100 % with the fourth, the same at every height on every
//      node (vote extensions); voted with the CLI while node3 is down: nodes 0–2 halt at the same
//      H with byte-identical upgrade-info.json, switch and resume; then node3, still on v1, block-syncs
//      to H, halts, switches and catches up; every app agrees on the app hash at H + 5;
//   2. the upgrade v2 → v3 behind the readiness gate (one proposal: threshold 0.67 and the plan): v3 on two
//      nodes at H (50 %), so every node moves the plan by the delay and the blocks go on; v3 on the third
//      (75 %): they halt together at the new height, with node3 unable to get v3 (none installed, downloads
//      off) and node2 down there: node3 stays down with chainvisor's exit 3, nodes 0–1 (50%) hold the chain
//      at the halt until node2 comes back and upgrades, then the three (75%) go on;
//   3. chaind SIGKILLed under load: its CometBFT exits with it, both come back and agree.
import assert from 'node:assert/strict';
import { createHash } from 'node:crypto';
import { chmodSync, mkdirSync, readFileSync, rmSync, writeFileSync } from 'node:fs';
import { fileURLToPath } from 'node:url';
import { join } from 'node:path';
import { after, before, describe, test } from 'node:test';
import { DirectSecp256k1Wallet } from '@cosmjs/proto-signing';
import { GasPrice, SigningStargateClient } from '@cosmjs/stargate';
import {
  alive,
  childEnv,
  cometForTests,
  cometHeight,
  DENOM,
  endpointsOf,
  eventually,
  freePorts,
  GroupChild,
  keyringKey,
  ok,
  proposeMessages,
  proposeUpgrade,
  removeTmpDirs,
  runInGroup,
  serve,
  setTomlValue,
  sourcesWithNextRelease,
  startVisor,
  testKey,
  tmpDir,
  visorCommand,
  voteYes,
  waitForPlan,
  type GovUpgradeOptions,
  type Run,
  type Served,
  type ValidatorEndpoints,
} from '@chaind/chaind/testing';
import { errorMessage } from '@chaind/errors';

const CHAIN_ID = 'comet-net-1';
const N = 4;
/** Long enough for the proposal and the votes to land on a busy 2-core machine running four validators. */
const GOV_PERIOD = '30s';
/** Blocks between a proposal and its plan height: more than the voting period at this network's pace. */
const PLAN_MARGIN = 110n;
/** v2's plan also leaves time for chainvisor to prepare the release on every node, and for the attestations to settle. */
const READINESS_MARGIN = 30n;
/** Blocks the readiness gate moves the v3 plan by: time to install v3 on a third node and see it attested. */
const GATE_DELAY = 40;

interface Node {
  readonly name: string;
  readonly home: string;
  readonly ends: ValidatorEndpoints;
  visor: GroupChild | undefined;
}

const nodes: Node[] = [];
/** Serves v2's release archive, which the v2 plan's info names. */
let releases: Served | undefined;
let metricsUrl = '';
const V2_ARCHIVE = fileURLToPath(new URL('../../../dist/releases/chaind-v2-linux-amd64.tar.gz', import.meta.url));

after(async () => {
  await GroupChild.killAllGroups();
  await releases?.close();
  removeTmpDirs();
});

const heightOf = async (n: Node): Promise<bigint> => (await cometHeight(n.ends.rpc)) ?? -1n;

function start(n: Node, env: Readonly<Record<string, string>> = {}): GroupChild {
  n.visor = startVisor(n.home, { DAEMON_RPC_ADDRESS: n.ends.rpc, DAEMON_GRPC_ADDRESS: n.ends.grpc, ...env });
  return n.visor;
}

/** chainvisor's exit (the whole group stopped by SIGTERM to chainvisor, which passes it on to chaind). */
async function stop(n: Node): Promise<void> {
  n.visor?.signal('SIGTERM');
  await n.visor?.exited;
}

async function allAtLeast(ns: readonly Node[], h: bigint, ms = 300_000): Promise<void> {
  try {
    await eventually(
      `${ns.map((n) => n.name).join(', ')} at ${h}`,
      async () => ((await Promise.all(ns.map(heightOf))).every((x) => x >= h) ? true : undefined),
      ms,
    );
  } catch (e) {
    // what each node's chainvisor, chaind and CometBFT said last, CometBFT's consensus chatter left out
    const tails = ns.map(
      (n) =>
        `--- ${n.name} at ${String(n.visor?.running)}:\n${(n.visor?.log() ?? '')
          .split('\n')
          .filter((l) => !l.startsWith('cometbft| I['))
          .slice(-25)
          .join('\n')}`,
    );
    throw new Error(`${errorMessage(e)}\n${tails.join('\n')}`);
  }
}

interface AbciEvent {
  type: string;
  attributes: { key: string; value: string }[];
}

/** The block's own events (FinalizeBlock's, the pre-blockers' among them), from CometBFT's `block_results`. */
async function blockEvents(n: Node, h: bigint): Promise<AbciEvent[]> {
  const r = (await (await fetch(`${n.ends.rpc}/block_results?height=${h}`)).json()) as { result: { finalize_block_events?: AbciEvent[] | null } };
  return r.result.finalize_block_events ?? [];
}

/** The app hash chaind logged when it committed `h` (every process's own, not the block's). */
function appHashAt(n: Node, h: bigint): string | undefined {
  return new RegExp(`committed block height=${h} .*appHash=([0-9a-f]+)`).exec(n.visor?.log() ?? '')?.[1];
}

/** The node's own installed chaind (cosmovisor/current), as its operator runs the CLI: a release starts in a fraction of the sources' time. */
const cliRun = (n: Node, args: readonly string[]): Promise<Run> =>
  runInGroup(join(n.home, 'cosmovisor', 'current', 'bin', 'chaind'), args, { env: childEnv(), timeoutMs: 60_000 });

async function cli(n: Node, args: readonly string[]): Promise<Run> {
  const r = await cliRun(n, args);
  if (r.code !== 0) throw new Error(`chaind ${args.join(' ')} (${n.name}) failed: ${r.stderr}`);
  return r;
}

/** Upgrade `name` at `h` as proposal `id`, as validator `i` sees it: its home, its node, its key. */
const govUpgrade = (name: string, h: bigint, id: number, i: number): GovUpgradeOptions => ({
  cli: (args) => cliRun(nodes[i], args),
  node: nodes[i].ends.rpc,
  home: nodes[i].home,
  name,
  height: h,
  proposal: id,
  from: `validator${i}`,
  voter: `validator${i}`,
  summary: 's',
  broadcastMode: 'sync',
  gas: '400000',
  txFlags: ['--fees', '5000stake', '--chain-id', CHAIN_ID],
});

/** Proposes upgrade `name` at `h` from node0 and has the validators of `voters` vote yes, each from its own home, all at once; waits for the plan. */
async function passUpgrade(name: string, h: bigint, voters: readonly number[], id: number, info?: string): Promise<void> {
  await proposeUpgrade({ ...govUpgrade(name, h, id, 0), info });
  await Promise.all(voters.map((i) => voteYes(govUpgrade(name, h, id, i))));
  await waitForPlan(govUpgrade(name, h, id, 0));
  assert.ok((await heightOf(nodes[0])) < h - 1n, `plan ${name} passed before its height ${h}`);
}

interface Readiness {
  plan: { name: string; height: string } | null;
  scheduled_height: string;
  delays: number;
  threshold: string;
  enabled: boolean;
  ready_power: string;
  ready_fraction: string;
  validators: { moniker: string; ready: boolean; attested_height: string }[];
}

const readinessOf = async (n: Node): Promise<Readiness> =>
  JSON.parse((await cli(n, ['query', 'upgrade', 'readiness', '-o', 'json', '--node', n.ends.rpc])).stdout) as Readiness;

/** The numbers a node reports, without the heights of the attestations (re-recorded every block). */
const numbers = (r: Readiness): string => JSON.stringify({ ...r, validators: r.validators.map((v) => ({ ...v, attested_height: undefined })) });

/** Waits until every node reports `fraction` ready, and checks they report the same numbers for every validator. */
async function readinessEverywhere(fraction: string): Promise<Readiness> {
  const answers = await eventually(`${fraction} ready on every node`, async () => {
    const rs = await Promise.all(nodes.map(readinessOf));
    return rs.every((r) => r.ready_fraction === fraction) ? rs : undefined;
  });
  for (const [i, r] of answers.entries()) assert.equal(numbers(r), numbers(answers[0]), `${nodes[i].name} agrees with node0`);
  return answers[0];
}

const prepare = async (n: Node): Promise<void> => {
  const r = await visorCommand(n.home, ['prepare-upgrade'], {
    DAEMON_GRPC_ADDRESS: n.ends.grpc,
    DAEMON_RPC_ADDRESS: n.ends.rpc,
    DAEMON_ALLOW_LOOPBACK_HTTP: 'true',
  });
  assert.equal(r.code, 0, `${n.name}: ${r.stderr}`);
  assert.match(r.stderr, /release v2 ready/);
};

describe('four validators on CometBFT, each under chainvisor', { skip: cometForTests().skip, timeout: 900_000 }, () => {
  before(async () => {
    const dir = tmpDir('chaind-net-');
    await ok(['testnet', 'init', '--validators', String(N), '--output', dir, '--chain-id', CHAIN_ID, '--gov-period', GOV_PERIOD, '--block-time', '400ms']);
    for (let i = 0; i < N; i++) {
      const home = join(dir, `node${i}`);
      nodes.push({ name: `node${i}`, home, ends: await endpointsOf(home), visor: undefined });
      // nothing prepared: chainvisor downloads v2's release when told to
      rmSync(join(home, 'cosmovisor', 'upgrades', 'v2'), { recursive: true });
    }
    // node1's chaind serves its metrics: the readiness gauge is read there
    const [port] = await freePorts(1);
    const appToml = join(nodes[1].home, 'config', 'app.toml');
    const app = setTomlValue(
      setTomlValue(readFileSync(appToml, 'utf8'), 'instrumentation', 'prometheus', true),
      'instrumentation',
      'prometheus-listen-addr',
      `127.0.0.1:${port}`,
    );
    writeFileSync(appToml, app);
    metricsUrl = `http://127.0.0.1:${port}/metrics`;
    releases = await serve();
    releases.file('/chaind-v2.tar.gz', readFileSync(V2_ARCHIVE));
  });

  test('a governance upgrade v1 → v2: the validators halt at the same H, switch and resume; one that was down catches up through the halt', async (t) => {
    nodes.forEach((n) => start(n));
    await allAtLeast(nodes, 3n);
    const h = (await heightOf(nodes[0])) + PLAN_MARGIN + READINESS_MARGIN;
    const sha = createHash('sha256').update(readFileSync(V2_ARCHIVE)).digest('hex');
    const info = JSON.stringify({ binaries: { 'linux/amd64': `${releases?.base}/chaind-v2.tar.gz?checksum=sha256:${sha}` } });
    await passUpgrade('v2', h, [0, 1, 2, 3], 1, info);

    // readiness through vote extensions: nothing prepared, then three, then all four
    const none = await readinessEverywhere('0.000000000000000000');
    const at = [await heightOf(nodes[0])];
    assert.equal(none.plan?.name, 'v2');
    assert.equal(none.enabled, true);
    await Promise.all(nodes.slice(0, 3).map(prepare));
    const three = await readinessEverywhere('0.750000000000000000');
    at.push(await heightOf(nodes[0]));
    assert.equal(three.ready_power, '30');
    assert.deepEqual(
      three.validators
        .filter((v) => v.ready)
        .map((v) => v.moniker)
        .sort(),
      ['node0', 'node1', 'node2'],
    );
    // the same answer through REST, as curl and the dashboard get it
    const rest = (await (await fetch(`${nodes[1].ends.rest}/chain/upgrade/v1beta1/readiness`)).json()) as Readiness;
    assert.equal(numbers(rest), numbers(three));
    assert.match(await (await fetch(metricsUrl)).text(), /^chaind_upgrade_ready_power_ratio\{name="v2"\} 0\.75$/m);
    await prepare(nodes[3]);
    const all = await readinessEverywhere('1.000000000000000000');
    at.push(await heightOf(nodes[0]));
    t.diagnostic(`v2 (halt at ${h}): every node reported 0 % ready at height ${at[0]}, 75 % at ${at[1]}, 100 % at ${at[2]}`);
    assert.ok(all.validators.every((v) => v.ready && BigInt(v.attested_height) > 0n));
    assert.ok((await heightOf(nodes[0])) < h - 4n, 'readiness settled before the halt');

    // node3 goes down just before H and misses it (earlier, each of its proposer turns costs timeout_propose)
    await allAtLeast([nodes[0]], h - 4n);
    await stop(nodes[3]);
    const up = nodes.slice(0, 3);
    await allAtLeast(up, h + 10n);
    for (const n of up) {
      const log = n.visor?.log() ?? '';
      assert.match(log, new RegExp(`UPGRADE "v2" NEEDED at height: ${h}`), `${n.name}:\n${log.slice(-3000)}`);
      assert.match(log, /upgrade v2 at height \d+ done/);
      // warm start: v2 waited in standby, ran its pre-upgrade there and became the node in that process
      assert.match(log, /warm start: \S+ started in standby for the upgrade v2/);
      assert.match(log, /pre-upgrade \(in the standby\): ok/);
      assert.match(log, /: the standby \(pid \d+\) runs it/);
    }
    const infos = up.map((n) => readFileSync(join(n.home, 'data', 'upgrade-info.json'), 'utf8'));
    for (const f of infos) assert.equal(f, infos[0], 'byte-identical upgrade-info.json');
    const hashes = up.map((n) => appHashAt(n, h + 5n));
    assert.ok(hashes[0] !== undefined && hashes.every((x) => x === hashes[0]), `app hashes at H+5: ${hashes.join(', ')}`);
    const applied = await Promise.all(up.map(async (n) => (await cli(n, ['query', 'upgrade', 'applied', 'v2', '-o', 'json', '--node', n.ends.rpc])).stdout));
    for (const a of applied) assert.equal(a, applied[0], 'the same block header on every node');
    assert.equal((JSON.parse(applied[0]) as { header: { height: string } }).header.height, String(h));

    // node3 comes back on v1 after the others passed H + 10: it syncs to H, halts, switches, catches up
    const late = start(nodes[3]);
    await late.waitForLog(new RegExp(`UPGRADE "v2" NEEDED at height: ${h}`), 120_000);
    await late.waitForLog(/upgrade v2 at height \d+ done/, 120_000);
    await allAtLeast([nodes[3]], (await heightOf(nodes[0])) + 1n);
    assert.equal(appHashAt(nodes[3], h + 5n), hashes[0], 'node3 agrees on the app hash at H + 5');
  });

  test('v2 → v3 behind the readiness gate: half ready at H, the plan moves on every node; the third ready, they halt together and the chain waits at the halt for a third, then goes on', async (t) => {
    // v3: a release after the newest, from the sources with one more upgrade; installed by hand, two nodes first
    const next = sourcesWithNextRelease('v3');
    const install = (n: Node): void => {
      const bin = join(n.home, 'cosmovisor', 'upgrades', 'v3', 'bin');
      mkdirSync(bin, { recursive: true });
      writeFileSync(join(bin, 'chaind'), `#!/bin/sh\nCHAIND_RELEASE=v3 exec "${process.execPath}" "${next.bin}" "$@"\n`);
      chmodSync(join(bin, 'chaind'), 0o755);
    };
    nodes.slice(0, 2).forEach(install);
    const authority = (
      JSON.parse((await cli(nodes[0], ['query', 'upgrade', 'authority', '-o', 'json', '--node', nodes[0].ends.rpc])).stdout) as { address: string }
    ).address;
    // one proposal turns the gate on (2/3 of the power, moves of GATE_DELAY blocks) and schedules v3
    const h = (await heightOf(nodes[0])) + PLAN_MARGIN;
    const gov = govUpgrade('v3', h, 2, 0);
    await proposeMessages(gov, [
      {
        '@type': '/chain.upgrade.v1beta1.MsgUpdateParams',
        authority,
        params: { readiness_threshold: '0.67', readiness_delay: String(GATE_DELAY), readiness_max_delays: 3 },
      },
      { '@type': '/chain.upgrade.v1beta1.MsgSoftwareUpgrade', authority, plan: { name: 'v3', height: String(h), info: '' } },
    ]);
    await Promise.all([0, 1, 2, 3].map((i) => voteYes(govUpgrade('v3', h, 2, i))));
    await waitForPlan(gov);
    const params = JSON.parse((await cli(nodes[3], ['query', 'upgrade', 'params', '-o', 'json', '--node', nodes[3].ends.rpc])).stdout) as unknown;
    assert.deepEqual(params, { params: { readiness_threshold: '0.670000000000000000', readiness_delay: String(GATE_DELAY), readiness_max_delays: 3 } });
    await readinessEverywhere('0.500000000000000000');

    // at H, every node moves the plan instead of halting, and the blocks go on
    const moved = h + BigInt(GATE_DELAY);
    await allAtLeast(nodes, h + 2n);
    for (const n of nodes) {
      const r = await readinessOf(n);
      assert.deepEqual([r.plan?.height, r.scheduled_height, r.delays, r.threshold], [String(moved), String(h), 1, '0.670000000000000000'], n.name);
      const log = n.visor?.log() ?? '';
      assert.match(
        log,
        new RegExp(`UPGRADE "v3" DELAYED at height ${h} to ${moved}: 50% of the voting power ready \\(20 of 40\\), threshold 67% \\(delay 1 of 3\\)`),
        n.name,
      );
      assert.doesNotMatch(log, /UPGRADE "v3" NEEDED/, n.name);
    }
    const events = await blockEvents(nodes[1], h);
    assert.ok(
      events.some((e) => e.type === 'upgrade_delayed' && e.attributes.some((a) => a.key === 'new_height' && a.value === String(moved))),
      JSON.stringify(events),
    );

    // the third gets ready: 75 % ≥ 2/3, so the network halts together at the new height
    install(nodes[2]);
    await readinessEverywhere('0.750000000000000000');
    const readyAt = await heightOf(nodes[0]);
    assert.ok((await heightOf(nodes[0])) < moved - 4n, `readiness settled before the new height ${moved}`);
    await allAtLeast([nodes[0]], moved - 3n);
    await stop(nodes[2]);
    // node3 halts at the new height and stays down: no binary, downloads off
    const stuck = await nodes[3].visor?.exited;
    assert.equal(stuck?.code, 3, nodes[3].visor?.log().slice(-3000));
    assert.match(nodes[3].visor?.log() ?? '', new RegExp(`UPGRADE "v3" NEEDED at height: ${moved}`));
    assert.match(nodes[3].visor?.log() ?? '', /no binary for upgrade v3/);
    // nodes 0–1 upgrade, but 2 of 4 (50%) cannot decide the next height
    for (const n of nodes.slice(0, 2)) await n.visor?.waitForLog(/upgrade v3 at height \d+ done/, 120_000);
    await new Promise((r) => setTimeout(r, 6_000));
    assert.ok((await heightOf(nodes[0])) <= moved, `the chain holds at the halt with half the power (at ${await heightOf(nodes[0])}, halt at ${moved})`);
    // node2 comes back on v2: syncs to the halt, halts, switches to v3; three of four go on
    start(nodes[2]);
    await allAtLeast(nodes.slice(0, 3), moved + 5n, 180_000);
    const hashes = nodes.slice(0, 3).map((n) => appHashAt(n, moved + 3n));
    assert.ok(hashes[0] !== undefined && hashes.every((x) => x === hashes[0]), `app hashes at the halt + 3: ${hashes.join(', ')}`);
    const applied = await cli(nodes[0], ['query', 'upgrade', 'applied', 'v3', '-o', 'json', '--node', nodes[0].ends.rpc]);
    assert.equal((JSON.parse(applied.stdout) as { header: { height: string } }).header.height, String(moved), 'v3 applied at the moved height');
    t.diagnostic(
      `v3 scheduled at ${h} with threshold 0.67: 50 % ready there, so every node moved it to ${moved}; 75 % by height ${readyAt}; halted at ${moved} and applied v3 there`,
    );
  });

  test('chaind killed (SIGKILL) under load: its CometBFT exits with it; both come back and agree', async () => {
    const n0 = nodes[0];
    const key = await keyringKey(n0.home, 'validator0');
    const wallet = await DirectSecp256k1Wallet.fromKey(key.privateKey, 'chain');
    const client = await SigningStargateClient.connectWithSigner(nodes[1].ends.rpc, wallet, { gasPrice: GasPrice.fromString(`0.025${DENOM}`) });
    const to = testKey(9).address;
    let sent = 0;
    let loading = true;
    const load = (async () => {
      while (loading) {
        await client.sendTokens(key.address, to, [{ denom: DENOM, amount: '1' }], 'auto').then(
          () => sent++,
          () => undefined,
        );
      }
    })();
    await eventually('a few sends', async () => (sent >= 2 ? true : undefined), 60_000);
    // chaind is CometBFT's parent (chainvisor's child): kill it alone, as the kernel's OOM killer would
    const cometPid = Number([...(n0.visor?.log() ?? '').matchAll(/started CometBFT .*pid=(\d+)/g)].pop()?.[1]);
    const chaindPid = parentOf(cometPid);
    process.kill(chaindPid, 'SIGKILL');
    await eventually('CometBFT to exit with its chaind', async () => (alive(cometPid) ? undefined : true), 30_000);
    // chainvisor does not restart a crashed node (exit 5, as cosmovisor): its supervisor does
    assert.equal((await n0.visor?.exited)?.code, 5, n0.visor?.log().slice(-3000));
    const resumed = (await heightOf(nodes[1])) + 3n;
    start(n0);
    await allAtLeast(nodes.slice(0, 3), resumed, 120_000);
    loading = false;
    await load;
    client.disconnect();
    assert.ok(sent >= 2, `${sent} sends delivered`);
    const hashes = nodes.slice(0, 3).map((n) => appHashAt(n, resumed));
    assert.ok(hashes[0] !== undefined && hashes.every((x) => x === hashes[0]), `app hashes at ${resumed}: ${hashes.join(', ')}`);
  });
});

/** A process's parent, from /proc (field 4 of stat, after the command's parenthesised name). */
function parentOf(pid: number): number {
  const stat = readFileSync(`/proc/${pid}/stat`, 'utf8');
  return Number(stat.slice(stat.lastIndexOf(')') + 2).split(' ')[1]);
}

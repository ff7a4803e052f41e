// Issue 18, finding 1: one free tx with thousands of signer infos of one known public key must not
// make the node build a copy of the sign bytes per signer info ahead of CheckTx. A real `chaind start`
// child process, fed 50 such txs at once over JSON-RPC: its peak RSS stays within a bound, every one is
// refused, a resend is answered from the mempool's memory, and blocks keep coming.
import assert from 'node:assert/strict';
import { readFileSync, writeFileSync } from 'node:fs';
import { join } from 'node:path';
import { after, test } from 'node:test';
import { SignMode } from 'cosmjs-types/cosmos/tx/signing/v1beta1/signing';
import { AuthInfo, TxBody, TxRaw } from 'cosmjs-types/cosmos/tx/v1beta1/tx';
import { MsgSend } from 'cosmjs-types/cosmos/bank/v1beta1/tx';
import { encodeSecp256k1PubKey } from '@chaind/sdk/tx';
import { ALICE, DENOM, ok, removeTmpDirs, startDevNode, tmpDir } from '@chaind/chaind/testing';

after(removeTmpDirs);

/** Signer infos per attack tx: ~600 KB of tx, whose sign bytes the old code copied once per info. */
const SIGNER_INFOS = 4000;
const IN_FLIGHT = 50;
/** The node's peak RSS may grow by this much over its idle peak while it takes the attack. */
const RSS_BOUND_MIB = 256;

/** Alice's send with SIGNER_INFOS copies of her (known, on-chain) key and well-formed garbage signatures. */
function attackTx(i: number): Uint8Array {
  const msg = {
    typeUrl: '/cosmos.bank.v1beta1.MsgSend',
    value: MsgSend.encode({ fromAddress: ALICE.address, toAddress: ALICE.address, amount: [{ denom: DENOM, amount: '1' }] }).finish(),
  };
  const bodyBytes = TxBody.encode(TxBody.fromPartial({ messages: [msg], memo: `attack ${i}` })).finish();
  const info = { publicKey: encodeSecp256k1PubKey(ALICE.publicKey), modeInfo: { single: { mode: SignMode.SIGN_MODE_DIRECT } }, sequence: 0n };
  const authInfoBytes = AuthInfo.encode(
    AuthInfo.fromPartial({
      signerInfos: Array.from({ length: SIGNER_INFOS }, () => info),
      fee: { amount: [{ denom: DENOM, amount: '200' }], gasLimit: 200_000n },
    }),
  ).finish();
  // r and s in range, so nothing but the curve arithmetic could tell them apart from real ones
  const sig = Buffer.alloc(64, 1);
  sig.writeUInt32BE(i + 1, 0);
  return TxRaw.encode({ bodyBytes, authInfoBytes, signatures: Array.from({ length: SIGNER_INFOS }, () => sig) }).finish();
}

/** VmHWM (peak resident set) of process `pid`, in MiB. */
function peakRssMiB(pid: number): number {
  const m = /VmHWM:\s+(\d+) kB/.exec(readFileSync(`/proc/${pid}/status`, 'utf8'));
  assert.ok(m, 'VmHWM in /proc/<pid>/status');
  return Number(m[1]) / 1024;
}

async function rpc(
  url: string,
  method: string,
  params: Record<string, unknown>,
): Promise<{ result?: Record<string, unknown>; error?: { message: string; data?: string } }> {
  const r = await fetch(url, {
    method: 'POST',
    headers: { 'content-type': 'application/json' },
    body: JSON.stringify({ jsonrpc: '2.0', id: 1, method, params }),
    signal: AbortSignal.timeout(60_000),
  });
  return (await r.json()) as { result?: Record<string, unknown> };
}

test('50 free txs of 4,000 signer infos each in flight: bounded RSS, each refused, blocks keep coming', { timeout: 180_000 }, async () => {
  const home = tmpDir('chaind-attack-');
  await ok(['init', 'n1', '--chain-id', 'attack-test-1', '--home', home]);
  await ok(['keys', 'add', 'val', '--keyring-backend', 'test', '--home', home]);
  await ok(['genesis', 'add-account', 'val', '1000000stake', '--keyring-backend', 'test', '--home', home]);
  await ok(['genesis', 'add-account', ALICE.address, '1000000stake', '--home', home]);
  await ok(['genesis', 'add-validator', 'val', '10', '--keyring-backend', 'test', '--home', home]);
  const cfg = join(home, 'config', 'config.toml');
  writeFileSync(cfg, readFileSync(cfg, 'utf8').replace(/block_interval = "1s"/, 'block_interval = "200ms"'));

  const node = await startDevNode(home);
  const { proc, rpc: url } = node;
  try {
    const height = (): number => Math.max(0, ...[...proc.log().matchAll(/committed block height=(\d+)/g)].map((m) => Number(m[1])));
    const waitFor = async (what: string, cond: () => boolean, ms = 30_000): Promise<void> => {
      const end = Date.now() + ms;
      while (!cond()) {
        if (!proc.running) assert.fail(`the node exited (${proc.child.exitCode}) while waiting for ${what}:\n${proc.log().slice(-3000)}`);
        if (Date.now() > end) assert.fail(`timed out waiting for ${what}:\n${proc.log().slice(-3000)}`);
        await new Promise((r) => setTimeout(r, 50));
      }
    };
    await waitFor('height 3', () => height() >= 3);
    const idlePeak = peakRssMiB(proc.pid);

    const txs = Array.from({ length: IN_FLIGHT }, (_, i) => attackTx(i));
    assert.ok(txs[0].length > 500_000 && txs[0].length < 700_000, `an attack tx is ${txs[0].length} bytes`);
    const before = height();
    const answers = await Promise.all(txs.map((tx) => rpc(url, 'broadcast_tx_sync', { tx: Buffer.from(tx).toString('base64') })));
    for (const a of answers) {
      assert.equal(a.error, undefined, JSON.stringify(a.error));
      assert.equal(a.result?.code, 4, JSON.stringify(a.result));
      assert.equal(a.result?.log, `wrong number of signers; expected 1, got ${SIGNER_INFOS}: unauthorized`);
    }
    const attackPeak = peakRssMiB(proc.pid);
    assert.ok(
      attackPeak - idlePeak <= RSS_BOUND_MIB,
      `peak RSS grew ${(attackPeak - idlePeak).toFixed(0)} MiB (idle peak ${idlePeak.toFixed(0)} MiB), bound ${RSS_BOUND_MIB} MiB`,
    );
    // a resend is answered the same, and blocks keep coming
    const again = await rpc(url, 'broadcast_tx_sync', { tx: Buffer.from(txs[0]).toString('base64') });
    assert.deepEqual([again.result?.code, again.result?.log], [answers[0].result?.code, answers[0].result?.log]);
    await waitFor('three more blocks', () => height() >= before + 3, 10_000);
    console.log(
      `# attack: ${IN_FLIGHT} txs of ${txs[0].length} bytes; node peak RSS ${idlePeak.toFixed(0)} → ${attackPeak.toFixed(0)} MiB; height ${before} → ${height()}`,
    );
  } finally {
    await node.stop();
  }
});

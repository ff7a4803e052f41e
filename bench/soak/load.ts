// The soak's steady load: one client signs bank sends from one account (sequence by sequence) and
// broadcasts them at a fixed rate, in turn over JSON-RPC (broadcast_tx_sync) and REST (BROADCAST_MODE_SYNC).
// Every tx CheckTx accepted is remembered by hash, so the soak can prove each one was committed.
import { createHash } from 'node:crypto';
import { MsgSend } from 'cosmjs-types/cosmos/bank/v1beta1/tx';
import { addressFromPublicKey, publicKeyFromPrivate, signDirect } from '@chaind/sdk/crypto';
import { encodeTxParts, encodeTxRaw, signDocBytes } from '@chaind/sdk/tx';

export interface LoadClientOptions {
  /** the sending account's key (an account that exists on chain) */
  readonly privateKey: Uint8Array;
  /** txs per second this client aims at */
  readonly rate: number;
  readonly chainId: string;
  readonly rpc: string;
  readonly rest: string;
  /** where the sends go */
  readonly to: string;
  readonly denom: string;
}

/** One CheckTx refusal: the tx was not accepted and its sequence was not used. */
export interface Refusal {
  readonly code: number;
  readonly log: string;
}

export interface LoadClient {
  readonly address: string;
  /** hash (upper hex) -> ms (performance.now) it was accepted */
  readonly accepted: Map<string, number>;
  readonly refusals: Refusal[];
  /** broadcasts that got no answer (connection refused or reset) */
  transportErrors: number;
  /** accepted over JSON-RPC and over REST */
  readonly acceptedBy: { jsonrpc: number; rest: number };
  /** Reads the account number and sequence from the node (REST) and starts sending. */
  start(): Promise<void>;
  /** Stops sending and resolves once no broadcast is in flight. */
  pause(): Promise<void>;
}

const GAS = 200_000n;
const FEE = '5000';

/** The upper-hex hash CometBFT names a tx by. */
export const txHash = (tx: Uint8Array): string => createHash('sha256').update(tx).digest('hex').toUpperCase();

export function loadClient(o: LoadClientOptions): LoadClient {
  const { privateKey } = o;
  const address = addressFromPublicKey(publicKeyFromPrivate(privateKey));
  let accountNumber = 0n;
  let sequence = 0n;
  let running = false;
  let loop: Promise<void> = Promise.resolve();
  const client: LoadClient = {
    address,
    accepted: new Map(),
    refusals: [],
    transportErrors: 0,
    acceptedBy: { jsonrpc: 0, rest: 0 },
    start: async () => {
      const r = await fetch(`${o.rest}/cosmos/auth/v1beta1/accounts/${address}`);
      if (r.status !== 200) throw new Error(`account ${address}: HTTP ${r.status} ${await r.text()}`);
      const account = ((await r.json()) as { account: { account_number: string; sequence: string } }).account;
      accountNumber = BigInt(account.account_number);
      sequence = BigInt(account.sequence);
      running = true;
      loop = run();
    },
    pause: async () => {
      running = false;
      await loop;
    },
  };

  const sign = (): Uint8Array => {
    const msg = MsgSend.fromPartial({ fromAddress: address, toAddress: o.to, amount: [{ denom: o.denom, amount: '1' }] });
    const parts = encodeTxParts(
      {
        msgs: [{ typeUrl: '/cosmos.bank.v1beta1.MsgSend', value: MsgSend.encode(msg).finish() }],
        fee: { amount: [{ denom: o.denom, amount: FEE }], gasLimit: GAS },
      },
      [{ privateKey, accountNumber, sequence }],
    );
    return encodeTxRaw({ ...parts, signatures: [signDirect(privateKey, signDocBytes(parts, o.chainId, accountNumber))] });
  };

  /** CheckTx's answer to one broadcast. */
  const broadcast = async (tx: Uint8Array, jsonrpc: boolean): Promise<Refusal> => {
    const b64 = Buffer.from(tx).toString('base64');
    if (jsonrpc) {
      const r = await fetch(o.rpc, {
        method: 'POST',
        headers: { 'content-type': 'application/json' },
        body: JSON.stringify({ jsonrpc: '2.0', id: 1, method: 'broadcast_tx_sync', params: { tx: b64 } }),
      });
      const j = (await r.json()) as { result?: { code: number; log: string }; error?: { message: string; data?: string } };
      return j.result ?? { code: -1, log: `${j.error?.message ?? 'no result'} ${j.error?.data ?? ''}` };
    }
    const r = await fetch(`${o.rest}/cosmos/tx/v1beta1/txs`, {
      method: 'POST',
      headers: { 'content-type': 'application/json' },
      body: JSON.stringify({ tx_bytes: b64, mode: 'BROADCAST_MODE_SYNC' }),
    });
    const j = (await r.json()) as { tx_response?: { code: number; raw_log: string }; message?: string };
    return j.tx_response === undefined ? { code: -1, log: `HTTP ${r.status} ${j.message ?? ''}` } : { code: j.tx_response.code, log: j.tx_response.raw_log };
  };

  async function run(): Promise<void> {
    const t0 = performance.now();
    let sent = 0;
    while (running) {
      // as many as the rate allows by now, one at a time (each at the next sequence)
      const due = Math.floor(((performance.now() - t0) / 1000) * o.rate);
      if (sent >= due) {
        await new Promise((r) => setTimeout(r, Math.max(1, ((sent + 1) / o.rate) * 1000 - (performance.now() - t0))));
        continue;
      }
      sent++;
      const tx = sign();
      const jsonrpc = sequence % 2n === 0n;
      let answer: Refusal;
      try {
        answer = await broadcast(tx, jsonrpc);
      } catch {
        client.transportErrors++;
        await new Promise((r) => setTimeout(r, 200));
        continue;
      }
      if (answer.code === 0) {
        client.accepted.set(txHash(tx), performance.now());
        client.acceptedBy[jsonrpc ? 'jsonrpc' : 'rest']++;
        sequence++;
      } else client.refusals.push(answer);
    }
  }
  return client;
}

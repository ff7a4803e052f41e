// The FinalizeBlock encoder against cosmjs-types' own encoding of the same Response: equal bytes for
// every shape a block's results take (empty and multi-byte strings, indexed and plain attributes,
// negative and huge integers, lengths crossing varint boundaries, validator and param updates).
import assert from 'node:assert/strict';
import { describe, test } from 'node:test';
import { Response, type Event, type ExecTxResult, type ResponseFinalizeBlock } from 'cosmjs-types/tendermint/abci/types';
import { DEFAULT_MAX_MESSAGE_BYTES, encodeFrame, FrameDecoder } from './framing.ts';
import { encodeFinalizeBlockFrame } from './finalize-block.ts';

const reference = (r: ResponseFinalizeBlock): string => Buffer.from(encodeFrame(Response.encode({ finalizeBlock: r }).finish())).toString('hex');
const fast = (r: ResponseFinalizeBlock): string => Buffer.from(encodeFinalizeBlockFrame(r)).toString('hex');

/** A deterministic pseudo-random source, so a failure names a case that can be run again. */
function rng(seed: number): () => number {
  let s = seed >>> 0;
  return () => {
    s = (Math.imul(s, 1664525) + 1013904223) >>> 0;
    return s / 2 ** 32;
  };
}

const ALPHABET = ['a', 'Z', '0', ' ', '=', 'é', '€', '𝄞', '\u0000', '"'];

function text(r: () => number, max: number): string {
  const n = Math.floor(r() * (max + 1));
  let s = '';
  for (let i = 0; i < n; i++) s += ALPHABET[Math.floor(r() * ALPHABET.length)];
  return s;
}

function event(r: () => number): Event {
  return {
    type: text(r, 12),
    attributes: Array.from({ length: Math.floor(r() * 5) }, () => ({ key: text(r, 10), value: text(r, r() < 0.05 ? 300 : 40), index: r() < 0.5 })),
  };
}

// [2^31, 2^32) is left out of the comparison: cosmjs-types 0.11.0 alone writes those wrongly (see below)
const INTS = [0n, 1n, 127n, 128n, 16_383n, 16_384n, 2n ** 31n - 1n, 2n ** 32n, 2n ** 63n - 1n, -1n, -(2n ** 63n)];

function txResult(r: () => number): ExecTxResult {
  return {
    code: [0, 1, 5, 127, 128, 2 ** 32 - 1][Math.floor(r() * 6)],
    data: Uint8Array.from({ length: Math.floor(r() * (r() < 0.05 ? 300 : 20)) }, () => Math.floor(r() * 256)),
    log: text(r, 30),
    info: text(r, 5),
    gasWanted: INTS[Math.floor(r() * INTS.length)],
    gasUsed: INTS[Math.floor(r() * INTS.length)],
    events: Array.from({ length: Math.floor(r() * 6) }, () => event(r)),
    codespace: text(r, 6),
  };
}

function response(seed: number, txs: number): ResponseFinalizeBlock {
  const r = rng(seed);
  return {
    events: Array.from({ length: Math.floor(r() * 4) }, () => event(r)),
    txResults: Array.from({ length: txs }, () => txResult(r)),
    validatorUpdates: r() < 0.3 ? [{ pubKey: { ed25519: new Uint8Array(32).fill(7), secp256k1: undefined }, power: 10n }] : [],
    consensusParamUpdates: r() < 0.3 ? { block: undefined, evidence: undefined, validator: undefined, version: { app: 2n }, abci: undefined } : undefined,
    appHash: r() < 0.9 ? new Uint8Array(32).fill(9) : new Uint8Array(0),
  };
}

describe('FinalizeBlock responses encoded by @chaind/abci', () => {
  test('an empty response, and one with only an app hash', () => {
    const empty: ResponseFinalizeBlock = { events: [], txResults: [], validatorUpdates: [], consensusParamUpdates: undefined, appHash: new Uint8Array(0) };
    assert.equal(fast(empty), reference(empty));
    assert.equal(fast({ ...empty, appHash: new Uint8Array(32).fill(1) }), reference({ ...empty, appHash: new Uint8Array(32).fill(1) }));
  });

  test('500 random responses of 0–20 txs: the same bytes as cosmjs-types', () => {
    for (let seed = 1; seed <= 500; seed++) {
      const res = response(seed, seed % 21);
      assert.equal(fast(res), reference(res), `seed ${seed}`);
    }
  });

  test('gas in [2^31, 2^32) is the varint of its value (cosmjs-types 0.11.0 writes one byte and four zeros there), read back by cosmjs-types as that value', () => {
    const r: ExecTxResult = { code: 0, data: new Uint8Array(0), log: '', info: '', gasWanted: 3_000_000_000n, gasUsed: 2n ** 31n, events: [], codespace: '' };
    const res: ResponseFinalizeBlock = { events: [], txResults: [r], validatorUpdates: [], consensusParamUpdates: undefined, appHash: new Uint8Array(0) };
    const bytes = encodeFinalizeBlockFrame(res);
    // frame length 17: Response field 21 (aa 01) of 14 bytes: tx_results (12) of 12: gas_wanted (28) 3e9, gas_used (30) 2^31, 6 bytes each
    assert.equal(Buffer.from(bytes).toString('hex'), '11' + 'aa010e' + '120c' + '2880bcc1960b' + '308080808008');
    const [message] = new FrameDecoder(DEFAULT_MAX_MESSAGE_BYTES).push(bytes);
    assert.deepEqual(Response.decode(message).finalizeBlock?.txResults[0], r);
  });

  test('lengths past the 2-, 3- and 4-byte varints (a block of 3,000 tx results, ~2 MB)', () => {
    for (const txs of [200, 3_000]) {
      const res = response(7 + txs, txs);
      const bytes = encodeFinalizeBlockFrame(res);
      assert.equal(Buffer.from(bytes).toString('hex'), reference(res), `${txs} txs`);
      const [message] = new FrameDecoder(DEFAULT_MAX_MESSAGE_BYTES).push(bytes);
      assert.deepEqual(Response.decode(message).finalizeBlock, res);
    }
  });
});

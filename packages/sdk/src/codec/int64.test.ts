// int64 and uint64 fields of cosmjs-types' messages in [2^31, 2^32): the bytes a correct protobuf
// writer gives (cosmjs-types 0.11.0 alone writes one byte and four zeros), read back as the same value.
import assert from 'node:assert/strict';
import { test } from 'node:test';
import { ExecTxResult, RequestFinalizeBlock, ResponseCheckTx, ResponseInfo } from 'cosmjs-types/tendermint/abci/types';
import './int64.ts';

/** The unsigned LEB128 varint of `v`, written out by hand. */
function varint(v: bigint): string {
  let x = BigInt.asUintN(64, v);
  const out: number[] = [];
  while (x >= 0x80n) {
    out.push(Number(x & 0x7fn) | 0x80);
    x >>= 7n;
  }
  out.push(Number(x));
  return Buffer.from(out).toString('hex');
}

const VALUES = [
  0n,
  1n,
  2n ** 31n - 1n,
  2n ** 31n,
  2n ** 31n + 1n,
  3_000_000_000n,
  2n ** 32n - 1n,
  2n ** 32n,
  2n ** 53n,
  2n ** 63n - 1n,
  -1n,
  -(2n ** 31n),
  -(2n ** 63n),
];

test('gas_wanted (int64) of ResponseCheckTx and ExecTxResult: field 5 holds the varint of the value, and decodes to it', () => {
  for (const v of VALUES) {
    if (v === 0n) continue;
    const check = ResponseCheckTx.encode(ResponseCheckTx.fromPartial({ gasWanted: v })).finish();
    assert.equal(Buffer.from(check).toString('hex'), `28${varint(v)}`, `gas_wanted ${v}`);
    assert.equal(ResponseCheckTx.decode(check).gasWanted, v);
    const exec = ExecTxResult.encode(ExecTxResult.fromPartial({ gasUsed: v })).finish();
    assert.equal(Buffer.from(exec).toString('hex'), `30${varint(v)}`, `gas_used ${v}`);
    assert.equal(ExecTxResult.decode(exec).gasUsed, v);
  }
});

test('height (int64) of RequestFinalizeBlock', () => {
  for (const v of VALUES.filter((x) => x > 0n)) {
    const b = RequestFinalizeBlock.encode(RequestFinalizeBlock.fromPartial({ height: v })).finish();
    // decided_last_commit (2) and time (6) are empty messages around height (5)
    assert.equal(Buffer.from(b).toString('hex'), `120028${varint(v)}3200`);
    assert.equal(RequestFinalizeBlock.decode(b).height, v);
  }
});

test('app_version (uint64) of ResponseInfo', () => {
  for (const v of VALUES.filter((x) => x > 0n)) {
    const b = ResponseInfo.encode(ResponseInfo.fromPartial({ appVersion: v })).finish();
    assert.equal(Buffer.from(b).toString('hex'), `18${varint(v)}`);
    assert.equal(ResponseInfo.decode(b).appVersion, v);
  }
});

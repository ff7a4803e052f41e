// Fuzz: tx bytes into CheckTx and FinalizeBlock of the real chain app over real LMDB. Valid signed txs
// are mutated (bit flips, truncations, appended fields, varint edge cases, huge length prefixes, wrong
// wire types, random bytes), at the TxRaw level and inside its body and auth-info bytes. Every mutant
// must be refused with a nonzero code and a log, never a throw; a block of only refused txs must leave
// the app hash of an empty block on a twin app; and the next block with a valid tx still commits.
import assert from 'node:assert/strict';
import { after, before, test } from 'node:test';
import fc from 'fast-check';
import { TxRaw } from 'cosmjs-types/cosmos/tx/v1beta1/tx';
import { CheckTxType, type ResponseCheckTx } from 'cosmjs-types/tendermint/abci/types';
import { ALICE, BOB, newHome, removeTmpDirs, TestChain, VALIDATOR } from '@chaind/chaind/testing';
import { sendMsg } from '@chaind/sdk/testing';
import { toHex } from '@chaind/sdk/store';
import { fuzzParameters, varintBytes } from '../kit/fuzz.ts';

/** A mutation of one level of a tx (the whole TxRaw, or the body or auth-info bytes inside it). */
type Mutation =
  | { readonly kind: 'flip'; readonly at: number; readonly bit: number }
  | { readonly kind: 'truncate'; readonly at: number }
  | { readonly kind: 'append'; readonly bytes: Uint8Array }
  | { readonly kind: 'insert'; readonly at: number; readonly bytes: Uint8Array }
  | { readonly kind: 'splice'; readonly at: number; readonly length: number; readonly bytes: Uint8Array }
  | { readonly kind: 'wire'; readonly at: number; readonly wire: number }
  | { readonly kind: 'random'; readonly bytes: Uint8Array };

type Level = 'raw' | 'body' | 'authInfo';

interface Case {
  readonly seed: number;
  readonly level: Level;
  readonly mutations: readonly Mutation[];
}

/** Varint edge values: zero, the 32- and 64-bit edges, and a value too wide for 64 bits. */
const EDGE_VALUES: readonly bigint[] = [
  0n,
  1n,
  127n,
  128n,
  2n ** 31n - 1n,
  2n ** 31n,
  2n ** 32n - 1n,
  2n ** 32n,
  2n ** 53n,
  2n ** 63n - 1n,
  2n ** 63n,
  2n ** 64n - 1n,
  2n ** 64n,
  2n ** 70n,
];

const edgeVarint: fc.Arbitrary<number[]> = fc.oneof(
  fc.tuple(fc.constantFrom(...EDGE_VALUES), fc.constantFrom(0, 10, 11)).map(([v, w]) => varintBytes(v, w)),
  // a varint that never ends, and ten bytes all with the continuation bit
  fc.constant<number[]>([0xff, 0xff, 0xff, 0xff, 0xff, 0xff, 0xff, 0xff, 0xff, 0xff]),
  fc.constant<number[]>([0xff, 0xff, 0xff, 0xff, 0xff, 0xff, 0xff, 0xff, 0xff, 0x01]),
  fc.constant<number[]>([0x80]),
);

/** One protobuf field: a tag (any field number and wire type) and a payload, often with an edge varint or a huge length. */
const field: fc.Arbitrary<Uint8Array> = fc
  .tuple(
    fc.oneof(fc.integer({ min: 1, max: 20 }), fc.constantFrom(0, 1023, 1024, 2 ** 29 - 1, 2 ** 29)),
    fc.integer({ min: 0, max: 7 }),
    fc.oneof(
      edgeVarint,
      // a length prefix, edge-sized or huge, followed by fewer bytes than it claims
      fc.tuple(edgeVarint, fc.uint8Array({ maxLength: 16 })).map(([len, b]) => [...len, ...b]),
      fc.uint8Array({ maxLength: 24 }).map((b) => [...varintBytes(BigInt(b.length)), ...b]),
      fc.uint8Array({ minLength: 8, maxLength: 8 }).map((b) => [...b]),
    ),
  )
  .map(([n, wire, payload]) => Uint8Array.from([...varintBytes((BigInt(n) << 3n) | BigInt(wire)), ...payload]));

const bytes: fc.Arbitrary<Uint8Array> = fc.oneof(field, fc.uint8Array({ minLength: 1, maxLength: 32 }));

const mutation: fc.Arbitrary<Mutation> = fc.oneof(
  fc.record({ kind: fc.constant('flip' as const), at: fc.nat(), bit: fc.integer({ min: 0, max: 7 }) }),
  fc.record({ kind: fc.constant('truncate' as const), at: fc.nat() }),
  fc.record({ kind: fc.constant('append' as const), bytes }),
  fc.record({ kind: fc.constant('insert' as const), at: fc.nat(), bytes }),
  fc.record({ kind: fc.constant('splice' as const), at: fc.nat(), length: fc.integer({ min: 1, max: 12 }), bytes }),
  fc.record({ kind: fc.constant('wire' as const), at: fc.nat(), wire: fc.integer({ min: 0, max: 7 }) }),
  fc.record({ kind: fc.constant('random' as const), bytes: fc.uint8Array({ maxLength: 300 }) }),
);

function mutate(input: Uint8Array, m: Mutation): Uint8Array {
  const b = [...input];
  const at = (n: number): number => (b.length === 0 ? 0 : n % (b.length + 1));
  switch (m.kind) {
    case 'flip':
      if (b.length > 0) b[m.at % b.length] ^= 1 << m.bit;
      return Uint8Array.from(b);
    case 'truncate':
      return Uint8Array.from(b.slice(0, b.length === 0 ? 0 : m.at % b.length));
    case 'append':
      return Uint8Array.from([...b, ...m.bytes]);
    case 'insert': {
      const i = at(m.at);
      return Uint8Array.from([...b.slice(0, i), ...m.bytes, ...b.slice(i)]);
    }
    case 'splice': {
      const i = at(m.at);
      return Uint8Array.from([...b.slice(0, i), ...m.bytes, ...b.slice(i + m.length)]);
    }
    case 'wire':
      // the tag's low three bits: a field read with another wire type
      if (b.length > 0) b[m.at % b.length] = (b[m.at % b.length] & ~7) | m.wire;
      return Uint8Array.from(b);
    case 'random':
      return m.bytes;
  }
}

/** The mutant of `tx` a case describes: TxRaw mutated as bytes, or re-encoded around mutated body or auth-info bytes. */
function mutant(tx: Uint8Array, c: Case): Uint8Array {
  if (c.level === 'raw') return c.mutations.reduce(mutate, tx);
  const raw = TxRaw.decode(tx);
  if (c.level === 'body') raw.bodyBytes = c.mutations.reduce(mutate, raw.bodyBytes);
  else raw.authInfoBytes = c.mutations.reduce(mutate, raw.authInfoBytes);
  return TxRaw.encode(raw).finish();
}

const caseArb: fc.Arbitrary<Case> = fc.record({
  seed: fc.nat(),
  level: fc.constantFrom<Level>('raw', 'raw', 'body', 'authInfo'),
  mutations: fc.array(mutation, { minLength: 1, maxLength: 3 }),
});

const escapes: unknown[] = [];
const onEscape = (e: unknown): void => {
  escapes.push(e);
};

let fuzzed: TestChain;
let twin: TestChain;

before(() => {
  process.on('unhandledRejection', onEscape);
  process.on('uncaughtException', onEscape);
  fuzzed = TestChain.open(newHome());
  twin = TestChain.open(newHome());
});

after(async () => {
  process.off('unhandledRejection', onEscape);
  process.off('uncaughtException', onEscape);
  await fuzzed.close();
  await twin.close();
  removeTmpDirs();
});

/** The valid txs mutants are made from, signed against the fuzzed app's committed state. */
function seeds(c: TestChain): Uint8Array[] {
  return [
    c.send(ALICE, BOB.address, '1'),
    c.tx(BOB, [sendMsg(BOB.address, ALICE.address, '7'), sendMsg(BOB.address, VALIDATOR.address, '3')]),
    c.send(VALIDATOR, ALICE.address, '123456789'),
  ];
}

function checkTx(c: TestChain, tx: Uint8Array): ResponseCheckTx {
  return c.app.checkTx({ tx, type: CheckTxType.NEW });
}

const show = (tx: Uint8Array): string => Buffer.from(tx).toString('hex');

/** JavaScript's own error texts: a refusal's log must say what is wrong with the tx, never one of these. */
const RUNTIME_ERROR = /TypeError|ReferenceError|is not a function|Cannot read propert|Maximum call stack|undefined|\[object /;

/**
 * One round: CheckTx of each mutant (after the node's signature pre-verification on its worker thread,
 * when `preverify`, as the mempool does), a block of only the mutants (against an empty block on the
 * twin), then a block with a valid tx on both. Asserts the invariants.
 */
async function round(cases: readonly Case[], preverify: boolean): Promise<void> {
  const valid = seeds(fuzzed);
  const mutants = cases
    .map((c) => mutant(valid[c.seed % valid.length], c))
    // a mutation that gave back a valid tx is no mutant
    .filter((m) => !valid.some((v) => Buffer.from(v).equals(m)));
  for (const m of mutants) {
    if (preverify) await fuzzed.chain.preverify(m);
    const r = checkTx(fuzzed, m);
    if (preverify && r.code !== 0) fuzzed.chain.refused(m);
    assert.notEqual(r.code, 0, `CheckTx accepted a mutant: ${show(m)}`);
    assert.ok(r.log.length > 0, `CheckTx refused a mutant without a log: ${show(m)}`);
    assert.doesNotMatch(r.log, RUNTIME_ERROR, `CheckTx's log for ${show(m)}`);
  }
  // refused mutants left CheckTx's state as it was: the valid txs still pass it
  for (const v of valid) assert.equal(checkTx(fuzzed, v).code, 0, checkTx(fuzzed, v).log);
  // both blocks before any assertion, so the two apps stay at the same height
  const a = fuzzed.block(mutants);
  const b = twin.block([]);
  for (const [i, r] of a.txResults.entries()) {
    assert.notEqual(r.code, 0, `FinalizeBlock accepted a mutant: ${show(mutants[i])}`);
    assert.ok(r.log.length > 0, `FinalizeBlock refused a mutant without a log: ${show(mutants[i])}`);
    assert.doesNotMatch(r.log, RUNTIME_ERROR, `FinalizeBlock's log for ${show(mutants[i])}`);
  }
  assert.equal(toHex(a.appHash), toHex(b.appHash), 'a block of refused txs changed state');
  // the next block with a valid tx commits, on both alike (deterministic signatures: the same bytes)
  const next = seeds(fuzzed)[0];
  const na = fuzzed.block([next]);
  const nb = twin.block([next]);
  assert.equal(na.txResults[0].code, 0, na.txResults[0].log);
  assert.equal(toHex(na.appHash), toHex(nb.appHash));
}

test('tx bytes: mutants of valid signed txs are refused with a code and a log by CheckTx and FinalizeBlock; state is unchanged and blocks go on', async () => {
  await fc.assert(
    fc.asyncProperty(fc.array(caseArb, { minLength: 1, maxLength: 8 }), fc.boolean(), (cases, preverify) => round(cases, preverify)),
    fuzzParameters(300),
  );
  assert.deepEqual(escapes, [], 'no unhandled rejection or uncaught exception');
});

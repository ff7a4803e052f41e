// Every proof is checked by @confio/ics23 under its iavlSpec, never by code of ours; the proofs go through
// their protobuf bytes, so the wire form is checked too.
import assert from 'node:assert/strict';
import { Buffer } from 'node:buffer';
import { describe, test } from 'node:test';
import { ics23, iavlSpec, verifyMembership, verifyNonMembership } from '@confio/ics23';
import { CommitmentProof } from 'cosmjs-types/cosmos/ics23/v1/proofs';
import { existenceProof, nonExistenceProof } from './proof.ts';
import { IavlTree, type IavlView } from './tree.ts';

/** mulberry32: a small seeded PRNG, so every run writes the same stream. */
function prng(seed: number): () => number {
  let s = seed >>> 0;
  return () => {
    s = (s + 0x6d2b79f5) >>> 0;
    let t = s;
    t = Math.imul(t ^ (t >>> 15), t | 1);
    t ^= t + Math.imul(t ^ (t >>> 7), t | 61);
    return ((t ^ (t >>> 14)) >>> 0) / 4294967296;
  };
}

const bytesOf = (rand: () => number, min: number, max: number, alphabet: number): Uint8Array =>
  Uint8Array.from({ length: min + Math.floor(rand() * (max - min + 1)) }, () => Math.floor(rand() * alphabet));
const hex = (b: Uint8Array): string => Buffer.from(b).toString('hex');

/** Our message, as ics23's own decoder reads its bytes. */
const wire = (p: CommitmentProof): ics23.ICommitmentProof => ics23.CommitmentProof.decode(CommitmentProof.encode(p).finish());

function member(view: IavlView, key: Uint8Array): ics23.ICommitmentProof {
  const p = existenceProof(view, key);
  assert.ok(p !== undefined, `a proof of ${hex(key)}`);
  return wire(p);
}

function absent(view: IavlView, key: Uint8Array): ics23.ICommitmentProof {
  const p = nonExistenceProof(view, key);
  assert.ok(p !== undefined, `a non-existence proof of ${hex(key)}`);
  return wire(p);
}

/** Whether ics23 accepts; it throws on some malformed proofs instead of answering false. */
function accepts(f: () => boolean): boolean {
  try {
    return f();
  } catch {
    return false;
  }
}

describe("cosmos/iavl v1.3.6's own answers (printed by bench/iavl-go/main.go)", () => {
  test('roots of three versions and the proof bytes of a present and an absent key', () => {
    const ascii = (s: string): Uint8Array => new TextEncoder().encode(s);
    const name = (i: number): Uint8Array => ascii(`k${String(i).padStart(2, '0')}`);
    const t = new IavlTree();
    for (let i = 0; i < 20; i++) t.set(name(i), ascii(`v${i}`));
    assert.equal(hex(t.saveVersion().root), '75c8a181330f78cd285e8fe7faa51bccc8e868b580306124d8ded88f5c7ae3ff');
    for (const i of [3, 7, 11, 15, 19]) t.remove(name(i));
    t.set(name(0), ascii('w'));
    assert.equal(hex(t.saveVersion().root), 'ccfe19478ab980337ff6fee5528d2f2b351e84b505b2aa1fe02753fab208045e');
    // rewriting a value, even the same one, rewrites its path in the new version (recursiveSetLeaf)
    t.set(name(5), ascii('v5'));
    const s = t.saveVersion();
    assert.equal(hex(s.root), 'e4db87c1d5671f7e1ce0cca0ebe10f93335bd7041182908c9ee0a00fcd0b7b10');
    const view = t.at(s.version);
    assert.ok(view !== undefined);
    const present = existenceProof(view, name(5));
    const missing = nonExistenceProof(view, name(7));
    assert.ok(present !== undefined && missing !== undefined);
    assert.equal(
      hex(CommitmentProof.encode(present).finish()),
      '0ac6010a036b3035120276351a0b0801180120012a0300020622290801122502040620f80aa0d095b25d368b80483a6869d448a8c7c311c137b8e60cd9c3e86d8c5b4420222b08011204040606201a2120ef79fdcabf9d38ea6163a4637f2cd931a19ecdbd8175a858e83192c8bcce134a222908011225060c0620029b6bc106e71e9fdca30bcc2f684e84d889ff3fc9bfd3cd3054cf2c434c148c20222b080112040a1e06201a2120285d57f8246806b29e1fa97fbdc8dd2c30fcd8aa4e48989746340c4560eee4b7',
    );
    assert.equal(
      hex(CommitmentProof.encode(missing).finish()),
      '12ec020a036b30371299010a036b3036120276361a0b0801180120012a030002022229080112250406062003baf2c11c5f384446f309ce7fa8e741bc7dfb8426f86f23b2dce342d4bd322c20222908011225060c0620029b6bc106e71e9fdca30bcc2f684e84d889ff3fc9bfd3cd3054cf2c434c148c20222b080112040a1e06201a2120285d57f8246806b29e1fa97fbdc8dd2c30fcd8aa4e48989746340c4560eee4b71ac8010a036b3038120276381a0b0801180120012a03000202222b08011204020402201a21209b2fe664630788e1aaa6b735432e7d4726937e421981dd786592c36c5b77c957222b08011204040604201a212004b14dd13c95a9d116715a49652e9109b81b82f2b971f9f3b25446dd753f5c72222b08011204081204201a21205f7d9de551da927226ab6ec707a1d87bb0e7683c8e372ded0c1e77a15eacde122229080112250a1e062020d3d730e04c74ada4f0c8d6d7be7ad95e4e648b340dd8df6d083cac623641e220',
    );
  });
});

describe('ICS-23 proofs of the IAVL tree, verified by @confio/ics23 with iavlSpec', () => {
  test('random writes over many versions: every key proves, absent keys prove absent, old versions too', () => {
    const rand = prng(2334);
    const t = new IavlTree();
    const model = new Map<string, Uint8Array>();
    const saved: { version: bigint; root: Uint8Array; contents: Map<string, Uint8Array> }[] = [];
    for (let v = 1; v <= 40; v++) {
      const ops = 1 + Math.floor(rand() * 30);
      for (let i = 0; i < ops; i++) {
        const key = bytesOf(rand, 1, 3, 20);
        if (rand() < 0.3) {
          t.remove(key);
          model.delete(hex(key));
        } else {
          const value = bytesOf(rand, 1, 12, 256);
          t.set(key, value);
          model.set(hex(key), value);
        }
      }
      const s = t.saveVersion();
      saved.push({ version: s.version, root: s.root, contents: new Map(model) });
      const view = t.at(s.version);
      assert.ok(view !== undefined);
      for (const [k, value] of model) {
        const key = Buffer.from(k, 'hex');
        assert.ok(verifyMembership(member(view, key), iavlSpec, s.root, key, value), `v${v} ${k}`);
      }
      for (let i = 0; i < 20; i++) {
        const key = bytesOf(rand, 1, 4, 22);
        if (model.has(hex(key))) {
          assert.equal(nonExistenceProof(view, key), undefined);
          continue;
        }
        assert.equal(existenceProof(view, key), undefined);
        assert.ok(verifyNonMembership(absent(view, key), iavlSpec, s.root, key), `v${v} absent ${hex(key)}`);
      }
    }
    for (const { version, root, contents } of saved) {
      const view = t.at(version);
      assert.ok(view !== undefined);
      for (const [k, value] of contents) {
        const key = Buffer.from(k, 'hex');
        assert.ok(verifyMembership(member(view, key), iavlSpec, root, key, value), `old v${version} ${k}`);
      }
    }
  });

  test('a proof fails against another root, with another value, for another key', () => {
    const rand = prng(7);
    const t = new IavlTree();
    for (let i = 0; i < 200; i++) t.set(bytesOf(rand, 1, 4, 256), bytesOf(rand, 1, 8, 256));
    const first = t.saveVersion();
    const key = Uint8Array.of(1, 2, 3, 4, 5);
    const value = Uint8Array.of(9);
    t.set(key, value);
    const second = t.saveVersion();
    const view = t.at(second.version);
    assert.ok(view !== undefined);
    const p = member(view, key);
    assert.ok(verifyMembership(p, iavlSpec, second.root, key, value));
    assert.ok(!accepts(() => verifyMembership(p, iavlSpec, first.root, key, value)), 'another root');
    assert.ok(!accepts(() => verifyMembership(p, iavlSpec, second.root, key, Uint8Array.of(8))), 'another value');
    assert.ok(!accepts(() => verifyMembership(p, iavlSpec, second.root, Uint8Array.of(1, 2, 3, 4, 6), value)), 'another key');
    const gone = Uint8Array.of(1, 2, 3, 4, 4, 4);
    const q = absent(view, gone);
    assert.ok(verifyNonMembership(q, iavlSpec, second.root, gone));
    assert.ok(!accepts(() => verifyNonMembership(q, iavlSpec, first.root, gone)), 'non-existence against another root');
    assert.ok(!accepts(() => verifyNonMembership(q, iavlSpec, second.root, key)), 'non-existence of a present key');
  });

  test('non-existence at either end has one neighbour; a one-key tree proves too', () => {
    const t = new IavlTree();
    for (const k of [10, 20, 30]) t.set(Uint8Array.of(k), Uint8Array.of(k));
    const s = t.saveVersion();
    const view = t.at(s.version);
    assert.ok(view !== undefined);
    const below = nonExistenceProof(view, Uint8Array.of(5));
    assert.ok(below?.nonexist !== undefined && below.nonexist.left === undefined && below.nonexist.right !== undefined);
    assert.ok(verifyNonMembership(wire(below), iavlSpec, s.root, Uint8Array.of(5)));
    const above = nonExistenceProof(view, Uint8Array.of(40));
    assert.ok(above?.nonexist !== undefined && above.nonexist.right === undefined && above.nonexist.left !== undefined);
    assert.ok(verifyNonMembership(wire(above), iavlSpec, s.root, Uint8Array.of(40)));

    const one = new IavlTree();
    one.set(Uint8Array.of(1), Uint8Array.of(2));
    const r = one.saveVersion();
    const v1 = one.at(r.version);
    assert.ok(v1 !== undefined);
    assert.ok(verifyMembership(member(v1, Uint8Array.of(1)), iavlSpec, r.root, Uint8Array.of(1), Uint8Array.of(2)));
    assert.ok(verifyNonMembership(absent(v1, Uint8Array.of(0)), iavlSpec, r.root, Uint8Array.of(0)));
  });
});

// CometBFT v0.38 hashing: RFC 6962 vectors (crypto/merkle/rfc6962_test.go), CometBFT's TestHeaderHash
// and TestVoteSignBytesTestVectors, a real CometBFT block (header hash, last_commit_hash, consensus_hash,
// block-part hash of its whole protobuf), and hand-built small cases against an independent merkle.
import assert from 'node:assert/strict';
import { createHash, createPrivateKey, createPublicKey, verify } from 'node:crypto';
import { describe, test } from 'node:test';
import type { ExecTxResult } from 'cosmjs-types/tendermint/abci/types';
import type { Header } from 'cosmjs-types/tendermint/types/types';
import { parseRFC3339 } from '@chaind/sdk/types';
import { GO_ZERO_TIME, makeCommit, signingKey, voteSignBytes, voteTime } from './commit.ts';
import {
  commitHash,
  consensusHash,
  dataHash,
  EMPTY_HASH,
  encodeBlock,
  headerHash,
  innerHash,
  leafHash,
  merkleRoot,
  partSetHeader,
  resultsHash,
  txHash,
  validatorsHash,
} from './hash.ts';
import { maxDataBytes, txsProtoSize } from './protocol.ts';

const hex = (b: Uint8Array): string => Buffer.from(b).toString('hex').toUpperCase();
const unhex = (s: string): Uint8Array => new Uint8Array(Buffer.from(s, 'hex'));
const utf8 = (s: string): Uint8Array => new Uint8Array(Buffer.from(s, 'utf8'));
const sha = (...parts: Uint8Array[]): Uint8Array => new Uint8Array(createHash('sha256').update(Buffer.concat(parts)).digest());
const time = (s: string): { seconds: bigint; nanos: number } => {
  const t = parseRFC3339(s);
  assert.ok(t !== undefined, s);
  return t;
};

/** RFC 6962 §2.1 written out independently: MTH of n > 1 leaves splits at k = 2^⌊log2(n-1)⌋. */
function referenceRoot(leaves: Uint8Array[]): Uint8Array {
  if (leaves.length === 0) return sha();
  if (leaves.length === 1) return sha(Uint8Array.of(0), leaves[0]);
  const k = 2 ** Math.floor(Math.log2(leaves.length - 1));
  return sha(Uint8Array.of(1), referenceRoot(leaves.slice(0, k)), referenceRoot(leaves.slice(k)));
}

describe('merkle (RFC 6962)', () => {
  test('the vectors of crypto/merkle/rfc6962_test.go', () => {
    assert.equal(hex(merkleRoot([])), 'E3B0C44298FC1C149AFBF4C8996FB92427AE41E4649B934CA495991B7852B855');
    assert.equal(hex(EMPTY_HASH), 'E3B0C44298FC1C149AFBF4C8996FB92427AE41E4649B934CA495991B7852B855');
    assert.equal(hex(merkleRoot([new Uint8Array(0)])), '6E340B9CFFB37A989CA544E6BB780A2C78901D3FB33738768511A30617AFA01D');
    assert.equal(hex(merkleRoot([utf8('L123456')])), '395AA064AA4C29F7010ACFE3F25DB9485BBD4B91897B6AD7AD547639252B4D56');
    assert.equal(hex(innerHash(utf8('N123'), utf8('N456'))), 'AA217FE888E47007FA15EDAB33C2B492A722CB106C64667FC2B044444DE66BBB');
  });

  test('0, 1, 2, 3, 4, 5 leaves written out by hand', () => {
    const [a, b, c, d, e] = ['a', 'b', 'c', 'd', 'e'].map(utf8);
    const L = (x: Uint8Array): Uint8Array => sha(Uint8Array.of(0), x);
    const I = (x: Uint8Array, y: Uint8Array): Uint8Array => sha(Uint8Array.of(1), x, y);
    assert.deepEqual(merkleRoot([]), sha());
    assert.deepEqual(merkleRoot([a]), L(a));
    assert.deepEqual(merkleRoot([a, b]), I(L(a), L(b)));
    assert.deepEqual(merkleRoot([a, b, c]), I(I(L(a), L(b)), L(c)));
    assert.deepEqual(merkleRoot([a, b, c, d]), I(I(L(a), L(b)), I(L(c), L(d))));
    assert.deepEqual(merkleRoot([a, b, c, d, e]), I(I(I(L(a), L(b)), I(L(c), L(d))), L(e)));
    assert.deepEqual(leafHash(a), L(a));
  });

  test('every size up to 70 agrees with the independent implementation; order matters', () => {
    const leaves = Array.from({ length: 70 }, (_, i) => utf8(`leaf-${i}`));
    for (let n = 0; n <= leaves.length; n++) assert.deepEqual(merkleRoot(leaves.slice(0, n)), referenceRoot(leaves.slice(0, n)), `n=${n}`);
    assert.notDeepEqual(merkleRoot([leaves[1], leaves[0]]), merkleRoot([leaves[0], leaves[1]]));
  });
});

describe('tx and data hashes', () => {
  test('a tx hash is the full sha256 of its bytes', () => {
    assert.equal(hex(txHash(utf8('abc'))), 'BA7816BF8F01CFEA414140DE5DAE2223B00361A396177A9CB410FF61F20015AD');
  });

  test('data_hash is the merkle root over the txs’ hashes (not their bytes); E3B0… for none', () => {
    const txs = [utf8('tx one'), utf8('tx two'), utf8('tx three')];
    assert.deepEqual(dataHash([]), EMPTY_HASH);
    assert.deepEqual(dataHash(txs), referenceRoot(txs.map((t) => sha(t))));
    assert.notDeepEqual(dataHash(txs), referenceRoot(txs));
  });
});

/** A header whose every field is set: CometBFT's TestHeaderHash fixture. */
function cometTestHeader(): Header {
  const s = (x: string): Uint8Array => sha(utf8(x));
  return {
    version: { block: 1n, app: 2n },
    chainId: 'chainId',
    height: 3n,
    time: time('2019-10-13T16:14:44Z'),
    lastBlockId: { hash: new Uint8Array(32), partSetHeader: { total: 6, hash: new Uint8Array(32) } },
    lastCommitHash: s('last_commit_hash'),
    dataHash: s('data_hash'),
    validatorsHash: s('validators_hash'),
    nextValidatorsHash: s('next_validators_hash'),
    consensusHash: s('consensus_hash'),
    appHash: s('app_hash'),
    lastResultsHash: s('last_results_hash'),
    evidenceHash: s('evidence_hash'),
    // crypto.AddressHash: sha256 truncated to 20 bytes
    proposerAddress: s('proposer_address').subarray(0, 20),
  };
}

// block 10818 of a CometBFT chain, as its RPC returned it (block_id, header, last_commit), a public fixture
const REAL = {
  blockHash: '97EA623844694395542AA9FEC7155D9601C2C3914E32CF9B83595DCCFB4AA153',
  partsHash: 'A2B4D76753C13B6CE09CF5CC7303B69196252D5AF9C97444BC6613B664EB4B7D',
  lastBlockId: {
    hash: unhex('B7F270DE82C5EB38828784923720A7C104F7224294BB52A6E120C065F3572E02'),
    partSetHeader: { total: 1, hash: unhex('D45611FF960D47A62351181E3D7A1CFECAC773681884BA04614C637C9C2C8166') },
  },
  header(): Header {
    return {
      version: { block: 11n, app: 72057594275268382n },
      chainId: 'devnet0',
      height: 10818n,
      time: time('2023-06-14T10:17:42.164478437Z'),
      lastBlockId: REAL.lastBlockId,
      lastCommitHash: unhex('A5253ABF9ED8F0217F5B5FACFC3B6DB6E14D0FB8CFF8366D0D818914DD712F0A'),
      dataHash: unhex('E3B0C44298FC1C149AFBF4C8996FB92427AE41E4649B934CA495991B7852B855'),
      validatorsHash: unhex('5B2FCAEBDFD9E6CB6CBE441B1F0060923986C25B910445AEDEC907C12DFC1B5E'),
      nextValidatorsHash: unhex('5B2FCAEBDFD9E6CB6CBE441B1F0060923986C25B910445AEDEC907C12DFC1B5E'),
      consensusHash: unhex('048091BC7DDC283F77BFBF91D73C44DA58C3DF8A9CBC867405D8B7F3DAADA22F'),
      appHash: unhex('5421B4C31EAE7BC682E6D1D4C3575AA03D1EB152189D59C8034627377665D014'),
      lastResultsHash: unhex('E3B0C44298FC1C149AFBF4C8996FB92427AE41E4649B934CA495991B7852B855'),
      evidenceHash: unhex('E3B0C44298FC1C149AFBF4C8996FB92427AE41E4649B934CA495991B7852B855'),
      proposerAddress: unhex('735DC3FC8BCCFD7810BCC14DB49234C1BCE7758B'),
    };
  },
  lastCommit() {
    const sig = (
      addr: string,
      t: string,
      b64: string,
    ): { blockIdFlag: number; validatorAddress: Uint8Array; timestamp: { seconds: bigint; nanos: number }; signature: Uint8Array } => ({
      blockIdFlag: 2,
      validatorAddress: unhex(addr),
      timestamp: time(t),
      signature: new Uint8Array(Buffer.from(b64, 'base64')),
    });
    return {
      height: 10817n,
      round: 0,
      blockId: REAL.lastBlockId,
      signatures: [
        sig(
          '735DC3FC8BCCFD7810BCC14DB49234C1BCE7758B',
          '2023-06-14T10:17:42.164478437Z',
          'FOTXUdRJFUh4ucMQv63ErJPg7bSf1AE2eZOJ0gMH/GRv9K34byT1JmGux11kvbCSM6TBEArWr5mA6jikXdebIQ==',
        ),
        sig(
          '0F2AEF9D9269986686414DCB6F9DBC79514A6694',
          '2023-06-14T10:17:42.262568104Z',
          'VNz7IzlpmkpvxWwDYCDwEz06JN3vqkwicZQ0KZ14dtcbfmu2gG8iu1jt8mphR3CwOfphFOgn9VMyJmHubA5DNw==',
        ),
      ],
    };
  },
};

describe('header, commit, block id', () => {
  test('CometBFT TestHeaderHash: F740121F…', () => {
    assert.equal(hex(headerHash(cometTestHeader())), 'F740121F553B5418C3EFBD343C2DBFE9E007BB67B0D020A0741374BAB65242A4');
    // "nil ValidatorsHash yields nil"
    assert.equal(headerHash({ ...cometTestHeader(), validatorsHash: new Uint8Array(0) }).length, 0);
  });

  test('a real CometBFT block: header hash, last_commit_hash, consensus_hash of default params, and its block id', () => {
    assert.equal(hex(headerHash(REAL.header())), REAL.blockHash);
    assert.equal(hex(commitHash(REAL.lastCommit())), hex(REAL.header().lastCommitHash));
    // that chain runs CometBFT's default block params {max_bytes 22020096, max_gas -1}
    assert.equal(hex(consensusHash({ block: { maxBytes: 22_020_096n, maxGas: -1n } })), hex(REAL.header().consensusHash));
    const { blockId, bytes } = encodeBlock({ header: REAL.header(), data: { txs: [] }, evidence: { evidence: [] }, lastCommit: REAL.lastCommit() });
    assert.equal(hex(blockId.hash), REAL.blockHash);
    assert.equal(blockId.partSetHeader.total, 1);
    assert.equal(hex(blockId.partSetHeader.hash), REAL.partsHash);
    assert.deepEqual(blockId.partSetHeader.hash, leafHash(bytes), 'one part: the leaf hash of the whole block');
  });

  test('empty commit (first block) hashes to E3B0…', () => {
    assert.deepEqual(
      commitHash({ height: 0n, round: 0, blockId: { hash: new Uint8Array(0), partSetHeader: { total: 0, hash: new Uint8Array(0) } }, signatures: [] }),
      EMPTY_HASH,
    );
  });

  test('part set: 64 KiB parts, merkle root over the raw parts', () => {
    const data = new Uint8Array(65_536 * 2 + 1).map((_, i) => i % 251);
    const ps = partSetHeader(data);
    assert.equal(ps.total, 3);
    assert.deepEqual(ps.hash, referenceRoot([data.subarray(0, 65_536), data.subarray(65_536, 131_072), data.subarray(131_072)]));
    assert.equal(partSetHeader(data.subarray(0, 65_536)).total, 1);
    assert.equal(partSetHeader(data.subarray(0, 65_537)).total, 2);
  });
});

describe('validators, results, consensus params', () => {
  test('validators_hash: merkle over SimpleValidator{pub_key{ed25519}, voting_power} bytes', () => {
    const pk = new Uint8Array(32).fill(7);
    // SimpleValidator: 0a 22 (PublicKey: 0a 20 <32 bytes>) 10 0a (power 10)
    const bytes = Buffer.concat([Buffer.from('0a220a20', 'hex'), pk, Buffer.from('100a', 'hex')]);
    assert.deepEqual(validatorsHash([{ pubKey: { ed25519: pk }, power: 10n }]), sha(Uint8Array.of(0), bytes));
  });

  test('last_results_hash keeps only code, data, gas_wanted, gas_used', () => {
    const r: ExecTxResult = {
      code: 1,
      data: Uint8Array.of(1, 2),
      log: 'boom',
      info: 'x',
      gasWanted: 10n,
      gasUsed: 5n,
      events: [{ type: 't', attributes: [] }],
      codespace: 'sdk',
    };
    // ExecTxResult: code=1 (08 01), data=2 (12 02 01 02), gas_wanted=5 (28 0a), gas_used=6 (30 05)
    assert.deepEqual(resultsHash([r]), sha(Uint8Array.of(0), unhex('080112020102280a3005')));
    assert.deepEqual(resultsHash([r]), resultsHash([{ ...r, log: '', info: '', events: [], codespace: '' }]));
    assert.notDeepEqual(resultsHash([r]), resultsHash([{ ...r, gasUsed: 6n }]));
    assert.deepEqual(resultsHash([]), EMPTY_HASH);
  });

  test('consensus_hash is sha256 of HashedParams (not a merkle leaf)', () => {
    // HashedParams{1: 100, 2: -1}: 08 64 10 ff ff ff ff ff ff ff ff ff 01
    assert.deepEqual(consensusHash({ block: { maxBytes: 100n, maxGas: -1n } }), sha(unhex('086410ffffffffffffffffff01')));
  });

  test('MaxDataBytes and the proto size of txs', () => {
    // 22020096 - 11 (block overhead) - 626 (header) - (94 + 111) (commit of one validator)
    assert.equal(maxDataBytes(22_020_096n, 1), 22_019_254n);
    assert.throws(() => maxDataBytes(800n, 1), /too small/);
    assert.equal(txsProtoSize([new Uint8Array(10), new Uint8Array(200)]), 12n + 203n);
  });
});

describe('votes and commits', () => {
  test('CometBFT TestVoteSignBytesTestVectors #1 (precommit) and #4 (chain id)', () => {
    const zeroId = { hash: new Uint8Array(0), partSetHeader: { total: 0, hash: new Uint8Array(0) } };
    const goZero = [0x2a, 0x0b, 0x08, 0x80, 0x92, 0xb8, 0xc3, 0x98, 0xfe, 0xff, 0xff, 0xff, 0x01];
    const one = [0x1, 0x0, 0x0, 0x0, 0x0, 0x0, 0x0, 0x0];
    assert.deepEqual(
      [...voteSignBytes('', { type: 2, height: 1n, round: 1, blockId: zeroId, timestamp: GO_ZERO_TIME })],
      [0x21, 0x08, 0x02, 0x11, ...one, 0x19, ...one, ...goZero],
    );
    assert.deepEqual(
      [...voteSignBytes('test_chain_id', { type: 0, height: 1n, round: 1, blockId: zeroId, timestamp: GO_ZERO_TIME })],
      [0x2e, 0x11, ...one, 0x19, ...one, ...goZero, 0x32, 0x0d, ...utf8('test_chain_id')],
    );
  });

  test('a commit signature verifies against the canonical vote with the validator key', () => {
    const seed = new Uint8Array(32).fill(9);
    const pubKey = new Uint8Array(
      createPublicKey(createPrivateKey({ key: Buffer.concat([Buffer.from('302e020100300506032b657004220420', 'hex'), seed]), format: 'der', type: 'pkcs8' }))
        .export({ format: 'der', type: 'spki' })
        .subarray(12),
    );
    const key = { pubKey, address: sha(pubKey).subarray(0, 20), privateKey: seed };
    const other = { pubKey: new Uint8Array(32).fill(3), power: 1n };
    const blockId = { hash: sha(utf8('block')), partSetHeader: { total: 1, hash: sha(utf8('parts')) } };
    const timestamp = time('2024-01-02T03:04:05.123Z');
    const commit = makeCommit({
      chainId: 'c',
      height: 5n,
      blockId,
      timestamp,
      validators: [
        { pubKey: { ed25519: pubKey }, power: 10n },
        { pubKey: { ed25519: other.pubKey }, power: 1n },
      ],
      key,
      signer: signingKey(key),
    });
    assert.equal(commit.signatures.length, 2);
    const [mine, absent] = commit.signatures;
    assert.equal(mine.blockIdFlag, 2);
    assert.deepEqual(mine.validatorAddress, key.address);
    const spki = Buffer.concat([Buffer.from('302a300506032b6570032100', 'hex'), pubKey]);
    const msg = voteSignBytes('c', { type: 2, height: 5n, round: 0, blockId, timestamp });
    assert.ok(verify(null, msg, { key: spki, format: 'der', type: 'spki' }, mine.signature));
    assert.ok(
      !verify(
        null,
        voteSignBytes('other-chain', { type: 2, height: 5n, round: 0, blockId, timestamp }),
        { key: spki, format: 'der', type: 'spki' },
        mine.signature,
      ),
    );
    assert.deepEqual(absent, { blockIdFlag: 1, validatorAddress: new Uint8Array(0), timestamp: GO_ZERO_TIME, signature: new Uint8Array(0) });
    assert.throws(() => signingKey({ ...key, privateKey: new Uint8Array(32).fill(8) }), /does not match/);
    assert.throws(() => signingKey({ ...key, address: new Uint8Array(20) }), /address/);
  });

  test('vote time: now, but at least 1 ms after the block time', () => {
    const t = { seconds: 100n, nanos: 999_500_000 };
    assert.deepEqual(voteTime({ seconds: 50n, nanos: 0 }, t), { seconds: 101n, nanos: 500_000 });
    assert.deepEqual(voteTime({ seconds: 200n, nanos: 0 }, t), { seconds: 200n, nanos: 0 });
  });
});

// Byte fixtures of the messages CometBFT v0.38 exchanges with an app, written by hand from the field
// numbers of proto/tendermint/abci/types.proto (a tag byte is field << 3 | wire type: 0 varint, 2 bytes).
// cosmjs-types must encode the objects to exactly these bytes and decode them back.
import assert from 'node:assert/strict';
import { describe, test } from 'node:test';
import { Request, Response } from 'cosmjs-types/tendermint/abci/types';
import { AbciProtocolError } from './errors.ts';
import { encodeFrame } from './framing.ts';
import { ABCI_METHODS, encodeRequestFrame, encodeResponseFrame, requestMethod, responseKinds } from './messages.ts';

const hex = (s: string): Uint8Array => Uint8Array.from(Buffer.from(s.replace(/\s+/g, ''), 'hex'));
/** Hex with `// …` comments, one field per line. */
const hexDoc = (s: string): Uint8Array => hex(s.replace(/\/\/.*$/gm, ''));
const toHex = (b: Uint8Array): string => Buffer.from(b).toString('hex');
const ADDRESS = hex('0102030405060708090a0b0c0d0e0f1011121314'); // a 20-byte validator address
const SHA256_EMPTY = hex('e3b0c44298fc1c149afbf4c8996fb92427ae41e4649b934ca495991b7852b855');

/** The oneof fields that are set (decode writes every field of the oneof, most as undefined). */
function setFields<T extends object>(msg: T): Partial<T> {
  return Object.fromEntries(Object.entries(msg).filter(([, v]) => v !== undefined)) as Partial<T>;
}

function checkRequest(req: Request, bytes: Uint8Array, prefix: string): void {
  assert.equal(toHex(Request.encode(req).finish()), toHex(bytes));
  assert.deepEqual(setFields(Request.decode(bytes)), req);
  assert.equal(toHex(encodeRequestFrame(req)), prefix + toHex(bytes));
}

function checkResponse(res: Response, bytes: Uint8Array, prefix: string): void {
  assert.equal(toHex(Response.encode(res).finish()), toHex(bytes));
  assert.deepEqual(setFields(Response.decode(bytes)), res);
  assert.equal(toHex(encodeResponseFrame(res)), prefix + toHex(bytes));
}

describe('ABCI messages as CometBFT v0.38 sends and expects them', () => {
  test('RequestInfo (the handshake: version 0.38.17, block 11, p2p 8, abci 2.0.0)', () => {
    const bytes = hexDoc(`
      1a 14                       // Request.info (field 3, bytes), 20 bytes
        0a 07 302e33382e3137      // version (1) "0.38.17"
        10 0b                     // block_version (2) 11
        18 08                     // p2p_version (3) 8
        22 05 322e302e30          // abci_version (4) "2.0.0"
    `);
    checkRequest({ info: { version: '0.38.17', blockVersion: 11n, p2pVersion: 8n, abciVersion: '2.0.0' } }, bytes, '16');
  });

  test('ResponseInfo', () => {
    const bytes = hexDoc(`
      22 16                       // Response.info (field 4), 22 bytes
        0a 06 636861696e64        // data (1) "chaind"
        12 02 7631                // version (2) "v1"
        18 01                     // app_version (3) 1
        20 05                     // last_block_height (4) 5
        2a 04 deadbeef            // last_block_app_hash (5)
    `);
    const res: Response = { info: { data: 'chaind', version: 'v1', appVersion: 1n, lastBlockHeight: 5n, lastBlockAppHash: hex('deadbeef') } };
    checkResponse(res, bytes, '18');
  });

  test('RequestFinalizeBlock (two txs, one commit vote, height 7)', () => {
    const bytes = hexDoc(`
      a2 01 54                    // Request.finalize_block (field 20: tag 162 = a2 01), 84 bytes
        0a 03 010203              // txs (1)
        0a 01 ff                  // txs (1)
        12 1e                     // decided_last_commit (2), 30 bytes; round 0 is not written
          12 1c                   // votes (2), 28 bytes
            0a 18                 // validator (1), 24 bytes
              0a 14 0102030405060708090a0b0c0d0e0f1011121314  // address (1)
              18 0a               // power (3) 10
            18 02                 // block_id_flag (3) COMMIT
        22 04 aabbccdd            // hash (4) (shortened; a real block hash is 32 bytes)
        28 07                     // height (5) 7
        32 08                     // time (6), 8 bytes
          08 80e2cfaa06           // seconds (1) 1700000000
          10 05                   // nanos (2) 5
        3a 02 1122                // next_validators_hash (7) (shortened)
        42 14 0102030405060708090a0b0c0d0e0f1011121314  // proposer_address (8)
    `);
    const req: Request = {
      finalizeBlock: {
        txs: [hex('010203'), hex('ff')],
        decidedLastCommit: { round: 0, votes: [{ validator: { address: ADDRESS, power: 10n }, blockIdFlag: 2 }] },
        misbehavior: [],
        hash: hex('aabbccdd'),
        height: 7n,
        time: { seconds: 1700000000n, nanos: 5 },
        nextValidatorsHash: hex('1122'),
        proposerAddress: ADDRESS,
      },
    };
    checkRequest(req, bytes, '57');
  });

  test('ResponseFinalizeBlock (app_hash is field 5, tx_results field 2)', () => {
    const bytes = hexDoc(`
      aa 01 46                    // Response.finalize_block (field 21: tag 170 = aa 01), 70 bytes
        12 04                     // tx_results (2), 4 bytes
          28 64                   // gas_wanted (5) 100
          30 32                   // gas_used (6) 50
        12 1c                     // tx_results (2), 28 bytes
          08 05                   // code (1) 5
          1a 12 696e73756666696369656e742066756e6473  // log (3) "insufficient funds"
          42 04 62616e6b          // codespace (8) "bank"
        2a 20 e3b0c44298fc1c149afbf4c8996fb92427ae41e4649b934ca495991b7852b855  // app_hash (5)
    `);
    const tx = { code: 0, data: new Uint8Array(), log: '', info: '', gasWanted: 0n, gasUsed: 0n, events: [], codespace: '' };
    const res: Response = {
      finalizeBlock: {
        events: [],
        txResults: [
          { ...tx, gasWanted: 100n, gasUsed: 50n },
          { ...tx, code: 5, log: 'insufficient funds', codespace: 'bank' },
        ],
        validatorUpdates: [],
        consensusParamUpdates: undefined,
        appHash: SHA256_EMPTY,
      },
    };
    checkResponse(res, bytes, '49');
  });

  test('RequestCommit, ResponseCommit (retain_height is field 3), Flush and Exception', () => {
    checkRequest({ commit: {} }, hex('5a 00'), '02'); // Request.commit (field 11), empty
    checkResponse({ commit: { retainHeight: 100n } }, hex('62 02 18 64'), '04'); // Response.commit (12): retain_height (3) 100
    checkResponse({ commit: { retainHeight: 0n } }, hex('62 00'), '02');
    checkRequest({ flush: {} }, hex('12 00'), '02'); // Request.flush (2)
    checkResponse({ flush: {} }, hex('1a 00'), '02'); // Response.flush (3)
    checkResponse({ exception: { error: 'boom' } }, hex('0a 06 0a 04 626f6f6d'), '08'); // Response.exception (1): error (1) "boom"
  });
});

describe('frames', () => {
  test('a frame of any size is the uvarint length and the message bytes cosmjs-types encodes, whatever was in the buffer pool before', () => {
    // small frames come from Node's shared buffer pool: dirty it first, so an unwritten byte would show
    for (const size of [0, 1, 120, 127, 128, 4000, 4094, 4096, 8192, 70_000]) {
      Buffer.allocUnsafe(4000).fill(0xa5);
      const req: Request = { echo: { message: 'x'.repeat(size) } };
      const body = Request.encode(req).finish();
      assert.equal(toHex(encodeRequestFrame(req)), toHex(encodeFrame(body)), `echo of ${size} bytes`);
      Buffer.allocUnsafe(4000).fill(0x5a);
      const res: Response = {
        checkTx: { code: 0, data: new Uint8Array(size).fill(7), log: 'é'.repeat(size % 300), info: '', gasWanted: 1n, gasUsed: 1n, events: [], codespace: '' },
      };
      assert.equal(toHex(encodeResponseFrame(res)), toHex(encodeFrame(Response.encode(res).finish())), `CheckTx answer of ${size} data bytes`);
    }
  });
});

describe('the oneof', () => {
  test('requestMethod names the one method set; none or several is an AbciProtocolError', () => {
    assert.equal(requestMethod({ finalizeBlock: Request.decode(hex('a2 01 00')).finalizeBlock }), 'finalizeBlock');
    assert.equal(requestMethod(Request.decode(hex('5a 00'))), 'commit');
    assert.throws(
      () => requestMethod(Request.decode(new Uint8Array(0))),
      (e: unknown) => e instanceof AbciProtocolError && /names no ABCI method/.test(e.message),
    );
    // field 4 is reserved (the old SetOption): decoded as an unknown field, so no method
    assert.throws(() => requestMethod(Request.decode(hex('22 00'))), /names no ABCI method/);
    assert.throws(() => requestMethod({ echo: { message: '' }, commit: {} }), /names 2 ABCI methods \(echo, commit\)/);
  });

  test('every method of the proto is known, and responseKinds lists the fields set', () => {
    assert.equal(ABCI_METHODS.length, 16);
    assert.deepEqual(responseKinds({ exception: { error: 'x' }, info: undefined }), ['exception']);
    assert.deepEqual(responseKinds({}), []);
  });
});

import assert from 'node:assert/strict';
import { createHash } from 'node:crypto';
import { mkdtempSync, rmSync } from 'node:fs';
import { tmpdir } from 'node:os';
import { join } from 'node:path';
import { after, describe, test } from 'node:test';
import { BinaryWriter } from 'cosmjs-types/binary';
import { BaseApp, Context, ModuleManager, type Tx } from '../../app/index.ts';
import { toBech32 } from '../../crypto/index.ts';
import { CommitMultiStore, ScratchMultiStore, compareBytes, utf8 } from '../../store/index.ts';
import {
  COMETBFT_ED25519_TYPE,
  ED25519_PUBKEY_TYPE_URL,
  MAX_TOTAL_VOTING_POWER,
  ValidatorsKeeper,
  consensusAddress,
  consensusAddressHex,
  decodeValidator,
  encodeValidator,
  validatorsModule,
  type ValidatorJSON,
  type ValidatorsModule,
} from './index.ts';
import { blockRequest, testConsensusKey } from '@chaind/sdk/testing';

const dirs: string[] = [];
after(() => dirs.forEach((d) => rmSync(d, { recursive: true, force: true })));

const CHAIN_ID = 'validators-test-1';
const b64 = (b: Uint8Array): string => Buffer.from(b).toString('base64');
/** Operator i: an address of 20 bytes, each `0xf0 - i`, so the list below is not in address order. */
const operator = (i: number): string => toBech32('chain', new Uint8Array(20).fill(0xf0 - 16 * i));

function validatorJSON(i: number, o: Partial<ValidatorJSON> = {}): ValidatorJSON {
  return {
    operator_address: operator(i),
    consensus_pubkey: { '@type': ED25519_PUBKEY_TYPE_URL, key: b64(testConsensusKey(i)) },
    power: String(10 * (i + 1)),
    moniker: `node-${i}`,
    ...o,
  };
}

interface Started {
  app: BaseApp;
  mod: ValidatorsModule;
  read<R>(fn: (ctx: Context) => R): R;
}

function start(genesis: unknown): Started {
  const mod = validatorsModule();
  const dir = mkdtempSync(join(tmpdir(), 'chaind-validators-'));
  dirs.push(dir);
  const app = new BaseApp<Tx>({
    name: 'validatorstest',
    version: '0.0.1',
    store: CommitMultiStore.open(dir),
    modules: new ModuleManager([mod]),
    txDecoder: () => ({ msgs: [], gasLimit: 0n }),
    chainId: CHAIN_ID,
  });
  app.load();
  app.initChain({
    time: { seconds: 0n, nanos: 0 },
    chainId: CHAIN_ID,
    validators: [],
    appStateBytes: utf8(JSON.stringify({ validators: genesis })),
    initialHeight: 1n,
  });
  app.finalizeBlock(blockRequest(1n, 1n));
  app.commit();
  const read = <R>(fn: (ctx: Context) => R): R => {
    const snap = app.store.snapshot();
    try {
      const header = { chainId: CHAIN_ID, height: snap.height, time: { seconds: 1n, nanos: 0 }, proposerAddress: new Uint8Array(0) };
      return fn(new Context({ store: new ScratchMultiStore(snap), header, mode: 'query' }));
    } finally {
      snap.release();
    }
  };
  return { app, mod, read };
}

describe('validators keeper', () => {
  test('genesis validators are stored, ordered by operator address bytes, with both key forms', async () => {
    const k2 = testConsensusKey(2);
    const genesis = {
      validators: [validatorJSON(0), validatorJSON(1), validatorJSON(2, { consensus_pubkey: { type: COMETBFT_ED25519_TYPE, value: b64(k2) } })],
    };
    const { app, mod, read } = start(genesis);
    const k = mod.keeper;
    const vals = read((ctx) => k.getValidators(ctx));
    assert.deepEqual(
      vals.map((v) => v.moniker),
      ['node-2', 'node-1', 'node-0'],
    );
    const bytes = vals.map((v) => k.addressBytes(v.operatorAddress));
    for (let i = 1; i < bytes.length; i++) assert.ok(compareBytes(bytes[i - 1], bytes[i]) < 0);
    assert.deepEqual(
      read((ctx) => k.getValidator(ctx, operator(2))),
      { operatorAddress: operator(2), consensusPubKey: k2, power: 30n, moniker: 'node-2' },
    );
    assert.equal(
      read((ctx) => k.getValidator(ctx, toBech32('chain', new Uint8Array(20)))),
      undefined,
    );
    assert.equal(
      read((ctx) => k.totalPower(ctx)),
      60n,
    );

    // handed on detached, as governance takes it
    const votingPower = k.votingPower;
    assert.deepEqual(
      [...read((ctx) => votingPower(ctx))],
      [
        [operator(2), 30n],
        [operator(1), 20n],
        [operator(0), 10n],
      ],
    );

    assert.deepEqual(
      read((ctx) => k.abciValidators(ctx)),
      [
        { pubKey: { ed25519: k2 }, power: 30n },
        { pubKey: { ed25519: testConsensusKey(1) }, power: 20n },
        { pubKey: { ed25519: testConsensusKey(0) }, power: 10n },
      ],
    );
    assert.equal(read((ctx) => k.getValidatorByConsAddress(ctx, consensusAddress(testConsensusKey(1))))?.moniker, 'node-1');

    // export writes the Cosmos SDK key form, in store order; importing it again gives the same state
    const exported = read((ctx) => mod.exportGenesis(ctx));
    assert.deepEqual(exported, { validators: [validatorJSON(2), validatorJSON(1), validatorJSON(0)] });
    const again = start(exported);
    assert.deepEqual(again.app.store.lastCommitInfo().appHash, app.store.lastCommitInfo().appHash);
    await app.store.close();
    await again.app.store.close();
  });

  test("the consensus address is CometBFT's: sha256(ed25519 key)[:20]", () => {
    const key = testConsensusKey(0);
    const want = createHash('sha256').update(key).digest().subarray(0, 20);
    assert.deepEqual(Buffer.from(consensusAddress(key)), want);
    assert.equal(consensusAddressHex(key), want.toString('hex').toUpperCase());
    assert.throws(() => consensusAddress(new Uint8Array(33)), /expected a 32-byte ed25519 public key, got 33 bytes: invalid pubkey/);
  });

  test('state bytes are the protobuf Validator; unknown fields are skipped', () => {
    const v = { operatorAddress: operator(0), consensusPubKey: testConsensusKey(0), power: 7n, moniker: 'm' };
    const bytes = encodeValidator(v);
    assert.deepEqual(decodeValidator(bytes), v);
    const extended = BinaryWriter.create();
    extended.uint32(42).string('a future field');
    assert.deepEqual(decodeValidator(Buffer.concat([bytes, extended.finish()])), v);
  });

  test('a consensus key serves one operator', () => {
    const { mod, read, app } = start({ validators: [validatorJSON(0)] });
    read((ctx) =>
      assert.throws(
        () => mod.keeper.setValidator(ctx, { operatorAddress: operator(1), consensusPubKey: testConsensusKey(0), power: 1n, moniker: 'x' }),
        new RegExp(`consensus key of validator ${operator(1)} is already used by validator ${operator(0)}`),
      ),
    );
    return app.store.close();
  });
});

describe('validators genesis', () => {
  const k = new ValidatorsKeeper();
  const mod = validatorsModule();
  const validate = (validators: unknown[]): void => mod.validateGenesis?.({ validators });

  test('the default genesis is empty and valid; an empty set is the chain genesis check, not this one', () => {
    assert.deepEqual(mod.defaultGenesis(), { validators: [] });
    mod.validateGenesis?.(mod.defaultGenesis());
    mod.validateGenesis?.({});
    assert.equal(k.prefix, 'chain');
  });

  const cases: [string, unknown[], string][] = [
    [
      'duplicate operator',
      [validatorJSON(0), validatorJSON(1, { operator_address: operator(0) })],
      `validators[1] "node-1" (${operator(0)}): duplicate operator address, already used by validators[0] "node-0" (${operator(0)})`,
    ],
    [
      'duplicate consensus key',
      [validatorJSON(0), validatorJSON(1, { consensus_pubkey: { type: COMETBFT_ED25519_TYPE, value: b64(testConsensusKey(0)) } })],
      `validators[1] "node-1" (${operator(1)}): duplicate consensus public key, already used by validators[0] "node-0" (${operator(0)})`,
    ],
    [
      '31-byte key',
      [validatorJSON(0, { consensus_pubkey: { '@type': ED25519_PUBKEY_TYPE_URL, key: b64(new Uint8Array(31)) } })],
      `validators[0] "node-0" (${operator(0)}): consensus_pubkey.key must be a 32-byte ed25519 public key, got 31 bytes`,
    ],
    [
      'not base64',
      [validatorJSON(0, { consensus_pubkey: { type: COMETBFT_ED25519_TYPE, value: 'not base64!' } })],
      `validators[0] "node-0" (${operator(0)}): consensus_pubkey.value is not valid base64`,
    ],
    [
      'secp256k1 key',
      [validatorJSON(0, { consensus_pubkey: { '@type': '/cosmos.crypto.secp256k1.PubKey', key: b64(new Uint8Array(33)) } as never })],
      `validators[0] "node-0" (${operator(0)}): consensus_pubkey has unsupported type "/cosmos.crypto.secp256k1.PubKey"; only /cosmos.crypto.ed25519.PubKey is supported`,
    ],
    ['zero power', [validatorJSON(0, { power: '0' })], `validators[0] "node-0" (${operator(0)}): power must be between 1 and ${MAX_TOTAL_VOTING_POWER}, got 0`],
    [
      'negative power',
      [validatorJSON(0), validatorJSON(1, { power: '-5' })],
      `validators[1] "node-1" (${operator(1)}): power must be between 1 and ${MAX_TOTAL_VOTING_POWER}, got -5`,
    ],
    [
      'power above 2^60',
      [validatorJSON(0, { power: String(1n << 60n) })],
      `validators[0] "node-0" (${operator(0)}): power must be between 1 and ${MAX_TOTAL_VOTING_POWER}, got ${1n << 60n}`,
    ],
    [
      'power not a number',
      [validatorJSON(0, { power: '1e3' })],
      `validators[0] "node-0" (${operator(0)}): power must be an integer as a decimal string, got "1e3"`,
    ],
    [
      'total power too large',
      [validatorJSON(0, { power: String(MAX_TOTAL_VOTING_POWER) }), validatorJSON(1, { power: '1' })],
      `total voting power exceeds the maximum ${MAX_TOTAL_VOTING_POWER} at validators[1] "node-1" (${operator(1)})`,
    ],
    ['other prefix', [validatorJSON(0, { operator_address: toBech32('cosmos', new Uint8Array(20)) })], `invalid operator_address: invalid bech32 prefix`],
    ['empty moniker', [validatorJSON(0, { moniker: ' ' })], `validators[0] (${operator(0)}): moniker must be a non-empty string`],
    ['long moniker', [validatorJSON(0, { moniker: 'x'.repeat(71) })], `moniker is longer than 70 bytes`],
    ['unknown field', [{ ...validatorJSON(0), tokens: '5' }], 'validators[0] has an unknown field "tokens"'],
  ];
  for (const [name, validators, text] of cases) {
    test(name, () => {
      assert.throws(
        () => validate(validators),
        (e: Error) => {
          assert.equal(e.name, 'ValidatorsGenesisError');
          assert.ok(e.message.startsWith('validators genesis: '), e.message);
          assert.ok(e.message.includes(text), `${e.message}\n  should include\n${text}`);
          return true;
        },
      );
    });
  }
});

describe('validators module options', () => {
  test('a chain may move the set to another store', () => {
    const mod = validatorsModule({ storeKey: 'valset' });
    assert.deepEqual(mod.storeKeys, ['valset']);
    const dir = mkdtempSync(join(tmpdir(), 'chaind-validators-'));
    dirs.push(dir);
    const ms = CommitMultiStore.open(dir);
    ms.mount(['valset']);
    ms.loadLatest();
    const ctx = new Context({
      store: ms,
      header: { chainId: CHAIN_ID, height: 1n, time: { seconds: 0n, nanos: 0 }, proposerAddress: new Uint8Array(0) },
      mode: 'finalize',
    });
    mod.initGenesis?.(ctx, { validators: [validatorJSON(0), validatorJSON(1)] });
    assert.equal(mod.keeper.getValidator(ctx, operator(1))?.power, 20n, 'the keeper reads the store it was given');
    void ms.close();
  });
});

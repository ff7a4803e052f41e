// Test support (not used by production code): a chaind application over a real LMDB directory, fed
// real signed transactions in real blocks, that can be closed and reopened as another "binary" (a
// different set of known upgrades) over the same data, as an operator swapping binaries would.
import { join } from 'node:path';
import { QueryAccountRequest, QueryAccountResponse } from 'cosmjs-types/cosmos/auth/v1beta1/query';
import { BaseAccount } from 'cosmjs-types/cosmos/auth/v1beta1/auth';
import { TxMsgData } from 'cosmjs-types/cosmos/base/abci/v1beta1/abci';
import { ProposalStatus, VoteOption } from 'cosmjs-types/cosmos/gov/v1/gov';
import { QueryProposalRequest, QueryProposalResponse } from 'cosmjs-types/cosmos/gov/v1/query';
import { MsgSubmitProposal, MsgSubmitProposalResponse, MsgVote } from 'cosmjs-types/cosmos/gov/v1/tx';
import type { Any } from 'cosmjs-types/google/protobuf/any';
import type { ExecTxResult, ResponseFinalizeBlock, ResponseQuery } from 'cosmjs-types/tendermint/abci/types';
import type { Proposal } from 'cosmjs-types/cosmos/gov/v1/gov';
import { MemoryLogger } from '@chaind/sdk/app';
import { defaultConsensusParams, type GenesisDoc } from '@chaind/sdk/genesis';
import { MsgCancelUpgrade, MsgSoftwareUpgrade } from '@chaind/sdk/gen/chain/upgrade/v1beta1/tx';
import { toHex, utf8 } from '@chaind/sdk/store';
import { blockRequest, DENOM, genesisAccounts, sendMsg, testConsensusKey, testKey, tmpDir, type TestKey } from '@chaind/sdk/testing';
import { encodeTx } from '@chaind/sdk/tx';
import { upgradeInfoPath } from '@chaind/upgrade-plan';
import { createChainApp, GOV_AUTHORITY, type ChainApp } from '../../src/app.ts';
import type { Upgrade } from '../../src/upgrades/index.ts';

export const CHAIN_ID = 'chain-test-1';
export const GENESIS_SECONDS = 1_700_000_000n;
/** Voting and deposit periods of the test chain (seconds); blocks are 1 s apart unless advanced. */
export const PERIOD = 10n;

/** The validator's operator (the only voter), and two users. */
export const VALIDATOR = testKey(0);
export const ALICE = testKey(1);
export const BOB = testKey(2);

/** Genesis with VALIDATOR, ALICE, BOB and any `extraAccounts` funded alike (account numbers in that order). */
export function genesisAppState(extraAccounts: readonly string[] = []): Record<string, unknown> {
  const funded = [...[VALIDATOR, ALICE, BOB].map((k) => k.address), ...extraAccounts];
  return {
    auth: { accounts: genesisAccounts(funded) },
    bank: { balances: funded.map((address) => ({ address, coins: [{ denom: DENOM, amount: '1000000000' }] })) },
    validators: {
      validators: [
        {
          operator_address: VALIDATOR.address,
          consensus_pubkey: { '@type': '/cosmos.crypto.ed25519.PubKey', key: Buffer.from(testConsensusKey(0)).toString('base64') },
          power: '10',
          moniker: 'validator',
        },
      ],
    },
    gov: {
      params: {
        min_deposit: [{ denom: DENOM, amount: '1000' }],
        max_deposit_period: `${PERIOD}s`,
        voting_period: `${PERIOD}s`,
      },
    },
  };
}

/** The test chain's genesis as CometBFT's genesis.json carries it (validators come from app_state). */
export function testGenesis(extraAccounts: readonly string[] = []): GenesisDoc {
  return {
    genesisTime: { seconds: GENESIS_SECONDS, nanos: 0 },
    chainId: CHAIN_ID,
    initialHeight: 1n,
    consensusParams: defaultConsensusParams(),
    appHash: new Uint8Array(0),
    appState: genesisAppState(extraAccounts),
  };
}

export interface BinaryOptions {
  /** The upgrades this binary knows (its handlers and store upgrades). */
  readonly upgrades?: readonly Upgrade[];
  readonly skipUpgradeHeights?: readonly bigint[];
  /** More addresses funded at genesis (e.g. an external wallet's); used only when the state is new. */
  readonly extraAccounts?: readonly string[];
}

/** A node home: a new temp dir, removed with the others by `removeTmpDirs`. */
export function newHome(): string {
  return tmpDir('chaind-test-');
}

/** The committed account at `address`; throws the query's log when there is none. */
export function committedAccount(app: ChainApp['app'], address: string): BaseAccount {
  const r = app.query({ path: '/cosmos.auth.v1beta1.Query/Account', data: QueryAccountRequest.encode({ address }).finish(), height: 0n, prove: false });
  if (r.code !== 0) throw new Error(r.log);
  return BaseAccount.decode((QueryAccountResponse.decode(r.value).account as Any).value);
}

/** `msgs` signed by `key` at its committed sequence plus `offset` (for several txs in one block), no fee. */
export function signTx(app: ChainApp['app'], key: TestKey, msgs: Any[], offset = 0n, gasLimit = 10_000_000n): Uint8Array {
  const acc = committedAccount(app, key.address);
  return encodeTx(
    { msgs, fee: { amount: [], gasLimit } },
    [{ privateKey: key.privateKey, accountNumber: acc.accountNumber, sequence: acc.sequence + offset }],
    CHAIN_ID,
  );
}

/** A node's application over `home`; InitChain runs when the state is new. */
export class TestChain {
  readonly logger = new MemoryLogger();
  readonly chain: ChainApp;
  private time: bigint;

  private constructor(
    readonly home: string,
    opts: BinaryOptions,
  ) {
    this.chain = createChainApp({
      dbPath: join(home, 'data', 'application.db'),
      upgradeInfoPath: upgradeInfoPath(home),
      chainId: CHAIN_ID,
      logger: this.logger,
      upgrades: opts.upgrades ?? [],
      skipUpgradeHeights: new Set(opts.skipUpgradeHeights ?? []),
    });
    this.time = GENESIS_SECONDS + this.height;
  }

  /** Starts a binary over `home` (new or existing state). */
  static open(home: string, opts: BinaryOptions = {}): TestChain {
    const c = new TestChain(home, opts);
    if (c.height === 0n) {
      c.chain.app.initChain({
        time: { seconds: GENESIS_SECONDS, nanos: 0 },
        chainId: CHAIN_ID,
        validators: [],
        appStateBytes: utf8(JSON.stringify(genesisAppState(opts.extraAccounts))),
        initialHeight: 1n,
      });
      // state is queryable (and txs can be signed against it) once the first block commits
      c.block();
    }
    return c;
  }

  get app(): ChainApp['app'] {
    return this.chain.app;
  }

  get height(): bigint {
    return this.chain.app.lastBlockHeight;
  }

  /** Finalizes and commits the next block `advance` seconds after the last; a throwing block commits nothing. */
  block(txs: Uint8Array[] = [], advance = 1n): ResponseFinalizeBlock {
    const height = this.height + 1n;
    const time = this.time + advance;
    const res = this.app.finalizeBlock(blockRequest(height, time, txs));
    this.app.commit();
    this.time = time;
    return res;
  }

  /** Blocks until the last committed height is `h`. */
  blocksUntil(h: bigint): void {
    while (this.height < h) this.block();
  }

  account(address: string): BaseAccount {
    return committedAccount(this.app, address);
  }

  /** A signed tx from `key` at its committed sequence plus `offset` (for several txs in one block). */
  tx(key: TestKey, msgs: Any[], offset = 0n): Uint8Array {
    return signTx(this.app, key, msgs, offset);
  }

  /** One tx alone in a block; its result. */
  run(key: TestKey, msgs: Any[], advance = 1n): ExecTxResult {
    return this.block([this.tx(key, msgs)], advance).txResults[0];
  }

  query(path: string, data: Uint8Array): ResponseQuery {
    return this.app.query({ path, data, height: 0n, prove: false });
  }

  /** Raw committed value of `key` in `store` (hex), or undefined. */
  raw(store: string, key: Uint8Array): string | undefined {
    const r = this.query(`/store/${store}/key`, key);
    if (r.code !== 0) throw new Error(r.log);
    return r.value.length === 0 ? undefined : toHex(r.value);
  }

  /** Submits a proposal from ALICE with the minimum deposit; returns its id. */
  propose(messages: Any[], title = 'proposal'): bigint {
    const msg = MsgSubmitProposal.fromPartial({ messages, initialDeposit: [{ denom: DENOM, amount: '1000' }], proposer: ALICE.address, title, summary: title });
    const r = this.run(ALICE, [{ typeUrl: '/cosmos.gov.v1.MsgSubmitProposal', value: MsgSubmitProposal.encode(msg).finish() }]);
    if (r.code !== 0) throw new Error(`submit failed: ${r.log}`);
    return MsgSubmitProposalResponse.decode(TxMsgData.decode(r.data).msgResponses[0].value).proposalId;
  }

  /** The validator (all the power) votes. */
  vote(id: bigint, option: VoteOption = VoteOption.VOTE_OPTION_YES): void {
    const r = this.run(VALIDATOR, [
      { typeUrl: '/cosmos.gov.v1.MsgVote', value: MsgVote.encode({ proposalId: id, voter: VALIDATOR.address, option, metadata: '' }).finish() },
    ]);
    if (r.code !== 0) throw new Error(`vote failed: ${r.log}`);
  }

  proposal(id: bigint): Proposal {
    const r = this.query('/cosmos.gov.v1.Query/Proposal', QueryProposalRequest.encode({ proposalId: id }).finish());
    if (r.code !== 0) throw new Error(r.log);
    return QueryProposalResponse.decode(r.value).proposal as Proposal;
  }

  /** Propose, vote yes, and let the voting period end: the proposal's messages execute. */
  pass(messages: Any[]): Proposal {
    const id = this.propose(messages);
    this.vote(id);
    this.block([], PERIOD);
    return this.proposal(id);
  }

  send(from: TestKey, to: string, amount: string, offset = 0n): Uint8Array {
    return this.tx(from, [sendMsg(from.address, to, amount)], offset);
  }

  close(): Promise<void> {
    return this.chain.close();
  }
}

export const PASSED = ProposalStatus.PROPOSAL_STATUS_PASSED;
export const FAILED = ProposalStatus.PROPOSAL_STATUS_FAILED;

export function softwareUpgrade(name: string, height: bigint, info = ''): Any {
  return {
    typeUrl: '/chain.upgrade.v1beta1.MsgSoftwareUpgrade',
    value: MsgSoftwareUpgrade.encode({ authority: GOV_AUTHORITY, plan: { name, height, info, time: undefined, upgradedClientState: undefined } }).finish(),
  };
}

export function cancelUpgrade(): Any {
  return { typeUrl: '/chain.upgrade.v1beta1.MsgCancelUpgrade', value: MsgCancelUpgrade.encode({ authority: GOV_AUTHORITY }).finish() };
}

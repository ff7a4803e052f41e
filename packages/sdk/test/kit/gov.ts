// Test support for x/gov (not used by production code): a real BaseApp over LMDB with auth (and its
// ante handler), bank, gov and "upgradetest", a tiny module whose cosmos.upgrade.v1beta1
// MsgSoftwareUpgrade must be signed by the gov module account and writes the plan's name into its
// store (and fails for the name "fail"). Validator power is a map the test sets.
import { Buffer } from 'node:buffer';
import { QueryBalanceRequest, QueryBalanceResponse } from 'cosmjs-types/cosmos/bank/v1beta1/query';
import type { Coin as ProtoCoin } from 'cosmjs-types/cosmos/base/v1beta1/coin';
import { MsgSoftwareUpgrade, MsgSoftwareUpgradeResponse } from 'cosmjs-types/cosmos/upgrade/v1beta1/tx';
import { MsgDeposit, MsgSubmitProposal, MsgVote, MsgVoteWeighted } from 'cosmjs-types/cosmos/gov/v1/tx';
import type { VoteOption, WeightedVoteOption } from 'cosmjs-types/cosmos/gov/v1/gov';
import type { Any } from 'cosmjs-types/google/protobuf/any';
import type { Event, ExecTxResult, ResponseFinalizeBlock, ResponseQuery } from 'cosmjs-types/tendermint/abci/types';
import { BaseApp, Context, MemoryLogger, ModuleManager, errors, registerError, type AppModule } from '@chaind/sdk/app';
import { moduleAddress } from '@chaind/sdk/crypto';
import { CommitMultiStore, ScratchMultiStore, utf8 } from '@chaind/sdk/store';
import { decodeTx, encodeTx, type DecodedTx } from '@chaind/sdk/tx';
import { AccountKeeper, authModule, FEE_COLLECTOR_NAME, newAnteHandler, type Account } from '@chaind/sdk/x/auth';
import { bankModule } from '@chaind/sdk/x/bank';
import { govModule, type GovKeeper } from '@chaind/sdk/x/gov';
import { blockRequest } from './block.ts';
import { DENOM, dumpStores, genesisAccounts, queryAccount } from './common.ts';
import { tmpDir } from './dirs.ts';
import type { TestKey } from './keys.ts';

export const GOV_CHAIN_ID = 'gov-test-1';
export const GOV_ADDRESS = moduleAddress('gov');
export const UPGRADE_TYPE_URL = '/cosmos.upgrade.v1beta1.MsgSoftwareUpgrade';
/** Block n (n ≥ 1) has time GENESIS_TIME + n seconds unless a test advances it further. */
export const GENESIS_TIME = 1_000_000n;

export const upgradeTestError = registerError('upgradetest', 2, 'upgrade refused');

export const planKey = (name: string): Uint8Array => utf8(`plan/${name}`);

/**
 * MsgSoftwareUpgrade's route: only the gov module account may sign it; "fail" fails after a write
 * with a registered error, "crash" with a SyntaxError from JSON.parse.
 */
function upgradeTestModule(): AppModule {
  return {
    name: 'upgradetest',
    storeKeys: ['upgradetest'],
    consensusVersion: 1n,
    registerServices(cfg) {
      cfg.msgRouter.register({
        typeUrl: UPGRADE_TYPE_URL,
        codec: MsgSoftwareUpgrade,
        responseTypeUrl: '/cosmos.upgrade.v1beta1.MsgSoftwareUpgradeResponse',
        responseCodec: MsgSoftwareUpgradeResponse,
        signers: (msg: MsgSoftwareUpgrade) => [msg.authority],
        validateBasic(msg: MsgSoftwareUpgrade) {
          if (msg.plan.name === '') throw errors.invalidRequest.wrap('name cannot be empty');
          if (msg.plan.height <= 0n) throw errors.invalidRequest.wrap('height must be greater than 0');
        },
        handler(ctx: Context, msg: MsgSoftwareUpgrade) {
          if (msg.authority !== GOV_ADDRESS) throw errors.unauthorized.wrap(`expected ${GOV_ADDRESS}, got ${msg.authority}`);
          ctx.kvStore('upgradetest').set(planKey(msg.plan.name), utf8(msg.plan.height.toString()));
          ctx.events.emit('upgrade_scheduled', [['name', msg.plan.name]]);
          if (msg.plan.name === 'fail') throw upgradeTestError.wrap('the plan is named "fail"');
          // a runtime exception whose text is V8's own (it differs between Node versions)
          if (msg.plan.name === 'crash') JSON.parse(`{${msg.plan.info}`);
          return {};
        },
      });
    },
  };
}

export function upgradeMsg(name: string, authority: string = GOV_ADDRESS, height = 100n): Any {
  return {
    typeUrl: UPGRADE_TYPE_URL,
    value: MsgSoftwareUpgrade.encode({ authority, plan: { name, height, info: '', time: { seconds: 0n, nanos: 0 } } }).finish(),
  };
}

export function submitMsg(proposer: string, messages: Any[], deposit: string, o: Partial<MsgSubmitProposal> = {}): Any {
  const m = MsgSubmitProposal.fromPartial({
    messages,
    initialDeposit: deposit === '' ? [] : [{ denom: DENOM, amount: deposit }],
    proposer,
    metadata: '',
    title: 'a proposal',
    summary: 'what it does',
    ...o,
  });
  return { typeUrl: '/cosmos.gov.v1.MsgSubmitProposal', value: MsgSubmitProposal.encode(m).finish() };
}

export function depositMsg(depositor: string, proposalId: bigint, amount: string): Any {
  return { typeUrl: '/cosmos.gov.v1.MsgDeposit', value: MsgDeposit.encode({ proposalId, depositor, amount: [{ denom: DENOM, amount }] }).finish() };
}

export function voteMsg(voter: string, proposalId: bigint, option: VoteOption): Any {
  return { typeUrl: '/cosmos.gov.v1.MsgVote', value: MsgVote.encode({ proposalId, voter, option, metadata: '' }).finish() };
}

export function weightedVoteMsg(voter: string, proposalId: bigint, options: WeightedVoteOption[]): Any {
  return { typeUrl: '/cosmos.gov.v1.MsgVoteWeighted', value: MsgVoteWeighted.encode({ proposalId, voter, options, metadata: '' }).finish() };
}

export interface GovTestApp {
  readonly app: BaseApp<DecodedTx>;
  readonly gov: GovKeeper;
  readonly logger: MemoryLogger;
  /** Validator power by operator address; read by every tally. */
  readonly powers: Map<string, bigint>;
  /** Time of the last block (seconds). */
  readonly time: bigint;
  readonly height: bigint;
  /** A signed tx from `key` with the next sequence (counting txs made for the coming block). */
  tx(key: TestKey, msgs: Any[], fee?: ProtoCoin[]): Uint8Array;
  /** Finalizes and commits the next block, `advance` seconds after the last one. */
  block(txs?: Uint8Array[], advance?: bigint): ResponseFinalizeBlock;
  /** One tx in its own block; returns its result. */
  run(key: TestKey, msgs: Any[], advance?: bigint): ExecTxResult;
  balance(address: string, denom?: string): bigint;
  account(address: string): Account | undefined;
  query(path: string, data: Uint8Array): ResponseQuery;
  /** The committed value of a key in the upgradetest store. */
  plan(name: string): string | undefined;
  /** Every key and value of every store (committed state), "<store>/<hex key>" → hex value. */
  dump(): Map<string, string>;
  /** The app state's export (every module's genesis JSON) at the last committed block. */
  exportState(): Record<string, unknown>;
  close(): Promise<void>;
}

export interface GovTestAppOptions {
  /** Accounts with `balance` stake at genesis. */
  readonly funded: readonly string[];
  readonly balance?: bigint;
  /** Overrides of the gov genesis params (JSON). */
  readonly params?: Record<string, unknown>;
  readonly powers?: Readonly<Record<string, bigint>>;
  /** Replaces the whole gov genesis. */
  readonly govGenesis?: unknown;
  /** Extra bank balances (e.g. of the gov account for a genesis with deposits). */
  readonly extraBalances?: readonly { address: string; coins: ProtoCoin[] }[];
}

/** Short periods and a small deposit so tests move fast: 10 s deposit and voting periods, 1000stake. */
export const TEST_PARAMS = {
  min_deposit: [{ denom: DENOM, amount: '1000' }],
  max_deposit_period: '10s',
  voting_period: '10s',
};

export function govTestApp(o: GovTestAppOptions): GovTestApp {
  const dir = tmpDir('chaind-gov-');
  const ak = new AccountKeeper({ moduleAccounts: { [FEE_COLLECTOR_NAME]: [], gov: ['burner'] } });
  const bank = bankModule({ accounts: ak });
  const powers = new Map<string, bigint>(Object.entries(o.powers ?? {}));
  const gov = govModule({ bank: bank.keeper, accounts: ak, votingPower: () => powers });
  const mm = new ModuleManager([authModule({ keeper: ak }), bank, gov, upgradeTestModule()]);
  const logger = new MemoryLogger();
  const app = new BaseApp<DecodedTx>({
    name: 'govtest',
    version: '0.0.1',
    store: CommitMultiStore.open(dir),
    modules: mm,
    txDecoder: decodeTx,
    chainId: GOV_CHAIN_ID,
    logger,
  });
  app.setAnteHandler(
    newAnteHandler({
      accountKeeper: ak,
      msgRouter: mm.msgRouter,
      deductFee: bank.keeper.deductFeeTo(FEE_COLLECTOR_NAME),
    }),
  );
  app.load();
  const balance = (o.balance ?? 1_000_000n).toString();
  const appState = {
    auth: { accounts: genesisAccounts(o.funded) },
    bank: { balances: [...o.funded.map((address) => ({ address, coins: [{ denom: DENOM, amount: balance }] })), ...(o.extraBalances ?? [])] },
    gov: o.govGenesis ?? { ...gov.defaultGenesis(), params: { ...gov.defaultGenesis().params, ...TEST_PARAMS, ...o.params } },
  };
  app.initChain({
    time: { seconds: GENESIS_TIME, nanos: 0 },
    chainId: GOV_CHAIN_ID,
    validators: [],
    appStateBytes: utf8(JSON.stringify(appState)),
    initialHeight: 1n,
  });
  let height = 0n;
  let time = GENESIS_TIME;
  const pending = new Map<string, bigint>();
  const query = (path: string, data: Uint8Array): ResponseQuery => app.query({ path, data, height: 0n, prove: false });
  const account = (address: string): Account | undefined => queryAccount(query, address);
  const t: GovTestApp = {
    app,
    gov: gov.keeper,
    logger,
    powers,
    get time() {
      return time;
    },
    get height() {
      return height;
    },
    tx(key, msgs, fee = []) {
      const acc = account(key.address);
      if (acc === undefined) throw new Error(`test account ${key.address} does not exist`);
      const offset = pending.get(key.address) ?? 0n;
      pending.set(key.address, offset + 1n);
      return encodeTx(
        { msgs, fee: { amount: fee, gasLimit: 5_000_000n } },
        [{ privateKey: key.privateKey, accountNumber: acc.accountNumber, sequence: acc.sequence + offset }],
        GOV_CHAIN_ID,
      );
    },
    block(txs = [], advance = 1n) {
      height++;
      time += advance;
      pending.clear();
      const res = app.finalizeBlock(blockRequest(height, time, txs));
      app.commit();
      return res;
    },
    run(key, msgs, advance = 1n) {
      return t.block([t.tx(key, msgs)], advance).txResults[0];
    },
    balance(address, denom = DENOM) {
      const r = query('/cosmos.bank.v1beta1.Query/Balance', QueryBalanceRequest.encode({ address, denom }).finish());
      if (r.code !== 0) throw new Error(r.log);
      return BigInt(QueryBalanceResponse.decode(r.value).balance?.amount ?? '0');
    },
    account,
    query,
    plan(name) {
      const r = query('/store/upgradetest/key', planKey(name));
      return r.value.length === 0 ? undefined : Buffer.from(r.value).toString();
    },
    dump: () => dumpStores(app.store),
    exportState() {
      const snap = app.store.snapshot();
      try {
        const header = { chainId: GOV_CHAIN_ID, height, time: { seconds: time, nanos: 0 }, proposerAddress: new Uint8Array(0) };
        return mm.exportGenesis(new Context({ store: new ScratchMultiStore(snap), header, mode: 'query' }));
      } finally {
        snap.release();
      }
    },
    close: () => app.store.close(),
  };
  t.block([]);
  return t;
}

/** Attributes of the events of type `type`, each as a key → value record. */
export function eventsOf(events: readonly Event[], type: string): Record<string, string>[] {
  return events.filter((e) => e.type === type).map((e) => Object.fromEntries(e.attributes.map((a) => [a.key, a.value])));
}

import type { Timestamp } from 'cosmjs-types/google/protobuf/timestamp';
import type { BranchStore, KVStore, MultiStore } from '../store/index.ts';
import { EventManager } from './events.ts';
import { GasKVStore, InfiniteGasMeter, defaultKVGasConfig, type GasMeter, type KVGasConfig } from './gas.ts';
import { nopLogger, type Logger } from './logger.ts';

export type { Timestamp };

/** What state machine code may know about the block: never the wall clock. */
export interface BlockHeader {
  readonly chainId: string;
  readonly height: bigint;
  readonly time: Timestamp;
  readonly proposerAddress: Uint8Array;
}

/** check/recheck: mempool admission; simulate: gas estimation; finalize: block execution; query: read-only. */
export type ExecMode = 'init' | 'check' | 'recheck' | 'prepare' | 'simulate' | 'finalize' | 'query';

export interface ContextOptions {
  readonly store: MultiStore;
  readonly header: BlockHeader;
  readonly mode: ExecMode;
  readonly gasMeter?: GasMeter;
  readonly events?: EventManager;
  readonly logger?: Logger;
  readonly kvGasConfig?: KVGasConfig;
}

/** Everything a handler sees: the block header, its store branch, its gas meter, its events and a logger. */
export class Context {
  readonly store: MultiStore;
  readonly header: BlockHeader;
  readonly mode: ExecMode;
  readonly gasMeter: GasMeter;
  readonly events: EventManager;
  readonly logger: Logger;
  readonly kvGasConfig: KVGasConfig;

  constructor(o: ContextOptions) {
    this.store = o.store;
    this.header = o.header;
    this.mode = o.mode;
    this.gasMeter = o.gasMeter ?? new InfiniteGasMeter();
    this.events = o.events ?? new EventManager();
    this.logger = o.logger ?? nopLogger;
    this.kvGasConfig = o.kvGasConfig ?? defaultKVGasConfig;
  }

  get height(): bigint {
    return this.header.height;
  }

  get chainId(): string {
    return this.header.chainId;
  }

  /** Store `name`, charging this context's gas meter for each access. */
  kvStore(name: string): KVStore {
    return new GasKVStore(this.store.getStore(name), this.gasMeter, this.kvGasConfig);
  }

  with(o: Partial<ContextOptions>): Context {
    return new Context({
      store: this.store,
      header: this.header,
      mode: this.mode,
      gasMeter: this.gasMeter,
      events: this.events,
      logger: this.logger,
      kvGasConfig: this.kvGasConfig,
      ...o,
    });
  }

  /**
   * A child context over a branch of this store with its own events. `write()` makes the branch's
   * writes and events part of this context; dropping the child discards both.
   */
  branch(): ContextBranch {
    return new ContextBranch(this);
  }
}

/** A branch of a context (see `Context.branch`); a class, not a closure: every tx makes two. */
export class ContextBranch {
  readonly ctx: Context;
  private readonly store: BranchStore;

  constructor(private readonly parent: Context) {
    this.store = parent.store.branch();
    this.ctx = new Context({
      store: this.store,
      header: parent.header,
      mode: parent.mode,
      gasMeter: parent.gasMeter,
      events: new EventManager(),
      logger: parent.logger,
      kvGasConfig: parent.kvGasConfig,
    });
  }

  /** Writes the branch's store into the parent's and appends its events to the parent's. */
  write(): void {
    this.store.write();
    this.parent.events.appendFrom(this.ctx.events);
  }
}

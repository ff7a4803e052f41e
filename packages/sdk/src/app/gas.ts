import type { Entry, KVStore } from '../store/index.ts';
import { errors } from './errors.ts';

/** Gas is a uint64, so bigint. */
export interface GasMeter {
  readonly limit: bigint | null;
  consumed(): bigint;
  consume(amount: bigint, descriptor: string): void;
  refund(amount: bigint): void;
}

const MAX_GAS = 0xffffffffffffffffn;

/** A meter with a limit: going past it throws the SDK's out-of-gas error (code 11). */
export class BasicGasMeter implements GasMeter {
  private used = 0n;
  constructor(readonly limit: bigint) {}
  consumed(): bigint {
    return this.used;
  }
  consume(amount: bigint, descriptor: string): void {
    const next = this.used + amount;
    if (next > MAX_GAS) throw errors.outOfGas.wrap(`gas overflow in ${descriptor}`);
    this.used = next;
    if (next > this.limit) throw errors.outOfGas.wrap(`out of gas in location: ${descriptor}; gasWanted: ${this.limit}, gasUsed: ${next}`);
  }
  refund(amount: bigint): void {
    this.used = amount > this.used ? 0n : this.used - amount;
  }
}

/** Counts gas without a limit (blocks, upgrade handlers, queries). */
export class InfiniteGasMeter implements GasMeter {
  readonly limit = null;
  private used = 0n;
  consumed(): bigint {
    return this.used;
  }
  consume(amount: bigint, _descriptor: string): void {
    this.used += amount;
  }
  refund(amount: bigint): void {
    this.used = amount > this.used ? 0n : this.used - amount;
  }
}

/** The Cosmos SDK's default KV gas costs (store/types/gas.go KVGasConfig). */
export interface KVGasConfig {
  readonly hasCost: bigint;
  readonly deleteCost: bigint;
  readonly readCostFlat: bigint;
  readonly readCostPerByte: bigint;
  readonly writeCostFlat: bigint;
  readonly writeCostPerByte: bigint;
  readonly iterNextCostFlat: bigint;
}

export const defaultKVGasConfig: KVGasConfig = {
  hasCost: 1000n,
  deleteCost: 1000n,
  readCostFlat: 1000n,
  readCostPerByte: 3n,
  writeCostFlat: 2000n,
  writeCostPerByte: 30n,
  iterNextCostFlat: 30n,
};

/** Charges gas for every access to the wrapped store, as the SDK's gaskv store does. */
export class GasKVStore implements KVStore {
  constructor(
    private readonly parent: KVStore,
    private readonly meter: GasMeter,
    private readonly cfg: KVGasConfig = defaultKVGasConfig,
  ) {}

  get(key: Uint8Array): Uint8Array | undefined {
    this.meter.consume(this.cfg.readCostFlat, 'ReadFlat');
    this.meter.consume(this.cfg.readCostPerByte * BigInt(key.byteLength), 'ReadPerByte');
    const v = this.parent.get(key);
    if (v !== undefined) this.meter.consume(this.cfg.readCostPerByte * BigInt(v.byteLength), 'ReadPerByte');
    return v;
  }

  has(key: Uint8Array): boolean {
    this.meter.consume(this.cfg.hasCost, 'Has');
    return this.parent.has(key);
  }

  set(key: Uint8Array, value: Uint8Array): void {
    this.meter.consume(this.cfg.writeCostFlat, 'WriteFlat');
    this.meter.consume(this.cfg.writeCostPerByte * BigInt(key.byteLength), 'WritePerByte');
    this.meter.consume(this.cfg.writeCostPerByte * BigInt(value.byteLength), 'WritePerByte');
    this.parent.set(key, value);
  }

  delete(key: Uint8Array): void {
    this.meter.consume(this.cfg.deleteCost, 'Delete');
    this.parent.delete(key);
  }

  iterator(start?: Uint8Array, end?: Uint8Array): IterableIterator<Entry> {
    return this.charge(this.parent.iterator(start, end));
  }

  reverseIterator(start?: Uint8Array, end?: Uint8Array): IterableIterator<Entry> {
    return this.charge(this.parent.reverseIterator(start, end));
  }

  private *charge(it: IterableIterator<Entry>): IterableIterator<Entry> {
    try {
      for (const e of it) {
        this.meter.consume(this.cfg.iterNextCostFlat, 'IterNextFlat');
        this.meter.consume(this.cfg.readCostPerByte * BigInt(e.key.byteLength + e.value.byteLength), 'ValuePerByte');
        yield e;
      }
    } finally {
      it.return?.();
    }
  }
}

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
const MAX_SAFE = BigInt(Number.MAX_SAFE_INTEGER);

/** A meter with a limit: going past it throws the SDK's out-of-gas error (code 11). */
export class BasicGasMeter implements GasMeter {
  /**
   * Gas used as a Number while it stays an exact integer (a tx's gas is far below 2^53); past that, as
   * a bigint (`big`). A store access charges several small amounts, and a bigint sum allocates on each.
   */
  private used = 0;
  private big: bigint | null = null;
  /** The limit as a Number for comparisons with `used` (Infinity when no Number reaches it exactly). */
  private readonly limitNumber: number;
  constructor(readonly limit: bigint) {
    this.limitNumber = limit <= MAX_SAFE ? Number(limit) : Infinity;
  }
  consumed(): bigint {
    return this.big ?? BigInt(this.used);
  }
  consume(amount: bigint, descriptor: string): void {
    if (this.big === null && amount <= MAX_SAFE) this.consumeNumber(Number(amount), descriptor);
    else this.consumeBig(amount, descriptor);
  }
  /** `consume` of an exact integer amount given as a Number: the same checks and texts, no bigint made. */
  consumeNumber(amount: number, descriptor: string): void {
    const next = this.used + amount;
    if (this.big !== null || next > Number.MAX_SAFE_INTEGER) {
      this.consumeBig(BigInt(amount), descriptor);
      return;
    }
    this.used = next;
    if (next > this.limitNumber) throw errors.outOfGas.wrap(`out of gas in location: ${descriptor}; gasWanted: ${this.limit}, gasUsed: ${next}`);
  }
  private consumeBig(amount: bigint, descriptor: string): void {
    const next = (this.big ?? BigInt(this.used)) + amount;
    if (next > MAX_GAS) throw errors.outOfGas.wrap(`gas overflow in ${descriptor}`);
    this.big = next;
    if (next > this.limit) throw errors.outOfGas.wrap(`out of gas in location: ${descriptor}; gasWanted: ${this.limit}, gasUsed: ${next}`);
  }
  refund(amount: bigint): void {
    const used = this.consumed();
    const left = amount > used ? 0n : used - amount;
    if (left <= MAX_SAFE) {
      this.used = Number(left);
      this.big = null;
    } else {
      this.big = left;
    }
  }
}

/** Counts gas without a limit (blocks, upgrade handlers, queries). */
export class InfiniteGasMeter implements GasMeter {
  readonly limit = null;
  private used = 0n;
  /**
   * Gas not yet folded into `used`, as a Number while it stays an exact integer (below 2^53): an
   * upgrade handler charges millions of small amounts, and a bigint sum allocates on every one.
   */
  private pending = 0;
  consumed(): bigint {
    return this.used + BigInt(this.pending);
  }
  consume(amount: bigint, _descriptor: string): void {
    const next = this.pending + Number(amount);
    if (next <= Number.MAX_SAFE_INTEGER && amount <= MAX_SAFE) this.pending = next;
    else {
      this.used += BigInt(this.pending) + amount;
      this.pending = 0;
    }
  }
  refund(amount: bigint): void {
    const used = this.consumed();
    this.used = amount > used ? 0n : used - amount;
    this.pending = 0;
  }

  /** `consume` of a small exact amount given as a Number: the store's per-access charges, no bigint made. */
  consumeNumber(amount: number): void {
    const next = this.pending + amount;
    if (next <= Number.MAX_SAFE_INTEGER) this.pending = next;
    else {
      this.used += BigInt(this.pending) + BigInt(amount);
      this.pending = 0;
    }
  }
}

/** cost × n for the small n of key and value lengths, computed once per (cost, n): no bigint work per access. */
const perByteTables = new Map<bigint, bigint[]>();
function perByte(cost: bigint, n: number): bigint {
  if (n >= 4096) return cost * BigInt(n);
  let t = perByteTables.get(cost);
  if (t === undefined) perByteTables.set(cost, (t = []));
  return (t[n] ??= cost * BigInt(n));
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

// the default costs as Numbers, for the unlimited meter's summed charges
const READ_FLAT = Number(defaultKVGasConfig.readCostFlat);
const READ_PER_BYTE = Number(defaultKVGasConfig.readCostPerByte);
const WRITE_FLAT = Number(defaultKVGasConfig.writeCostFlat);
const WRITE_PER_BYTE = Number(defaultKVGasConfig.writeCostPerByte);
const ITER_NEXT_FLAT = Number(defaultKVGasConfig.iterNextCostFlat);

/** Charges gas for every access to the wrapped store, as the SDK's gaskv store does. */
export class GasKVStore implements KVStore {
  // made for every ctx.kvStore() call: construction must cost nothing
  constructor(
    private readonly parent: KVStore,
    private readonly meter: GasMeter,
    private readonly cfg: KVGasConfig = defaultKVGasConfig,
  ) {}

  private readPerByte(n: number): bigint {
    return perByte(this.cfg.readCostPerByte, n);
  }

  private writePerByte(n: number): bigint {
    return perByte(this.cfg.writeCostPerByte, n);
  }

  /**
   * Under an unlimited meter (blocks' begin/end, upgrade handlers) no charge can fail, so an access's
   * charges are summed as one Number: same total, no bigint per charge. A limited meter gets each
   * charge apart, so running out names the SDK's location (ReadFlat, WritePerByte, ...).
   */
  private unlimited(): InfiniteGasMeter | null {
    // the default costs are small, so their sums are exact Numbers; a custom config keeps the bigint path
    return this.meter instanceof InfiniteGasMeter && this.cfg === defaultKVGasConfig ? this.meter : null;
  }

  get(key: Uint8Array): Uint8Array | undefined {
    const u = this.unlimited();
    if (u !== null) {
      const v = this.parent.get(key);
      u.consumeNumber(READ_FLAT + READ_PER_BYTE * (key.byteLength + (v === undefined ? 0 : v.byteLength)));
      return v;
    }
    this.meter.consume(this.cfg.readCostFlat, 'ReadFlat');
    this.meter.consume(this.readPerByte(key.byteLength), 'ReadPerByte');
    const v = this.parent.get(key);
    if (v !== undefined) this.meter.consume(this.readPerByte(v.byteLength), 'ReadPerByte');
    return v;
  }

  has(key: Uint8Array): boolean {
    this.meter.consume(this.cfg.hasCost, 'Has');
    return this.parent.has(key);
  }

  set(key: Uint8Array, value: Uint8Array): void {
    const u = this.unlimited();
    if (u !== null) {
      u.consumeNumber(WRITE_FLAT + WRITE_PER_BYTE * (key.byteLength + value.byteLength));
      this.parent.set(key, value);
      return;
    }
    this.meter.consume(this.cfg.writeCostFlat, 'WriteFlat');
    this.meter.consume(this.writePerByte(key.byteLength), 'WritePerByte');
    this.meter.consume(this.writePerByte(value.byteLength), 'WritePerByte');
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

  /** A plain iterator rather than a generator: a migration pulls a million entries through it. */
  private charge(it: IterableIterator<Entry>): IterableIterator<Entry> {
    const meter = this.meter;
    const flat = this.cfg.iterNextCostFlat;
    const readCost = this.cfg.readCostPerByte;
    const u = this.unlimited();
    const charged: IterableIterator<Entry> = {
      next(): IteratorResult<Entry> {
        const r = it.next();
        if (r.done !== true && u !== null) u.consumeNumber(ITER_NEXT_FLAT + READ_PER_BYTE * (r.value.key.byteLength + r.value.value.byteLength));
        else if (r.done !== true) {
          try {
            meter.consume(flat, 'IterNextFlat');
            meter.consume(perByte(readCost, r.value.key.byteLength + r.value.value.byteLength), 'ValuePerByte');
          } catch (e) {
            // out of gas: a throwing next() is not followed by return(), so close the source here
            it.return?.();
            throw e;
          }
        }
        return r;
      },
      return(value?: unknown): IteratorResult<Entry> {
        it.return?.();
        return { done: true, value: value as undefined };
      },
      [Symbol.iterator]() {
        return charged;
      },
    };
    return charged;
  }
}

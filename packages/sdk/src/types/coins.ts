// Coins and decimal coins as the Cosmos SDK's types/coin.go and types/dec_coin.go. Amounts are
// bigints, never floats: integer coins are bounded like sdk.Int (256 bits, never negative here),
// decimal coins are exact numerators over 10^18 like sdk.LegacyDec.
import type { Coin as ProtoCoin } from 'cosmjs-types/cosmos/base/v1beta1/coin';
import { errors, type CodedError } from '../app/errors.ts';

export type { ProtoCoin };

export interface Coin {
  readonly denom: string;
  readonly amount: bigint;
}

/** A coin set: sorted by denom, no duplicates, every amount positive (see `validateCoins`). */
export type Coins = readonly Coin[];

/** sdk.Int's bound: 256 bits. */
export const MAX_AMOUNT = 2n ** 256n - 1n;
const MAX_AMOUNT_DIGITS = MAX_AMOUNT.toString().length;

const DENOM_RE = /^[a-zA-Z][a-zA-Z0-9/:._-]{2,127}$/;

const invalid = (detail: string): CodedError => errors.invalidCoins.wrap(detail);
/** Inputs may be long; error messages quote at most 100 characters of them. */
const clip = (s: string): string => (s.length > 100 ? `${s.slice(0, 100)}…` : s);

export function isValidDenom(denom: string): boolean {
  return DENOM_RE.test(denom);
}

export function validateDenom(denom: string): void {
  if (!isValidDenom(denom)) throw invalid(`invalid denom: ${clip(denom)}`);
}

/** A coin on its own: valid denom, 0 ≤ amount ≤ 2^256-1 (zero is a valid coin, not a valid member of `Coins`). */
export function validateCoin(coin: Coin): void {
  validateDenom(coin.denom);
  if (coin.amount < 0n) throw invalid(`negative coin amount: ${coin.amount}${coin.denom}`);
  if (coin.amount > MAX_AMOUNT) throw invalid(`coin amount of ${coin.denom} exceeds 2^256-1`);
}

export function coinToString(coin: Coin): string {
  return `${coin.amount}${coin.denom}`;
}

/** As Cosmos' Coins.String: "10atom,5stake"; empty for no coins. */
export function coinsToString(coins: readonly Coin[]): string {
  return coins.map(coinToString).join(',');
}

// Denoms are ASCII (see DENOM_RE), so UTF-16 order is Go's byte order.
const byDenom = (a: Coin, b: Coin): number => (a.denom < b.denom ? -1 : a.denom > b.denom ? 1 : 0);

/**
 * Cosmos' Coins.Validate: each denom valid, each amount positive and within range, denoms strictly
 * ascending (so no duplicates). The empty set is valid.
 */
export function validateCoins(coins: readonly Coin[]): void {
  for (let i = 0; i < coins.length; i++) {
    const c = coins[i];
    validateCoin(c);
    if (c.amount === 0n) throw invalid(`coin ${coinToString(c)} amount is not positive`);
    if (i > 0) {
      const prev = coins[i - 1].denom;
      if (prev === c.denom) throw invalid(`duplicate denomination ${c.denom}`);
      if (prev > c.denom) throw invalid(`denomination ${c.denom} is not sorted`);
    }
  }
}

export function isValidCoins(coins: readonly Coin[]): boolean {
  try {
    validateCoins(coins);
    return true;
  } catch {
    return false;
  }
}

/**
 * Any list of coins → a coin set, as Cosmos' NewCoins: each coin validated, duplicates refused
 * (zero-amount ones too, unlike Cosmos, since they are always a caller's mistake), zeros dropped, sorted.
 */
export function normalizeCoins(coins: readonly Coin[]): Coin[] {
  const seen = new Set<string>();
  const out: Coin[] = [];
  for (const c of coins) {
    validateCoin(c);
    if (seen.has(c.denom)) throw invalid(`duplicate denomination ${c.denom}`);
    seen.add(c.denom);
    if (c.amount !== 0n) out.push({ denom: c.denom, amount: c.amount });
  }
  return out.sort(byDenom);
}

/** The amount of `denom` in `coins`, zero when absent. */
export function amountOf(coins: readonly Coin[], denom: string): bigint {
  for (const c of coins) if (c.denom === denom) return c.amount;
  return 0n;
}

/** a + b as a normalized set; a sum beyond 2^256-1 is an error, as sdk.Int overflow. */
export function addCoins(a: readonly Coin[], b: readonly Coin[]): Coin[] {
  const sums = new Map<string, bigint>();
  for (const c of [...normalizeCoins(a), ...normalizeCoins(b)]) {
    const s = (sums.get(c.denom) ?? 0n) + c.amount;
    if (s > MAX_AMOUNT) throw invalid(`coin amount overflow: ${c.denom} sum exceeds 2^256-1`);
    sums.set(c.denom, s);
  }
  return [...sums].map(([denom, amount]) => ({ denom, amount })).sort(byDenom);
}

/** a − b as a normalized set; an amount that would go negative is an insufficient-funds error. */
export function subCoins(a: readonly Coin[], b: readonly Coin[]): Coin[] {
  const na = normalizeCoins(a);
  const rest = new Map(na.map((c) => [c.denom, c.amount]));
  for (const c of normalizeCoins(b)) {
    const d = (rest.get(c.denom) ?? 0n) - c.amount;
    if (d < 0n) throw errors.insufficientFunds.wrap(`${rest.get(c.denom) ?? 0n}${c.denom} is smaller than ${coinToString(c)}`);
    rest.set(c.denom, d);
  }
  return normalizeCoins([...rest].map(([denom, amount]) => ({ denom, amount })));
}

/** Cosmos' IsAllGTE: a holds at least every amount of b (true when b is empty). */
export function isAllGTE(a: readonly Coin[], b: readonly Coin[]): boolean {
  const na = normalizeCoins(a);
  return normalizeCoins(b).every((c) => amountOf(na, c.denom) >= c.amount);
}

/**
 * Cosmos' IsAnyGT: some denom of a is present in b and a holds more of it. A denom b lacks never
 * counts (so {2atom} is not "any greater" than {1stake}).
 */
export function isAnyGT(a: readonly Coin[], b: readonly Coin[]): boolean {
  const nb = normalizeCoins(b);
  return normalizeCoins(a).some((c) => {
    const other = amountOf(nb, c.denom);
    return other !== 0n && c.amount > other;
  });
}

/** Cosmos' IsAnyGTE, the minimum-fee check: some denom of a is present in b and a holds at least as much. */
export function isAnyGTE(a: readonly Coin[], b: readonly Coin[]): boolean {
  const nb = normalizeCoins(b);
  return normalizeCoins(a).some((c) => {
    const other = amountOf(nb, c.denom);
    return other !== 0n && c.amount >= other;
  });
}

export function coinsEqual(a: readonly Coin[], b: readonly Coin[]): boolean {
  const na = normalizeCoins(a);
  const nb = normalizeCoins(b);
  return na.length === nb.length && na.every((c, i) => c.denom === nb[i].denom && c.amount === nb[i].amount);
}

/** The amount a decimal string denotes, or why it denotes none. */
function amountOrReason(s: string): bigint | string {
  if (s.length === 0) return 'empty amount';
  if (!/^[0-9]+$/.test(s)) return `invalid amount "${clip(s)}": expected decimal digits only`;
  const digits = s.replace(/^0+(?=[0-9])/, '');
  if (digits.length > MAX_AMOUNT_DIGITS || BigInt(digits) > MAX_AMOUNT) return `amount ${clip(digits)} exceeds 2^256-1`;
  return BigInt(digits);
}

/**
 * A decimal amount string as protobuf and JSON carry sdk.Int: ASCII digits only (no sign, no
 * whitespace, no exponent), at most 2^256-1. Leading zeros are accepted, as sdk.Int accepts them.
 */
export function parseAmount(s: string): bigint {
  const r = amountOrReason(s);
  if (typeof r === 'string') throw invalid(r);
  return r;
}

/** One protobuf coin, strictly: a valid denom and a valid amount string (zero allowed). */
export function fromProtoCoin(c: ProtoCoin): Coin {
  validateDenom(c.denom);
  const r = amountOrReason(c.amount);
  if (typeof r === 'string') throw invalid(`coin ${c.denom}: ${r}`);
  return { denom: c.denom, amount: r };
}

/** Protobuf coins (a message's amount, a fee) → a coin set; must already be a valid set, as Cosmos' Coins.Validate. */
export function fromProtoCoins(coins: readonly ProtoCoin[]): Coin[] {
  const out = coins.map(fromProtoCoin);
  validateCoins(out);
  return out;
}

export function toProtoCoin(c: Coin): ProtoCoin {
  validateCoin(c);
  return { denom: c.denom, amount: c.amount.toString() };
}

export function toProtoCoins(coins: readonly Coin[]): ProtoCoin[] {
  return coins.map(toProtoCoin);
}

// Loose on purpose (it splits any trimmed expression into parts so the error can say what is wrong),
// and linear: the last group takes the rest, so nothing backtracks.
const COIN_EXPR_RE = /^([+-]?)([0-9]*)(\.[0-9]*)?\s*([\s\S]*)$/;

function parseCoinExpr(expr: string, allowFraction: boolean): { denom: string; whole: string; fraction: string } {
  const bad = (why: string): CodedError => invalid(`invalid coin expression "${clip(expr)}": ${why}`);
  const trimmed = expr.trim();
  if (trimmed.length === 0) throw bad('empty');
  const [, sign, whole, dot, denom] = COIN_EXPR_RE.exec(trimmed) as RegExpExecArray;
  if (sign === '-') throw bad('amount must not be negative');
  if (sign === '+') throw bad('amount must not have a sign');
  if (whole.length === 0 && dot === undefined) throw bad('missing amount');
  if (dot !== undefined) {
    if (!allowFraction) throw bad('coin amounts are whole numbers');
    if (dot.length === 1) throw bad('missing digits after the decimal point');
  }
  if (denom.length === 0) throw bad('missing denom');
  if (!isValidDenom(denom)) throw bad(`invalid denom "${clip(denom)}"`);
  return { denom, whole, fraction: dot === undefined ? '' : dot.slice(1) };
}

/** One coin, "10stake" (whitespace around and between allowed, as Cosmos); zero allowed. */
export function parseCoin(expr: string): Coin {
  const { denom, whole } = parseCoinExpr(expr, false);
  const r = amountOrReason(whole);
  if (typeof r === 'string') throw invalid(`invalid coin expression "${clip(expr)}": ${r}`);
  return { denom, amount: r };
}

function splitList(input: string): string[] {
  const s = input.trim();
  return s.length === 0 ? [] : s.split(',');
}

/**
 * "10stake,5atom" → a coin set (sorted, zeros dropped), as Cosmos' ParseCoinsNormalized, except that a
 * fractional amount is refused instead of truncated. The empty string is the empty set.
 */
export function parseCoins(input: string): Coin[] {
  return normalizeCoins(splitList(input).map(parseCoin));
}

// ---- decimal coins (gas prices) ----

/** sdk.LegacyDec's precision: 18 decimal places. */
export const DEC_PRECISION = 18;
export const DEC_ONE = 10n ** BigInt(DEC_PRECISION);
/** sdk.LegacyDec's bound: 256 integer bits plus 60 for the fraction. */
const MAX_DEC = 2n ** 316n - 1n;

/** A decimal coin; `amount` is the exact value × 10^18 (so 0.025 is 25_000_000_000_000_000n). */
export interface DecCoin {
  readonly denom: string;
  readonly amount: bigint;
}

/** The numerator a decimal string denotes, or why it denotes none. */
function decOrReason(s: string): bigint | string {
  const m = /^([0-9]*)(?:\.([0-9]+))?$/.exec(s);
  if (m === null || (m[1].length === 0 && m[2] === undefined)) return `invalid decimal "${clip(s)}"`;
  const fraction = m[2] ?? '';
  if (fraction.length > DEC_PRECISION) {
    return `decimal ${clip(s)} exceeds max precision by ${fraction.length - DEC_PRECISION} decimal places: max precision ${DEC_PRECISION}`;
  }
  // bounds the BigInt parse before it happens
  if (m[1].replace(/^0+/, '').length > 100) return `decimal ${clip(s)} out of range`;
  const n = BigInt((m[1] || '0') + fraction.padEnd(DEC_PRECISION, '0'));
  return n > MAX_DEC ? `decimal ${clip(s)} out of range` : n;
}

/** "0.025" → 25_000_000_000_000_000n. Digits with an optional fraction of at most 18 places; no sign. */
export function parseDec(s: string): bigint {
  const r = decOrReason(s);
  if (typeof r === 'string') throw invalid(r);
  return r;
}

/** As LegacyDec.String: always 18 decimal places, "0.025000000000000000". */
export function decToString(n: bigint): string {
  if (n < 0n) return `-${decToString(-n)}`;
  return `${n / DEC_ONE}.${(n % DEC_ONE).toString().padStart(DEC_PRECISION, '0')}`;
}

export function validateDecCoin(c: DecCoin): void {
  validateDenom(c.denom);
  if (c.amount < 0n) throw invalid(`negative decimal coin amount: ${decToString(c.amount)}${c.denom}`);
  if (c.amount > MAX_DEC) throw invalid(`decimal coin amount of ${c.denom} out of range`);
}

export function decCoinToString(c: DecCoin): string {
  return `${decToString(c.amount)}${c.denom}`;
}

export function decCoinsToString(coins: readonly DecCoin[]): string {
  return coins.map(decCoinToString).join(',');
}

/** "0.025stake" → a decimal coin; zero allowed. */
export function parseDecCoin(expr: string): DecCoin {
  const { denom, whole, fraction } = parseCoinExpr(expr, true);
  const r = decOrReason(fraction.length > 0 ? `${whole}.${fraction}` : whole);
  if (typeof r === 'string') throw invalid(`invalid coin expression "${clip(expr)}": ${r}`);
  return { denom, amount: r };
}

/** "0.025stake,1atom" → decimal coins sorted by denom, zeros dropped, duplicates refused (min-gas-prices). */
export function parseDecCoins(input: string): DecCoin[] {
  const seen = new Set<string>();
  const out: DecCoin[] = [];
  for (const c of splitList(input).map(parseDecCoin)) {
    if (seen.has(c.denom)) throw invalid(`duplicate denomination ${c.denom}`);
    seen.add(c.denom);
    if (c.amount !== 0n) out.push(c);
  }
  return out.sort(byDenom);
}

const MAX_GAS = 2n ** 64n - 1n;

/** The fee a gas price asks for `gas`: ceil(price × gas), as Cosmos' mempool fee check rounds up. */
export function feeRequired(gasPrice: DecCoin, gas: bigint): bigint {
  validateDecCoin(gasPrice);
  if (gas < 0n || gas > MAX_GAS) throw errors.invalidGasLimit.wrap(`gas ${gas} is not a uint64`);
  return (gasPrice.amount * gas + DEC_ONE - 1n) / DEC_ONE;
}

/** Every gas price's required fee for `gas`, as a coin set; the fee must cover any one of them (isAnyGTE). */
export function requiredFees(gasPrices: readonly DecCoin[], gas: bigint): Coin[] {
  const fees = gasPrices.map((p) => ({ denom: p.denom, amount: feeRequired(p, gas) }));
  for (const f of fees) if (f.amount > MAX_AMOUNT) throw invalid(`required fee of ${f.denom} exceeds 2^256-1`);
  return normalizeCoins(fees);
}

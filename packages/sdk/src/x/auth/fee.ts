// Fee coins and minimum gas prices for the ante handler. Amounts are bigints; gas prices are exact
// decimals with 18 fractional digits, as the SDK's DecCoins.
import type { Coin as ProtoCoin } from 'cosmjs-types/cosmos/base/v1beta1/coin';
import { errors } from '../../app/errors.ts';

export interface FeeCoin {
  readonly denom: string;
  readonly amount: bigint;
}

/** A gas price: `amount` is the price × 10^18. */
export interface GasPrice {
  readonly denom: string;
  readonly amount: bigint;
}

const PRECISION = 18;
const ONE = 10n ** BigInt(PRECISION);
/** sdk.Int's bound. */
const MAX_AMOUNT = 2n ** 256n - 1n;
/** The SDK's denom rule (types/coin.go). */
const DENOM_RE = /^[a-zA-Z][a-zA-Z0-9/:._-]{2,127}$/;

export function coinsString(coins: readonly FeeCoin[]): string {
  return coins.map((c) => `${c.amount}${c.denom}`).join(',');
}

/**
 * Fee coins from the tx (string amounts). An amount that is not an integer cannot be decoded
 * (`errors.txDecode`, as the SDK's decoder); a negative one is `errors.insufficientFee`.
 */
export function parseFeeCoins(coins: readonly ProtoCoin[]): FeeCoin[] {
  const out = coins.map((c): FeeCoin => {
    if (!/^-?[0-9]+$/.test(c.amount)) throw errors.txDecode.wrap(`invalid fee amount "${c.amount}" for denom "${c.denom}"`);
    const amount = BigInt(c.amount);
    if (amount > MAX_AMOUNT || -amount > MAX_AMOUNT) throw errors.txDecode.wrap(`fee amount of ${c.denom} exceeds 256 bits`);
    return { denom: c.denom, amount };
  });
  if (out.some((c) => c.amount < 0n)) throw errors.insufficientFee.wrap(`invalid fee provided: ${coinsString(out)}`);
  return out;
}

/** As sdk.Coins.IsValid: sorted by denom, no duplicates, valid denoms, every amount positive. */
export function isValidCoins(coins: readonly FeeCoin[]): boolean {
  for (let i = 0; i < coins.length; i++) {
    if (!DENOM_RE.test(coins[i].denom) || coins[i].amount <= 0n) return false;
    if (i > 0 && !(coins[i - 1].denom < coins[i].denom)) return false;
  }
  return true;
}

/**
 * Parses node configuration (`{denom, amount: "0.025"}`); a bad entry is a configuration error. As the
 * SDK's ParseDecCoins, zero prices are dropped and the rest sorted by denom.
 */
export function parseGasPrices(prices: readonly { readonly denom: string; readonly amount: string }[]): GasPrice[] {
  const seen = new Set<string>();
  const parsed = prices.map((p): GasPrice => {
    if (!DENOM_RE.test(p.denom)) throw new Error(`minimum gas price: invalid denom "${p.denom}"`);
    if (seen.has(p.denom)) throw new Error(`minimum gas price: duplicate denom "${p.denom}"`);
    seen.add(p.denom);
    const m = /^([0-9]+)(?:\.([0-9]{1,18}))?$/.exec(p.amount);
    if (m === null)
      throw new Error(`minimum gas price for ${p.denom}: "${p.amount}" is not a non-negative decimal with at most ${PRECISION} fractional digits`);
    return { denom: p.denom, amount: BigInt(m[1]) * ONE + BigInt((m[2] ?? '').padEnd(PRECISION, '0')) };
  });
  return parsed.filter((p) => p.amount > 0n).sort((a, b) => (a.denom < b.denom ? -1 : a.denom > b.denom ? 1 : 0));
}

/** ceil(price × gas) per denom, as the SDK's checkTxFeeWithValidatorMinGasPrices. */
export function requiredFees(prices: readonly GasPrice[], gas: bigint): FeeCoin[] {
  return prices.map((p) => ({ denom: p.denom, amount: (p.amount * gas + ONE - 1n) / ONE }));
}

/** As sdk.Coins.IsAnyGTE: some fee coin covers a non-zero required amount of its denom. */
export function isAnyGTE(fee: readonly FeeCoin[], required: readonly FeeCoin[]): boolean {
  return fee.some((c) => {
    const need = required.find((r) => r.denom === c.denom)?.amount ?? 0n;
    return need > 0n && c.amount >= need;
  });
}

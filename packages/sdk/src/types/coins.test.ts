import assert from 'node:assert/strict';
import { describe, test } from 'node:test';
import { CodedError, errors, type RegisteredError } from '../app/errors.ts';
import {
  addCoins,
  amountOf,
  coinsEqual,
  coinsToString,
  decCoinsToString,
  decToString,
  DEC_ONE,
  feeRequired,
  fromProtoCoin,
  fromProtoCoins,
  isAllGTE,
  isAnyGT,
  isAnyGTE,
  isValidCoins,
  isValidDenom,
  MAX_AMOUNT,
  normalizeCoins,
  parseAmount,
  parseCoin,
  parseCoins,
  parseDec,
  parseDecCoins,
  requiredFees,
  subCoins,
  toProtoCoins,
  validateCoin,
  validateCoins,
  validateDenom,
  type Coin,
} from './index.ts';

const c = (amount: bigint | number, denom: string): Coin => ({ denom, amount: BigInt(amount) });

/** Asserts `fn` throws a coded error of `reg` whose message matches `re`. */
function throwsCoded(fn: () => unknown, reg: RegisteredError, re: RegExp): void {
  assert.throws(fn, (e: unknown) => {
    assert.ok(e instanceof CodedError, `expected a CodedError, got ${String(e)}`);
    assert.equal(e.registered, reg, `expected ${reg.message}, got ${e.registered.message}: ${e.message}`);
    assert.match(e.message, re);
    return true;
  });
}
const invalidCoins = (fn: () => unknown, re: RegExp): void => throwsCoded(fn, errors.invalidCoins, re);

describe('denoms', () => {
  test('the SDK regex: a letter, then 2..127 of [a-zA-Z0-9/:._-]', () => {
    for (const d of ['stake', 'uatom', 'ibc/27394FB092D2ECCD56123C74F36E4C1F926001CEADA9CA97EA622B25F41E5EB2', 'a:b', 'x.y_z-1', 'abc', 'a'.repeat(128)]) {
      assert.ok(isValidDenom(d), d);
    }
    for (const d of ['', 'ab', '1stake', '/stake', 'sta ke', 'stake!', 'a'.repeat(129), 'stäke', 'ATOM\n']) {
      assert.ok(!isValidDenom(d), d);
      invalidCoins(() => validateDenom(d), /invalid denom/);
    }
  });
});

describe('single coins', () => {
  test('validateCoin allows zero, refuses negative, out-of-range and bad denoms', () => {
    validateCoin(c(0, 'stake'));
    validateCoin({ denom: 'stake', amount: MAX_AMOUNT });
    invalidCoins(() => validateCoin(c(-1, 'stake')), /negative coin amount: -1stake/);
    invalidCoins(() => validateCoin({ denom: 'stake', amount: MAX_AMOUNT + 1n }), /exceeds 2\^256-1/);
    invalidCoins(() => validateCoin(c(1, 'x')), /invalid denom: x/);
  });

  test('parseCoin: amount and denom with optional whitespace; every malformed part named', () => {
    assert.deepEqual(parseCoin('10stake'), c(10, 'stake'));
    assert.deepEqual(parseCoin('  7 uatom '), c(7, 'uatom'));
    assert.deepEqual(parseCoin('0stake'), c(0, 'stake'));
    assert.deepEqual(parseCoin('007stake'), c(7, 'stake'));
    invalidCoins(() => parseCoin('-5stake'), /"-5stake": amount must not be negative/);
    invalidCoins(() => parseCoin('+5stake'), /"\+5stake": amount must not have a sign/);
    invalidCoins(() => parseCoin('stake'), /"stake": missing amount/);
    invalidCoins(() => parseCoin('1.5stake'), /"1.5stake": coin amounts are whole numbers/);
    invalidCoins(() => parseCoin('10'), /"10": missing denom/);
    invalidCoins(() => parseCoin('10s'), /"10s": invalid denom "s"/);
    invalidCoins(() => parseCoin('10 st ake'), /invalid denom "st ake"/);
    invalidCoins(() => parseCoin('   '), /empty/);
    invalidCoins(() => parseCoin(`${MAX_AMOUNT + 1n}stake`), /exceeds 2\^256-1/);
    assert.deepEqual(parseCoin(`${MAX_AMOUNT}stake`), { denom: 'stake', amount: MAX_AMOUNT });
  });
});

describe('parseCoins and coinsToString', () => {
  test('parses a list into a sorted set without zeros', () => {
    assert.deepEqual(parseCoins('10stake,5atom'), [c(5, 'atom'), c(10, 'stake')]);
    assert.deepEqual(parseCoins('10stake, 0atom'), [c(10, 'stake')]);
    assert.deepEqual(parseCoins(''), []);
    assert.deepEqual(parseCoins('  '), []);
    assert.equal(coinsToString(parseCoins('10stake,5atom')), '5atom,10stake');
    assert.equal(coinsToString([]), '');
  });

  test('names the bad part; refuses negative, malformed, empty and duplicate entries', () => {
    invalidCoins(() => parseCoins('10stake,-5atom'), /"-5atom": amount must not be negative/);
    invalidCoins(() => parseCoins('10stake,5'), /"5": missing denom/);
    invalidCoins(() => parseCoins('10stake,,5atom'), /empty/);
    invalidCoins(() => parseCoins('10stake,'), /empty/);
    invalidCoins(() => parseCoins('10stake,3stake'), /duplicate denomination stake/);
    invalidCoins(() => parseCoins('0stake,3stake'), /duplicate denomination stake/);
    invalidCoins(() => parseCoins('10stake;5atom'), /invalid denom "stake;5atom"/);
  });

  test('a very long expression is handled in linear time and clipped in the error', () => {
    const long = `1a${' '.repeat(200_000)}b`;
    const t0 = process.hrtime.bigint();
    invalidCoins(() => parseCoins(long), /…/);
    assert.ok(process.hrtime.bigint() - t0 < 2_000_000_000n);
  });
});

describe('coin sets', () => {
  test('validateCoins: sorted, unique, positive, valid', () => {
    validateCoins([]);
    validateCoins([c(1, 'atom'), c(2, 'stake')]);
    assert.ok(isValidCoins([c(1, 'atom')]));
    invalidCoins(() => validateCoins([c(0, 'atom')]), /coin 0atom amount is not positive/);
    invalidCoins(() => validateCoins([c(1, 'stake'), c(1, 'atom')]), /denomination atom is not sorted/);
    invalidCoins(() => validateCoins([c(1, 'atom'), c(2, 'atom')]), /duplicate denomination atom/);
    invalidCoins(() => validateCoins([c(-1, 'atom')]), /negative coin amount/);
    invalidCoins(() => validateCoins([c(1, 'a')]), /invalid denom/);
    assert.ok(!isValidCoins([c(0, 'atom')]));
  });

  test('normalizeCoins sorts, drops zeros, refuses duplicates and invalid coins', () => {
    assert.deepEqual(normalizeCoins([c(2, 'stake'), c(0, 'btc'), c(1, 'atom')]), [c(1, 'atom'), c(2, 'stake')]);
    invalidCoins(() => normalizeCoins([c(2, 'stake'), c(1, 'stake')]), /duplicate denomination stake/);
    invalidCoins(() => normalizeCoins([c(-2, 'stake')]), /negative/);
    // uppercase sorts before lowercase, as Go's byte order
    assert.deepEqual(
      normalizeCoins([c(1, 'abc'), c(1, 'ABC')]).map((x) => x.denom),
      ['ABC', 'abc'],
    );
  });

  test('add merges denoms and refuses overflow', () => {
    assert.deepEqual(addCoins(parseCoins('1atom,2stake'), parseCoins('3stake,4btc')), parseCoins('1atom,4btc,5stake'));
    assert.deepEqual(addCoins([], []), []);
    invalidCoins(() => addCoins([{ denom: 'stake', amount: MAX_AMOUNT }], [c(1, 'stake')]), /overflow/);
    invalidCoins(() => addCoins([c(-1, 'stake')], []), /negative/);
  });

  test('sub never goes negative and drops zeros', () => {
    assert.deepEqual(subCoins(parseCoins('5atom,10stake'), parseCoins('5atom,3stake')), [c(7, 'stake')]);
    throwsCoded(() => subCoins(parseCoins('5stake'), parseCoins('10stake')), errors.insufficientFunds, /5stake is smaller than 10stake/);
    throwsCoded(() => subCoins(parseCoins('5stake'), parseCoins('1atom')), errors.insufficientFunds, /0atom is smaller than 1atom/);
    invalidCoins(() => subCoins([c(1, 'stake')], [c(-1, 'stake')]), /negative coin amount/);
  });

  test('comparisons as the SDK', () => {
    const a = parseCoins('10atom,5stake');
    assert.ok(isAllGTE(a, parseCoins('10atom')));
    assert.ok(isAllGTE(a, []));
    assert.ok(!isAllGTE(a, parseCoins('11atom')));
    assert.ok(!isAllGTE(a, parseCoins('1btc')));
    assert.ok(!isAllGTE([], parseCoins('1btc')));
    assert.ok(isAnyGT(a, parseCoins('9atom,100stake')));
    assert.ok(!isAnyGT(a, parseCoins('10atom,5stake')));
    assert.ok(!isAnyGT(a, parseCoins('1btc')), 'a denom the other side lacks never counts');
    assert.ok(!isAnyGT(a, []));
    assert.ok(isAnyGTE(a, parseCoins('10atom,100stake')));
    assert.ok(!isAnyGTE(a, parseCoins('11atom,6stake')));
    assert.ok(!isAnyGTE(a, []));
    assert.ok(coinsEqual(parseCoins('1a1a,2b2b'), [c(2, 'b2b'), c(1, 'a1a')]));
    assert.ok(!coinsEqual(parseCoins('1aaa'), parseCoins('2aaa')));
    assert.ok(!coinsEqual(parseCoins('1aaa'), parseCoins('1aaa,1bbb')));
    assert.equal(amountOf(a, 'stake'), 5n);
    assert.equal(amountOf(a, 'btc'), 0n);
  });
});

describe('protobuf coins', () => {
  test('round-trip', () => {
    const coins = parseCoins('1atom,2stake');
    assert.deepEqual(toProtoCoins(coins), [
      { denom: 'atom', amount: '1' },
      { denom: 'stake', amount: '2' },
    ]);
    assert.deepEqual(fromProtoCoins(toProtoCoins(coins)), coins);
    assert.equal(toProtoCoins([{ denom: 'stake', amount: MAX_AMOUNT }])[0].amount, MAX_AMOUNT.toString());
  });

  test('the amount string is strict: digits only, at most 2^256-1', () => {
    assert.equal(parseAmount('0'), 0n);
    assert.equal(parseAmount('000123'), 123n);
    assert.equal(parseAmount(MAX_AMOUNT.toString()), MAX_AMOUNT);
    for (const [s, re] of [
      ['', /empty amount/],
      ['-1', /invalid amount "-1"/],
      ['+1', /invalid amount "\+1"/],
      [' 1', /invalid amount " 1"/],
      ['1 ', /invalid amount/],
      ['1e3', /invalid amount/],
      ['0x10', /invalid amount/],
      ['1.0', /invalid amount/],
      ['1_000', /invalid amount/],
      ['١', /invalid amount/],
      [(MAX_AMOUNT + 1n).toString(), /exceeds 2\^256-1/],
      ['9'.repeat(10_000), /exceeds 2\^256-1/],
    ] as const) {
      invalidCoins(() => parseAmount(s), re);
      invalidCoins(() => fromProtoCoin({ denom: 'stake', amount: s }), re);
    }
    assert.equal(parseAmount(`${'0'.repeat(500)}5`), 5n);
  });

  test('fromProtoCoins requires a valid set; toProtoCoins refuses invalid coins', () => {
    invalidCoins(() => fromProtoCoin({ denom: 'x', amount: '1' }), /invalid denom: x/);
    invalidCoins(() => fromProtoCoins([{ denom: 'stake', amount: '0' }]), /amount is not positive/);
    invalidCoins(
      () =>
        fromProtoCoins([
          { denom: 'stake', amount: '1' },
          { denom: 'atom', amount: '1' },
        ]),
      /not sorted/,
    );
    invalidCoins(
      () =>
        fromProtoCoins([
          { denom: 'atom', amount: '1' },
          { denom: 'atom', amount: '1' },
        ]),
      /duplicate denomination atom/,
    );
    invalidCoins(() => fromProtoCoins([{ denom: 'atom', amount: '-1' }]), /coin atom: invalid amount "-1"/);
    assert.deepEqual(fromProtoCoin({ denom: 'stake', amount: '0' }), c(0, 'stake'));
    invalidCoins(() => toProtoCoins([c(-1, 'stake')]), /negative/);
  });
});

describe('decimal coins and fees', () => {
  test('parseDec is exact to 18 places', () => {
    assert.equal(parseDec('0.025'), 25n * 10n ** 15n);
    assert.equal(parseDec('1'), DEC_ONE);
    assert.equal(parseDec('.5'), DEC_ONE / 2n);
    assert.equal(parseDec('0.000000000000000001'), 1n);
    assert.equal(parseDec('12.340000000000000000'), 12_340_000_000_000_000_000n);
    invalidCoins(() => parseDec('0.0000000000000000001'), /exceeds max precision by 1 decimal places: max precision 18/);
    for (const s of ['', '.', '1.', '-1', '+1', '1e-3', ' 1', '1,5', 'abc']) invalidCoins(() => parseDec(s), /invalid decimal/);
    invalidCoins(() => parseDec('9'.repeat(200)), /out of range/);
    invalidCoins(() => parseDec((2n ** 300n).toString()), /out of range/);
  });

  test('decToString prints 18 places, as LegacyDec', () => {
    assert.equal(decToString(parseDec('0.025')), '0.025000000000000000');
    assert.equal(decToString(0n), '0.000000000000000000');
    assert.equal(decToString(-DEC_ONE), '-1.000000000000000000');
  });

  test('parseDecCoins: sorted, zeros dropped, errors named', () => {
    assert.deepEqual(parseDecCoins('0.025stake,1atom'), [
      { denom: 'atom', amount: DEC_ONE },
      { denom: 'stake', amount: 25n * 10n ** 15n },
    ]);
    assert.deepEqual(parseDecCoins('0stake'), []);
    assert.deepEqual(parseDecCoins(''), []);
    assert.equal(decCoinsToString(parseDecCoins('0.025stake')), '0.025000000000000000stake');
    invalidCoins(() => parseDecCoins('0.025stake,0.01stake'), /duplicate denomination stake/);
    invalidCoins(() => parseDecCoins('-0.025stake'), /"-0.025stake": amount must not be negative/);
    invalidCoins(() => parseDecCoins('1.stake'), /"1.stake": missing digits after the decimal point/);
    invalidCoins(() => parseDecCoins('0.0000000000000000001stake'), /"0.0000000000000000001stake": decimal .* exceeds max precision/);
    invalidCoins(() => parseDecCoins('0.1'), /"0.1": missing denom/);
    invalidCoins(() => parseDecCoins('0.1s'), /invalid denom "s"/);
  });

  test('feeRequired = ceil(price × gas)', () => {
    const [p] = parseDecCoins('0.025stake');
    assert.equal(feeRequired(p, 200_000n), 5000n);
    assert.equal(feeRequired(p, 1n), 1n, '0.025 rounds up to 1');
    assert.equal(feeRequired(p, 40n), 1n);
    assert.equal(feeRequired(p, 41n), 2n);
    assert.equal(feeRequired(p, 0n), 0n);
    assert.equal(feeRequired({ denom: 'stake', amount: 1n }, 2n ** 64n - 1n), 19n);
    throwsCoded(() => feeRequired(p, -1n), errors.invalidGasLimit, /not a uint64/);
    throwsCoded(() => feeRequired(p, 2n ** 64n), errors.invalidGasLimit, /not a uint64/);
    invalidCoins(() => feeRequired({ denom: 'stake', amount: -1n }, 1n), /negative decimal coin amount/);
    assert.deepEqual(requiredFees(parseDecCoins('0.025stake,1atom'), 100n), [c(100, 'atom'), c(3, 'stake')]);
    assert.ok(isAnyGTE(parseCoins('3stake'), requiredFees(parseDecCoins('0.025stake,1atom'), 100n)));
  });
});

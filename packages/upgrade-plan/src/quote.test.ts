import assert from 'node:assert/strict';
import { describe, test } from 'node:test';
import { clip, MAX_QUOTED, quote } from './quote.ts';

describe('input quoted in a message', () => {
  test('short values read as JSON.stringify writes them', () => {
    assert.equal(quote('v2'), '"v2"');
    assert.equal(quote(12), '12');
    assert.equal(quote('a\nb'), '"a\\nb"');
  });

  test('one line whatever the input: control characters and line separators escaped', () => {
    assert.equal(clip('a\nb\u2028c\u0085'), 'a\\u000ab\\u2028c\\u0085');
  });

  test('a long value keeps its two ends and says how long it was', () => {
    const q = quote('x'.repeat(1 << 20));
    assert.ok(q.length < MAX_QUOTED + 30, q);
    assert.match(q, /^"x+…x+" \(1048578 characters\)$/);
  });
});

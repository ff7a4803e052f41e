import assert from 'node:assert/strict';
import { readFileSync } from 'node:fs';
import { test } from 'node:test';
import { errnoCode, errorMessage } from './index.ts';

test('errorMessage: an Error its message, anything else thrown as a string', () => {
  assert.equal(errorMessage(new TypeError('bad')), 'bad');
  assert.equal(errorMessage('plain'), 'plain');
  assert.equal(errorMessage(42), '42');
  assert.equal(errorMessage(undefined), 'undefined');
});

test("errnoCode: a system error's code, undefined for anything without a string code", () => {
  let missing: unknown;
  try {
    readFileSync('/nonexistent/chaind-errno-test');
  } catch (e) {
    missing = e;
  }
  assert.equal(errnoCode(missing), 'ENOENT');
  assert.equal(errnoCode(new Error('no code')), undefined);
  assert.equal(errnoCode({ code: 7 }), undefined);
  assert.equal(errnoCode(null), undefined);
  assert.equal(errnoCode('ENOENT'), undefined);
});

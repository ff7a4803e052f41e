// The text (YAML-like) output of the query commands.
import assert from 'node:assert/strict';
import { test } from 'node:test';
import { toText } from './format.ts';

test("text output quotes keys YAML would misread, as go-yaml writes '@type'", () => {
  assert.equal(
    toText({ account: { '@type': '/cosmos.auth.v1beta1.BaseAccount', sequence: '3', pub_key: null }, messages: [{ '@type': '/x.Msg', "it's": true }] }),
    "account:\n  '@type': /cosmos.auth.v1beta1.BaseAccount\n  sequence: \"3\"\n  pub_key: null\nmessages:\n- '@type': /x.Msg\n  'it''s': true",
  );
});

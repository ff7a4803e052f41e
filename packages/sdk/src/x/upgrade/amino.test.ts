import assert from 'node:assert/strict';
import { test } from 'node:test';
import { msgCancelUpgradeAmino, msgSoftwareUpgradeAmino } from './amino.ts';

const noAny = (): never => assert.fail('no nested message expected');

test("upgrade messages' amino JSON: our names, the SDK's field rules (plan and time never omitted)", () => {
  assert.equal(msgSoftwareUpgradeAmino.name, 'chain/MsgSoftwareUpgrade');
  assert.equal(msgCancelUpgradeAmino.name, 'chain/MsgCancelUpgrade');
  const plan = { name: 'v2', time: undefined, height: 123n, info: '{"binaries":{}}', upgradedClientState: undefined };
  assert.deepEqual(msgSoftwareUpgradeAmino.value({ authority: 'chain1gov', plan }, noAny), {
    authority: 'chain1gov',
    plan: { name: 'v2', time: '0001-01-01T00:00:00Z', height: '123', info: '{"binaries":{}}' },
  });
  assert.deepEqual(msgSoftwareUpgradeAmino.value({ authority: 'chain1gov', plan: { ...plan, height: 0n, info: '' } }, noAny), {
    authority: 'chain1gov',
    plan: { name: 'v2', time: '0001-01-01T00:00:00Z' },
  });
  assert.deepEqual(msgCancelUpgradeAmino.value({ authority: 'chain1gov' }, noAny), { authority: 'chain1gov' });
});

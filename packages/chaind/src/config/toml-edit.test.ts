import assert from 'node:assert/strict';
import { test } from 'node:test';
import { parse } from 'smol-toml';
import { setTomlValue } from './toml-edit.ts';

const TEXT = `# top\nproxy_app = "tcp://127.0.0.1:26658"\n\n[rpc]\n# where\nladdr = "tcp://127.0.0.1:26657"\n\n[p2p]\nladdr = "x"\n`;

test('a value replaced or added in its section, the comments kept', () => {
  let t = setTomlValue(TEXT, 'rpc', 'laddr', 'tcp://127.0.0.1:30000');
  t = setTomlValue(t, 'p2p', 'allow_duplicate_ip', true);
  t = setTomlValue(t, '', 'moniker', 'a "quoted" name');
  t = setTomlValue(t, 'consensus', 'timeout_commit', '300ms');
  const doc = parse(t) as Record<string, Record<string, unknown>>;
  assert.equal(doc.rpc.laddr, 'tcp://127.0.0.1:30000');
  assert.equal(doc.p2p.laddr, 'x');
  assert.equal(doc.p2p.allow_duplicate_ip, true);
  assert.equal(doc.moniker, 'a "quoted" name');
  assert.equal(doc.consensus.timeout_commit, '300ms');
  assert.match(t, /# where\nladdr = "tcp:\/\/127\.0\.0\.1:30000"/);
});

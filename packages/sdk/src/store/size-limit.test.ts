import assert from 'node:assert/strict';
import { mkdtempSync, rmSync } from 'node:fs';
import { tmpdir } from 'node:os';
import { join } from 'node:path';
import { after, test } from 'node:test';
import { CommitMultiStore, StoreFullError, toHex, u64be, utf8 } from './index.ts';

const dirs: string[] = [];
after(() => dirs.forEach((d) => rmSync(d, { recursive: true, force: true })));

const SETTING = 'app.toml state-db-max-bytes';

test('a commit that would take the state database past its size limit is refused whole, naming the setting; a higher limit commits it', async () => {
  const path = mkdtempSync(join(tmpdir(), 'chaind-size-'));
  dirs.push(path);
  let ms = CommitMultiStore.open(path);
  ms.mount(['a']);
  ms.loadLatest();
  for (let i = 0; i < 1000; i++) ms.getStore('a').set(utf8(`k${i}`), u64be(BigInt(i)));
  const one = ms.commit(1n);
  const size = ms.sizeBytes();
  await ms.close();

  // 1 MB more would fit on a disk, not within 64 KB more
  ms = CommitMultiStore.open(path, { sizeLimit: { maxBytes: size + 65_536, setting: SETTING } });
  ms.mount(['a']);
  ms.loadLatest();
  for (let i = 0; i < 20_000; i++) ms.getStore('a').set(utf8(`big${i}`), new Uint8Array(48).fill(i & 0xff));
  assert.throws(
    () => ms.commit(2n),
    (e: Error) =>
      e instanceof StoreFullError &&
      e.message.startsWith('state database full: committing height 2 would grow it to about ') &&
      e.message.includes(`over its limit of ${size + 65_536} bytes (${SETTING})`) &&
      e.message.includes(`raise ${SETTING} and restart`),
  );
  await ms.close();

  // nothing of height 2: the last commit, whole
  ms = CommitMultiStore.open(path, { sizeLimit: { maxBytes: size + 64 * 1024 * 1024, setting: SETTING } });
  ms.mount(['a']);
  ms.loadLatest();
  assert.equal(ms.lastCommitInfo().height, 1n);
  assert.equal(toHex(ms.lastCommitInfo().appHash), toHex(one.appHash));
  assert.equal(ms.getStore('a').get(utf8('big0')), undefined);
  for (let i = 0; i < 20_000; i++) ms.getStore('a').set(utf8(`big${i}`), new Uint8Array(48).fill(i & 0xff));
  assert.equal(ms.commit(2n).height, 2n);
  assert.ok(ms.sizeBytes() > size + 65_536, 'the refused block would indeed have passed the first limit');
  await ms.close();
});

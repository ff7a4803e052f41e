// `npm run rehearse -- --from <two before> --to <next>`: a path of two upgrades on one chain (v1 → v2 → v3
// while v2 is the latest release), on a copy of the
// repository with one more release made by `npm run new-upgrade` (an empty upgrade v3 with its
// scaffolded rehearsal checks). The copy shares node_modules' files through hard links, so it is
// quick to make; the releases are packaged from the copy.
import assert from 'node:assert/strict';
import { execFileSync } from 'node:child_process';
import { join } from 'node:path';
import { after, test } from 'node:test';
import { LATEST_RELEASE, RELEASES } from '@chaind/chaind/release';
import { cleanUp, copyOfRepository, runNode } from './kit/repo.ts';

after(cleanUp);

test(
  `npm run rehearse -- --from <the release before ${LATEST_RELEASE}> --to <the one after it>: each upgrade of the path in turn on one chain`,
  { timeout: 420_000 },
  async () => {
    const next = `v${Number(LATEST_RELEASE.slice(1)) + 1}`;
    const from = RELEASES[RELEASES.length - 2];
    const dir = copyOfRepository();
    execFileSync(process.execPath, [join(dir, 'scripts/new-upgrade.mjs'), next], { cwd: dir, stdio: 'pipe' });
    const { code, out } = await runNode(['--import', 'tsx', join(dir, 'scripts/rehearse.ts'), '--from', from, '--to', next], { cwd: dir, timeoutMs: 400_000 });
    assert.equal(code, 0, out.slice(-6000));
    const hops = [LATEST_RELEASE, next];
    for (const [i, name] of hops.entries()) {
      const h = new RegExp(`proposing upgrade ${name} at height (\\d+)`).exec(out)?.[1];
      assert.ok(h, `the proposal of ${name} names its height`);
      // the proposal ids come from the chain: one proposal per hop
      assert.match(out, new RegExp(`proposal ${i + 1} submitted`));
      assert.match(out, new RegExp(`applying upgrade "${name}" at height: ${h}`));
      assert.match(out, new RegExp(`upgrade ${name} at height ${h} done: downtime [0-9.]+m?s`));
      assert.match(out, new RegExp(`  ${name} at height ${h} \\(proposal ${i + 1}\\): [0-9.]+m?s downtime`));
    }
    // the new upgrade's own checks ran, after its switch
    assert.match(out, new RegExp(`${next}: module versions after the upgrade at \\d+`));
    assert.match(out, new RegExp(`upgrades rehearsed, ${from} → ${LATEST_RELEASE} → ${next}:`));
    assert.match(out, /rehearsal: OK\s*$/);
  },
);

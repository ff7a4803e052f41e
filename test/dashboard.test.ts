// Issue 21, part 2: the upgrade dashboard (GET /upgrade) in a real headless browser (Debian's chromium driven by
// puppeteer-core) against a real `chainvisor run` and the chaind node it starts, through a governance upgrade
// v1 → v2 whose release chainvisor prepares ahead of the halt from a loopback mirror: the proposal in voting with
// its tally, the plan and a countdown that moves, "ready" once chainvisor has prepared the release, and v2 in the
// applied history after the upgrade, without reloading the page. Then the page on one node of a two-validator
// CometBFT network (`chaind testnet init`, each node `chaind start` with CometBFT as its child): it updates
// itself, and the block time it shows is the latest header's, as CometBFT's `/block` has it (block times and
// the page only: the applied upgrade's header time behind CometBFT is packages/chaind/test/comet-dashboard.test.ts's).
// Screenshots go to test-artifacts/dashboard/.
import assert from 'node:assert/strict';
import { existsSync, mkdirSync, rmSync } from 'node:fs';
import { tmpdir } from 'node:os';
import { join, resolve } from 'node:path';
import { fileURLToPath } from 'node:url';
import { afterEach, describe, test } from 'node:test';
import puppeteer, { type Browser, type Page } from 'puppeteer-core';
import { hex, serve, tgz, type Served } from '@chaind/upgrade-plan/testing';
import { parseRFC3339 } from '@chaind/sdk/types';
import {
  chaind,
  cometForTests,
  cometHeaderTime,
  cometHeight,
  endpointsOf,
  GroupChild,
  ok,
  proposeUpgrade,
  startValidator,
  voteYes,
  waitForPlan,
  type GovUpgradeOptions,
} from '@chaind/chaind/testing';
import type { DashboardStatus } from '../packages/chaind/src/node/rest/dashboard.ts';
import { chaindScript, cleanupVisorChains, createVisorChain, passAndWait, proposeV2, until, waitForHeight } from './kit/visor-chain.ts';

const CHROMIUM = process.env.CHROMIUM_PATH ?? '/usr/bin/chromium';
const ARTIFACTS = resolve(fileURLToPath(new URL('..', import.meta.url)), 'test-artifacts', 'dashboard');

/** WCAG 2 contrast ratio of two CSS colours `rgb(r, g, b)` / `rgba(r, g, b, a)` (the second opaque). */
export function contrast(fg: string, bg: string): number {
  const parse = (c: string): number[] => (/rgba?\(([^)]+)\)/.exec(c)?.[1] ?? '0,0,0').split(',').map((x) => Number(x.trim()));
  const [f, b] = [parse(fg), parse(bg)];
  // a translucent text colour is blended over its background first
  const a = f[3] ?? 1;
  const mixed = [0, 1, 2].map((i) => f[i] * a + b[i] * (1 - a));
  const lum = (rgb: number[]): number => {
    const [r, g, bl] = rgb.map((v) => {
      const s = v / 255;
      return s <= 0.03928 ? s / 12.92 : ((s + 0.055) / 1.055) ** 2.4;
    });
    return 0.2126 * r + 0.7152 * g + 0.0722 * bl;
  };
  const [l1, l2] = [lum(mixed), lum(b)].sort((x, y) => y - x);
  return (l1 + 0.05) / (l2 + 0.05);
}

// browser-side code is written as JS text: this project's TypeScript has no DOM types
const inPage = <T>(page: Page, js: string): Promise<T> => page.evaluate(js) as Promise<T>;
const textOf = (page: Page, sel: string): Promise<string> => inPage(page, `document.querySelector(${JSON.stringify(sel)}).innerText.trim()`);
const hidden = (page: Page, sel: string): Promise<boolean> => inPage(page, `document.querySelector(${JSON.stringify(sel)}).hidden`);

/** What checkAccessibility looks at, gathered in the page. */
const ACCESSIBILITY_PROBE = `(() => {
  const unlabelled = [...document.querySelectorAll('input, select, textarea, progress, meter, button')]
    .filter((e) => e.labels.length === 0 && !e.getAttribute('aria-label') && !e.getAttribute('aria-labelledby'))
    .map((e) => e.outerHTML);
  const uncaptioned = [...document.querySelectorAll('table')].filter((t) => !(t.caption && t.caption.textContent.trim())).map((t) => t.id);
  const unnamed = [...document.querySelectorAll('section')].filter((s) => { const h = document.getElementById(s.getAttribute('aria-labelledby') || ''); return !(h && h.textContent.trim()); }).length;
  const bgOf = (e) => {
    for (let x = e; x !== null; x = x.parentElement) {
      const c = getComputedStyle(x).backgroundColor;
      if (!(c.startsWith('rgba(') && c.endsWith(', 0)')) && c !== 'transparent') return c;
    }
    return 'rgb(255, 255, 255)';
  };
  const pairs = [];
  for (const e of document.querySelectorAll('body *')) {
    const own = [...e.childNodes].some((n) => n.nodeType === Node.TEXT_NODE && n.textContent.trim());
    if (!own || e.offsetParent === null || e.tagName === 'SCRIPT') continue;
    pairs.push({ text: e.textContent.trim().slice(0, 40), fg: getComputedStyle(e).color, bg: bgOf(e) });
  }
  return { unlabelled, uncaptioned, unnamed, pairs, lang: document.documentElement.lang, title: document.title };
})()`;

/** Waits until `probe` over the page's text of `sel` gives a value (the page updates itself: no reloads here). */
async function waitText<T>(page: Page, what: string, sel: string, probe: (t: string) => T | undefined, ms = 60_000): Promise<T> {
  return until(what, ms, async () => probe(await textOf(page, sel)));
}

/** Accessibility basics: every control labelled, every table captioned, every section named, text contrast ≥ 4.5:1. */
async function checkAccessibility(page: Page): Promise<void> {
  const a = await inPage<{
    unlabelled: string[];
    uncaptioned: string[];
    unnamed: number;
    pairs: { text: string; fg: string; bg: string }[];
    lang: string;
    title: string;
  }>(page, ACCESSIBILITY_PROBE);
  assert.deepEqual(a.unlabelled, [], 'every control has a label');
  assert.deepEqual(a.uncaptioned, [], 'every table has a caption');
  assert.equal(a.unnamed, 0, 'every section is named by its heading');
  assert.equal(a.lang, 'en');
  assert.match(a.title, /Upgrade dashboard/);
  assert.ok(a.pairs.length > 10, 'text was found to check');
  for (const p of a.pairs)
    assert.ok(contrast(p.fg, p.bg) >= 4.5, `contrast of "${p.text}" (${p.fg} on ${p.bg}) is ${contrast(p.fg, p.bg).toFixed(2)}, under 4.5:1`);
}

describe('the upgrade dashboard in a headless browser', () => {
  let srv: Served | undefined;
  let browser: Browser | undefined;
  afterEach(async () => {
    const pid = browser?.process()?.pid;
    await browser?.close().catch(() => {});
    if (pid !== undefined) {
      try {
        process.kill(-pid, 'SIGKILL');
      } catch {
        // its group is gone already
      }
    }
    browser = undefined;
    cleanupVisorChains();
    await GroupChild.killAllGroups();
    for (const d of dirs.splice(0)) rmSync(d, { recursive: true, force: true });
    await srv?.close();
    srv = undefined;
  });
  const dirs: string[] = [];

  test('contrast() follows WCAG 2', () => {
    assert.equal(contrast('rgb(0, 0, 0)', 'rgb(255, 255, 255)').toFixed(0), '21');
    assert.equal(contrast('rgb(119, 119, 119)', 'rgb(255, 255, 255)').toFixed(2), '4.48');
    assert.equal(contrast('rgba(0, 0, 0, 0)', 'rgb(255, 255, 255)').toFixed(0), '1');
  });

  test(
    'plan, countdown, readiness and history through v1 → v2 under chainvisor',
    { timeout: 300_000, skip: existsSync(CHROMIUM) ? false : `no browser at ${CHROMIUM}` },
    async () => {
      mkdirSync(ARTIFACTS, { recursive: true });
      const s = (srv = await serve());
      const release = tgz([
        { path: 'bin/', type: 'Directory' },
        { path: 'bin/chaind', body: chaindScript('v2'), mode: 0o755 },
      ]);
      s.file('/chaind-v2.tar.gz', release);
      const checksum = `sha256:${hex('sha256', release)}`;
      const info = JSON.stringify({ binaries: { any: `${s.base}/chaind-v2.tar.gz?checksum=${checksum}` } });
      const c = await createVisorChain({ DAEMON_ALLOW_DOWNLOAD_BINARIES: 'true', DAEMON_ALLOW_LOOPBACK_HTTP: 'true', DAEMON_PREPARE_UPGRADE: 'true' });
      const v = c.run();
      await waitForHeight(c, v, 2);

      browser = await puppeteer.launch({ executablePath: CHROMIUM, headless: true, args: ['--no-sandbox', '--disable-dev-shm-usage'] });
      const page = await browser.newPage();
      const errors: { at: number; text: string }[] = [];
      page.on('console', (m) => {
        if (m.type() === 'error') errors.push({ at: Date.now(), text: `${m.text()} ${m.location().url ?? ''}` });
      });
      page.on('pageerror', (e) => errors.push({ at: Date.now(), text: `uncaught: ${String(e)}` }));
      // the page loads nothing but itself and the node's JSON
      const foreign: string[] = [];
      page.on('request', (r) => {
        if (!r.url().startsWith(c.rest) && !r.url().startsWith('data:')) foreign.push(r.url());
      });
      await page.setViewport({ width: 1024, height: 900 });
      const res = await page.goto(`${c.rest}/upgrade`, { waitUntil: 'load' });
      assert.equal(res?.status(), 200);
      assert.match(res?.headers()['content-type'] ?? '', /^text\/html/);

      const h0 = await waitText(page, 'the height', '#height', (t) => (/^\d+$/.test(t) ? Number(t) : undefined), 15_000);
      assert.ok(h0 >= 2);
      assert.match(await textOf(page, '#chain-id'), /\S/);
      await waitText(page, 'the height to rise without a reload', '#height', (t) => (Number(t) > h0 ? true : undefined), 15_000);
      assert.notEqual(await textOf(page, '#block-time'), '—');
      assert.match(await textOf(page, '#block-interval'), /^\d+\.\d\d s$/);
      assert.equal(await textOf(page, '#no-plan'), 'No upgrade is scheduled.');
      assert.equal(await textOf(page, '#ready'), 'no upgrade scheduled');
      assert.equal(await textOf(page, '#simulate'), 'not run');
      assert.match(await textOf(page, '#modules'), /upgrade\s+\d+/);
      assert.equal(await hidden(page, '#history'), true, 'no upgrade applied yet');

      // the proposal in voting: its plan and tally
      const h = (await c.height()) + 30;
      const proposed = await proposeV2(c, h, info);
      assert.equal(proposed.code, 0, proposed.stderr);
      const row = await waitText(page, 'the proposal in voting', '#proposals', (t) => (t.includes(`v2 at ${h}`) ? t : undefined), 20_000);
      assert.match(row, /\b0 \/ 0 \/ 0 \/ 0\b|\d+ \/ \d+ \/ \d+ \/ \d+/);
      await page.screenshot({ path: join(ARTIFACTS, '1-proposal-in-voting.png'), fullPage: true });
      await passAndWait(c, h);

      // the plan, its release table and a countdown that moves
      await waitText(page, 'the plan', '#plan-name', (t) => (t === 'v2' ? true : undefined), 15_000);
      assert.equal(await textOf(page, '#plan-height'), String(h));
      assert.match(await textOf(page, '#binaries'), new RegExp(`any\\s+${s.base.replace(/[.]/g, '\\.')}/chaind-v2\\.tar\\.gz\\S*\\s+${checksum}`));
      const left1 = Number(await textOf(page, '#countdown'));
      assert.ok(left1 > 0 && left1 < 30, `blocks left ${left1}`);
      const left2 = await waitText(page, 'the countdown to move', '#countdown', (t) => (Number(t) < left1 ? Number(t) : undefined), 15_000);
      assert.ok(left2 > 0);
      const both = await inPage<[string, string]>(page, `[document.getElementById('height').innerText, document.getElementById('countdown').innerText]`);
      assert.equal(Number(both[1]), h - Number(both[0]), 'blocks left = plan height - height');
      assert.match(await textOf(page, '#eta'), /in about \d+s|in about \d+m \d+s/);
      // the chain `chaind dev` made has vote extensions on: the network's readiness is known, however much is ready yet
      assert.match(await textOf(page, '#network-ready'), /^\d+(\.\d)? % of voting power ready \((0|10) of 10\)/);

      // "ready" once chainvisor has prepared the release, with its checksum
      await waitText(page, '"ready"', '#ready', (t) => (t === 'ready' ? true : undefined), 30_000);
      // and the network sees it: the validator's next vote extension attests it
      await waitText(page, 'the network ready', '#network-ready', (t) => (t === '100 % of voting power ready (10 of 10)' ? true : undefined), 30_000);
      assert.equal(await inPage<string>(page, `document.getElementById('network-ready').className`), 'ok');
      assert.equal(await textOf(page, '#ready-checksum'), checksum);
      assert.match(await textOf(page, '#visor-state'), /^prepared/);
      assert.match(await textOf(page, '#download-text'), new RegExp(`^100% of ${release.length} bytes$`));
      await page.screenshot({ path: join(ARTIFACTS, '2-plan-ready.png'), fullPage: true });
      await checkAccessibility(page);

      // a phone-width viewport: nothing wider than the screen
      await page.setViewport({ width: 390, height: 844, deviceScaleFactor: 2, isMobile: true, hasTouch: true });
      await new Promise((r) => setTimeout(r, 300));
      const widths = await inPage<{ doc: number; view: number }>(page, '({ doc: document.documentElement.scrollWidth, view: window.innerWidth })');
      assert.ok(widths.doc <= widths.view, `the page is ${widths.doc} px wide in a ${widths.view} px viewport`);
      await page.screenshot({ path: join(ARTIFACTS, '3-phone-390px.png'), fullPage: true });
      await checkAccessibility(page);
      await page.setViewport({ width: 1024, height: 900 });
      assert.equal(errors.length, 0, `no console errors while the node runs: ${JSON.stringify(errors)}`);

      // through the halt: the page keeps polling and shows v2 applied once the new binary answers
      const haltAt = Date.now();
      const hist = await waitText(
        page,
        'v2 in the applied history',
        '#history',
        (t) => (t.includes(`v2\t${h}`) || new RegExp(`v2\\s+${h}`).test(t) ? t : undefined),
        120_000,
      ).catch(async (e: Error) => {
        throw new Error(`${e.message}; page: ${await textOf(page, 'body')}; chainvisor printed:\n${v.output().slice(-3000)}`);
      });
      assert.doesNotMatch(hist, /—\s*$/, 'the upgrade has its block time');
      await waitText(page, 'the plan to be gone', '#no-plan', (t) => (t === 'No upgrade is scheduled.' ? true : undefined), 15_000);
      assert.equal(await hidden(page, '#plan'), true);
      assert.equal(await textOf(page, '#ready'), 'no upgrade scheduled');
      // the poll after the restart may still be one of the refused ones: the page says so, then recovers
      await waitText(page, 'the page to reconnect', '#conn', (t) => (/^Updated/.test(t) ? t : undefined), 30_000);
      await page.screenshot({ path: join(ARTIFACTS, '4-after-upgrade.png'), fullPage: true });
      // while the node restarted, the browser logged the refused requests; nothing else
      const other = errors.filter(
        (e) => e.at < haltAt || !/ERR_CONNECTION_REFUSED|ERR_EMPTY_RESPONSE|ERR_CONNECTION_RESET|Failed to load resource/.test(e.text),
      );
      assert.deepEqual(other, [], 'no console errors but the refused requests of the restart');
      assert.deepEqual(foreign, [], 'no external requests');
    },
  );

  test(
    "behind CometBFT: one node of a two-validator testnet, its block time the latest header's",
    { timeout: 300_000, skip: !existsSync(CHROMIUM) ? `no browser at ${CHROMIUM}` : cometForTests().skip },
    async () => {
      mkdirSync(ARTIFACTS, { recursive: true });
      const dir = join(tmpdir(), `chaind-dash-net-${process.pid}`);
      dirs.push(dir);
      rmSync(dir, { recursive: true, force: true });
      await ok(['testnet', 'init', '--validators', '2', '--output', dir, '--chain-id', 'dash-net-1', '--block-time', '400ms', '--gov-period', '8s'], {
        env: { CHAIND_RELEASE: 'v1' },
      });
      const homes = [0, 1].map((i) => join(dir, `node${i}`));
      // node1 has no release of v2 prepared; node0 has the one `testnet init` installed
      rmSync(join(homes[1], 'cosmovisor', 'upgrades', 'v2'), { recursive: true });
      const ends = await endpointsOf(homes[0]);
      // node0 alone first: half the power makes no block (more than 2/3 must sign), so it has no state yet (its REST starts
      // without waiting for a handshake that cannot end: [abci] servers-start-wait)
      const nodes = [startValidator(homes[0], 'v1')];
      const early = await until('node0 answering REST', 90_000, async () => {
        const r = await fetch(`${ends.rest}/chain/upgrade/v1beta1/current_plan`).catch(() => undefined);
        return r === undefined ? undefined : { status: r.status, body: (await r.json()) as unknown };
      });
      assert.deepEqual(early, { status: 503, body: { code: 14, message: "no state yet: waiting for CometBFT's InitChain and the first block", details: [] } });

      browser = await puppeteer.launch({ executablePath: CHROMIUM, headless: true, args: ['--no-sandbox', '--disable-dev-shm-usage'] });
      const page = await browser.newPage();
      const errors: string[] = [];
      let networkUp = false;
      page.on('console', (m) => {
        // the 503s of the page's polls before the network makes its first block
        if (!networkUp && /status of 503/.test(m.text())) return;
        if (m.type() === 'error') errors.push(`${m.text()} ${m.location().url ?? ''}`);
      });
      page.on('pageerror', (e) => errors.push(`uncaught: ${String(e)}`));
      const foreign: string[] = [];
      // the status JSON the page was last given: what it shows must come from it
      let last: DashboardStatus | undefined;
      page.on('request', (r) => {
        if (!r.url().startsWith(ends.rest) && !r.url().startsWith('data:')) foreign.push(r.url());
      });
      page.on('response', (r) => {
        if (r.url().endsWith('/upgrade/status') && r.status() === 200) {
          r.json().then(
            (j: DashboardStatus) => (last = j),
            () => {},
          );
        }
      });
      await page.setViewport({ width: 1024, height: 900 });
      const res = await page.goto(`${ends.rest}/upgrade`, { waitUntil: 'load' });
      assert.equal(res?.status(), 200);
      await waitText(
        page,
        'the page saying the node has no state yet',
        '#conn',
        (t) => (t === "Node not ready, retrying: no state yet: waiting for CometBFT's InitChain and the first block" ? t : undefined),
        15_000,
      );
      await page.screenshot({ path: join(ARTIFACTS, '5-no-state-yet.png'), fullPage: true });

      nodes.push(...homes.slice(1).map((h) => startValidator(h, 'v1')));
      await until('block 3 on node0', 90_000, async () => (((await cometHeight(ends.rpc)) ?? 0n) >= 3n ? true : undefined)).catch((e: Error) => {
        throw new Error(`${e.message}\n${nodes[0].log().slice(-3000)}`);
      });
      networkUp = true;
      const h0 = await waitText(page, 'the height', '#height', (t) => (/^\d+$/.test(t) ? Number(t) : undefined), 15_000);
      assert.equal(await textOf(page, '#chain-id'), 'dash-net-1');
      await waitText(page, 'the height to rise without a reload', '#height', (t) => (Number(t) > h0 ? true : undefined), 15_000);
      assert.match(await textOf(page, '#block-interval'), /^\d+\.\d\d s$/);

      // the page as drawn from one status answer: its height and block time, that answer's
      const shown = await until('the page drawn from the last status it was given', 15_000, async () => {
        const st = last;
        const [height, time] = await inPage<[string, string]>(
          page,
          `[document.getElementById('height').innerText.trim(), document.getElementById('block-time').innerText.trim()]`,
        );
        return st !== undefined && st.height === height ? { st, time } : undefined;
      });
      const header = await cometHeaderTime(ends.rpc, BigInt(shown.st.height));
      assert.ok(shown.st.block_time !== null, 'a block time');
      assert.deepEqual(
        parseRFC3339(shown.st.block_time),
        parseRFC3339(header),
        `block_time ${shown.st.block_time} is the header's ${header} at ${shown.st.height}`,
      );
      assert.equal(shown.time, await inPage<string>(page, `new Date(${JSON.stringify(header)}).toLocaleString()`), 'the page shows the header time');
      await page.screenshot({ path: join(ARTIFACTS, '6-behind-cometbft.png'), fullPage: true });
      await checkAccessibility(page);

      // a plan with half the power ready (vote extensions: `testnet init` turns them on), in red as the halt is near
      const h = ((await cometHeight(ends.rpc)) ?? 0n) + 150n;
      const gov = (i: number): GovUpgradeOptions => ({
        cli: (args) => chaind(args, { env: { CHAIND_RELEASE: 'v1' } }),
        node: ends.rpc,
        home: homes[i],
        name: 'v2',
        height: h,
        proposal: 1,
        from: `validator${i}`,
        voter: `validator${i}`,
        summary: 's',
        broadcastMode: 'sync',
        gas: '400000',
        txFlags: ['--fees', '5000stake', '--chain-id', 'dash-net-1'],
      });
      await proposeUpgrade(gov(0));
      await Promise.all([0, 1].map((i) => voteYes(gov(i))));
      await waitForPlan(gov(0));
      const ready = await waitText(
        page,
        'half the power ready',
        '#network-ready',
        (t) => (t.startsWith('50 % of voting power ready (10 of 20)') ? t : undefined),
        30_000,
      );
      assert.match(ready, /the chain will stop at the halt until more than 2\/3 is ready$/);
      assert.equal(await inPage<string>(page, `document.getElementById('network-ready').className`), 'bad');
      const byValidator = await textOf(page, '#validators-ready');
      assert.match(byValidator, /node0\s+10\s+ready\s+sha256:[0-9a-f]{64}\s+not run\s+\d+/);
      assert.match(byValidator, /node1\s+10\s+not ready\s+—\s+not run\s+\d+/);
      // this node's own part says what its attestation says
      assert.equal(await textOf(page, '#ready'), 'ready');
      assert.match(byValidator, new RegExp(`node0\\s+10\\s+ready\\s+${await textOf(page, '#ready-checksum')}`));
      await page.screenshot({ path: join(ARTIFACTS, '7-network-readiness.png'), fullPage: true });
      await checkAccessibility(page);
      assert.deepEqual(errors, [], 'no console errors');
      assert.deepEqual(foreign, [], 'no external requests');
    },
  );
});

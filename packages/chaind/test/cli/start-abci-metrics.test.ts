// chaind's metrics behind CometBFT (`start --with-comet=false`): config.toml's [instrumentation] is
// CometBFT's there, so chaind serves its own on app.toml's [instrumentation], and refuses CometBFT's port.
import assert from 'node:assert/strict';
import { cpSync, readFileSync, writeFileSync } from 'node:fs';
import { after, before, describe, test } from 'node:test';
import { configPaths } from '../../src/config/index.ts';
import { AbciNode, freePort, makeNetworkHomes, removeTmpDirs, tmpDir } from '@chaind/chaind/testing';

/** Replaces each `key = …` line of `file` (each key once in it). */
function setKeys(file: string, settings: Record<string, string>): void {
  let text = readFileSync(file, 'utf8');
  for (const [k, v] of Object.entries(settings)) {
    const line = new RegExp(`^${k} = .*$`, 'm');
    assert.match(text, line);
    text = text.replace(line, `${k} = ${v}`);
  }
  writeFileSync(file, text);
}

describe('metrics of chaind behind CometBFT', { timeout: 90_000 }, () => {
  let home = '';
  before(async () => {
    home = (await makeNetworkHomes({ chainId: 'abci-metrics-1', nodes: 1, users: ['alice'], release: 'v2' })).homes[0];
  });
  after(async () => {
    await AbciNode.killAll();
    removeTmpDirs();
  });

  const copy = (): string => {
    const h = tmpDir('chaind-home-');
    cpSync(home, h, { recursive: true });
    return h;
  };

  test("app.toml [instrumentation]: served with the namespace chaind, while config.toml's (CometBFT's) port stays free", async () => {
    const h = copy();
    const [ours, comet] = [await freePort(), await freePort()];
    setKeys(configPaths(h).app, { prometheus: 'true', 'prometheus-listen-addr': `"127.0.0.1:${ours}"` });
    setKeys(configPaths(h).node, { prometheus: 'true', prometheus_listen_addr: `"127.0.0.1:${comet}"` });
    const node = AbciNode.start(h);
    await node.address;
    const r = await fetch(`http://127.0.0.1:${ours}/metrics`);
    assert.equal(r.status, 200);
    const text = await r.text();
    assert.match(text, /^chaind_upgrade_halted 0$/m);
    assert.match(text, /^# TYPE chaind_abci_connection_method_timing_seconds histogram$/m);
    assert.doesNotMatch(text, /^cometbft_/m);
    await assert.rejects(fetch(`http://127.0.0.1:${comet}/metrics`), 'the CometBFT port is left to CometBFT');
    await node.kill();
  });

  test("app.toml [instrumentation] on CometBFT's enabled metrics port: refused at start-up, naming both keys", async () => {
    const h = copy();
    const port = await freePort();
    setKeys(configPaths(h).app, { prometheus: 'true', 'prometheus-listen-addr': `"127.0.0.1:${port}"` });
    setKeys(configPaths(h).node, { prometheus: 'true', prometheus_listen_addr: `":${port}"` });
    const node = AbciNode.start(h);
    const exit = await node.exited;
    assert.equal(exit.code, 1, node.log());
    assert.match(
      node.log(),
      new RegExp(
        `app\\.toml \\[instrumentation\\] prometheus-listen-addr = "127\\.0\\.0\\.1:${port}" is the address of CometBFT's own metrics \\(config\\.toml \\[instrumentation\\] prometheus_listen_addr = "0\\.0\\.0\\.0:${port}", prometheus = true\\): give chaind's metrics another port`,
      ),
    );
  });
});

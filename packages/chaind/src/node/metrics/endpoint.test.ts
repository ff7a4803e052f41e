import assert from 'node:assert/strict';
import { describe, test } from 'node:test';
import { ConfigError, parseAppConfig, parseNodeConfig, type LoadedConfig } from '../../config/index.ts';
import { metricsEndpoint } from './endpoint.ts';

const loaded = (node: string, app: string): LoadedConfig => ({
  home: '/h',
  node: parseNodeConfig(`moniker = "n"\n${node}`, 'config.toml').config,
  app: parseAppConfig(app, 'app.toml').config,
  warnings: [],
});

describe('which /metrics endpoint a node serves', () => {
  test('off by default, in both modes', () => {
    assert.equal(metricsEndpoint(loaded('', ''), true).endpoint, undefined);
    assert.equal(metricsEndpoint(loaded('', ''), false).endpoint, undefined);
  });

  test("solo: config.toml's [instrumentation] (CometBFT's \":26660\" is every interface); app.toml's is ignored with a warning", () => {
    const c = loaded('[instrumentation]\nprometheus = true\nprometheus_listen_addr = ":26660"\nnamespace = "n1"', '[instrumentation]\nprometheus = true');
    const r = metricsEndpoint(c, true);
    assert.deepEqual(r.endpoint, { prometheus: true, listenAddr: { host: '0.0.0.0', port: 26660 }, maxOpenConnections: 3, namespace: 'n1' });
    assert.equal(r.warnings.length, 1);
  });

  test("behind CometBFT: app.toml's [instrumentation], namespace chaind; CometBFT's port refused clearly", () => {
    const ours = '[instrumentation]\nprometheus = true';
    assert.deepEqual(metricsEndpoint(loaded('[instrumentation]\nprometheus = true', ours), false).endpoint, {
      prometheus: true,
      listenAddr: { host: '127.0.0.1', port: 26661 },
      maxOpenConnections: 3,
      namespace: 'chaind',
    });
    const clash = loaded('[instrumentation]\nprometheus = true\nprometheus_listen_addr = ":26660"', `${ours}\nprometheus-listen-addr = "127.0.0.1:26660"`);
    assert.throws(
      () => metricsEndpoint(clash, false),
      (e: unknown) => e instanceof ConfigError && /is the address of CometBFT's own metrics .*give chaind's metrics another port/.test(e.message),
    );
    // CometBFT's metrics off: its port is free
    const free = loaded('[instrumentation]\nprometheus_listen_addr = ":26660"', `${ours}\nprometheus-listen-addr = "127.0.0.1:26660"`);
    assert.equal(metricsEndpoint(free, false).endpoint?.listenAddr.port, 26660);
  });

  test('a namespace that is not a Prometheus name is refused', () => {
    assert.throws(() => loaded('[instrumentation]\nnamespace = "my-node"', ''), /instrumentation\.namespace = "my-node": not a Prometheus name/);
  });
});

import assert from 'node:assert/strict';
import { test } from 'node:test';
import { formatAbciAddress, MAX_UNIX_PATH_BYTES, parseAbciAddress } from './address.ts';
import { AbciAddressError } from './errors.ts';

test('the address forms CometBFT writes in proxy_app parse, and print back canonically', () => {
  const cases: Array<[string, ReturnType<typeof parseAbciAddress>, string]> = [
    ['tcp://127.0.0.1:26658', { kind: 'tcp', host: '127.0.0.1', port: 26658 }, 'tcp://127.0.0.1:26658'],
    ['tcp://localhost:0', { kind: 'tcp', host: 'localhost', port: 0 }, 'tcp://localhost:0'],
    ['tcp://[::1]:65535', { kind: 'tcp', host: '::1', port: 65535 }, 'tcp://[::1]:65535'],
    ['tcp://0.0.0.0:26658', { kind: 'tcp', host: '0.0.0.0', port: 26658 }, 'tcp://0.0.0.0:26658'],
    // no scheme is TCP, as CometBFT's libs/net ProtocolAndAddress reads it
    ['127.0.0.1:26658', { kind: 'tcp', host: '127.0.0.1', port: 26658 }, 'tcp://127.0.0.1:26658'],
    ['unix:///var/run/app.sock', { kind: 'unix', path: '/var/run/app.sock' }, 'unix:///var/run/app.sock'],
    ['unix://data/app.sock', { kind: 'unix', path: 'data/app.sock' }, 'unix://data/app.sock'],
  ];
  for (const [text, parsed, canonical] of cases) {
    assert.deepEqual(parseAbciAddress(text), parsed, text);
    assert.equal(formatAbciAddress(parsed), canonical);
  }
});

test('anything else is an AbciAddressError that quotes the address and lists the accepted forms', () => {
  const bad: Array<[string, RegExp]> = [
    ['grpc://127.0.0.1:26658', /unknown scheme "grpc:\/\/"/],
    ['http://127.0.0.1:26658', /unknown scheme "http:\/\/"/],
    ['tcp://127.0.0.1', /expected host:port/],
    ['tcp://127.0.0.1:', /expected host:port/],
    ['tcp://127.0.0.1:65536', /port 65536 is above 65535/],
    ['tcp://127.0.0.1:-1', /expected host:port/],
    ['tcp://127.0.0.1:123456', /expected host:port/],
    ['tcp://:26658', /no host \(use 0.0.0.0 or \[::\] to listen on every interface\)/],
    ['tcp://::1:26658', /expected host:port/],
    ['tcp://[nope]:26658', /"nope" in brackets is not an IPv6 address/],
    ['tcp://127.0.0.1:26658/x', /expected host:port/],
    ['', /expected host:port/],
    ['unix://', /no socket path/],
    [`unix:///tmp/${'x'.repeat(MAX_UNIX_PATH_BYTES)}`, /above the system's limit of \d+/],
  ];
  for (const [text, why] of bad) {
    assert.throws(
      () => parseAbciAddress(text),
      (err: unknown) => {
        assert.ok(err instanceof AbciAddressError, text);
        assert.equal(err.code, 'abci-address');
        assert.match(err.message, why);
        assert.ok(err.message.startsWith(`bad ABCI address ${JSON.stringify(text)}: `), err.message);
        assert.match(err.message, /accepted forms: tcp:\/\/host:port .*unix:\/\/\/absolute\/path.sock/);
        return true;
      },
      text,
    );
  }
});

import assert from 'node:assert/strict';
import { describe, test } from 'node:test';
import { createLogger, ms } from './log.ts';

describe('chainvisor log lines', () => {
  const at = new Date(2026, 0, 2, 15, 4, 5, 6);
  const capture = (o: { disabled?: boolean; color?: boolean; timeFormat?: string; isTTY?: boolean }) => {
    const lines: string[] = [];
    const log = createLogger({
      disabled: o.disabled ?? false,
      color: o.color ?? false,
      timeFormat: o.timeFormat ?? 'kitchen',
      isTTY: o.isTTY ?? false,
      now: () => at,
      write: (l) => lines.push(l),
    });
    return { log, lines };
  };

  test('prefixed, with the kitchen time by default', () => {
    const { log, lines } = capture({});
    log.info('current -> upgrades/v2');
    log.warn('w');
    log.error('e');
    assert.deepEqual(lines, ['[chainvisor] 3:04PM INF current -> upgrades/v2', '[chainvisor] 3:04PM WRN w', '[chainvisor] 3:04PM ERR e']);
  });

  test('other time layouts and none', () => {
    const f = (timeFormat: string): string => {
      const { log, lines } = capture({ timeFormat });
      log.info('x');
      return lines[0];
    };
    assert.equal(f('none'), '[chainvisor] INF x');
    assert.equal(f('datetime'), '[chainvisor] 2026-01-02 15:04:05 INF x');
    assert.equal(f('timeonly'), '[chainvisor] 15:04:05 INF x');
    assert.match(f('rfc3339nano'), /^\[chainvisor\] 2026-01-02T15:04:05\.006(Z|[+-]\d\d:\d\d) INF x$/);
  });

  test('colour only on a terminal', () => {
    const tty = capture({ color: true, isTTY: true, timeFormat: 'none' });
    tty.log.info('x');
    assert.equal(tty.lines[0], '[chainvisor] \x1b[32mINF\x1b[0m x');
    const file = capture({ color: true, isTTY: false, timeFormat: 'none' });
    file.log.info('x');
    assert.equal(file.lines[0], '[chainvisor] INF x');
  });

  test('disabled: info and warnings silenced, errors still printed', () => {
    const { log, lines } = capture({ disabled: true, timeFormat: 'none' });
    log.info('i');
    log.warn('w');
    log.error('e');
    assert.deepEqual(lines, ['[chainvisor] ERR e']);
  });

  test('durations', () => {
    assert.equal(ms(850.4), '850ms');
    assert.equal(ms(1234), '1.234s');
  });
});

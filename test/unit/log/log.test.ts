// The log ring (1280 bytes) and its one redaction point.
import { describe, expect, it } from 'vitest';
import { Log, LOG_RING_BYTES } from '../../../src/log/log.ts';
import { redactHeuristics } from '../../../src/log/redact.ts';
import { utf8Length } from '../../../src/util/utf8.ts';
import { createMemHal } from '../../support/memhal.ts';

function makeLog() {
  const mem = createMemHal();
  return { log: new Log(mem.clock, mem.system), mem };
}

describe('log ring', () => {
  it('keeps at most 1280 bytes of whole lines, newest last', () => {
    const { log } = makeLog();
    for (let i = 0; i < 200; i++) log.info('t', `line ${i} ${'é'.repeat(i % 7)}`);
    const text = log.text();
    expect(LOG_RING_BYTES).toBe(1280);
    expect(utf8Length(text)).toBeLessThanOrEqual(1280);
    expect(utf8Length(text)).toBeGreaterThan(1280 - 60);
    expect(text.endsWith('t: line 199 ' + 'é'.repeat(199 % 7) + '\n')).toBe(true);
    expect(text.split('\n').every((l) => l === '' || /^\[\d+\.\d{3}\] t: line \d+/.test(l))).toBe(true);
  });

  it('caps one huge line without splitting a character and keeps it on one line', () => {
    const { log, mem } = makeLog();
    log.info('t', '😀'.repeat(1000) + '\nsecond');
    const text = log.text();
    expect(utf8Length(text)).toBeLessThanOrEqual(1280);
    expect(text).not.toContain('\uFFFD');
    expect(text.split('\n').length).toBe(2);
    expect(mem.system.logs).toHaveLength(1);
  });

  it('masks registered secrets everywhere they appear, in the ring and the host log', () => {
    const { log, mem } = makeLog();
    log.redactor.add('s3cr3t-provider-key-123');
    log.warn('provider', 'calling with s3cr3t-provider-key-123 and again s3cr3t-provider-key-123');
    expect(log.text()).not.toContain('s3cr3t');
    expect(mem.system.logs.join('\n')).not.toContain('s3cr3t');
    expect(log.text()).toContain('***');
  });
});

describe('redaction heuristics', () => {
  it.each([
    ['Authorization: Bearer sk-abc.DEF_123', 'sk-abc'],
    ['GET /v1/x?api_key=AKIA12345&x=1', 'AKIA12345'],
    ['apikey=zzz999 other', 'zzz999'],
    ['{"api_key":"k-777","model":"m"}', 'k-777'],
    ['{"token": "tok-555"}', 'tok-555'],
    ['{"apPass":"abcdefghjk"}', 'abcdefghjk'],
    ['fetch https://user:hunter2@example.com/path', 'hunter2'],
    ['password=hunter3', 'hunter3'],
  ])('strips %s', (line, secret) => {
    const out = redactHeuristics(line);
    expect(out).not.toContain(secret);
  });

  it('leaves ordinary text alone', () => {
    const line = 'turn done in 812 ms, 3 tools, model gpt-x, keyboard ok';
    expect(redactHeuristics(line)).toBe(line);
  });
});

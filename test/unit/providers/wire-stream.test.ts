// Streamed rounds through the provider wire, over the in-memory network and
// the virtual clock: with the stream setting on, a round asks for the event
// stream (stream: true, Accept: text/event-stream; stream_options only where
// the API takes it) and hands the turn's text on as it arrives; with it off, the
// same round is read whole (today's path). The deadline is silence: an answer
// that keeps flowing past the whole-answer deadline is read to its end, one
// that falls silent for the provider's read deadline is abandoned (a timeout,
// which the engine retries or fails over). A server that answers a streamed
// request whole, or with an error status, is read as before; usage is counted.
import { describe, expect, it } from 'vitest';
import { CATALOG } from '../../../src/providers/catalog.ts';
import { UsageLedger } from '../../../src/providers/usage.ts';
import { Store } from '../../../src/core/store.ts';
import { flushJobs } from '../../support/clock.ts';
import type { MemNet, MemSocket } from '../../support/memnet.ts';
import { MemNvs } from '../../support/memstorage.ts';
import { roundRequest, TURN, wireRig } from '../../support/provider-fake.ts';

const TURN_JSON = JSON.stringify(TURN);

interface Seen {
  body: Record<string, unknown>;
  headers: string;
}

/** A Messages server that streams TURN's orch_turn call as input_json_delta pieces, one every gapMs (gaps[i] overrides). */
function messagesStream(net: MemNet, clock: { setTimeout(fn: () => void, ms: number): unknown }, opts: { gapMs?: number; gaps?: number[]; whole?: boolean; status?: number } = {}): Seen[] {
  const seen: Seen[] = [];
  net.serve('api.anthropic.com', 443, (s: MemSocket) => {
    s.onData = () => {
      const text = s.text();
      const end = text.indexOf('\r\n\r\n');
      if (end < 0) return;
      const len = Number(/content-length: (\d+)/i.exec(text)?.[1] ?? 0);
      if (new TextEncoder().encode(text.slice(end + 4)).length < len) return;
      seen.push({ body: JSON.parse(text.slice(end + 4)), headers: text.slice(0, end) });
      if (opts.status) {
        const err = JSON.stringify({ type: 'error', error: { type: 'rate_limit_error', message: 'slow down' } });
        s.send(`HTTP/1.1 ${opts.status} X\r\nContent-Type: application/json\r\nContent-Length: ${err.length}\r\n\r\n${err}`);
        return;
      }
      if (opts.whole) {
        const b = JSON.stringify({ content: [{ type: 'tool_use', id: 't', name: 'orch_turn', input: TURN }], stop_reason: 'tool_use', usage: { input_tokens: 10, output_tokens: 5 } });
        s.send(`HTTP/1.1 200 OK\r\nContent-Type: application/json\r\nContent-Length: ${b.length}\r\n\r\n${b}`);
        return;
      }
      s.send('HTTP/1.1 200 OK\r\nContent-Type: text/event-stream; charset=utf-8\r\nTransfer-Encoding: chunked\r\n\r\n');
      const chunk = (ev: string, data: unknown): void => {
        const b = new TextEncoder().encode(`event: ${ev}\ndata: ${JSON.stringify(data)}\n\n`);
        s.send(`${b.length.toString(16)}\r\n`);
        s.send(b);
        s.send('\r\n');
      };
      chunk('message_start', { type: 'message_start', message: { content: [], usage: { input_tokens: 10, output_tokens: 1, cache_read_input_tokens: 7 } } });
      chunk('content_block_start', { type: 'content_block_start', index: 0, content_block: { type: 'tool_use', id: 't', name: 'orch_turn', input: {} } });
      const parts: string[] = [];
      for (let i = 0; i < TURN_JSON.length; i += 8) parts.push(TURN_JSON.slice(i, i + 8));
      let i = 0;
      const next = (): void => {
        if (s.closed) return;
        if (i < parts.length) {
          chunk('content_block_delta', { type: 'content_block_delta', index: 0, delta: { type: 'input_json_delta', partial_json: parts[i] } });
          const wait = opts.gaps?.[i] ?? opts.gapMs ?? 0;
          i++;
          clock.setTimeout(next, wait);
          return;
        }
        chunk('content_block_stop', { type: 'content_block_stop', index: 0 });
        chunk('message_delta', { type: 'message_delta', delta: { stop_reason: 'tool_use' }, usage: { output_tokens: 30 } });
        chunk('message_stop', { type: 'message_stop' });
        s.send('0\r\n\r\n');
      };
      next();
    };
  });
  return seen;
}

function streamingRig(stream = true) {
  const rig = wireRig();
  rig.settings.keys.anthropic = 'sk-ant-0123456789';
  (rig.settings as unknown as { stream(): boolean }).stream = () => stream;
  return rig;
}

describe('streamed rounds through the wire', () => {
  it('asks for the event stream and hands the turn text on as it arrives; the same round is read whole with the setting off', async () => {
    const rig = streamingRig();
    const seen = messagesStream(rig.net, rig.clock);
    const pieces: string[] = [];
    const pending = rig.wire.round(roundRequest('anthropic'), 30_000, undefined, undefined, { onText: (d) => pieces.push(d), turnLeftMs: 600_000 });
    await rig.clock.advance(100);
    const r = await pending;
    expect(r).toMatchObject({ kind: 'turn', json: TURN_JSON, usage: { input: 17, output: 30, cached: 7 } });
    expect(pieces.length).toBeGreaterThan(5);
    expect(pieces.join('')).toBe(TURN_JSON);
    expect(seen[0]!.body['stream']).toBe(true);
    expect(seen[0]!.headers).toMatch(/accept: text\/event-stream/i);
    // Off: no stream asked for, nothing handed on, the answer read whole.
    const off = streamingRig(false);
    const seenOff = messagesStream(off.net, off.clock, { whole: true });
    const none: string[] = [];
    expect(await off.wire.round(roundRequest('anthropic'), 30_000, undefined, undefined, { onText: (d) => none.push(d), turnLeftMs: 600_000 })).toMatchObject({ kind: 'turn', json: TURN_JSON });
    expect(seenOff[0]!.body['stream']).toBeUndefined();
    expect(none).toEqual([]);
  });

  it('a long answer that keeps flowing is read to its end past the whole-answer deadline; silence for the read deadline abandons it', async () => {
    const rig = streamingRig();
    const long = CATALOG.anthropic.roundMs + 60_000;
    const parts = Math.ceil(TURN_JSON.length / 8);
    // A piece every (long / parts) ms: the answer takes longer than a whole answer may, never silent for 60 s.
    messagesStream(rig.net, rig.clock, { gapMs: Math.ceil(long / parts) });
    const flowing = rig.wire.round(roundRequest('anthropic'), CATALOG.anthropic.roundMs, undefined, undefined, { onText: () => {}, turnLeftMs: 600_000 });
    await rig.clock.advance(long + 1000);
    expect(await flowing).toMatchObject({ kind: 'turn', json: TURN_JSON });
    // Silent for the read deadline after the third piece.
    const quiet = streamingRig();
    messagesStream(quiet.net, quiet.clock, { gaps: [10, 10, CATALOG.anthropic.capMs + 5_000] });
    let got = '';
    const stalled = quiet.wire.round(roundRequest('anthropic'), CATALOG.anthropic.roundMs, undefined, undefined, { onText: (d) => (got += d), turnLeftMs: 600_000 });
    await quiet.clock.advance(20 + CATALOG.anthropic.capMs - 1);
    let settled = false;
    void stalled.then(() => (settled = true));
    await flushJobs();
    expect(settled).toBe(false);
    await quiet.clock.advance(2);
    expect(await stalled).toMatchObject({ kind: 'error', error: 'timeout' });
    expect(got).toBe(TURN_JSON.slice(0, 24));
  });

  it("the turn's own deadline still bounds a stream; an error status and a whole answer to a streamed request are read as before; usage is counted", async () => {
    const rig = streamingRig();
    messagesStream(rig.net, rig.clock, { gapMs: 1000 });
    const capped = rig.wire.round(roundRequest('anthropic'), 30_000, undefined, undefined, { onText: () => {}, turnLeftMs: 5_000 });
    await rig.clock.advance(5_000);
    expect(await capped).toMatchObject({ kind: 'error', error: 'timeout' });
    const refused = streamingRig();
    messagesStream(refused.net, refused.clock, { status: 429 });
    expect(await refused.wire.round(roundRequest('anthropic'), 30_000, undefined, undefined, { onText: () => {}, turnLeftMs: 600_000 })).toMatchObject({ kind: 'error', error: 'rate-limit', status: 429 });
    const whole = streamingRig();
    messagesStream(whole.net, whole.clock, { whole: true });
    const ledgerNvs = new MemNvs();
    const ledger = new UsageLedger(new Store(ledgerNvs, 'usage'), new Store(ledgerNvs, 'orch'), () => whole.clock.wallMs());
    (whole.wire as unknown as { usage: UsageLedger }).usage = ledger;
    expect(await whole.wire.round(roundRequest('anthropic'), 30_000, undefined, undefined, { onText: () => {}, turnLeftMs: 600_000 })).toMatchObject({ kind: 'turn', json: TURN_JSON });
    expect((ledger.view()['anthropic'] as { daily: { input: number } }).daily.input).toBe(10);
  });

  it("the custom endpoint streams in its style; a server that refuses the schema (400) gets the schema-less retry, streamed too", async () => {
    const rig = streamingRig();
    rig.settings.base = 'http://llm.lan:8080';
    const bodies: Array<Record<string, unknown>> = [];
    rig.net.serve('llm.lan', 8080, (s) => {
      s.onData = () => {
        const text = s.text();
        const end = text.indexOf('\r\n\r\n');
        const len = Number(/content-length: (\d+)/i.exec(text)?.[1] ?? -1);
        if (end < 0 || new TextEncoder().encode(text.slice(end + 4)).length < len) return;
        const body = JSON.parse(text.slice(end + 4)) as Record<string, unknown>;
        bodies.push(body);
        if (body['response_format']) {
          const err = JSON.stringify({ error: { message: 'json_schema is not supported', type: 'invalid_request_error' } });
          s.send(`HTTP/1.1 400 Bad Request\r\nContent-Type: application/json\r\nContent-Length: ${err.length}\r\nConnection: close\r\n\r\n${err}`);
          s.end();
          return;
        }
        const events = [...Array.from({ length: Math.ceil(TURN_JSON.length / 7) }, (_, i) => ({ choices: [{ index: 0, delta: { content: TURN_JSON.slice(i * 7, i * 7 + 7) }, finish_reason: null }] })), { choices: [{ index: 0, delta: {}, finish_reason: 'stop' }] }, { choices: [], usage: { prompt_tokens: 9, completion_tokens: 4 } }];
        const sse = `${events.map((e) => `data: ${JSON.stringify(e)}\n\n`).join('')}data: [DONE]\n\n`;
        const bytes = new TextEncoder().encode(sse);
        s.send(`HTTP/1.1 200 OK\r\nContent-Type: text/event-stream\r\nContent-Length: ${bytes.length}\r\n\r\n`);
        s.send(bytes);
      };
    });
    let got = '';
    const r = await rig.wire.round(roundRequest('custom', { mode: 'single' }), 30_000, undefined, undefined, { onText: (d) => (got += d), turnLeftMs: 600_000 });
    expect(r).toMatchObject({ kind: 'turn', json: TURN_JSON, usage: { input: 9, output: 4 } });
    expect(bodies.map((b) => [b['stream'], b['stream_options'], b['response_format'] !== undefined])).toEqual([
      [true, { include_usage: true }, true],
      [true, { include_usage: true }, false],
    ]);
    expect(got).toBe(TURN_JSON);
  });
});

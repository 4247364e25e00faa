// The event stream parser (src/net/http/sse.ts): fed arbitrary chunkings of
// event streams (LF, CRLF or CR line ends, comments, multi-line data, UTF-8 of
// every width, a character split anywhere), it dispatches what the official
// OpenAI SDK's own decoder (openai/core/streaming's _iterSSEMessages, which
// the SDK's streaming clients run on) reads from the same bytes whole; the
// WHATWG rules the services rely on; and its bounds.
import fc from 'fast-check';
import { _iterSSEMessages } from 'openai/core/streaming';
import { describe, expect, it } from 'vitest';
import { ChunkedDecoder } from '../../../src/net/http/parse.ts';
import { SseParser } from '../../../src/net/http/sse.ts';

const enc = new TextEncoder();

type Ev = { event: string; data: string };

/** What our parser dispatches for these bytes cut at these offsets. */
function ours(bytes: Uint8Array, cuts: number[]): Ev[] {
  const out: Ev[] = [];
  const p = new SseParser((event, data) => out.push({ event, data }));
  let at = 0;
  for (const c of [...cuts.filter((x) => x > 0 && x < bytes.length)].sort((a, b) => a - b).concat(bytes.length)) {
    // A fresh buffer each time, later reused: the parser must copy what it keeps.
    const chunk = new Uint8Array(bytes.subarray(at, c));
    p.feed(chunk);
    chunk.fill(0x41);
    at = c;
  }
  p.end();
  expect(p.error).toBeNull();
  return out;
}

/** What the OpenAI SDK's decoder reads from the same bytes. */
async function sdk(bytes: Uint8Array): Promise<Ev[]> {
  const out: Ev[] = [];
  for await (const m of _iterSSEMessages(new Response(bytes), new AbortController())) out.push({ event: m.event ?? 'message', data: m.data });
  return out;
}

const text = fc.string({ unit: fc.oneof(fc.constantFrom('a', ' ', ':', '{', '"', 'é', '€', '😀', '中', '\u00a0'), fc.string({ unit: 'grapheme', maxLength: 1 })), maxLength: 24 }).map((s) => s.replace(/[\r\n]/g, ''));
const event = fc.record({
  name: fc.option(fc.constantFrom('message_start', 'content_block_delta', 'response.output_text.delta', 'ping', 'error'), { nil: undefined }),
  data: fc.array(text, { minLength: 1, maxLength: 3 }),
  comment: fc.boolean(),
});

function streamText(events: Array<{ name: string | undefined; data: string[]; comment: boolean }>, eol: string): string {
  let s = '';
  for (const e of events) {
    if (e.comment) s += `: keep-alive${eol}`;
    if (e.name) s += `event: ${e.name}${eol}`;
    for (const d of e.data) s += `data: ${d}${eol}`;
    s += eol;
  }
  return s;
}

describe('the event stream parser', () => {
  it('reads any chunking of a stream as the OpenAI SDK reads it whole (LF, CRLF and CR line ends, characters split across chunks)', async () => {
    await fc.assert(
      fc.asyncProperty(fc.array(event, { maxLength: 8 }), fc.constantFrom('\n', '\r\n', '\r'), fc.array(fc.nat(4000), { maxLength: 30 }), async (events, eol, cuts) => {
        const bytes = enc.encode(streamText(events, eol));
        const expected = await sdk(bytes);
        expect(ours(bytes, cuts)).toEqual(expected);
        // Byte by byte too: every multi-byte character split at every byte.
        expect(ours(bytes, Array.from({ length: bytes.length }, (_, i) => i))).toEqual(expected);
      }),
      { numRuns: 300 },
    );
  });

  it('over HTTP/1.1 chunked transfer: any chunk sizes, any TCP cuts, the same events', async () => {
    await fc.assert(
      fc.asyncProperty(fc.array(event, { minLength: 1, maxLength: 6 }), fc.array(fc.integer({ min: 1, max: 64 }), { minLength: 1, maxLength: 20 }), fc.array(fc.nat(3000), { maxLength: 20 }), async (events, sizes, cuts) => {
        const bytes = enc.encode(streamText(events, '\n'));
        // The body in transfer chunks of the given sizes (cycled), then the last chunk.
        const parts: Uint8Array[] = [];
        for (let at = 0, i = 0; at < bytes.length; i++) {
          const piece = bytes.subarray(at, at + sizes[i % sizes.length]!);
          parts.push(enc.encode(`${piece.length.toString(16)}\r\n`), piece, enc.encode('\r\n'));
          at += piece.length;
        }
        parts.push(enc.encode('0\r\n\r\n'));
        const wire = new Uint8Array(parts.reduce((n, p) => n + p.length, 0));
        let o = 0;
        for (const p of parts) {
          wire.set(p, o);
          o += p.length;
        }
        const got: Ev[] = [];
        const sse = new SseParser((e, d) => got.push({ event: e, data: d }));
        const chunked = new ChunkedDecoder((b) => sse.feed(b));
        let at = 0;
        for (const c of [...new Set(cuts.filter((x) => x > 0 && x < wire.length))].sort((a, b) => a - b).concat(wire.length)) {
          chunked.feed(wire.subarray(at, c));
          at = c;
        }
        expect(chunked.done).toBe(true);
        expect(got).toEqual(await sdk(bytes));
      }),
      { numRuns: 150 },
    );
  });

  it('follows the WHATWG rules the services rely on', () => {
    const all = (s: string): Ev[] => ours(enc.encode(s), []);
    // A CR closing one chunk and the LF opening the next are one line end.
    expect(ours(enc.encode('data: a\r\n\r\ndata: b\r\n\r\n'), [7, 8, 9])).toEqual([
      { event: 'message', data: 'a' },
      { event: 'message', data: 'b' },
    ]);
    // A leading byte-order mark is dropped; a field without a colon is a name with an empty value; one space is stripped.
    expect(all('\ufeffdata:  two spaces\n\ndata\n\n')).toEqual([
      { event: 'message', data: ' two spaces' },
      { event: 'message', data: '' },
    ]);
    // An event line alone (no data) dispatches nothing, and its name does not leak into the next event.
    expect(all('event: ping\n\ndata: x\n\n')).toEqual([{ event: 'message', data: 'x' }]);
    // Multi-line data joined with LF; id and retry ignored; an unterminated event at the end is dropped.
    expect(all('id: 7\nretry: 10\ndata: a\ndata: b\n\ndata: cut')).toEqual([{ event: 'message', data: 'a\nb' }]);
  });

  it('is bounded: an over-long line or event stops it with an error, and nothing more is dispatched', () => {
    const got: string[] = [];
    const line = new SseParser((_e, d) => got.push(d), { lineMax: 64, eventMax: 1024 });
    line.feed(enc.encode('data: short\n\n'));
    line.feed(enc.encode(`data: ${'x'.repeat(40)}`));
    line.feed(enc.encode(`${'y'.repeat(40)}\n\ndata: after\n\n`));
    expect(line.error).toMatch(/line over 64 bytes/);
    expect(got).toEqual(['short']);
    const ev = new SseParser((_e, d) => got.push(d), { lineMax: 64, eventMax: 100 });
    for (let i = 0; i < 5; i++) ev.feed(enc.encode(`data: ${'z'.repeat(30)}\n`));
    ev.feed(enc.encode('\n'));
    expect(ev.error).toMatch(/event over 100 bytes/);
    expect(got).toEqual(['short']);
  });
});

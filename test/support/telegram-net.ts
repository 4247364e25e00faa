// The Bot API fake (tools/telegram-fake.mjs) on the in-memory network, with
// the virtual clock's timers, so unit tests boot the firmware on the
// in-memory HAL and talk to it as chat users. Also a fake moderation
// endpoint (OpenAI's /v1/moderations) for the gates.

import { createBotApi, type BotApiFake } from '../../tools/telegram-fake.mjs';
import type { VirtualClock } from './clock.ts';
import type { MemNet, MemSocket } from './memnet.ts';

const decoder = new TextDecoder();
const encoder = new TextEncoder();

function concat(chunks: Uint8Array[]): Uint8Array {
  let n = 0;
  for (const c of chunks) n += c.length;
  const out = new Uint8Array(n);
  let at = 0;
  for (const c of chunks) {
    out.set(c, at);
    at += c.length;
  }
  return out;
}

/** Serves an HTTP/1.1 request handler on host:443 of the in-memory network (one request per connection). */
export function serveHttp(net: MemNet, host: string, handle: (method: string, path: string, headers: Record<string, string>, body: Uint8Array) => Promise<{ status: number; headers: Record<string, string>; body: Uint8Array }>): void {
  net.serve(host, 443, (s: MemSocket) => {
    let done = false;
    s.onData = () => {
      if (done) return;
      const all = concat(s.inbox);
      let end = -1;
      for (let i = 0; i + 3 < all.length; i++) {
        if (all[i] === 13 && all[i + 1] === 10 && all[i + 2] === 13 && all[i + 3] === 10) {
          end = i;
          break;
        }
      }
      if (end < 0) return;
      const [line, ...lines] = decoder.decode(all.subarray(0, end)).split('\r\n');
      const headers: Record<string, string> = {};
      for (const l of lines) {
        const i = l.indexOf(':');
        headers[l.slice(0, i).toLowerCase()] = l.slice(i + 1).trim();
      }
      const want = Number(headers['content-length'] ?? 0);
      const body = all.subarray(end + 4);
      if (body.length < want) return;
      done = true;
      const [method, path] = (line ?? '').split(' ');
      void handle(method ?? 'GET', path ?? '/', headers, body.slice(0, want)).then((r) => {
        if (s.closed) return;
        const head = `HTTP/1.1 ${r.status} X\r\n${Object.entries({ ...r.headers, 'Content-Length': String(r.body.length), Connection: 'close' })
          .map(([k, v]) => `${k}: ${v}\r\n`)
          .join('')}\r\n`;
        s.send(concat([encoder.encode(head), r.body]));
        s.end();
      });
    };
  });
}

/**
 * The Bot API fake on api.telegram.org:443 of the in-memory network. Its
 * long polls wait on the clock `clock()` returns at the time (a test that
 * reboots the device points it at the new HAL's clock, and serves the same
 * fake on the new network with serveTelegram).
 */
export function fakeTelegram(net: MemNet, clock: () => VirtualClock, options: { token?: string; username?: string } = {}): BotApiFake {
  const bot = createBotApi({ ...options, timers: { setTimeout: (fn, ms) => clock().setTimeout(fn, ms), clearTimeout: (t) => (t as { cancel(): void }).cancel() } });
  serveTelegram(bot, net);
  return bot;
}

export function serveTelegram(bot: BotApiFake, net: MemNet): void {
  serveHttp(net, 'api.telegram.org', async (method, path, headers, body) => {
    const r = await bot.handle(method, path, headers, body);
    return { status: r.status, headers: r.headers, body: new Uint8Array(r.body) };
  });
}

export interface ModerationFake {
  /** Inputs it was asked about, in order. */
  inputs: string[];
  /** Decides per input: flagged categories (empty: clean), or an HTTP error status. */
  decide: (input: string) => string[] | number;
}

/** OpenAI's moderation endpoint on the in-memory network. */
export function fakeModeration(net: MemNet, fake: ModerationFake = { inputs: [], decide: () => [] }): ModerationFake {
  serveHttp(net, 'api.openai.com', async (_method, path, _headers, body): Promise<{ status: number; headers: Record<string, string>; body: Uint8Array }> => {
    const doc = JSON.parse(decoder.decode(body)) as { input: string };
    if (path !== '/v1/moderations') return { status: 404, headers: {}, body: encoder.encode('{}') };
    fake.inputs.push(doc.input);
    const d = fake.decide(doc.input);
    if (typeof d === 'number') return { status: d, headers: { 'Content-Type': 'application/json' }, body: encoder.encode('{"error":{"message":"down"}}') };
    const categories = Object.fromEntries(['harassment', 'violence', 'self-harm'].map((c) => [c, d.includes(c)]));
    const result = { id: 'modr-1', model: 'omni-moderation-latest', results: [{ flagged: d.length > 0, categories, category_scores: {} }] };
    return { status: 200, headers: { 'Content-Type': 'application/json' }, body: encoder.encode(JSON.stringify(result)) };
  });
  return fake;
}

// The owner's web page as the firmware serves it: built at build time into
// one HTML file within its flash budget, served ungated at / byte for byte as
// built (so it carries no device data), revalidated with its ETag, streamed
// in chunks under back-pressure; and the small routes the page added (the
// auto-install switch, the conversations it can clear).
import { afterEach, beforeAll, describe, expect, it } from 'vitest';
import { mount } from '../../../src/core/subsystem.ts';
import { web } from '../../../src/web/index.ts';
import { servePage } from '../../../src/web/routes.ts';
import type { Memory } from '../../../src/memory/index.ts';
import { builtInPage, type WebPage } from '../../../src/web/built.ts';
import type { BodyWriter, HttpRequest } from '../../../src/net/http/types.ts';
import { buildWebPage, webPageDefine, webPageSizes, WEB_PAGE_GZIP_BUDGET } from '../../../tools/web-page.mjs';
import { request, type ParsedResponse } from '../../support/http.ts';
import { deviceKernel, HTTP_PORT, mountMemory, mountOta, mountWifi } from '../../support/kernel.ts';
import { mountTurnOverMemory } from '../../support/turn-fakes.ts';
import { createMemHal, rebootMemHal, type MemHal } from '../../support/memhal.ts';

let html = '';
let define: WebPage;
const g = globalThis as { __WEB_PAGE__?: WebPage };

beforeAll(async () => {
  html = await buildWebPage();
  define = webPageDefine(html);
});

afterEach(() => {
  delete g.__WEB_PAGE__;
});

/**
 * The page and the routes it added, on a device kernel (the token gate, HTTP): Wi-Fi, the turn (its conversation
 * routes over the real memory's episodic log; no turn runs, so its provider, prompt and applier are stubs), the
 * updates (auto-install), memory and the web page, mounted in main.ts's order.
 */
function bootPage(mem: MemHal) {
  const dk = deviceKernel({ mem });
  mountWifi(dk);
  let memory: Memory | null = null;
  const { assistant } = mountTurnOverMemory(dk.kernel, () => memory!);
  mountOta(dk);
  memory = mountMemory(dk.kernel);
  mount(dk.kernel, web, {});
  dk.start();
  return { ctx: { ...dk.kernel, token: dk.token, memory }, assistant, stop: () => dk.stop() };
}

type Device = ReturnType<typeof bootPage>;

function start(mem = createMemHal()): { mem: MemHal; device: Device; token: string } {
  mem.wifi.networks.set('Home', 'home-pass-1');
  mem.nvs.setMany('wifi', [['ssid', 'Home'], ['pass', 'home-pass-1']]);
  const device = bootPage(mem);
  return { mem, device, token: device.ctx.token.reveal() };
}

function call(mem: MemHal, method: string, path: string, token: string | null, body?: string, headers: Record<string, string> = {}): Promise<ParsedResponse> {
  const h: Record<string, string> = { ...headers };
  if (token !== null) h['X-Device-Token'] = token;
  if (body !== undefined) h['Content-Type'] = 'application/x-www-form-urlencoded';
  return request(mem.net, HTTP_PORT, method, path, { headers: h, ...(body !== undefined ? { body } : {}) });
}

describe('the page build', () => {
  it(`fits the flash budget: at most ${WEB_PAGE_GZIP_BUDGET / 1024} KB gzipped`, () => {
    const { raw, gzip } = webPageSizes(html);
    console.log(`web page: ${raw} bytes, ${gzip} gzipped`);
    expect(gzip).toBeLessThanOrEqual(WEB_PAGE_GZIP_BUDGET);
    expect(raw).toBeGreaterThan(10_000);
  });

  it('is one self-contained HTML file: inline script and style, nothing fetched from elsewhere', () => {
    // (Booleans, not matchers on the page: a failure would print all of it.)
    expect(html.startsWith('<!doctype html>')).toBe(true);
    expect(html.includes('<script>')).toBe(true);
    expect(/<script[^>]+src=/.test(html)).toBe(false);
    expect(/<link[^>]+stylesheet/.test(html)).toBe(false);
    expect(/(src|href|action)=["']?(https?:)?\/\//.test(html)).toBe(false);
    // The script never closes its own tag early.
    expect(html.indexOf('</script>')).toBe(html.lastIndexOf('</script>'));
  });

  it('splits into chunks that join back to the page, with its UTF-8 length and an ETag', () => {
    expect(define.chunks.join('') === html).toBe(true);
    expect(define.chunks.length).toBeGreaterThan(1);
    expect(define.bytes).toBe(Buffer.byteLength(html));
    expect(define.etag).toMatch(/^"[0-9a-f]{16}"$/);
  });
});

describe('GET /', () => {
  it('serves the built page without a token, byte for byte, the same on two devices (no device data)', async () => {
    g.__WEB_PAGE__ = define;
    const bodies: string[] = [];
    for (let i = 0; i < 2; i++) {
      const { mem, device, token } = start(createMemHal({ seed: `web-${i}` }));
      const res = await call(mem, 'GET', '/', null);
      expect(res.status).toBe(200);
      expect(res.headers.get('content-type')).toBe('text/html; charset=utf-8');
      expect(res.headers.get('content-length')).toBe(String(define.bytes));
      expect(res.headers.get('etag')).toBe(define.etag);
      expect(res.headers.get('content-security-policy')).toContain("frame-ancestors 'none'");
      expect(res.body === html).toBe(true);
      expect(res.body.includes(token)).toBe(false);
      bodies.push(res.body);
      device.stop();
    }
    expect(bodies[0] === bodies[1]).toBe(true);
  });

  it('answers 304 without a body when the browser already has this page', async () => {
    g.__WEB_PAGE__ = define;
    const { mem } = start();
    const res = await call(mem, 'GET', '/', null, undefined, { 'If-None-Match': `W/"x", ${define.etag}` });
    expect(res.status).toBe(304);
    expect(res.body).toBe('');
    expect((await call(mem, 'GET', '/', null, undefined, { 'If-None-Match': '"other"' })).status).toBe(200);
  });

  it('streams the chunks in order when the connection pushes back', () => {
    const res = servePage(define, { headers: new Map() } as unknown as HttpRequest);
    const out: string[] = [];
    let writes = 0;
    let ended = false;
    const writer: BodyWriter = {
      onDrain: null,
      write: (c) => {
        out.push(c as string);
        return ++writes % 2 === 1; // every second write fills the socket
      },
      end: () => void (ended = true),
      abort: () => {},
    };
    res.stream!.start(writer);
    for (let i = 0; i < 100 && !ended; i++) writer.onDrain?.();
    expect(ended).toBe(true);
    expect(out.join('') === html).toBe(true);
  });

  it('serves the plain shell from a build without the page, and says so', async () => {
    expect(builtInPage().etag).toBe('"shell"');
    const { mem } = start();
    const res = await call(mem, 'GET', '/', null);
    expect(res.status).toBe(200);
    expect(res.body).toContain('carries no web page');
  });
});

describe('routes the page uses', () => {
  it('POST /api/ota/auto switches auto-install, persisted across a restart; a bad value changes nothing', async () => {
    const first = start();
    expect((await call(first.mem, 'POST', '/api/ota/auto', first.token, 'on=yes')).status).toBe(400);
    expect((await call(first.mem, 'POST', '/api/ota/auto', null, 'on=1')).status).toBe(401);
    const on = await call(first.mem, 'POST', '/api/ota/auto', first.token, 'on=1');
    expect(JSON.parse(on.body)).toEqual({ autoUpd: true });
    first.device.stop();
    const again = bootPage(rebootMemHal(first.mem));
    expect(again.ctx.status.snapshot()['autoUpd']).toBe(true);
    again.stop();
  });

  it('GET /api/conversation lists recent chats; POST /api/conversation/clear forgets one', async () => {
    const { mem, device, token } = start();
    mem.clock.advance(5000);
    device.ctx.memory.episodic.append({ session: 'tg:42', role: 'creator', kind: 'message', text: 'hello' });
    device.ctx.memory.episodic.append({ session: 'console', role: 'creator', kind: 'message', text: 'hi' });
    const list = JSON.parse((await call(mem, 'GET', '/api/conversation', token)).body) as { chats: Array<{ chat: string; cleared: boolean }> };
    expect(list.chats.map((c) => c.chat).sort()).toEqual(['console', 'tg:42']);
    expect(list.chats.every((c) => !c.cleared)).toBe(true);
    const bad = await call(mem, 'POST', '/api/conversation/clear', token, 'chat=');
    expect(bad.status).toBe(400);
    mem.clock.advance(2000);
    const ok = await call(mem, 'POST', '/api/conversation/clear', token, 'chat=tg%3A42');
    expect(JSON.parse(ok.body)).toEqual({ chat: 'tg:42', cleared: true });
    expect(device.assistant.clearedAt('tg:42')).toBeGreaterThan(0);
    expect(device.assistant.clearedAt('console')).toBe(0);
    const after = JSON.parse((await call(mem, 'GET', '/api/conversation', token)).body) as { chats: Array<{ chat: string; cleared: boolean }> };
    expect(after.chats.find((c) => c.chat === 'tg:42')!.cleared).toBe(true);
  });
});

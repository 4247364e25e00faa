// files.fetch on the in-memory HAL against a fake web server: each url
// policy (off refuses; ask waits for the owner's approval through the web
// route or the chat API; scan quarantines and promotes only SAFE files;
// trust stores directly), redirects, server errors, the quota, and the owner
// notices.

import { describe, expect, it } from 'vitest';
import { deviceKernel, mountFiles, HTTP_PORT } from '../../support/kernel.ts';
import type { ToolCaller } from '../../../src/core/tools/types.ts';
import { flushJobs } from '../../support/clock.ts';
import { request } from '../../support/http.ts';
import { createMemHal, type MemHal } from '../../support/memhal.ts';
import { DEFAULT_FILE_PEOPLE } from '../../../src/files/people.ts';

const OWNER: ToolCaller = { via: 'turn', admin: true, scheduled: false, unattended: false, person: null };

type Page = { status: number; body?: Uint8Array | string; headers?: Record<string, string> };

function serve(mem: MemHal, pages: Record<string, Page>): string[] {
  const seen: string[] = [];
  mem.net.serve('files.test', 80, (s) => {
    s.onData = () => {
      const text = s.inbox.map((c) => new TextDecoder().decode(c)).join('');
      if (!text.includes('\r\n\r\n')) return;
      const path = text.split(' ')[1]!;
      seen.push(path);
      const p = pages[path] ?? { status: 404, body: 'no' };
      const body = typeof p.body === 'string' ? new TextEncoder().encode(p.body) : (p.body ?? new Uint8Array(0));
      const head = [`HTTP/1.1 ${p.status} X`, `Content-Length: ${body.length}`, ...Object.entries(p.headers ?? {}).map(([k, v]) => `${k}: ${v}`)];
      s.send(head.join('\r\n') + '\r\n\r\n');
      s.send(body);
      s.end();
    };
  });
  return seen;
}

/** Files on a kernel with the device's token gate and HTTP server, its notices going to the owner's outbox. */
function filesAlone(mem: MemHal) {
  const dk = deviceKernel({ mem });
  const { files, outbox } = mountFiles(dk);
  dk.start();
  return { ctx: { ...dk.kernel, token: dk.token, outbox }, files, stop: () => dk.stop() };
}
type Device = ReturnType<typeof filesAlone>;

function start(): { mem: MemHal; device: Device } {
  const mem = createMemHal();
  const device = filesAlone(mem);
  // Made-up persons are on no chat allowlist (the chat's registry would read them as revoked).
  device.files.setPeople(DEFAULT_FILE_PEOPLE);
  serve(mem, {
    '/notes.md': { status: 200, body: '# Notes\nplain and safe' },
    '/evil.md': { status: 200, body: 'hello <script>alert(1)</script>' },
    '/tool.txt': { status: 200, body: new Uint8Array([0x4d, 0x5a, 0x90, 0, 3, 0]) },
    '/moved': { status: 302, headers: { Location: '/notes.md' } },
    '/big.txt': { status: 200, body: 'z'.repeat(5000) },
  });
  return { mem, device };
}

async function api(mem: MemHal, device: Device, method: string, path: string, body?: string) {
  const headers: Record<string, string> = { 'X-Device-Token': device.ctx.token.reveal() };
  if (body !== undefined) headers['Content-Type'] = 'application/x-www-form-urlencoded';
  const r = await request(mem.net, HTTP_PORT, method, path, { headers, ...(body !== undefined ? { body } : {}) });
  return { status: r.status, json: JSON.parse(r.body) as Record<string, unknown> };
}

async function fetchTool(device: Device, args: Record<string, unknown>, caller: ToolCaller = OWNER) {
  return device.ctx.tools.call('files.fetch', args, caller);
}

async function settle(device: Device, mem: MemHal): Promise<void> {
  for (const j of device.files.downloads.jobs()) await device.files.downloads.settled(j.id);
  await mem.clock.advance(1);
  await flushJobs();
}

const idOf = (text: string): string => /id (f[0-9a-f]{6})/.exec(text)![1]!;

describe('files.fetch under the url policy', () => {
  it('ask (the default): waits for approval, which runs it in the background; deny drops it', async () => {
    const { mem, device } = start();
    expect((await api(mem, device, 'GET', '/api/downloads')).json).toMatchObject({ policy: 'ask', pending: [], jobs: [] });
    const r = await fetchTool(device, { url: 'http://files.test/notes.md', project: 'web' });
    expect(r.success).toBe(true);
    expect(r.output).toMatch(/waits for the owner's approval \(id f[0-9a-f]{6}\)/);
    const id = idOf(r.output);
    const listed = await api(mem, device, 'GET', '/api/downloads');
    expect(listed.json['pending']).toEqual([expect.objectContaining({ id, url: 'http://files.test/notes.md', project: 'web', name: 'notes.md', person: null })]);
    expect(device.ctx.outbox.pending().some((n) => n.text.includes(`/fetch approve ${id}`))).toBe(true);
    await settle(device, mem);
    expect((await device.ctx.tools.call('files.list', {}, OWNER)).output).toBe('No files yet.');
    const ok = await api(mem, device, 'POST', '/api/downloads', `action=approve&id=${id}`);
    expect(ok.status).toBe(200);
    await settle(device, mem);
    expect((await device.ctx.tools.call('files.read', { project: 'web', name: 'notes.md' }, OWNER)).output).toMatch(/^# Notes\nplain and safe/);
    expect(device.ctx.outbox.pending().some((n) => n.text.startsWith('Downloaded http://files.test/notes.md to web/notes.md (22 bytes)'))).toBe(true);
    // The chat's /fetch approve path: the same API; unknown ids and denials.
    const second = idOf((await fetchTool(device, { url: 'http://files.test/big.txt' })).output);
    expect(device.files.downloads.approve('nope')).toMatchObject({ ok: false, code: 'not-found' });
    expect(device.files.downloads.deny(second)).toMatchObject({ ok: true });
    expect(device.files.downloads.pending()).toEqual([]);
    expect((await api(mem, device, 'POST', '/api/downloads', `action=approve&id=${second}`)).status).toBe(404);
    device.stop();
  });

  it('off refuses every download; the policy is the owner\'s, set only through the web route', async () => {
    const { mem, device } = start();
    expect((await api(mem, device, 'POST', '/api/downloads', 'action=policy&value=off')).json).toEqual({ policy: 'off' });
    const r = await fetchTool(device, { url: 'http://files.test/notes.md' });
    expect(r).toMatchObject({ success: false, error_type: 'refused', error: 'Downloads are switched off by the owner (url policy off).' });
    expect((await api(mem, device, 'POST', '/api/downloads', 'action=policy&value=yolo')).status).toBe(400);
    expect(device.ctx.tools.all().some((t) => t.name.startsWith('files.') && JSON.stringify(t.schema).includes('policy'))).toBe(false);
    device.stop();
  });

  it('scan: a SAFE file is promoted from quarantine; script or executable content is rejected and removed', async () => {
    const { mem, device } = start();
    await api(mem, device, 'POST', '/api/downloads', 'action=policy&value=scan');
    const good = await fetchTool(device, { url: 'http://files.test/notes.md', project: 'web', name: 'good.md' });
    expect(good.output).toMatch(/kept only if the scan finds it safe/);
    const evil = await fetchTool(device, { url: 'http://files.test/evil.md', project: 'web' });
    const exe = await fetchTool(device, { url: 'http://files.test/tool.txt', project: 'web' });
    expect(evil.success && exe.success).toBe(true);
    await settle(device, mem);
    const jobs = device.files.downloads.jobs();
    expect(jobs.map((j) => [j.name, j.state, j.verdict?.verdict])).toEqual([
      ['good.md', 'done', 'SAFE'],
      ['evil.md', 'rejected', 'UNSAFE'],
      ['tool.txt', 'rejected', 'UNSAFE'],
    ]);
    expect(jobs[1]!.message).toMatch(/not kept: the scan said UNSAFE \(the text carries script or active content\)/);
    expect(jobs[2]!.message).toMatch(/a Windows executable/);
    expect(mem.sd.list('/mem/files/web').map((e) => e.name)).toEqual(['.meta', 'good.md']);
    expect(mem.sd.list('/mem/quarantine')).toEqual([]);
    device.stop();
  });

  it('trust: stores directly, follows redirects, names the file from the URL, keeps it the requester\'s', async () => {
    const { mem, device } = start();
    await api(mem, device, 'POST', '/api/downloads', 'action=policy&value=trust');
    const ana: ToolCaller = { ...OWNER, admin: false, person: 'chat:ana' };
    expect((await fetchTool(device, { url: 'http://files.test/moved', name: 'moved.md' }, ana)).success).toBe(true);
    expect((await fetchTool(device, { url: 'http://files.test/missing.txt' })).success).toBe(true);
    await settle(device, mem);
    const [moved, missing] = device.files.downloads.jobs();
    expect(moved).toMatchObject({ state: 'done', project: 'downloads', name: 'moved.md', bytes: 22 });
    expect(missing).toMatchObject({ state: 'failed', message: 'The server answered 404 for http://files.test/missing.txt.' });
    expect((await device.ctx.tools.call('files.list', {}, ana)).output).toMatch(/downloads\/moved\.md/);
    expect((await device.ctx.tools.call('files.list', {}, { ...ana, person: 'chat:bob' })).output).toBe('No files yet.');
    expect(mem.sd.list('/mem/incoming')).toEqual([]);
    device.stop();
  });

  it('refuses what does not fit the quota and bad requests, leaving nothing behind', async () => {
    const { mem, device } = start();
    await api(mem, device, 'POST', '/api/downloads', 'action=policy&value=trust');
    mem.serial.type('STORAGE 100\r\n');
    await mem.clock.advance(1);
    expect((await fetchTool(device, { url: 'http://files.test/big.txt' })).success).toBe(true);
    await settle(device, mem);
    expect(device.files.downloads.jobs()[0]).toMatchObject({ state: 'failed', message: 'The file (5000 bytes) does not fit: 0 bytes are left in the file store.' });
    expect(mem.sd.list('/mem/incoming')).toEqual([]);
    expect((await fetchTool(device, { url: 'ftp://x/y' })).error_type).toBe('bad-input');
    expect((await fetchTool(device, { url: 'http://files.test/' })).error).toBe('no file name can be made from the url; give a name');
    expect((await fetchTool(device, { url: 'http://files.test/a', name: '../x.md' })).error_type).toBe('bad-input');
    mem.sd.pull();
    expect((await fetchTool(device, { url: 'http://files.test/notes.md' })).error_type).toBe('no-card');
    device.stop();
  });
});

// The SD card, the file store, downloads and music on the simulator: the
// device boots without a card (present false, saves refused legibly, no
// music), a card is inserted while it runs (GET /api/sdprobe upgrades the
// tier, memory leaves degraded mode), files are saved over /mcp and listed
// and downloaded, the quota runs out (STORAGE), a local web server feeds
// files.fetch under each url policy, music is added through the web route
// and played (the board records the WAV's PCM and the MP3's frames), a card
// pulled in the middle of a download or of a save (the board's
// sd.removeAfter hook) leaves no partial file and loses nothing else, and a
// card pulled while running is noticed.

import { createServer, type Server } from 'node:http';
import { existsSync, readdirSync, readFileSync } from 'node:fs';
import { join } from 'node:path';
import { afterAll, describe, expect, it } from 'vitest';
import { cleanup, startDevice, type Device } from './harness.ts';
import { mp3Bytes, wavBytes } from '../support/audio-files.ts';
import { readWav } from '../../hosts/sim/board/wav.ts';

const GB = 1024 ** 3;
let server: Server | null = null;
afterAll(async () => {
  server?.closeAllConnections();
  await new Promise((r) => (server ? server.close(r) : r(null)));
  await cleanup();
});

async function until<T>(what: string, fn: () => Promise<T | null | undefined | false>, timeoutMs = 15_000): Promise<T> {
  const deadline = Date.now() + timeoutMs;
  for (;;) {
    const v = await fn();
    if (v) return v;
    if (Date.now() > deadline) throw new Error(`timed out waiting for ${what}`);
    await new Promise((r) => setTimeout(r, 50));
  }
}

describe('SD card, files, downloads and music on the simulator', () => {
  it('runs without a card, takes one inserted later, and keeps files safe through quota, downloads, music and pulled cards', async () => {
    // A local web server for files.fetch: small files, and a slow large one.
    let slowSent = 0;
    server = createServer((req, res) => {
      if (req.url === '/notes.md') return void res.end('# Notes\nfetched from the local server');
      if (req.url === '/evil.md') return void res.end('click <script>steal()</script>');
      if (req.url === '/slow.bin') {
        res.writeHead(200, { 'Content-Length': String(4 * 1024 * 1024) });
        const timer = setInterval(() => {
          if (res.destroyed || slowSent >= 4 * 1024 * 1024) return clearInterval(timer);
          res.write(Buffer.alloc(32 * 1024, 7));
          slowSent += 32 * 1024;
        }, 20);
        return;
      }
      res.statusCode = 404;
      res.end('no');
    });
    await new Promise<void>((r) => server!.listen(0, '127.0.0.1', () => r()));
    const port = (server.address() as { port: number }).port;
    const base = `http://127.0.0.1:${port}`;

    const device: Device = await startDevice({ sdSize: 0 });
    const token = (await device.command('WEBTOK?')).split('\n')[0]!;
    const get = async (path: string): Promise<Record<string, unknown>> => (await (await device.fetch(path, { token })).json()) as Record<string, unknown>;
    const post = async (path: string, form: Record<string, string>): Promise<Response> => device.fetch(path, { token, method: 'POST', body: new URLSearchParams(form) });
    const tool = (name: string, args: Record<string, unknown>) => device.tool(token, name, args);
    const upload = async (name: string, data: Uint8Array): Promise<Response> => {
      const fd = new FormData();
      fd.append('file', new Blob([data]), name);
      return device.fetch('/api/music', { token, method: 'POST', body: fd });
    };

    // No card: bounded degraded mode, legible refusals.
    expect(await get('/api/files/list')).toMatchObject({ present: false, unsupported: false, files: [] });
    const noCard = await tool('artifact.save', { project: 'notes', name: 'a.md', text: 'hi' });
    expect(noCard.isError).toBe(true);
    expect(noCard.text).toMatch(/^no-card: No SD card is inserted/);
    const noMusic = await upload('song.wav', wavBytes({ seconds: 0.1 }));
    expect(noMusic.status).toBe(409);
    expect(((await noMusic.json()) as { message: string }).message).toMatch(/No SD card/);
    expect(await get('/api/mem/stats')).toMatchObject({ degraded: { vectors: true, episodic: true } });
    expect((await device.command('STATUS'))).toMatch(/ sd=none /);

    // A 4 GB card goes in while the device runs: a re-probe upgrades the tier, memory leaves degraded mode.
    await device.board.request('sd.size', { bytes: 4 * GB });
    expect(await get('/api/sdprobe')).toMatchObject({ sd: 'ok', tier: 'present', quota: 4 * GB - 512 * 1024 ** 2, files: { present: true, count: 0 } });
    await until('memory on the card', async () => {
      const s = await get('/api/mem/stats');
      return !(s['degraded'] as Record<string, boolean>)['vectors'] && !(s['degraded'] as Record<string, boolean>)['episodic'];
    });
    expect(await get('/api/state')).toMatchObject({ sd: 'ok', files: { present: true, unsupported: false, quota: 4 * GB - 512 * 1024 ** 2 } });

    // Save, list, download.
    expect(await tool('artifact.save', { project: 'notes', name: 'plan.md', text: '# Plan\nbuy milk' })).toEqual({ isError: false, text: 'Saved notes/plan.md (15 bytes).' });
    const listed = await get('/api/files/list');
    expect(listed).toMatchObject({ present: true, count: 1, bytes: 15, cardTotal: 4 * GB });
    expect(listed['files']).toEqual([expect.objectContaining({ project: 'notes', name: 'plan.md', kind: 'markdown', size: 15, owner: null, share: false })]);
    const dl = await device.fetch('/api/files/dl?project=notes&name=plan.md', { token });
    expect(dl.headers.get('content-disposition')).toBe('attachment; filename="plan.md"');
    expect(await dl.text()).toBe('# Plan\nbuy milk');

    // Quota exhaustion.
    expect(await device.command('STORAGE 100')).toMatch(/^files=1 used=\d+ quota=\d+\nOK$/);
    const full = await tool('artifact.save', { project: 'notes', name: 'more.md', text: 'no room' });
    expect(full.text).toMatch(/^quota: The file store is full/);
    expect(await device.command('STORAGE off')).toMatch(/^files=1 used=15 /);

    // Downloads under each url policy.
    const jobs = async (): Promise<Array<Record<string, unknown>>> => (await get('/api/downloads'))['jobs'] as Array<Record<string, unknown>>;
    const settled = (id: string) => until(`download ${id}`, async () => (await jobs()).find((j) => j['id'] === id && j['state'] !== 'downloading' && j['state'] !== 'scanning'));
    expect((await post('/api/downloads', { action: 'policy', value: 'off' })).status).toBe(200);
    expect((await tool('files.fetch', { url: `${base}/notes.md` })).text).toMatch(/^refused: Downloads are switched off/);
    await post('/api/downloads', { action: 'policy', value: 'ask' });
    const asked = await tool('files.fetch', { url: `${base}/notes.md`, project: 'web', name: 'asked.md' });
    const askId = /id (f[0-9a-f]{6})/.exec(asked.text)![1]!;
    expect((await get('/api/downloads'))['pending']).toEqual([expect.objectContaining({ id: askId, url: `${base}/notes.md` })]);
    expect((await post('/api/downloads', { action: 'approve', id: askId })).status).toBe(200);
    expect(await settled(askId)).toMatchObject({ state: 'done', bytes: 37 });
    await post('/api/downloads', { action: 'policy', value: 'scan' });
    const good = /id (f[0-9a-f]{6})/.exec((await tool('files.fetch', { url: `${base}/notes.md`, project: 'web', name: 'scanned.md' })).text)![1]!;
    const evil = /id (f[0-9a-f]{6})/.exec((await tool('files.fetch', { url: `${base}/evil.md`, project: 'web' })).text)![1]!;
    expect(await settled(good)).toMatchObject({ state: 'done', verdict: { verdict: 'SAFE' } });
    expect(await settled(evil)).toMatchObject({ state: 'rejected', verdict: { verdict: 'UNSAFE' } });
    await post('/api/downloads', { action: 'policy', value: 'trust' });
    const trusted = /id (f[0-9a-f]{6})/.exec((await tool('files.fetch', { url: `${base}/notes.md`, project: 'web', name: 'trusted.md' })).text)![1]!;
    expect(await settled(trusted)).toMatchObject({ state: 'done' });
    const web = ((await get('/api/files/list'))['files'] as Array<{ project: string; name: string }>).filter((f) => f.project === 'web').map((f) => f.name);
    expect(web).toEqual(['asked.md', 'scanned.md', 'trusted.md']);
    expect((await tool('files.read', { project: 'web', name: 'trusted.md' })).text).toMatch(/^# Notes\nfetched from the local server/);

    // Music: added through the web route (only .wav and .mp3), played through the board's audio output.
    const wav = wavBytes({ seconds: 0.3 });
    const mp3 = mp3Bytes(12);
    expect((await upload('b-tone.wav', wav)).status).toBe(200);
    expect((await upload('a-tune.mp3', mp3)).status).toBe(200);
    const refused = await upload('notes.txt', new TextEncoder().encode('hello'));
    expect(refused.status).toBe(415);
    expect(((await refused.json()) as { message: string }).message).toBe('notes.txt: only .wav and .mp3 files can be added.');
    expect(((await get('/api/music'))['tracks'] as Array<{ name: string; playable: boolean }>).map((t) => [t.name, t.playable])).toEqual([
      ['a-tune.mp3', true],
      ['b-tone.wav', true],
    ]);
    const audioDir = join(device.dir, 'audio');
    const before = existsSync(audioDir) ? readdirSync(audioDir).length : 0;
    expect(await device.command('PLAY')).toBe('Playing a-tune.mp3. Then 1 more.\nOK');
    await until('both tracks played', async () => {
      const s = (await get('/api/music'))['player'] as { state: string; played: number };
      return s.state === 'idle' && s.played === 2;
    });
    // One file per stream, in play order (bootB-N.wav): the MP3 decoded in the runtime by minimp3
    // (modules/mp3) to mono PCM, every frame's 1152 samples (these frames are silent), then the WAV as it is.
    const streamNo = (f: string): number => Number(/-(\d+)\.wav$/.exec(f)![1]);
    const files = readdirSync(audioDir).sort((a, b) => streamNo(a) - streamNo(b)).slice(-2);
    expect(readdirSync(audioDir).length).toBe(before + 2);
    const [mp3Out, wavOut] = files as [string, string];
    const decoded = readWav(join(audioDir, mp3Out));
    expect(decoded).toMatchObject({ sampleRate: 44100, channels: 1 });
    expect(decoded.samples.length).toBe(12 * 1152);
    expect(decoded.samples.every((v) => v === 0)).toBe(true);
    expect(Buffer.compare(readFileSync(join(audioDir, wavOut)).subarray(44), Buffer.from(wav.subarray(44)))).toBe(0);

    // A card pulled in the middle of a download: a clear error, no partial file, nothing else lost.
    const slow = /id (f[0-9a-f]{6})/.exec((await tool('files.fetch', { url: `${base}/slow.bin`, project: 'web', name: 'slow.bin' })).text)![1]!;
    await until('the download under way', async () => (await jobs()).find((j) => j['id'] === slow && (j['bytes'] as number) > 64 * 1024));
    await device.board.request('sd.remove');
    const cut = await settled(slow);
    expect(cut['state']).toBe('failed');
    expect(cut['message']).toMatch(/SD card was removed/);
    expect(await get('/api/sdprobe')).toMatchObject({ tier: 'none', files: { present: false } });
    expect(await get('/api/files/list')).toMatchObject({ present: false, files: [] });
    await device.board.request('sd.insert');
    expect(await get('/api/sdprobe')).toMatchObject({ tier: 'present' });
    const after = await get('/api/files/list');
    expect((after['files'] as Array<{ name: string }>).map((f) => f.name).sort()).toEqual(['asked.md', 'plan.md', 'scanned.md', 'trusted.md']);
    expect(readdirSync(join(device.dir, 'sd', 'mem', 'incoming'))).toEqual([]);
    expect(await device.command('SDCHECK')).toMatch(/^sd=ok tier=present total=4294967296 free=\d+ quota=3758096384\nfiles=4 bytes=\d+\nrw=pass\nOK$/);

    // A save interrupted by removal: the board pulls the card after two 4 KB writes of the data file.
    await device.board.request('sd.removeAfter', { match: '/mem/files/notes/big.md.part', writes: 2 });
    const big = await tool('artifact.save', { project: 'notes', name: 'big.md', text: '# Big\n' + 'z'.repeat(20 * 1024) });
    expect(big.isError).toBe(true);
    expect(big.text).toBe('card-removed: The SD card was removed during the save; nothing was saved and no partial file was left.');
    expect((await device.board.request<{ sd: { present: boolean; removeAfter: unknown } }>('status')).sd).toMatchObject({ present: false, removeAfter: null });
    await device.board.request('sd.insert');
    expect(await get('/api/sdprobe')).toMatchObject({ tier: 'present' });
    const kept = await get('/api/files/list');
    expect((kept['files'] as Array<{ name: string }>).map((f) => f.name).sort()).toEqual(['asked.md', 'plan.md', 'scanned.md', 'trusted.md']);
    const filesDir = join(device.dir, 'sd', 'mem', 'files');
    const walk = (dir: string): string[] => readdirSync(dir, { withFileTypes: true }).flatMap((e) => (e.isDirectory() ? walk(join(dir, e.name)) : [join(dir, e.name)]));
    const onCard = walk(filesDir).map((f) => f.slice(filesDir.length));
    expect(onCard.filter((f) => f.endsWith('.part'))).toEqual([]);
    expect(onCard.filter((f) => f.includes('big.md'))).toEqual([]);
    expect(onCard.filter((f) => f.startsWith('/notes/')).sort()).toEqual(['/notes/.meta/plan.md.json', '/notes/plan.md']);
    expect(await (await device.fetch('/api/files/dl?project=notes&name=plan.md', { token })).text()).toBe('# Plan\nbuy milk');

    // Pulled while running and nobody asks: the periodic probe notices, memory demotes.
    await device.board.request('sd.remove');
    await until('the probe to notice', async () => (await get('/api/state'))['sd'] === 'none');
    expect((await get('/api/mem/stats'))['degraded']).toMatchObject({ vectors: true, episodic: true });
    await device.stop();
  }, 90_000);
});

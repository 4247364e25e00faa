// Uploads written to the card as they arrive, on the simulator (issue 38,
// item 3): an 8 MB track goes up through POST /api/music from a real HTTP
// client, is listed and plays; a connection dropped in the middle of an
// upload leaves no file on the card (the device folder's sd/ is the card)
// and nothing listed; a track over the card's free space is refused from
// its Content-Length before a byte is written, and a file over the store's
// quota (STORAGE) through POST /api/files/upload, both in the existing
// words.

import { closeSync, ftruncateSync, openSync, readdirSync, statSync } from 'node:fs';
import { request } from 'node:http';
import { join } from 'node:path';
import { afterAll, describe, expect, it } from 'vitest';
import { wavBytes } from '../support/audio-files.ts';
import { cleanup, startDevice } from './harness.ts';

afterAll(async () => {
  await cleanup();
});

const GB = 1024 ** 3;
const MB = 1024 ** 2;

/** A 16-bit mono 44.1 kHz WAV of exactly `bytes` bytes. */
const wavOf = (bytes: number): Uint8Array => wavBytes({ rate: 44100, frames: (bytes - 44) / 2 });

const BOUNDARY = 'e2e-upload-boundary';
const head = (name: string): Buffer => Buffer.from(`--${BOUNDARY}\r\nContent-Disposition: form-data; name="file"; filename="${name}"\r\nContent-Type: audio/wav\r\n\r\n`);
const tail = Buffer.from(`\r\n--${BOUNDARY}--\r\n`);

/** Streams a multipart body of one file in 64 KB writes; `cutAfter` bytes of the file, then the connection is destroyed. */
function upload(url: string, token: string, name: string, file: Uint8Array, cutAfter?: number): Promise<{ status: number; body: string } | 'cut'> {
  return new Promise((resolve, reject) => {
    const u = new URL('/api/music', url);
    const req = request(
      { host: u.hostname, port: u.port, method: 'POST', path: u.pathname, headers: { 'X-Device-Token': token, 'Content-Type': `multipart/form-data; boundary=${BOUNDARY}`, 'Content-Length': head(name).length + file.length + tail.length } },
      (res) => {
        let body = '';
        res.on('data', (c) => (body += c));
        res.on('end', () => resolve({ status: res.statusCode!, body }));
      },
    );
    req.on('error', (e) => (cutAfter !== undefined ? resolve('cut') : reject(e)));
    req.write(head(name));
    const end = cutAfter ?? file.length;
    for (let at = 0; at < end; at += 64 * 1024) req.write(file.subarray(at, Math.min(end, at + 64 * 1024)));
    if (cutAfter === undefined) req.end(tail);
    else setTimeout(() => req.destroy(), 300);
  });
}

async function until<T>(what: string, fn: () => Promise<T | null | undefined | false>, timeoutMs = 15_000): Promise<T> {
  const deadline = Date.now() + timeoutMs;
  for (;;) {
    const v = await fn();
    if (v) return v;
    if (Date.now() > deadline) throw new Error(`timed out waiting for ${what}`);
    await new Promise((r) => setTimeout(r, 50));
  }
}

describe('uploads stream to the card on the simulator', () => {
  it('takes an 8 MB track that lists and plays, leaves nothing of a dropped one, and refuses what does not fit in the existing words', async () => {
    const device = await startDevice({ sdSize: 4 * GB });
    const token = (await device.command('WEBTOK?')).split('\n')[0]!;
    const onCard = (): string[] => readdirSync(join(device.dir, 'sd', 'music'));
    const tracks = async (): Promise<Array<{ name: string; size: number; playable: boolean }>> =>
      ((await (await device.fetch('/api/music', { token })).json()) as { tracks: Array<{ name: string; size: number; playable: boolean }> }).tracks;

    // 8 MB (the route's limit, less the form's framing): listed, then played.
    const big = wavOf(8 * MB - 4096);
    expect(await upload(device.url!, token, 'Eight.wav', big)).toEqual({ status: 200, body: JSON.stringify({ name: 'Eight.wav', size: big.length, kind: 'wav', playable: true }) });
    expect(await tracks()).toEqual([{ name: 'Eight.wav', size: big.length, kind: 'wav', playable: true, reason: null }]);
    expect(onCard()).toEqual(['Eight.wav']);
    expect(await device.command('PLAY Eight.wav')).toMatch(/^Playing Eight\.wav\.\nOK$/);
    await until('the track playing', async () => ((await (await device.fetch('/api/music', { token })).json()) as { player: { state: string; position: number } }).player.position > 0);
    expect(await device.command('PLAY stop')).toMatch(/OK$/);

    // Dropped in the middle: nothing on the card, nothing listed.
    expect(await upload(device.url!, token, 'Dropped.wav', big, 3 * MB)).toBe('cut');
    await until('the cut upload undone', async () => onCard().length === 1);
    expect(onCard()).toEqual(['Eight.wav']);
    expect((await tracks()).map((t) => t.name)).toEqual(['Eight.wav']);

    // Over the card's free space: a filler (sparse) leaves 4 MB free; refused before a byte is written.
    const used = (dir: string): number => readdirSync(dir, { withFileTypes: true }).reduce((n, e) => n + (e.isDirectory() ? used(join(dir, e.name)) : statSync(join(dir, e.name)).size), 0);
    const fd = openSync(join(device.dir, 'sd', 'filler.bin'), 'w');
    ftruncateSync(fd, 4 * GB - 4 * MB - used(join(device.dir, 'sd')));
    closeSync(fd);
    const refused = await upload(device.url!, token, 'TooBig.wav', big);
    expect(refused).toEqual({ status: 409, body: JSON.stringify({ error: 'card-full', message: `The SD card is full: TooBig.wav (${big.length} bytes) did not fit.` }) });
    expect(onCard()).toEqual(['Eight.wav']);

    // Over the file store's quota (STORAGE pretends it is used up): the store's own words, nothing saved.
    expect(await device.command('STORAGE 100')).toMatch(/OK$/);
    const fd2 = new FormData();
    fd2.append('file', new Blob(['# notes\n']), 'notes.md');
    const quota = await device.fetch('/api/files/upload', { token, method: 'POST', body: fd2 });
    expect(quota.status).toBe(409);
    expect(((await quota.json()) as { error: string; message: string })).toMatchObject({ error: 'quota', message: expect.stringMatching(/^The file store is full: 8 bytes would bring it to \d+ of its \d+-byte quota\. Remove files or use a larger card\.$/) });
    expect(readdirSync(join(device.dir, 'sd', 'mem', 'incoming'))).toEqual([]);
    await device.stop();
  }, 120_000);
});

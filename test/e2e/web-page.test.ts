// The owner's web page in a real browser (Debian's Chromium, headless,
// through playwright-core) against the real firmware on the simulator: the
// first-run ?t= handout migrated once, sign-in from the printed ?c= link, a
// typed code from another browser's 'Show code' with its live countdown, a
// setting that survives a reboot, the battery refusal's 'Install anyway',
// a danger-zone phrase refused, downloads fetched as Blobs with the header
// token (the log, a file of the store), Memory & Files (a text file
// uploaded, Add music taking a .wav and refusing a .txt, the messages without
// a card and with one under 1 GB), Safety > Downloads (the url policy, a
// pending download approved and another denied), approvals of a routine, a
// wakeup and a skill, the time zone, the model catalog, fallbacks, a
// connector's verify link and its approval as a tool server; Assistant
// settings (a provider key saved write-only and removed, priority, the
// orchestrator model, a 1500-byte directive, midFail, the prompt budget,
// read back after a reload); Updates (auto-install on and off, the download
// progress of a stalled download, a dry run of a signed release verified
// without a restart); Memory (search, near-duplicates removed, flush with its
// confirmation keeping permanent memories, recall settings); People (the chat
// messenger's write-only bot token and allowlist, a person's role and quota,
// the last admin kept); rotating the token (the old one and earlier codes
// refused, this browser carries on, a browser with the old sign-in asked to
// sign in again); every section at phone width (screenshots in
// test-results/web/); and last, as they wipe the device, Format card and
// Factory reset with their exact phrases.
import { copyFileSync, mkdirSync, readFileSync, statSync } from 'node:fs';
import { createServer, type Server } from 'node:http';
import { join } from 'node:path';
import type { BrowserContext, Page } from 'playwright-core';
import { afterAll, beforeAll, describe, expect, it, vi } from 'vitest';
import { ROOT } from '../../tools/build.mjs';
import { imageVersion, release } from '../../tools/release.mjs';
import { ensureTestSigningKey } from '../../tools/test-keys.mjs';
import { startUpdateServer, type UpdateServer } from '../../tools/update-server.mjs';
import { ensureChromium, launchBrowser } from './fixtures/browser.ts';
import { cleanup, startDevice, tempDir, type Device } from './harness.ts';
import { wavBytes } from '../support/audio-files.ts';

const SHOTS = join(ROOT, 'test-results/web');
const SECTIONS = ['status', 'updates', 'assistant', 'memory', 'routines', 'people', 'access', 'danger'];

let device: Device;
let server: Server | null = null;
let browser: BrowserContext;
let page: Page;
let token = '';

beforeAll(async () => {
  ensureChromium();
  mkdirSync(SHOTS, { recursive: true });
  [device, browser] = await Promise.all([startDevice(), launchBrowser()]);
  token = (await device.command('WEBTOK?')).split('\n')[0]!;
  browser.setDefaultTimeout(10_000);
  page = browser.pages()[0] ?? (await browser.newPage());
  // A script error on the page shows in the test output.
  page.on('pageerror', (e) => console.error(`page error: ${e.message}`));
}, 900_000);

afterAll(async () => {
  server?.closeAllConnections();
  await new Promise((r) => (server ? server.close(r) : r(null)));
  await browser?.close();
  await cleanup();
});

// Code that runs in the page is passed as text: this project's tests typecheck without the DOM's types.
const inPage = <T>(expr: string, p: Page = page): Promise<T> => p.evaluate(expr) as Promise<T>;
const stored = (p: Page = page): Promise<string | null> => inPage("localStorage.getItem('deskToken')", p);

async function open(id: string, p: Page = page): Promise<void> {
  await p.click(`nav a[href="#${id}"]`);
  await p.waitForSelector(`[data-section="${id}"][data-ready]`);
}

describe('signing in', () => {
  it('first run: the setup redirect\'s ?t= link is accepted once, stored, stripped, with a migration hint', async () => {
    await page.goto(device.url!);
    await page.waitForSelector('[data-section="status"][data-ready]');
    expect(new URL(page.url()).search).toBe('');
    expect(await stored()).toBe(token);
    expect(await page.locator('#banner').innerText()).toMatch(/old-style \?t= link/);
    // Once: the address no longer carries it, so a reload shows no hint.
    await page.reload();
    await page.waitForSelector('[data-section="status"][data-ready]');
    expect(await page.locator('#banner').innerText()).toBe('');
    // A stale ?t= link does not replace anything and is not kept.
    await inPage('localStorage.clear()');
    await page.goto(`${device.url}?t=${'f'.repeat(24)}`);
    await page.waitForSelector('#signin-title');
    expect(new URL(page.url()).search).toBe('');
    expect(await stored()).toBeNull();
    expect(await page.locator('#banner').innerText()).toMatch(/no longer accepts/);
  });

  it('signs in from the link the device printed: the code is exchanged, the token kept, the address stripped', async () => {
    // Join Wi-Fi first, as an owner would, so the page runs on a set-up device.
    expect((await device.fetch('/savewifi', { method: 'POST', body: new URLSearchParams({ ssid: 'SimNet', pass: 'simnet-pass' }) })).status).toBe(202);
    for (let i = 0; i < 200; i++) {
      const s = (await (await device.fetch('/api/state', { token })).json()) as { wifi: { station: { state: string } } };
      if (s.wifi.station.state === 'connected') break;
      await new Promise((r) => setTimeout(r, 20));
    }
    expect((await device.fetch('/api/wifi/handoff', { method: 'POST', token })).status).toBe(200);

    const exchanges: string[] = [];
    page.on('request', (r) => r.url().includes('/api/signin/exchange') && exchanges.push(r.postData() ?? ''));
    await page.goto(device.signIn!);
    await page.waitForSelector('[data-section="status"][data-ready]');
    const code = new URL(device.signIn!).searchParams.get('c')!;
    expect(exchanges).toEqual([`code=${code}`]);
    expect(new URL(page.url()).search).toBe('');
    expect(await stored()).toBe(token);
    expect(await page.locator('#banner').innerText()).toMatch(/Signed in/);
    expect(await page.locator('#ident').innerText()).toMatch(/^v\d+\.\d+\.\d+ · panel-35 · build /);
    // The code worked once.
    await inPage('localStorage.clear()');
    await page.goto(device.signIn!);
    await page.waitForSelector('#signin-title');
    expect(await page.locator('.msg').first().innerText()).toMatch(/already used/);
    await inPage(`localStorage.setItem('deskToken', ${JSON.stringify(token)})`);
  });

  it('a code shown by a signed-in browser counts down its 10 minutes live and signs another browser in when typed', async () => {
    // The signed-in browser (a tab sharing the sign-in), on a clock the test moves.
    const other = await browser.newPage();
    await other.clock.install();
    await other.goto(`${device.url}#access`);
    await other.waitForSelector('[data-section="access"][data-ready]');
    await other.click('text=Show a sign-in code');
    await other.waitForSelector('[data-code]');
    const code = await other.locator('[data-code]').innerText();
    expect(code).toMatch(/^[2-9A-HJKMNP-Z]{4}-[2-9A-HJKMNP-Z]{4}-[2-9A-HJKMNP-Z]{4}$/);
    expect(await other.locator('[data-countdown]').innerText()).toMatch(/^Valid for (10:00|9:59)$/);
    await other.clock.runFor(61_000);
    expect(await other.locator('[data-countdown]').innerText()).toMatch(/^Valid for (9:00|8:5\d)$/);
    await other.clock.runFor(9 * 60_000);
    expect(await other.locator('[data-countdown]').innerText()).toBe('This code has expired.');
    // The device's 10 minutes run on its own clock: the code still works now.
    // Another browser (this one, signed out) types it by hand.
    await other.close();
    await inPage('localStorage.clear()');
    await page.goto(device.url!);
    await page.getByLabel('Sign-in code').fill(`${code.slice(0, 4).toLowerCase()}-${code.slice(4)}`);
    await page.keyboard.press('Enter');
    await page.waitForSelector('[data-section="status"][data-ready]');
    expect(await stored()).toBe(token);
  });
});

describe('settings and actions', () => {
  it('a settings change made on the page survives a reboot', async () => {
    await open('assistant');
    await page.getByLabel('Verify certificates of outbound HTTPS (tlsVerify)').uncheck();
    await page.getByText('Certificates are no longer verified').waitFor();
    await page.getByLabel('Base URL').fill('http://192.168.1.50:8080');
    await page.getByLabel('Conversation style').selectOption('messages');
    await page.click('text=Save endpoint');
    await page.getByText('Custom endpoint saved.').waitFor();

    const boots = (await device.board.request<{ bootCount: number }>('status')).bootCount;
    await device.board.request('reboot');
    await device.board.request('wait', { for: 'ready', after: boots, timeoutMs: 20_000 });
    await page.reload();
    await page.waitForSelector('[data-section="assistant"][data-ready]');
    expect(await page.getByLabel('Verify certificates of outbound HTTPS (tlsVerify)').isChecked()).toBe(false);
    expect(await page.getByLabel('Base URL').inputValue()).toBe('http://192.168.1.50:8080');
    expect(await page.getByLabel('Conversation style').inputValue()).toBe('messages');
    const state = (await (await device.fetch('/api/state', { token })).json()) as { tlsVerify: boolean; uptimeS: number };
    expect(state.tlsVerify).toBe(false);
    await page.getByLabel('Verify certificates of outbound HTTPS (tlsVerify)').check();
    await page.getByText('Certificates are verified again.').waitFor();
  });

  it('Status > Wi-Fi networks saves a network (joined, no passphrase shown), refuses to forget the last one, forgets another', async () => {
    await open('status');
    const wifi = page.locator('[data-wifi-known]').locator('..');
    await wifi.getByLabel('Network name').fill('SimNet');
    await wifi.getByLabel('Passphrase').fill('simnet-pass');
    await wifi.getByRole('button', { name: 'Save network' }).click();
    // The first-run test saved SimNet through /savewifi already: the page updates its passphrase.
    await wifi.getByText('Updated SimNet.', { exact: true }).waitFor();
    await expect.poll(async () => ((await (await device.fetch('/api/wifi', { token })).json()) as { station: { state: string } }).station.state, { timeout: 10_000 }).toBe('connected');
    expect(await wifi.innerText()).not.toContain('simnet-pass');
    await wifi.getByRole('button', { name: 'Forget' }).click();
    await wifi.getByText('The last network cannot be forgotten', { exact: false }).waitFor();
    await wifi.getByLabel('Network name').fill('Upstairs');
    await wifi.getByLabel('Passphrase').fill('upstairs-pass');
    await wifi.getByRole('button', { name: 'Save network' }).click();
    await wifi.getByText('Saved Upstairs. It is joined when the current network is out of reach.').waitFor();
    await wifi.getByText('Upstairs', { exact: true }).waitFor();
    await wifi.locator('li', { hasText: 'Upstairs' }).getByRole('button', { name: 'Forget' }).click();
    await expect.poll(async () => ((await (await device.fetch('/api/wifi', { token })).json()) as { known: Array<{ ssid: string }> }).known.map((n) => n.ssid)).toEqual(['SimNet']);
  });

  it('Assistant lists the model catalog per provider (roles, size class, flags), the fallback chain, and a connector\'s verify link with ?k=', async () => {
    await open('assistant');
    const row = page.locator('[data-provider-models="openai"] tr', { hasText: 'gpt-5-mini' }).first();
    await row.waitFor();
    expect(await row.innerText()).toMatch(/^gpt-5-mini\s+size M; roles orchestrator, sub-agent; flags tools, json-schema, .*default/);
    expect(await page.locator('[data-provider-models="anthropic"] tr', { hasText: 'claude-haiku-4-5' }).first().innerText()).toMatch(/size S/);
    expect(await page.locator('[data-provider-models="openai"] caption').innerText()).toBe('OpenAI');
    await page.locator('[data-fallbacks] li').first().waitFor();
    // The model catalog, fallbacks, connectors and web search are built: none says otherwise.
    expect(await page.locator('[data-section="assistant"] [data-unavailable]', { hasText: /model catalog|fallback|Connectors|Web search/ }).count()).toBe(0);
    await page.getByLabel('Id', { exact: true }).fill('calendar');
    await page.getByLabel('Name', { exact: true }).fill('Calendar');
    await page.getByLabel('Server address', { exact: true }).fill('https://mcp.calendar.test/mcp');
    await page.getByLabel('Sign-in', { exact: true }).selectOption('oauth');
    await page.getByLabel('Authorize address', { exact: true }).fill('https://auth.connector.test/authorize');
    await page.getByLabel('Token address', { exact: true }).fill('https://auth.connector.test/token');
    await page.getByLabel('Client id', { exact: true }).fill('desk-connector-client');
    await page.click('text=Save connector');
    await page.getByText('Connector saved.').waitFor();
    const item = page.locator('[data-section="assistant"] li', { hasText: 'Calendar (calendar)' });
    await item.getByText('status: needs-sign-in').waitFor();
    await item.getByRole('button', { name: 'Sign in' }).click();
    const link = page.locator('[data-verify-link]');
    await link.waitFor();
    const href = (await link.getAttribute('href'))!;
    expect(href).toMatch(/^http:\/\/127\.0\.0\.1:\d+\/oauth\/go\?k=[0-9a-f]{32}$/);
    // Opened where the owner signs in to the service (no device token there): the exact key gets the authorize address.
    const go = await fetch(href, { method: 'POST', redirect: 'manual' });
    expect(go.status).toBe(303);
    expect(go.headers.get('location')).toMatch(/^https:\/\/auth\.connector\.test\/authorize\?response_type=code&client_id=desk-connector-client&/);
    const wrong = await fetch(href.replace(/k=\w+$/, `k=${'0'.repeat(32)}`), { method: 'POST', redirect: 'manual' });
    expect(wrong.headers.get('location')).toBe('/');
    // The tool server entry: inert until approved here; Remove approval takes it back.
    await item.getByText('approved: false').waitFor();
    await item.getByRole('button', { name: 'Approve', exact: true }).click();
    await item.getByText('approved: true').waitFor();
    const approved = (await (await device.fetch('/api/connectors', { token })).json()) as { connectors: Array<{ id: string; approved: boolean }> };
    expect(approved.connectors.find((c) => c.id === 'calendar')?.approved).toBe(true);
    await item.getByRole('button', { name: 'Remove approval' }).click();
    await item.getByText('approved: false').waitFor();
    expect(await item.getByRole('button', { name: 'Approve', exact: true }).count()).toBe(1);
  });

  it('checks for updates, then offers \'Install anyway (I am charging)\' on the battery refusal and re-submits with force=1', async () => {
    await device.board.request('battery.set', { present: true, levelPct: 12, healthPct: 95, external: false, charging: false });
    const applies: string[] = [];
    page.on('request', (r) => r.url().endsWith('/api/ota/apply') && applies.push(r.postData() ?? ''));
    await open('updates');
    // The device's feed is the placeholder in the reserved .invalid domain: the check says so.
    await page.click('text=Check for updates');
    await page.getByText('Check done: the release feed could not be reached.').waitFor({ timeout: 30_000 });
    await page.click('text=Install update');
    const anyway = page.getByRole('button', { name: 'Install anyway (I am charging)' });
    await anyway.waitFor();
    expect(await page.locator('[data-section="updates"] .msg.bad').first().innerText()).toMatch(/power|charge|battery/i);
    await anyway.click();
    await page.getByText(/Installing: the device downloads/).waitFor();
    expect(applies).toEqual(['', 'force=1']);
    await device.board.request('battery.set', { levelPct: 90, external: true });
  });

  it('Memory > Clear conversation asks once more, then forgets the conversation', async () => {
    await open('memory');
    await page.getByLabel('Conversation', { exact: true }).fill('console');
    await page.click('text=Clear conversation…');
    await page.getByRole('button', { name: 'Yes, do it' }).click();
    await page.getByText('The conversation is forgotten; long-term memory and files are kept.').waitFor();
  });

  it('the danger zone refuses a wrong phrase and changes nothing', async () => {
    await device.command('MEMFILL vec 3');
    const stats = async (): Promise<number> => ((await (await device.fetch('/api/mem/stats', { token })).json()) as { vectors: number }).vectors;
    expect(await stats()).toBe(3);
    const boots = (await device.board.request<{ bootCount: number }>('status')).bootCount;
    await open('danger');
    const zone = page.locator('[data-zone="/api/storage/erase"]');
    await zone.getByLabel('Type ERASE STORAGE to confirm').fill('erase storage');
    await zone.getByRole('button', { name: 'Erase storage' }).click();
    await zone.getByText(/Type ERASE STORAGE exactly/).waitFor();
    expect(await zone.locator('.msg').innerText()).toMatch(/Nothing was changed/);
    // The device answered the refusal: a matching phrase would have scheduled the erase and its restart before answering.
    expect((await device.board.request<{ bootCount: number }>('status')).bootCount).toBe(boots);
    expect(await stats()).toBe(3);
  });

  it('downloads are fetched as Blobs with the header token; no link or request carries the token in its address', async () => {
    const seen: Array<{ url: string; header: string | undefined }> = [];
    page.on('request', (r) => seen.push({ url: r.url(), header: r.headers()['x-device-token'] }));
    await open('status');
    const [download] = await Promise.all([page.waitForEvent('download'), page.click('text=Download the log')]);
    expect(download.suggestedFilename()).toBe('device-log.txt');
    expect(download.url()).toMatch(/^blob:/);
    const text = readFileSync((await download.path())!, 'utf8');
    // The device's log ring (1280 bytes, spec Limits) as it was: whole lines, and the oldest of them still
    // in the ring as the device serves it now (which lines those are depends on how busy the boot was).
    const lines = text.trim().split('\n');
    expect(lines.length).toBeGreaterThan(3);
    expect(lines.every((l) => /^\[\d+\.\d{3}\] (?:[A-Z] )?[\w-]+: /.test(l)), text).toBe(true);
    const now = await (await device.fetch('/api/log', { token })).text();
    expect(now).toContain(lines[lines.length - 1]);
    expect(text).not.toContain(token);
    const fetched = seen.filter((s) => s.url.endsWith('/api/log'));
    expect(fetched.length).toBeGreaterThan(0);
    expect(fetched.every((s) => s.header === token)).toBe(true);
    expect(seen.every((s) => !s.url.includes(token) && !/[?&]t=/.test(s.url))).toBe(true);
    const links = await inPage<string[]>("Array.from(document.querySelectorAll('[href],[src]')).map((e) => e.getAttribute('href') ?? e.getAttribute('src') ?? '')");
    expect(links.filter((l) => l.includes('t=') || l.includes(token.slice(0, 8)))).toEqual([]);
  });
});

/** One /mcp tool call as the token holder. */
const tool = (name: string, args: Record<string, unknown>) => device.tool(token, name, args);

const cardTitled = (title: string) => page.locator('section.card', { has: page.getByRole('heading', { name: title, exact: true }) });

describe('Memory & Files and Safety > Downloads', () => {
  it('a file of the store downloads as a Blob with the header token and arrives byte for byte', async () => {
    const body = '# Einkauf\nÄpfel, Brot, Kaffee ☕\n';
    expect(await tool('artifact.save', { project: 'home', name: 'list.md', text: body })).toEqual({ isError: false, text: `Saved home/list.md (${Buffer.byteLength(body)} bytes).` });
    const seen: Array<{ url: string; header: string | undefined }> = [];
    page.on('request', (r) => seen.push({ url: r.url(), header: r.headers()['x-device-token'] }));
    await open('memory');
    const item = cardTitled('Files').locator('li', { hasText: 'home/list.md' });
    const [download] = await Promise.all([page.waitForEvent('download'), item.getByRole('button', { name: 'Download' }).click()]);
    expect(download.suggestedFilename()).toBe('list.md');
    expect(download.url()).toMatch(/^blob:/);
    expect(readFileSync((await download.path())!)).toEqual(Buffer.from(body));
    const fetched = seen.filter((r) => r.url.includes('/api/files/dl?'));
    expect(fetched.map((r) => new URL(r.url).search)).toEqual(['?project=home&name=list.md']);
    expect(fetched[0]!.header).toBe(token);
    await cardTitled('Files').getByText('list.md was downloaded.').waitFor();
  });

  it('uploads a text file into the store; a file of another kind is refused with a note', async () => {
    await open('memory');
    const files = cardTitled('Files');
    await files.getByLabel('Text file').setInputFiles({ name: 'notes.md', mimeType: 'text/markdown', buffer: Buffer.from('# Notes\nfrom the browser\n') });
    await files.getByLabel('Project').fill('web-e2e');
    await files.getByRole('button', { name: 'Upload file' }).click();
    await files.getByText('Saved web-e2e/notes.md.').waitFor();
    await files.locator('li', { hasText: 'web-e2e/notes.md' }).waitFor();
    expect((await tool('files.read', { project: 'web-e2e', name: 'notes.md' })).text).toMatch(/^# Notes\nfrom the browser/);
    await files.getByLabel('Text file').setInputFiles({ name: 'photo.png', mimeType: 'image/png', buffer: Buffer.from([0x89, 0x50, 0x4e, 0x47]) });
    await files.getByRole('button', { name: 'Upload file' }).click();
    await files.getByText('Only .md, .txt, .csv and .json files can be saved; photo.png was not uploaded.').waitFor();
  });

  it('Add music takes a .wav, refuses a .txt with a note, and says so without a card and with one under 1 GB', async () => {
    await open('memory');
    const music = cardTitled('Music');
    const wav = { name: 'tone.wav', mimeType: 'audio/wav', buffer: Buffer.from(wavBytes({ seconds: 0.2 })) };
    await music.getByLabel('Music files').setInputFiles(wav);
    await music.getByRole('button', { name: 'Add music' }).click();
    await music.getByText('Added tone.wav.').waitFor();
    const tracks = (await (await device.fetch('/api/music', { token })).json()) as { tracks: Array<{ name: string; playable: boolean }> };
    expect(tracks.tracks).toEqual([expect.objectContaining({ name: 'tone.wav', playable: true })]);
    await music.getByLabel('Music files').setInputFiles({ name: 'notes.txt', mimeType: 'text/plain', buffer: Buffer.from('hello') });
    await music.getByRole('button', { name: 'Add music' }).click();
    await music.getByText('Only .wav and .mp3 files can be added; not added: notes.txt.').waitFor();

    const capacity = (await device.board.request<{ sd: { sizeBytes: number } }>('status')).sd.sizeBytes;
    const reopen = async (): Promise<void> => {
      await page.reload();
      await page.waitForSelector('[data-section="memory"][data-ready]');
    };
    // No card: the listing and Add music say so.
    await device.board.request('sd.remove');
    await reopen();
    await cardTitled('Files').getByText('No SD card: files need a card. Insert one (1 GB or more).').waitFor();
    await cardTitled('Music').getByLabel('Music files').setInputFiles(wav);
    await cardTitled('Music').getByRole('button', { name: 'Add music' }).click();
    await cardTitled('Music').getByText('No SD card: music needs a card (1 GB or more).').waitFor();
    // A card under 1 GB: unsupported, not "no card".
    await device.board.request('sd.size', { bytes: 512 * 1024 ** 2 });
    await device.board.request('sd.insert');
    await reopen();
    await cardTitled('Files').getByText('The SD card is under 1 GB, which is not supported: nothing can be saved on it.').waitFor();
    await cardTitled('Music').getByLabel('Music files').setInputFiles(wav);
    await cardTitled('Music').getByRole('button', { name: 'Add music' }).click();
    await cardTitled('Music').getByText('The SD card is under 1 GB, which is not supported: music cannot be added to it.').waitFor();
    expect(await cardTitled('Music').getByText(/No SD card/).count()).toBe(0);
    await device.board.request('sd.size', { bytes: capacity });
    await reopen();
    await cardTitled('Files').locator('li', { hasText: 'web-e2e/notes.md' }).waitFor();
  });

  it('Safety > Downloads sets the url policy; a pending download approved on the page runs and lands, another denied is dropped', async () => {
    const served: string[] = [];
    server = createServer((req, res) => {
      served.push(req.url ?? '');
      if (req.url === '/recipe.md') return void res.end('# Recipe\nflour, water, salt\n');
      if (req.url === '/other.md') return void res.end('# Other\n');
      res.statusCode = 404;
      res.end('no');
    });
    await new Promise<void>((r) => server!.listen(0, '127.0.0.1', () => r()));
    const base = `http://127.0.0.1:${(server.address() as { port: number }).port}`;
    const downloads = async (): Promise<{ policy: string; pending: Array<{ id: string }>; jobs: Array<{ id: string; state: string }> }> =>
      (await (await device.fetch('/api/downloads', { token })).json()) as { policy: string; pending: Array<{ id: string }>; jobs: Array<{ id: string; state: string }> };

    await open('assistant');
    const safety = cardTitled('Safety and downloads');
    await safety.getByLabel('Download policy').selectOption('off');
    await safety.getByText('Download policy saved.').waitFor();
    expect((await downloads()).policy).toBe('off');
    expect((await tool('files.fetch', { url: `${base}/recipe.md` })).text).toMatch(/^refused: Downloads are switched off/);
    await safety.getByLabel('Download policy').selectOption('ask');
    await expect.poll(async () => (await downloads()).policy).toBe('ask');

    const idOf = (t: string): string => /id (f[0-9a-f]{6})/.exec(t)![1]!;
    const keep = idOf((await tool('files.fetch', { url: `${base}/recipe.md`, project: 'kitchen' })).text);
    const drop = idOf((await tool('files.fetch', { url: `${base}/other.md`, project: 'kitchen' })).text);
    expect((await downloads()).pending.map((p) => p.id).sort()).toEqual([keep, drop].sort());
    await page.reload();
    await page.waitForSelector('[data-section="assistant"][data-ready]');
    const pendingItem = (url: string) => cardTitled('Safety and downloads').locator('li', { hasText: url });
    expect(await cardTitled('Safety and downloads').getByLabel('Download policy').inputValue()).toBe('ask');
    await pendingItem(`${base}/recipe.md`).getByRole('button', { name: 'Approve' }).click();
    await expect.poll(async () => (await downloads()).jobs.find((j) => j.id === keep)?.state, { timeout: 15_000 }).toBe('done');
    await pendingItem(`${base}/recipe.md`).waitFor({ state: 'detached' });
    await pendingItem(`${base}/other.md`).getByRole('button', { name: 'Deny' }).click();
    await pendingItem(`${base}/other.md`).waitFor({ state: 'detached' });
    await cardTitled('Safety and downloads').getByText('Nothing is waiting.').waitFor();
    const after = await downloads();
    expect(after.pending).toEqual([]);
    expect(after.jobs.some((j) => j.id === drop)).toBe(false);
    expect(served).toEqual(['/recipe.md']);
    expect((await tool('files.read', { project: 'kitchen', name: 'recipe.md' })).text).toMatch(/^# Recipe\nflour, water, salt/);
  });
});

/** A tool call over /mcp with the device token (the owner) that must succeed: its text. */
async function mcpTool(name: string, args: Record<string, unknown>): Promise<string> {
  const r = await tool(name, args);
  expect(r.isError, r.text).toBe(false);
  return r.text;
}

describe('approvals on the page', () => {
  it('approves a routine the assistant created, pauses it, sets the time zone and the wakeup mode', async () => {
    const id = /Routine (r[0-9a-f]{4})/.exec(await mcpTool('loop.create', { name: 'Plants', prompt: 'Remind me to water the plants.', schedule: { kind: 'daily', at: '08:00' } }))![1]!;
    await open('routines');
    const item = page.locator('ul.items li', { hasText: `Plants (${id})` });
    await item.getByText('approval: pending').waitFor();
    await item.getByRole('button', { name: 'Approve' }).click();
    await page.locator('ul.items li', { hasText: `Plants (${id})` }).getByText('approval: approved').waitFor();
    const listed = (await (await device.fetch('/api/routines', { token })).json()) as { routines: Array<{ id: string; approved: boolean; next: string }> };
    expect(listed.routines.find((r) => r.id === id)).toMatchObject({ approved: true, next: expect.stringMatching(/ 08:00 UTC$/) });
    await page.locator('ul.items li', { hasText: `Plants (${id})` }).getByRole('button', { name: 'Pause' }).click();
    await page.locator('ul.items li', { hasText: `Plants (${id})` }).getByText('enabled: false').waitFor();

    await page.getByLabel('Time zone (POSIX TZ)').fill('CET-1CEST,M3.5.0,M10.5.0/3');
    await page.getByRole('button', { name: 'Save time zone' }).click();
    await page.getByText(/^The time zone is CET-1CEST,M3\.5\.0,M10\.5\.0\/3; it is /).waitFor();
    expect(((await (await device.fetch('/api/timezone', { token })).json()) as { tz: string }).tz).toBe('CET-1CEST,M3.5.0,M10.5.0/3');
    await page.getByLabel('Time zone (POSIX TZ)').fill('Europe/Berlin');
    await page.getByRole('button', { name: 'Save time zone' }).click();
    await page.getByText(/is not a POSIX time zone/).waitFor();

    await page.getByLabel('Approval').selectOption('ask');
    await page.getByText('Saved.').waitFor();
    const w = /w[0-9a-f]{4}/.exec(await mcpTool('wakeup.set', { minutes: 30, note: 'Check the oven' }))![0];
    await open('updates');
    await open('routines');
    const wake = page.locator('ul.items li', { hasText: 'Check the oven' });
    await wake.getByText('state: pending').waitFor();
    await wake.getByRole('button', { name: 'Approve' }).click();
    await page.locator('ul.items li', { hasText: 'Check the oven' }).getByText('state: armed').waitFor();
    const wakes = (await (await device.fetch('/api/wakeups', { token })).json()) as { mode: string; wakeups: Array<{ id: string; state: string }> };
    expect(wakes).toMatchObject({ mode: 'ask', wakeups: [{ id: w, state: 'armed' }] });
  });

  it('shows a skill the assistant saved, and approves it', async () => {
    await mcpTool('skill.save', { id: 'trips', md: '---\ntitle: Trip planner\ninject: spawn\n---\nPrefer trains to planes.' });
    await open('assistant');
    const item = page.locator('ul.items li', { hasText: 'Trip planner (trips)' });
    await item.getByText('approved: false').waitFor();
    await item.getByRole('button', { name: 'Show text' }).click();
    await item.locator('pre').getByText('Prefer trains to planes.').waitFor();
    await item.getByRole('button', { name: 'Approve' }).click();
    await page.locator('ul.items li', { hasText: 'Trip planner (trips)' }).getByText('approved: true').waitFor();
    // Built-in skills have neither Approve nor Deny.
    const builtin = page.locator('ul.items li', { hasText: 'Research brief (research)' });
    expect(await builtin.getByRole('button', { name: 'Deny' }).count()).toBe(0);
    const skills = (await (await device.fetch('/api/skills', { token })).json()) as { skills: Array<{ id: string; approved: boolean }> };
    expect(skills.skills.find((s) => s.id === 'trips')).toMatchObject({ approved: true });
  });
});

/** GET a JSON route with the current token. */
async function api<T>(path: string): Promise<T> {
  const res = await device.fetch(path, { token });
  expect(res.status, path).toBe(200);
  return (await res.json()) as T;
}

async function reopen(id: string): Promise<void> {
  await page.reload();
  await page.waitForSelector(`[data-section="${id}"][data-ready]`);
}

describe('Assistant settings on the page', () => {
  it('a provider key is saved write-only: the page says it is set and never shows it, the API and the log never carry it; it can be removed', async () => {
    const key = `sk-web-e2e-${'k'.repeat(20)}${Date.now().toString(36)}`;
    await open('assistant');
    const keys = cardTitled('Provider keys');
    const openai = page.locator('form[data-provider="openai"]');
    await openai.getByText('No key set.').waitFor();
    // A malformed key: the device refuses it with its own sentence.
    await openai.getByLabel('OpenAI key').fill('sk with spaces');
    await openai.getByRole('button', { name: 'Save key' }).click();
    await keys.getByText('The openai key is malformed. Nothing was changed.').waitFor();
    expect((await api<{ keys: Record<string, boolean> }>('/api/orch')).keys['openai']).toBe(false);

    await openai.getByLabel('OpenAI key').fill(key);
    await openai.getByRole('button', { name: 'Save key' }).click();
    await keys.getByText('The OpenAI key was saved.').waitFor();
    await openai.getByText('A key is set (it is never shown). Paste a new one to replace it.').waitFor();
    expect(await openai.getByLabel('OpenAI key').inputValue()).toBe('');
    expect(await openai.getByRole('button', { name: 'Replace key' }).count()).toBe(1);
    const orch = await (await device.fetch('/api/orch', { token })).text();
    expect(orch).not.toContain(key);
    expect((JSON.parse(orch) as { keys: Record<string, boolean> }).keys).toEqual({ openai: true, anthropic: false, mistral: false, zai: false, router: false, custom: false });
    expect(await (await device.fetch('/api/state', { token })).text()).not.toContain(key);
    expect(await (await device.fetch('/api/log', { token })).text()).not.toContain(key);

    await reopen('assistant');
    await openai.getByText('A key is set (it is never shown). Paste a new one to replace it.').waitFor();
    expect(await openai.getByLabel('OpenAI key').inputValue()).toBe('');
    expect(await page.content()).not.toContain(key);
    expect(await page.locator('form[data-provider="anthropic"]').getByText('No key set.').count()).toBe(1);

    await openai.getByRole('button', { name: 'Remove key' }).click();
    await keys.getByText('The OpenAI key was removed.').waitFor();
    await openai.getByText('No key set.').waitFor();
    expect((await api<{ keys: Record<string, boolean> }>('/api/orch')).keys['openai']).toBe(false);
  });

  it('provider priority, the orchestrator model, the directive, midFail, the prompt budget and a provider\'s monthly token budget are saved and read back after a reload', async () => {
    await open('assistant');
    const prio = cardTitled('Provider priority');
    const order = (): Promise<string[]> => prio.locator('li span').allInnerTexts();
    expect(await order()).toEqual(['OpenAI', 'Anthropic', 'Mistral', 'Z.ai', 'Model router', 'Custom endpoint']);
    await prio.getByRole('button', { name: 'Move Mistral up' }).click();
    await prio.getByRole('button', { name: 'Move Mistral up' }).click();
    await prio.getByRole('button', { name: 'Move Custom endpoint up' }).click();
    expect(await order()).toEqual(['Mistral', 'OpenAI', 'Anthropic', 'Z.ai', 'Custom endpoint', 'Model router']);
    expect(await prio.getByRole('button', { name: 'Move Mistral up' }).isDisabled()).toBe(true);
    // Moving is local until saved.
    expect((await api<{ priority: string[] }>('/api/orch')).priority).toEqual(['openai', 'anthropic', 'mistral']);
    await prio.getByRole('button', { name: 'Save priority' }).click();
    await prio.getByText('Priority saved.').waitFor();

    const models = cardTitled('Models');
    await models.getByLabel('Orchestrator model').fill('claude-haiku-4-5');
    await models.getByRole('button', { name: 'Save model' }).click();
    await models.getByText('Model saved.').waitFor();

    const conv = cardTitled('Conversation');
    const directive = conv.getByLabel('Directive', { exact: true });
    // Over 1500 bytes (UTF-8): the count says so and the device refuses it, changing nothing.
    await directive.fill(`${'x'.repeat(1499)}☕`);
    await conv.getByText('1502 of 1500 bytes').waitFor();
    await conv.getByLabel('Prompt budget (bytes)').fill('16384');
    await conv.getByRole('button', { name: 'Save', exact: true }).click();
    await conv.getByText('The directive may be at most 1500 bytes. Nothing was changed.').waitFor();
    expect(await api<{ directive: string; promptBudget: number }>('/api/orch')).toMatchObject({ directive: '', promptBudget: 32768 });
    // A directive of exactly 1500 bytes, most of them in three-byte characters.
    let text = 'Antworte kurz und höflich. ';
    while (Buffer.byteLength(text) + Buffer.byteLength('日本語で短く答えてください。') <= 1500) text += '日本語で短く答えてください。';
    text += '.'.repeat(1500 - Buffer.byteLength(text));
    await directive.fill(text);
    await conv.getByText(`${Buffer.byteLength(text)} of 1500 bytes`).waitFor();
    await conv.getByLabel('Fail over mid-turn (keep the conversation when switching providers)').uncheck();
    await conv.getByRole('button', { name: 'Save', exact: true }).click();
    await conv.getByText('Saved.', { exact: true }).waitFor();

    expect(await api('/api/orch')).toMatchObject({
      priority: ['mistral', 'openai', 'anthropic', 'zai', 'custom', 'router'],
      model: 'claude-haiku-4-5',
      directive: text,
      midFail: false,
      promptBudget: 16384,
    });
    await reopen('assistant');
    expect(await order()).toEqual(['Mistral', 'OpenAI', 'Anthropic', 'Z.ai', 'Custom endpoint', 'Model router']);
    expect(await cardTitled('Models').getByLabel('Orchestrator model').inputValue()).toBe('claude-haiku-4-5');
    expect(await cardTitled('Conversation').getByLabel('Directive', { exact: true }).inputValue()).toBe(text);
    expect(await cardTitled('Conversation').getByLabel('Fail over mid-turn (keep the conversation when switching providers)').isChecked()).toBe(false);
    expect(await cardTitled('Conversation').getByLabel('Prompt budget (bytes)').inputValue()).toBe('16384');
    // An empty model: the provider's default.
    await cardTitled('Models').getByLabel('Orchestrator model').fill('');
    await cardTitled('Models').getByRole('button', { name: 'Save model' }).click();
    await cardTitled('Models').getByText('The provider\'s default model will be used.').waitFor();
    expect((await api<{ model: string }>('/api/orch')).model).toBe('');

    // Usage and budgets: the month's tokens per provider (from /api/state usage.budget) and the owner's monthly budget.
    const usage = cardTitled('Usage and budgets');
    const anthropicBudget = usage.getByLabel('Anthropic: monthly token budget');
    await usage.locator('[data-usage="anthropic"]').getByText(/this month \d/).waitFor();
    await anthropicBudget.fill('250000');
    await usage.locator('[data-usage="anthropic"]').getByRole('button', { name: 'Save budget' }).click();
    await usage.getByText('The Anthropic budget was saved.').waitFor();
    await usage.locator('[data-usage="anthropic"]').getByText(/Budget 250\u2009000 a month\./).waitFor();
    expect((await api<{ budgets: Record<string, number | null> }>('/api/orch')).budgets['anthropic']).toBe(250000);
    expect((await api<{ usage: { budget: Record<string, { budget: number | null }> } }>('/api/state')).usage.budget['anthropic']!.budget).toBe(250000);
    await reopen('assistant');
    expect(await cardTitled('Usage and budgets').getByLabel('Anthropic: monthly token budget').inputValue()).toBe('250000');
    await cardTitled('Usage and budgets').getByLabel('Anthropic: monthly token budget').fill('0');
    await cardTitled('Usage and budgets').locator('[data-usage="anthropic"]').getByRole('button', { name: 'Save budget' }).click();
    await cardTitled('Usage and budgets').getByText('The Anthropic budget was saved.').waitFor();
    expect((await api<{ budgets: Record<string, number | null> }>('/api/orch')).budgets['anthropic']).toBeNull();
  });
});

interface OtaView {
  ota: string;
  otaPct: number;
  lastOta: string | null;
  autoUpd: boolean;
}

describe('Voice on the page', () => {
  it('shows the voice settings with their values and what each provider lacks, refuses one without its key with the reason, saves one that is ready; shows the turn now', async () => {
    // No Mistral key on this device; an OpenAI key for speech and transcription.
    const orch = await device.fetch('/api/orch', { method: 'POST', token, body: new URLSearchParams({ key_openai: 'sk-page-openai-0123', key_mistral: '' }) });
    expect(orch.status).toBe(200);
    await open('voice');
    const voice = cardTitled('Voice settings');
    const stt = voice.getByLabel('Speech to text (what you say)');
    expect(await stt.inputValue()).toBe('off');
    expect(await stt.locator('option[value="mistral"]').innerText()).toMatch(/not ready: sttProv is mistral, and no mistral key is set/);
    await stt.selectOption('mistral');
    await voice.getByRole('button', { name: 'Save voice settings' }).click();
    await voice.getByText(/^No-stt-key: sttProv is mistral, and no mistral key is set.*Nothing was changed\.$/).waitFor();
    expect((await api<{ sttProv: string }>('/api/voice')).sttProv).toBe('off');
    await voice.getByLabel('Speech to text (what you say)').selectOption('openai');
    await voice.getByLabel('Voice replies: speak the reply aloud').check();
    await voice.getByLabel('Voice', { exact: true }).fill('coral');
    await voice.getByRole('button', { name: 'Save voice settings' }).click();
    await voice.getByText('Voice settings saved.').waitFor();
    expect(await api('/api/voice')).toMatchObject({ sttProv: 'openai', ttsOn: true, ttsVoice: 'coral' });
    expect(await voice.getByLabel('Speech to text (what you say)').inputValue()).toBe('openai');
    // The turn now: a console turn's reply shows (the page asks while the section is open).
    await device.command('TURN hello from the console', 30_000);
    await cardTitled('Now').getByText(/^Answered \(console/).waitFor();
  });
});

describe('Updates on the page', () => {
  it('Install new versions automatically switches auto-install on and off; the device reports it', async () => {
    await open('updates');
    const auto = page.getByLabel('Install new versions automatically');
    expect(await auto.isChecked()).toBe(false);
    await auto.check();
    await page.getByText('Updates will install on their own when the device is idle and powered.').waitFor();
    expect((await api<OtaView>('/api/state')).autoUpd).toBe(true);
    expect(await device.command('OTA?')).toMatch(/^autoUpd=1$/m);
    await reopen('updates');
    expect(await auto.isChecked()).toBe(true);
    await auto.uncheck();
    await page.getByText('Updates install only when you ask.').waitFor();
    expect((await api<OtaView>('/api/state')).autoUpd).toBe(false);
    expect(await device.command('OTA?')).toMatch(/^autoUpd=0$/m);
  });

  it('shows the download progress, and a dry run of the same version verifies it without installing or restarting', async () => {
    // A release of the running build, signed with the test key, on a local update server under its own host name.
    const work = tempDir('desk-web-ota-');
    const image = join(work, 'firmware.img');
    copyFileSync(join(ROOT, 'build/fw/firmware.img'), image);
    const version = imageVersion(readFileSync(image)) as string;
    release({ image, version, keyPem: ensureTestSigningKey().pem, out: join(work, 'feed') });
    const host = 'updates.web-page.invalid';
    const imagePath = `/feed/${version}/desk-${version}.img`;
    const servers: UpdateServer[] = [];
    const serve = async (stallAt?: number): Promise<UpdateServer> => {
      const s = await startUpdateServer({ root: work, names: [host] });
      servers.push(s);
      if (stallAt !== undefined) s.faults.set(imagePath, { kind: 'stall', after: stallAt });
      await device.board.request('net.route', { host, port: 443, to: `127.0.0.1:${s.port}` });
      return s;
    };
    const before = await device.board.request<{ bootCount: number; runningSlot: number }>('status');
    // The server stops sending half-way: the download holds there, at a known percentage.
    const size = statSync(image).size;
    const stallAt = Math.floor(size / 2);
    const pct = Math.floor((stallAt * 100) / size);
    const stalled = await serve(stallAt);
    expect(await device.command(`OTAURL https://${host}/feed`)).toBe(`otaBase=https://${host}/feed\nOK`);
    try {
      await open('updates');
      await page.getByLabel('Verify only, do not install (dry run)').check();
      await page.getByLabel('Allow the same or an older version').check();
      const bar = page.getByRole('progressbar', { name: 'Download progress' });
      expect(await bar.isVisible()).toBe(false);
      await page.click('text=Install update');
      await page.getByText('Verifying the update without installing it…').waitFor();
      await expect.poll(async () => (await api<OtaView>('/api/state')).otaPct, { timeout: 20_000 }).toBe(pct);
      await page.getByText(`Downloading: ${pct} %`, { exact: true }).waitFor();
      expect(await bar.isVisible()).toBe(true);
      expect(await inPage<number>("document.querySelector('progress').value")).toBe(pct);
      expect((await api<OtaView>('/api/state')).ota).toBe('downloading');
      // The server goes away mid-download: the dry run fails and says so; the bar goes.
      await stalled.close();
      await page.getByText(`Finished: failed ${version}.`).waitFor({ timeout: 20_000 });
      expect(await bar.isVisible()).toBe(false);

      const good = await serve();
      await page.click('text=Install update');
      await page.getByText(`Finished: verified ${version}.`).waitFor({ timeout: 30_000 });
      await page.locator('[data-section="updates"] dd', { hasText: `verified ${version}` }).waitFor();
      expect(good.requests.filter((r) => r.path === imagePath)).toHaveLength(1);
      expect(await device.command('OTA?')).toMatch(new RegExp(`^lastOta=verified ${version.replace(/\./g, '\\.')}$`, 'm'));
      // Verified only: no restart, the same slot.
      const after = await device.board.request<{ bootCount: number; runningSlot: number }>('status');
      expect(after).toMatchObject({ bootCount: before.bootCount, runningSlot: before.runningSlot });
      expect((await api<OtaView>('/api/state')).ota).toBe('idle');
    } finally {
      await device.command('OTAURL default');
      for (const s of servers) await s.close();
    }
  });
});

interface MemItem {
  content: string;
  permanent_flag: boolean;
  pinned: boolean;
}

describe('Memory on the page', () => {
  it('searches memories, removes near-duplicates, and flushes after a confirmation keeping permanent ones', async () => {
    const spareKey = 'The spare key is under the blue flowerpot by the back door.';
    const bakery = 'The bakery on Elm Street closes at six on Saturdays.';
    await mcpTool('memory.write', { content: spareKey, importance: 0.9, permanent: true });
    await mcpTool('memory.write', { content: bakery, importance: 0.6 });
    await mcpTool('memory.write', { content: 'Grandma\'s birthday is on the third of May.', importance: 0.3 });
    // A near-copy of another memory, made by an edit (a write would merge it): what dedupe is for.
    await mcpTool('memory.update', { old: 'Grandma\'s birthday is on the third of May.', content: 'The bakery on Elm Street closes at six on Saturdays!' });
    const vectors = async (): Promise<number> => (await api<{ vectors: number }>('/api/mem/stats')).vectors;
    const start = await vectors();

    await open('memory');
    const mems = cardTitled('Memories');
    const search = async (q: string): Promise<void> => {
      await mems.getByLabel('Search memories').fill(q);
      await mems.getByRole('button', { name: 'Search', exact: true }).click();
    };
    await search('where is the spare key');
    await mems.getByText(/^[1-9]\d* (memories match|memory matches)\.$/).waitFor();
    const first = mems.locator('ul.items li').first();
    const hit = await first.innerText();
    expect(hit.startsWith(spareKey)).toBe(true);
    expect(hit).toMatch(/match \d+%\s*importance 0\.9\s*permanent\s*from self/);
    expect(await mems.locator('ul.items li', { hasText: 'bakery' }).count()).toBe(0);

    await search('bakery Elm Street');
    await mems.getByText('2 memories match.').waitFor();
    await mems.getByRole('button', { name: 'Remove near-duplicates' }).click();
    await mems.getByText('1 near-duplicate removed (the more important copy is kept).').waitFor();
    await mems.getByText('1 memory matches.').waitFor();
    // The more important copy stays.
    expect((await mems.locator('ul.items li').first().innerText()).startsWith(bakery)).toBe(true);
    expect(await vectors()).toBe(start - 1);

    const all = (await api<{ items: MemItem[] }>('/api/mem/vector?limit=100')).items;
    const kept = all.filter((m) => m.permanent_flag || m.pinned).length;
    expect(all.filter((m) => m.content === spareKey)).toHaveLength(1);
    // Flush asks once more; Cancel changes nothing.
    await mems.getByRole('button', { name: 'Flush memories…' }).click();
    await mems.getByText('Forget every memory?').waitFor();
    await mems.getByRole('button', { name: 'Cancel' }).click();
    expect(await vectors()).toBe(start - 1);
    expect(await mems.getByLabel('Keep permanent memories when flushing').isChecked()).toBe(true);
    await mems.getByRole('button', { name: 'Flush memories…' }).click();
    await mems.getByRole('button', { name: 'Yes, do it' }).click();
    await mems.getByText(`${start - 1 - kept} memories forgotten, ${kept} kept.`).waitFor();
    expect(await vectors()).toBe(kept);
    await mems.getByText('0 memories match.').waitFor();
    await cardTitled('Memory').getByText(new RegExp(`^${kept} of \\d+ \\(0 pinned, ${kept} permanent\\)$`)).waitFor();
    await search('spare key');
    await mems.locator('ul.items li', { hasText: spareKey }).waitFor();
  });

  it('chooses how memories are found: told first that every memory is embedded again, then re-embedded in the background', async () => {
    const before = await api<{ current: { provider: string; model: string; dims: number }; choices: Array<{ label: string; available: boolean; why: string | null }> }>('/api/mem/embedding');
    const was = `${before.current.provider}/${before.current.model}/${before.current.dims}`;
    expect(was).toMatch(/^offline\/glove-100-w24k-[0-9a-f]+\/100$/);
    await open('memory');
    const emb = cardTitled('How memories are found');
    await emb.getByText(`Now: ${was}.`).waitFor();
    const pick = emb.getByLabel('Embed memories with');
    // a provider without its key (or endpoint) is offered but cannot be chosen, and says why
    const unusable = before.choices.filter((c) => !c.available);
    expect(unusable.length).toBeGreaterThan(0);
    for (const c of unusable) {
      const option = pick.locator('option', { hasText: c.label });
      expect(await option.isDisabled()).toBe(true);
      expect(await option.innerText()).toContain(c.why!);
    }
    await pick.selectOption({ label: 'On the device, by words only (feature hashing)' });
    await emb.getByRole('button', { name: 'Change embedding…' }).click();
    await emb.getByText(/memories is embedded again in the background/).waitFor();
    await emb.getByRole('button', { name: 'Cancel' }).click();
    expect((await api<typeof before>('/api/mem/embedding')).current).toEqual(before.current);
    await emb.getByRole('button', { name: 'Change embedding…' }).click();
    await emb.getByRole('button', { name: 'Yes, do it' }).click();
    await emb.getByText('Changed: the memories are being embedded again.').waitFor();
    await emb.getByText('Now: offline/hash-ngram-1/256.').waitFor();
    await vi.waitFor(async () => expect((await api<{ reembed: unknown }>('/api/mem/stats')).reembed).toBeNull(), { timeout: 20_000, interval: 100 });
    // memories are still found after re-embedding, then the table's embedding comes back the same way
    const found = await api<{ items: Array<{ content: string }> }>('/api/mem/vector?query=spare%20key');
    expect(found.items.some((m) => m.content.includes('spare key'))).toBe(true);
    await pick.selectOption({ label: 'On the device, by meaning and by words (GloVe word vectors)' });
    await emb.getByRole('button', { name: 'Change embedding…' }).click();
    await emb.getByRole('button', { name: 'Yes, do it' }).click();
    await emb.getByText(`Now: ${was}.`).waitFor();
  });

  it('saves the recall settings; the device keeps them', async () => {
    await open('memory');
    const cfg = cardTitled('Recall settings');
    const fields: Array<[string, string]> = [
      ['Memories recalled per turn', '8'],
      ['Relevance threshold', '0.35'],
      ['Daily decay factor', '0.9'],
      ['Room for memories in the prompt (bytes)', '4096'],
    ];
    for (const [label, value] of fields) await cfg.getByLabel(label).fill(value);
    await cfg.getByRole('button', { name: 'Save settings' }).click();
    await cfg.getByText('Saved (values outside their range were brought inside it).').waitFor();
    expect(await api('/api/mem/config')).toMatchObject({ retrieval_count: 8, relevance_threshold: 0.35, decay_factor: 0.9, max_context_bytes: 4096 });
    await reopen('memory');
    for (const [label, value] of fields) expect(await cardTitled('Recall settings').getByLabel(label).inputValue(), label).toBe(value);
  });
});

interface PersonView {
  chat: string;
  role: string;
  owner: boolean;
  overrides: Record<string, number>;
  quotas: Record<string, number | null>;
}

describe('People on the page', () => {
  it('the chat messenger keeps the bot token write-only; its allowlist lists people; a person gets a role and a quota; the last admin stays', async () => {
    const secret = `AAE-web-e2e_${'s'.repeat(16)}${Date.now().toString(36)}`;
    await open('people');
    const messenger = cardTitled('Chat messenger');
    await messenger.getByText(/^Bot: no token; /).waitFor();
    const roles = cardTitled('People and roles');
    await roles.getByText('Nobody yet: add chats to the allowlist first.').waitFor();
    await messenger.getByLabel('Bot token').fill('not-a-token');
    await messenger.getByRole('button', { name: 'Save', exact: true }).click();
    await messenger.getByText('The bot token is not in the form <bot id>:<secret> that BotFather gives. Nothing was changed.').waitFor();
    await messenger.getByLabel('Bot token').fill(`123456789:${secret}`);
    await messenger.getByLabel('Allowed chats').fill('111111111, 222222222');
    await messenger.getByLabel('Screen incoming guest messages (refused when the screen is unsure)').check();
    await messenger.getByRole('button', { name: 'Save', exact: true }).click();
    await messenger.getByText('Saved.', { exact: true }).waitFor();
    expect(await messenger.getByLabel('Bot token').inputValue()).toBe('');

    // People lists the allowlist at once: its first chat is the owner's (an admin, without quotas).
    const owner = roles.locator('li', { hasText: '111111111' });
    const other = roles.locator('li', { hasText: '222222222' });
    await other.waitFor();
    expect(await owner.getByLabel('Role').inputValue()).toBe('admin');
    await owner.getByText('The owner\'s chat: it uses the owner\'s memory, which has no quota.').waitFor();
    expect(await other.getByLabel('Role').inputValue()).toBe('user');
    await other.getByText('Quotas (0 = the role\'s default)').click();
    expect(await other.getByLabel('Memories', { exact: true }).inputValue()).toBe('0');
    await other.getByText('Now: 500', { exact: true }).waitFor();
    await other.getByLabel('Role').selectOption('guest');
    await other.getByLabel('Memories', { exact: true }).fill('40');
    await other.getByRole('button', { name: 'Save', exact: true }).click();
    await roles.getByText('Saved 222222222.').waitFor();
    const person = async (chat: string): Promise<PersonView> => (await api<{ people: PersonView[] }>('/api/people')).people.find((p) => p.chat === chat)!;
    // The other quotas stay the role's: a guest's, not the user's it was.
    expect(await person('222222222')).toMatchObject({ role: 'guest', overrides: { vectors: 40, bytes: 0, ttl_hours: 0, pins: 0 }, quotas: { vectors: 40, bytes: 16384, ttl_hours: 168, pins: 2 } });
    // Drawn again from the device's answer.
    expect(await other.getByLabel('Role').inputValue()).toBe('guest');
    await other.getByText('Quotas (0 = the role\'s default)').click();
    expect(await other.getByLabel('Memories', { exact: true }).inputValue()).toBe('40');
    await other.getByText('Now: 16384', { exact: true }).waitFor();

    // The last admin cannot be demoted: the page says why, and nothing changes.
    await owner.getByLabel('Role').selectOption('user');
    await owner.getByRole('button', { name: 'Save', exact: true }).click();
    await owner.getByText('Chat 111111111 is the last admin and cannot be demoted; make another chat an admin first. Nothing was changed.').waitFor();
    expect((await person('111111111')).role).toBe('admin');
    await owner.getByLabel('Role').selectOption('admin');
    await owner.getByRole('button', { name: 'Save', exact: true }).click();
    await roles.getByText('Saved 111111111.').waitFor();

    await reopen('people');
    await messenger.getByText('A token is set (never shown). Paste a new one to replace it.').waitFor();
    await messenger.getByText(/^Bot: token set; /).waitFor();
    expect(await messenger.getByLabel('Allowed chats').inputValue()).toBe('111111111, 222222222');
    expect(await messenger.getByLabel('Screen incoming guest messages (refused when the screen is unsure)').isChecked()).toBe(true);
    expect(await page.content()).not.toContain(secret);
    const chat = await (await device.fetch('/api/chat', { token })).text();
    expect(chat).not.toContain(secret);
    expect(JSON.parse(chat)).toMatchObject({ tokenSet: true, allowlist: ['111111111', '222222222'], owner: '111111111', moderation: { inbound: true, outbound: false, fetched: false } });
    expect(await (await device.fetch('/api/log', { token })).text()).not.toContain(secret);
  });
});

describe('Sign-in & access: rotating the token', () => {
  it('after a rotation the old token and earlier codes are refused, this browser carries on, and a browser with the old sign-in is asked to sign in again', async () => {
    const old = token;
    await open('access');
    await page.click('text=Show a sign-in code');
    const earlier = await page.locator('[data-code]').innerText();
    await page.getByRole('button', { name: 'Rotate the access token…' }).click();
    await page.getByText('Sign out every other browser and void every link and code?').waitFor();
    await page.getByRole('button', { name: 'Rotate now' }).click();
    await page.getByText('The access token was rotated. Every other browser, link and code is signed out; this browser carries on.').waitFor();
    token = (await device.command('WEBTOK?')).split('\n')[0]!;
    expect(token).not.toBe(old);
    expect(await stored()).toBe(token);
    expect((await device.fetch('/api/state', { token: old })).status).toBe(401);
    expect((await device.fetch('/api/state', { token })).status).toBe(200);
    // This browser carries on.
    await open('status');
    await reopen('status');
    expect(await page.locator('#signin-title').count()).toBe(0);

    // A second browser (its own Chromium, beside this one's open keep-alive connections: the
    // device makes room by closing idle ones) still holding the old token.
    const second = await launchBrowser();
    try {
      const other = second.pages()[0] ?? (await second.newPage());
      await other.goto(`${device.url}#status`);
      await inPage(`localStorage.setItem('deskToken', ${JSON.stringify(old)})`, other);
      await other.reload();
      await other.getByText('The device no longer accepts this browser\'s sign-in (the token was rotated or the device was reset). Sign in again.').waitFor();
      await other.waitForSelector('#signin-title');
      expect(await stored(other)).toBeNull();
      // The code shown before the rotation is void.
      await other.getByLabel('Sign-in code').fill(earlier);
      await other.keyboard.press('Enter');
      await other.getByText('This sign-in code is not valid. Ask the device for a new one.').waitFor();
      // A code shown now by a signed-in browser signs it in, with the new token.
      const fresh = await api<{ code: string }>('/api/signin/code?purpose=hand');
      await other.getByLabel('Sign-in code').fill(fresh.code);
      await other.keyboard.press('Enter');
      await other.waitForSelector('[data-section="status"][data-ready]');
      expect(await stored(other)).toBe(token);
    } finally {
      await second.close();
    }
    // This browser, whose idle connections may have been closed meanwhile, still works.
    await reopen('status');
    expect(await page.locator('#signin-title').count()).toBe(0);
  });
});

describe('every section, on a phone', () => {
  it('fits 360 px without sideways scrolling, labels every control, works from the keyboard; screenshots saved', async () => {
    await page.focus('nav a[href="#updates"]');
    await page.keyboard.press('Enter');
    await page.waitForSelector('[data-section="updates"][data-ready]');
    expect(await inPage('document.activeElement?.id')).toBe('updates-title');
    for (const id of SECTIONS) {
      await open(id);
      const width = await inPage<number>('document.documentElement.scrollWidth');
      expect(width, `${id} is ${width} px wide`).toBeLessThanOrEqual(360);
      const unlabelled = await inPage<string[]>(
        "Array.from(document.querySelectorAll('main input, main select, main textarea')).filter((el) => !el.labels?.length && !el.getAttribute('aria-label')).map((el) => el.outerHTML.slice(0, 80))",
      );
      expect(unlabelled, id).toEqual([]);
      // Every subsystem the page knows is built on this firmware: no card says otherwise.
      expect(await page.locator(`[data-section="${id}"] [data-unavailable]`).allInnerTexts(), id).toEqual([]);
      await page.screenshot({ path: join(SHOTS, `${id}.png`), fullPage: true });
    }
    await page.setViewportSize({ width: 1280, height: 900 });
    await open('status');
    await page.screenshot({ path: join(SHOTS, 'status-desktop.png'), fullPage: true });
  });
});

// Last: these wipe the device.
describe('the danger zone with the exact phrase', () => {
  const bootCount = async (): Promise<number> => (await device.board.request<{ bootCount: number }>('status')).bootCount;

  it('Format card wipes the card (files, music, memories) and restarts; settings and the sign-in stay', async () => {
    const files = (): Promise<{ count: number; files: unknown[] }> => api('/api/files/list');
    expect((await files()).count).toBeGreaterThan(0);
    expect((await api<{ tracks: unknown[] }>('/api/music')).tracks.length).toBeGreaterThan(0);
    expect((await api<{ vectors: number }>('/api/mem/stats')).vectors).toBeGreaterThan(0);
    const directive = (await api<{ directive: string }>('/api/orch')).directive;
    expect(directive).not.toBe('');
    const boots = await bootCount();
    await open('danger');
    const zone = page.locator('[data-zone="/api/card/format"]');
    await zone.getByLabel('Type FORMAT CARD to confirm').fill('FORMAT CARD');
    await zone.getByRole('button', { name: 'Format card' }).click();
    await zone.getByText('Formatting; the device restarts when done.').waitFor();
    await device.board.request('wait', { for: 'ready', after: boots, timeoutMs: 20_000 });
    expect(await bootCount()).toBe(boots + 1);
    expect(await files()).toMatchObject({ count: 0, files: [] });
    expect((await api<{ tracks: unknown[] }>('/api/music')).tracks).toEqual([]);
    expect((await api<{ vectors: number }>('/api/mem/stats')).vectors).toBe(0);
    expect((await api<{ directive: string }>('/api/orch')).directive).toBe(directive);
    await open('memory');
    await cardTitled('Files').getByText('No files yet.').waitFor();
    await cardTitled('Memories').getByText('0 memories, most important first.').waitFor();
  });

  it('Factory reset erases settings, keys, the messenger, Wi-Fi and the token, and restarts into first-run setup', async () => {
    const boots = await bootCount();
    const old = token;
    await open('danger');
    const zone = page.locator('[data-zone="/api/factory-reset"]');
    await zone.getByLabel('Type FACTORY RESET to confirm').fill('FACTORY RESET');
    await zone.getByRole('button', { name: 'Factory reset' }).click();
    await zone.getByText('Resetting; the device restarts into first-run setup. Sign in again from its screen.').waitFor();
    expect(await stored()).toBeNull();
    await device.board.request('wait', { for: 'ready', after: boots, timeoutMs: 20_000 });
    expect(await bootCount()).toBe(boots + 1);
    token = (await device.command('WEBTOK?')).split('\n')[0]!;
    expect(token).not.toBe(old);
    expect((await device.fetch('/api/state', { token: old })).status).toBe(401);
    expect(await api('/api/orch')).toMatchObject({
      keys: { openai: false, anthropic: false, mistral: false, zai: false, router: false, custom: false },
      priority: ['openai', 'anthropic', 'mistral'],
      model: '',
      directive: '',
      midFail: true,
      promptBudget: 32768,
      custom: { base: '' },
    });
    expect(await api('/api/chat')).toMatchObject({ tokenSet: false, allowlist: [] });
    expect(await api('/api/mem/config')).toMatchObject({ retrieval_count: 5, relevance_threshold: 0.3 });
    expect(await api<{ known: unknown[] }>('/api/wifi')).toMatchObject({ known: [] });
    expect(await device.command('APINFO?')).toMatch(/Device-setup/);
    // Unprovisioned again: the setup network hands the new token to the page (as on first run).
    await page.reload();
    await page.waitForSelector('[data-section="danger"][data-ready]');
    expect(new URL(page.url()).search).toBe('');
    expect(await stored()).toBe(token);
    expect(await page.locator('#banner').innerText()).toMatch(/old-style \?t= link/);
  });
});

// The owner's web page in a real browser (Debian's Chromium, headless,
// through playwright-core) against the real firmware on the simulator: the
// first-run ?t= handout migrated once, sign-in from the printed ?c= link, a
// typed code from another browser's 'Show code' with its live countdown, a
// setting that survives a reboot, the battery refusal's 'Install anyway',
// a danger-zone phrase refused, a download fetched as a Blob with the header
// token, the model catalog, fallbacks and a connector's verify link, and
// every section at phone width (screenshots in test-results/web/).
import { mkdirSync, readFileSync } from 'node:fs';
import { join } from 'node:path';
import type { BrowserContext, Page } from 'playwright-core';
import { afterAll, beforeAll, describe, expect, it } from 'vitest';
import { ROOT } from '../../tools/build.mjs';
import { ensureChromium, launchBrowser } from './fixtures/browser.ts';
import { cleanup, startDevice, type Device } from './harness.ts';

const SHOTS = join(ROOT, 'test-results/web');
const SECTIONS = ['status', 'updates', 'assistant', 'memory', 'routines', 'people', 'access', 'danger'];

let device: Device;
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
    expect(code).toMatch(/^[2-9A-HJKMNP-Z]{8}$/);
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
    await new Promise((r) => setTimeout(r, 300));
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
    expect(text).toMatch(/boot: v\d+\.\d+\.\d+/);
    expect(text).not.toContain(token);
    const fetched = seen.filter((s) => s.url.endsWith('/api/log'));
    expect(fetched.length).toBeGreaterThan(0);
    expect(fetched.every((s) => s.header === token)).toBe(true);
    expect(seen.every((s) => !s.url.includes(token) && !/[?&]t=/.test(s.url))).toBe(true);
    const links = await inPage<string[]>("Array.from(document.querySelectorAll('[href],[src]')).map((e) => e.getAttribute('href') ?? e.getAttribute('src') ?? '')");
    expect(links.filter((l) => l.includes('t=') || l.includes(token.slice(0, 8)))).toEqual([]);
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
      await page.screenshot({ path: join(SHOTS, `${id}.png`), fullPage: true });
    }
    // Subsystems not built on this firmware say so plainly.
    await open('routines');
    expect(await page.locator('[data-unavailable]').count()).toBeGreaterThan(0);
    await page.setViewportSize({ width: 1280, height: 900 });
    await open('status');
    await page.screenshot({ path: join(SHOTS, 'status-desktop.png'), fullPage: true });
  });
});

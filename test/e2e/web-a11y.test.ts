// The owner's web page judged for accessibility by code we did not write:
// axe-core (through @axe-core/playwright, in Debian's Chromium) over every
// section, signed out and signed in, in the light and the dark theme, at a
// phone's width (390x844) and a desktop's (1280x900), with the states that
// matter (an error shown, a form being saved, the update progress bar, the
// second press of a destructive action, a sign-in code shown). No WCAG 2.1 A
// or AA rule may be violated; a failure names the state, the look, axe's rule
// id, its help and the element's selector. Then the keyboard alone: Tab
// reaches every control of each section in document order (scrollable
// regions too), each showing a focus ring, and Enter and Space work them.
// One simulator and one browser for the whole file; the tests that judge many
// states get three minutes each, as a loaded machine may take twice the usual.
import { AxeBuilder } from '@axe-core/playwright';
import { copyFileSync, readFileSync, statSync } from 'node:fs';
import { join } from 'node:path';
import type { BrowserContext, Page, Route } from 'playwright-core';
import { afterAll, beforeAll, describe, expect, it } from 'vitest';
import { ROOT } from '../../tools/build.mjs';
import { imageVersion, release } from '../../tools/release.mjs';
import { ensureTestSigningKey } from '../../tools/test-keys.mjs';
import { startUpdateServer, type UpdateServer } from '../../tools/update-server.mjs';
import { ensureChromium, launchBrowser } from './fixtures/browser.ts';
import { cleanup, startDevice, tempDir, type Device } from './harness.ts';

/** The WCAG 2.1 A and AA rules (axe's tags for them). */
const WCAG_21_AA = ['wcag2a', 'wcag2aa', 'wcag21a', 'wcag21aa'];
const LOOKS = [
  { name: 'light, 390x844', colorScheme: 'light', width: 390, height: 844 },
  { name: 'dark, 390x844', colorScheme: 'dark', width: 390, height: 844 },
  { name: 'light, 1280x900', colorScheme: 'light', width: 1280, height: 900 },
  { name: 'dark, 1280x900', colorScheme: 'dark', width: 1280, height: 900 },
] as const;
type Look = (typeof LOOKS)[number];
/** The keyboard walks: a phone in the light theme, a desktop in the dark one. */
const WALK_LOOKS: Look[] = [LOOKS[0], LOOKS[3]];

let device: Device;
let browser: BrowserContext;
let page: Page;
let token = '';
/** Requests the page has sent and not yet seen answered. */
let inflight = 0;
/** Every state judged, with its looks, for the figure at the end. */
const judged: string[] = [];
const axeMs: number[] = [];
/** How many controls each Tab walk went through. */
const tabStops = new Map<string, number>();

beforeAll(async () => {
  ensureChromium();
  [device, browser] = await Promise.all([startDevice(), launchBrowser({ width: 390, height: 844 })]);
  token = (await device.command('WEBTOK?')).split('\n')[0]!;
  browser.setDefaultTimeout(10_000);
  page = browser.pages()[0] ?? (await browser.newPage());
  page.on('pageerror', (e) => console.error(`page error: ${e.message}`));
  page.on('request', () => void inflight++);
  page.on('requestfinished', () => void inflight--);
  page.on('requestfailed', () => void inflight--);
}, 900_000);

afterAll(async () => {
  const ms = axeMs.reduce((a, b) => a + b, 0);
  console.log(`web-a11y: axe judged ${judged.length} page states (${judged.length / LOOKS.length} states x ${LOOKS.length} looks) in ${(ms / 1000).toFixed(1)} s, ${(ms / Math.max(1, axeMs.length)).toFixed(0)} ms a run`);
  console.log(`web-a11y: Tab walks, controls reached: ${[...tabStops].map(([w, n]) => `${w} ${n}`).join(', ')}`);
  await browser?.close();
  await cleanup();
});

const inPage = <T>(expr: string): Promise<T> => page.evaluate(expr) as Promise<T>;

async function setLook(look: Look): Promise<void> {
  await page.emulateMedia({ colorScheme: look.colorScheme });
  await page.setViewportSize({ width: look.width, height: look.height });
}

/** Waits until every request the page sent (but `held`) is answered and the page has drawn it. */
async function settle(held = 0): Promise<void> {
  await expect.poll(() => inflight, { timeout: 15_000, interval: 10 }).toBe(held);
  await inPage('new Promise((r) => requestAnimationFrame(() => requestAnimationFrame(r)))');
}

interface Finding {
  rule: string;
  help: string;
  target: string;
  html: string;
  summary: string;
  looks: string[];
}

/** axe over the page as it stands, in every look; the violations, one line per rule and element. */
async function judge(state: string, held = 0): Promise<string[]> {
  await settle(held);
  const found = new Map<string, Finding>();
  for (const look of LOOKS) {
    await setLook(look);
    const t0 = performance.now();
    // Legacy mode runs axe.run in the page itself: the page has no frames, and the default mode opens a
    // blank page for every run to merge frames' results (measured: 625 ms a run against 335 ms).
    const result = await new AxeBuilder({ page }).withTags(WCAG_21_AA).setLegacyMode(true).analyze();
    axeMs.push(performance.now() - t0);
    judged.push(`${state} (${look.name})`);
    for (const v of result.violations) {
      for (const n of v.nodes) {
        const target = n.target.map(String).join(' ');
        const key = `${v.id} ${target}`;
        const f = found.get(key) ?? { rule: v.id, help: v.help, target, html: n.html.replace(/\s+/g, ' ').slice(0, 160), summary: n.failureSummary ?? '', looks: [] };
        f.looks.push(look.name);
        found.set(key, f);
      }
    }
  }
  await setLook(LOOKS[0]);
  return [...found.values()].map((f) => `${state} [${f.looks.join('; ')}]: ${f.rule}: ${f.help}: ${f.target} ${f.html}: ${f.summary.replace(/\s+/g, ' ')}`);
}

async function open(id: string): Promise<void> {
  await page.click(`nav a[href="#${id}"]`);
  await page.waitForSelector(`[data-section="${id}"][data-ready]`);
}

/** Every section the page offers, from its navigation (so a new one is judged too). */
const sectionIds = (): Promise<string[]> => inPage("Array.from(document.querySelectorAll('nav a')).map((a) => a.getAttribute('href').slice(1))");

/** Holds the page's next request to `path` until released: the page stays in its saving state meanwhile. */
async function hold(path: string): Promise<{ release(): Promise<void> }> {
  const match = (u: URL): boolean => u.pathname === path;
  let arrived: (r: Route) => void = () => {};
  const routed = new Promise<Route>((r) => (arrived = r));
  await page.route(match, (r) => arrived(r));
  return {
    async release() {
      await (await routed).continue();
      await page.unroute(match);
    },
  };
}

async function tool(name: string, args: Record<string, unknown>): Promise<string> {
  const r = await device.tool(token, name, args);
  expect(r.isError, r.text).toBe(false);
  return r.text;
}

async function post(path: string, form: Record<string, string>): Promise<void> {
  const res = await device.fetch(path, { token, method: 'POST', body: new URLSearchParams(form) });
  expect(res.status, `${path}: ${await res.clone().text()}`).toBeLessThan(300);
}


describe('axe-core, WCAG 2.1 A and AA', () => {
  it('signed out: the sign-in form, a wrong code refused, a stale link explained, a code being exchanged', async () => {
    // A device with Wi-Fi set up, as an owner has it (the first-run handout is over).
    expect((await device.fetch('/savewifi', { method: 'POST', body: new URLSearchParams({ ssid: 'SimNet', pass: 'simnet-pass' }) })).status).toBe(202);
    await expect.poll(async () => ((await (await device.fetch('/api/state', { token })).json()) as { wifi: { station: { state: string } } }).wifi.station.state, { timeout: 10_000 }).toBe('connected');
    expect((await device.fetch('/api/wifi/handoff', { method: 'POST', token })).status).toBe(200);

    const found: string[] = [];
    await page.goto(device.url!);
    await page.waitForSelector('#signin-title');
    found.push(...(await judge('sign-in')));
    await page.getByLabel('Sign-in code').fill('AAAA-BBBB-CCCC');
    await page.keyboard.press('Enter');
    await page.locator('main .msg.bad').waitFor();
    found.push(...(await judge('sign-in, a wrong code refused')));
    await page.goto(`${device.url}?t=${'f'.repeat(24)}`);
    await page.getByText(/no longer accepts/).waitFor();
    found.push(...(await judge('sign-in, a stale ?t= link explained')));
    const exchange = await hold('/api/signin/exchange');
    await page.getByLabel('Sign-in code').fill('AAAA-BBBB-CCCC');
    await page.keyboard.press('Enter');
    await page.locator('button[aria-busy="true"]').waitFor();
    found.push(...(await judge('sign-in, a code being exchanged', 1)));
    await exchange.release();
    await page.locator('main .msg.bad').waitFor();
    expect(found, found.join('\n')).toEqual([]);
  });

  it('signed in: every section, with its folded parts open and its lists filled', async () => {
    // Something in every list: a second network, a routine, a wakeup, a skill, a memory, a file, a connector, people.
    await post('/api/wifi', { action: 'save', ssid: 'Upstairs', pass: 'upstairs-pass' });
    await tool('loop.create', { name: 'Plants', prompt: 'Remind me to water the plants.', schedule: { kind: 'daily', at: '08:00' } });
    await tool('wakeup.set', { minutes: 30, note: 'Check the oven' });
    await tool('skill.save', { id: 'trips', md: '---\ntitle: Trip planner\ninject: spawn\n---\nPrefer trains to planes.' });
    await tool('memory.write', { content: 'The spare key is under the blue flowerpot by the back door.', importance: 0.9, permanent: true });
    await tool('artifact.save', { project: 'kitchen', name: 'recipe.md', text: '# Recipe\nflour, water, salt' });
    await post('/api/connectors', { action: 'upsert', id: 'calendar', name: 'Calendar', url: 'https://mcp.calendar.test/mcp', auth: 'none' });
    await post('/api/chat', { tg_allow: '111111111, 222222222' });

    await page.goto(device.signIn!);
    await page.waitForSelector('[data-section="status"][data-ready]');
    const ids = await sectionIds();
    expect(ids).toEqual(['status', 'updates', 'assistant', 'voice', 'memory', 'routines', 'people', 'access', 'danger']);
    const found: string[] = [];
    for (const id of ids) {
      await open(id);
      await settle();
      // Folded parts (the whole snapshot, a person's quotas, writing a skill, a skill's text) are judged open.
      await inPage("document.querySelectorAll('main details').forEach((d) => (d.open = true))");
      for (const b of await page.locator('main button', { hasText: 'Show text' }).all()) await b.click();
      found.push(...(await judge(id)));
    }
    expect(found, found.join('\n')).toEqual([]);
  }, 180_000);

  it('signed in: an error shown, forms being saved, second presses asked, a code shown, OAuth fields open', async () => {
    const found: string[] = [];
    await open('status');
    const wifi = page.locator('[data-wifi-known]').locator('..');
    await wifi.getByRole('button', { name: 'Save network' }).click();
    await wifi.locator('.msg.bad').waitFor();
    found.push(...(await judge('status, a network refused')));
    const saving = await hold('/api/wifi');
    await wifi.getByLabel('Network name').fill('Upstairs');
    await wifi.getByLabel('Passphrase').fill('upstairs-pass');
    await wifi.getByRole('button', { name: 'Save network' }).click();
    await wifi.locator('button[aria-busy="true"]').waitFor();
    found.push(...(await judge('status, a network being saved', 1)));
    await saving.release();
    await wifi.getByText('Updated Upstairs.', { exact: false }).waitFor();

    await open('assistant');
    await page.getByLabel('Sign-in', { exact: true }).selectOption('oauth');
    await page.getByLabel('Directive').fill('x'.repeat(1501));
    await page.getByText('1501 of 1500 bytes').waitFor();
    found.push(...(await judge('assistant, OAuth fields open, a directive over its limit')));

    await open('voice');
    const voiceSave = await hold('/api/voice');
    await page.getByRole('button', { name: 'Save voice settings' }).click();
    await page.locator('button[aria-busy="true"]').waitFor();
    found.push(...(await judge('voice, settings being saved', 1)));
    await voiceSave.release();
    await page.getByText(/Voice settings saved\.|not ready|key/).first().waitFor();

    await open('memory');
    await page.getByRole('button', { name: 'Flush memories…' }).click();
    await page.getByRole('button', { name: 'Yes, do it' }).waitFor();
    found.push(...(await judge('memory, a flush asking for the second press')));
    await page.getByRole('button', { name: 'Cancel' }).click();

    await open('people');
    await page.getByLabel('Bot token').fill('not-a-token');
    await page.getByRole('button', { name: 'Save', exact: true }).first().click();
    await page.getByText('The bot token is not in the form').waitFor();
    found.push(...(await judge('people, a malformed bot token refused')));

    await open('access');
    await page.getByRole('button', { name: 'Show a sign-in code' }).click();
    await page.locator('[data-code]').waitFor();
    await page.getByRole('button', { name: 'Rotate the access token…' }).click();
    await page.getByRole('button', { name: 'Rotate now' }).waitFor();
    found.push(...(await judge('access, a sign-in code shown, a rotation asking for the second press')));
    await page.getByRole('button', { name: 'Cancel' }).click();

    await open('danger');
    const zone = page.locator('form[data-zone="/api/storage/erase"]');
    await zone.getByLabel('Type ERASE STORAGE to confirm').fill('erase storage please');
    await zone.getByRole('button', { name: 'Erase storage' }).click();
    await zone.locator('.msg.bad').waitFor();
    found.push(...(await judge('danger, a wrong phrase refused')));
    expect(found, found.join('\n')).toEqual([]);
  }, 180_000);

  it('signed in: Updates with a download under way (the progress bar)', async () => {
    // A release of the running build, signed with the test key, served by a local update server that
    // stops sending half-way: the download holds there, with the progress bar showing.
    const work = tempDir('desk-a11y-ota-');
    const image = join(work, 'firmware.img');
    copyFileSync(join(ROOT, 'build/fw/firmware.img'), image);
    const version = imageVersion(readFileSync(image)) as string;
    release({ image, version, keyPem: ensureTestSigningKey().pem, out: join(work, 'feed') });
    const host = 'updates.web-a11y.invalid';
    const server: UpdateServer = await startUpdateServer({ root: work, names: [host] });
    server.faults.set(`/feed/${version}/desk-${version}.img`, { kind: 'stall', after: Math.floor(statSync(image).size / 2) });
    await device.board.request('net.route', { host, port: 443, to: `127.0.0.1:${server.port}` });
    expect(await device.command(`OTAURL https://${host}/feed`)).toBe(`otaBase=https://${host}/feed\nOK`);
    try {
      await open('updates');
      await page.getByLabel('Verify only, do not install (dry run)').check();
      await page.getByLabel('Allow the same or an older version').check();
      await page.getByRole('button', { name: 'Install update' }).click();
      const bar = page.getByRole('progressbar', { name: 'Download progress' });
      await bar.waitFor();
      await page.getByText(/^Downloading: \d+ %$/).waitFor({ timeout: 20_000 });
      const found = await judge('updates, a download under way');
      expect(await bar.isVisible()).toBe(true);
      expect(found, found.join('\n')).toEqual([]);
    } finally {
      await server.close();
      await page.getByText(`Finished: failed ${version}.`).waitFor({ timeout: 20_000 });
      await device.command('OTAURL default');
    }
  });

  it('the judge can fail: the old danger colours and a scrolling box out of the keyboard\'s reach are named', async () => {
    await open('status');
    await inPage(`(() => {
      const b = document.createElement('button');
      b.className = 'danger';
      b.id = 'old-danger';
      b.textContent = 'Forget';
      b.style.cssText = 'background:#ff8a80;border-color:#ff8a80;color:#fff';
      const pre = document.createElement('pre');
      pre.id = 'old-log';
      pre.style.maxHeight = '3rem';
      pre.textContent = 'line\\n'.repeat(40);
      document.querySelector('main').append(b, pre);
    })()`);
    const found = await judge('negative control');
    await inPage("document.getElementById('old-danger').remove(); document.getElementById('old-log').remove()");
    const every = 'light, 390x844; dark, 390x844; light, 1280x900; dark, 1280x900';
    expect(found.sort()).toEqual([
      expect.stringMatching(new RegExp(`^negative control \\[${every}\\]: color-contrast: Elements must meet minimum color contrast ratio thresholds: #old-danger <button .*>Forget</button>: .*contrast of 2\\.28 \\(foreground color: #ffffff, background color: #ff8a80`)),
      expect.stringMatching(new RegExp(`^negative control \\[${every}\\]: scrollable-region-focusable: Scrollable region must have keyboard access: #old-log <pre id="old-log"[^>]*>line line.*: Fix any of the following: Element should have focusable content Element should be focusable$`)),
    ]);
  });
});

// The keyboard alone. In the page: which elements Tab must reach under a root, in document order (every
// enabled, visible control; a box that scrolls and holds no control; anything given a widget role or a
// tabindex), each marked with its place; and what has the focus now, with the colours of its focus ring.
const MARK_STOPS = `(root) => {
  const WIDGETS = ['button', 'link', 'checkbox', 'radio', 'switch', 'tab', 'menuitem', 'option', 'slider', 'spinbutton', 'textbox', 'combobox', 'searchbox'];
  const CONTROLS = 'a[href], button, input, select, textarea, summary, [tabindex]';
  const name = (el) => {
    const label = el.getAttribute('aria-label') || (el.labels && el.labels[0] ? el.labels[0].textContent : '') || el.textContent || el.getAttribute('name') || '';
    return el.localName + (el.type ? '[' + el.type + ']' : '') + (el.getAttribute('role') ? '[role=' + el.getAttribute('role') + ']' : '') + ' "' + label.trim().replace(/\\s+/g, ' ').slice(0, 60) + '"';
  };
  const stops = [];
  for (const el of root.querySelectorAll('*')) {
    el.removeAttribute('data-tab-stop');
    if (!el.checkVisibility({ visibilityProperty: true }) || el.closest('[inert]') || el.matches(':disabled')) continue;
    const tag = el.localName;
    const native = (tag === 'a' && el.hasAttribute('href')) || tag === 'button' || tag === 'select' || tag === 'textarea' ||
      (tag === 'input' && el.type !== 'hidden' && (el.type !== 'radio' || el.checked)) ||
      (tag === 'summary' && el.parentElement.localName === 'details' && el.parentElement.querySelector(':scope > summary') === el);
    const cs = getComputedStyle(el);
    const scrolls = ((/auto|scroll/.test(cs.overflowY) && el.scrollHeight > el.clientHeight + 1) || (/auto|scroll/.test(cs.overflowX) && el.scrollWidth > el.clientWidth + 1)) && !el.querySelector(CONTROLS);
    const widget = WIDGETS.includes(el.getAttribute('role'));
    const tabbable = el.hasAttribute('tabindex') && el.tabIndex >= 0;
    if (!native && !scrolls && !widget && !tabbable) continue;
    el.setAttribute('data-tab-stop', String(stops.length));
    stops.push(name(el));
  }
  window.__tabStopName = name;
  return stops;
}`;

const FOCUSED = `(() => {
  const el = document.activeElement;
  if (!el || el === document.body) return { stop: null, name: 'nothing', outline: '', width: 0, backgrounds: [] };
  const cs = getComputedStyle(el);
  const backgrounds = [];
  for (let p = el.parentElement; p; p = p.parentElement) backgrounds.push(getComputedStyle(p).backgroundColor);
  return { stop: el.getAttribute('data-tab-stop'), name: window.__tabStopName(el), outline: cs.outlineStyle === 'none' ? '' : cs.outlineColor, width: parseFloat(cs.outlineWidth), backgrounds };
})()`;

interface Focused {
  stop: string | null;
  name: string;
  outline: string;
  width: number;
  backgrounds: string[];
}

/** [r, g, b, alpha] of a computed colour (rgb(), rgba() or color(srgb ...)), or null. */
function rgba(c: string): [number, number, number, number] | null {
  let m = /^rgba?\(([\d.]+),\s*([\d.]+),\s*([\d.]+)(?:,\s*([\d.]+))?\)$/.exec(c);
  if (m) return [Number(m[1]), Number(m[2]), Number(m[3]), m[4] === undefined ? 1 : Number(m[4])];
  m = /^color\(srgb ([\d.]+) ([\d.]+) ([\d.]+)(?: \/ ([\d.]+))?\)$/.exec(c);
  if (m) return [Number(m[1]) * 255, Number(m[2]) * 255, Number(m[3]) * 255, m[4] === undefined ? 1 : Number(m[4])];
  return null;
}

/** WCAG 2.1's contrast ratio of two opaque colours. */
function contrast(a: [number, number, number, number], b: [number, number, number, number]): number {
  const lum = (c: [number, number, number, number]): number => {
    const [r, g, bl] = c.slice(0, 3).map((v) => {
      const s = v / 255;
      return s <= 0.04045 ? s / 12.92 : ((s + 0.055) / 1.055) ** 2.4;
    }) as [number, number, number];
    return 0.2126 * r + 0.7152 * g + 0.0722 * bl;
  };
  const [hi, lo] = [lum(a), lum(b)].sort((x, y) => y - x) as [number, number];
  return (hi + 0.05) / (lo + 0.05);
}

/** What is wrong with the focus ring: none, too thin, or under 3:1 against what is behind it (WCAG 1.4.11, 2.4.7). */
function ringProblem(f: Focused): string | null {
  const ring = rgba(f.outline);
  if (!ring || f.width < 2) return `${f.name} shows no focus ring (outline ${f.outline || 'none'}, ${f.width}px)`;
  const behind = f.backgrounds.map(rgba).find((c) => c && c[3] === 1) ?? [255, 255, 255, 1];
  const ratio = contrast(ring, behind);
  return ratio >= 3 ? null : `${f.name}'s focus ring ${f.outline} is ${ratio.toFixed(2)}:1 against ${behind.slice(0, 3).join(',')} (3:1 needed)`;
}

/**
 * Presses Tab from where the focus is, once per control the page has under `root` and once more:
 * each control must get the focus in document order, with a focus ring one can see, and the
 * last Tab must leave `root`. Returns what went wrong, naming the controls.
 */
async function tabThrough(where: string, root: string): Promise<string[]> {
  const stops = await inPage<string[]>(`(${MARK_STOPS})(document.querySelector(${JSON.stringify(root)}))`);
  const reached: string[] = [];
  const problems: string[] = [];
  tabStops.set(where.replace(/ \(.*\)$/, ''), stops.length);
  for (let i = 0; i <= stops.length; i++) {
    await page.keyboard.press('Tab');
    const f = await inPage<Focused>(FOCUSED);
    if (i === stops.length) {
      if (f.stop !== null) problems.push(`${where}: Tab after the last control stayed in ${root} (on ${f.name})`);
      break;
    }
    reached.push(f.stop === null ? `(outside ${root}) ${f.name}` : stops[Number(f.stop)]!);
    const ring = f.stop === null ? null : ringProblem(f);
    if (ring) problems.push(`${where}: ${ring}`);
  }
  if (reached.join('\n') !== stops.join('\n')) {
    const at = stops.findIndex((s, i) => reached[i] !== s);
    problems.push(`${where}: Tab ${at + 1} reached ${reached[at]} where ${stops[at]} was next (order expected: ${stops.join(', ')})`);
  }
  return problems;
}

const focusedName = (): Promise<string> => inPage<string>("document.activeElement.getAttribute('aria-label') || document.activeElement.textContent.trim() || document.activeElement.id");

/** Focuses a control the Tab walk has reached, then works it with a key. */
async function press(selector: ReturnType<Page['locator']>, key: 'Enter' | ' '): Promise<void> {
  await selector.focus();
  await page.keyboard.press(key === ' ' ? 'Space' : key);
}

/** Per section: a control of each kind it has, worked with Enter or Space, and what that must do. */
const WORK: Record<string, () => Promise<void>> = {
  async status() {
    const summary = page.getByText('The whole state snapshot');
    await press(summary, 'Enter');
    expect(await inPage<boolean>("document.querySelector('main details').open")).toBe(true);
    for (const name of ['State snapshot', 'Device log']) {
      const box = page.getByRole('region', { name });
      await box.focus();
      await page.keyboard.press('PageDown');
      await expect.poll(() => box.evaluate((el) => el.scrollTop), { message: `${name} scrolls from the keyboard` }).toBeGreaterThan(0);
    }
    await press(summary, ' ');
    expect(await inPage<boolean>("document.querySelector('main details').open")).toBe(false);
    // An action keeps the focus on its button while it runs and after.
    const refresh = page.getByRole('button', { name: 'Refresh' });
    const log = await hold('/api/log');
    await press(refresh, 'Enter');
    expect(await refresh.getAttribute('aria-busy')).toBe('true');
    expect(await focusedName()).toBe('Refresh');
    await log.release();
    await settle();
    expect(await refresh.getAttribute('aria-busy')).toBeNull();
    expect(await focusedName()).toBe('Refresh');
    const wifi = page.locator('[data-wifi-known]').locator('..');
    await wifi.getByLabel('Network name').focus();
    await page.keyboard.press('Control+A');
    await page.keyboard.press('Delete');
    await page.keyboard.press('Enter');
    await wifi.locator('.msg.bad').waitFor();
  },
  async updates() {
    const dry = page.getByLabel('Verify only, do not install (dry run)');
    await press(dry, ' ');
    expect(await dry.isChecked()).toBe(true);
    await press(dry, ' ');
    expect(await dry.isChecked()).toBe(false);
  },
  async assistant() {
    const first = async (): Promise<string> => (await page.locator('main ol li').first().innerText()).split('\n')[0]!.trim();
    const top = await first();
    await press(page.getByRole('button', { name: `Move ${top} down` }), 'Enter');
    expect(await first()).not.toBe(top);
    // The moved provider's button keeps the focus, so it can be moved again.
    expect(await focusedName()).toMatch(new RegExp(`^Move ${top} (up|down)$`));
    await press(page.getByRole('button', { name: `Move ${top} up` }), ' ');
    expect(await first()).toBe(top);
    // A key saved from the keyboard: the keys are drawn again, and the focus stays on the key's field (Enter was pressed there).
    const openai = page.locator('form[data-provider="openai"]');
    await openai.locator('input[name="key_openai"]').focus();
    await page.keyboard.type(`sk-a11y-${'k'.repeat(24)}`);
    await page.keyboard.press('Enter');
    await openai.getByRole('button', { name: 'Replace key' }).waitFor();
    expect(await inPage<string>('document.activeElement.name')).toBe('key_openai');
    await press(openai.getByRole('button', { name: 'Remove key' }), 'Enter');
    await openai.getByRole('button', { name: 'Save key' }).waitFor();
    expect(await inPage<boolean>("document.activeElement !== document.body && !!document.activeElement.closest('form[data-provider]')")).toBe(true);
    const style = page.getByLabel('Conversation style');
    const before = await style.inputValue();
    await style.focus();
    await page.keyboard.press(before === 'chat' ? 'ArrowDown' : 'ArrowUp');
    expect(await style.inputValue()).not.toBe(before);
  },
  async voice() {
    const on = page.getByLabel('Voice replies: speak the reply aloud');
    const was = await on.isChecked();
    await press(on, ' ');
    expect(await on.isChecked()).toBe(!was);
  },
  async memory() {
    await page.getByLabel('Search memories').focus();
    await page.keyboard.type('flowerpot');
    await page.keyboard.press('Enter');
    await page.getByText('1 memory matches.').waitFor();
    const flush = page.getByRole('button', { name: 'Flush memories…' });
    await press(flush, 'Enter');
    // The second press is asked for, with the focus on Cancel; Cancel gives the focus back.
    expect(await focusedName()).toBe('Cancel');
    await page.keyboard.press('Space');
    expect(await focusedName()).toBe('Flush memories…');
  },
  async routines() {
    const item = page.locator('ul.items li', { hasText: 'Plants' });
    await press(item.getByRole('button', { name: 'Approve' }), 'Enter');
    await page.locator('ul.items li', { hasText: 'Plants' }).getByText('approval: approved').waitFor();
    // The list is drawn again without the Approve button: the focus stays in the list, where it was, not at the top of the page.
    expect(await inPage<boolean>("document.activeElement !== document.body && !!document.activeElement.closest('ul.items')")).toBe(true);
  },
  async people() {
    const other = page.locator('li', { hasText: '222222222' });
    await press(other.getByText('Quotas (0 = the role\'s default)'), 'Enter');
    await other.getByLabel('Memories', { exact: true }).focus();
    await page.keyboard.press('Control+A');
    await page.keyboard.type('40');
    expect(await other.getByLabel('Memories', { exact: true }).inputValue()).toBe('40');
  },
  async access() {
    await press(page.getByRole('button', { name: 'Show a sign-in code' }), 'Enter');
    await page.locator('[data-code]').waitFor();
    await press(page.getByRole('button', { name: 'Rotate the access token…' }), ' ');
    expect(await focusedName()).toBe('Cancel');
    await page.keyboard.press('Enter');
    expect(await focusedName()).toBe('Rotate the access token…');
  },
  async danger() {
    const erase = page.getByLabel('Also erase the SD card');
    await press(erase, ' ');
    expect(await erase.isChecked()).toBe(true);
    await page.keyboard.press('Space');
    expect(await erase.isChecked()).toBe(false);
    const zone = page.locator('form[data-zone="/api/factory-reset"]');
    await zone.getByLabel('Type FACTORY RESET to confirm').focus();
    await page.keyboard.type('factory reset, please');
    await page.keyboard.press('Enter');
    await zone.locator('.msg.bad').waitFor();
  },
};

describe('the keyboard alone', () => {
  it('Tab reaches every control of every section in order, each with a focus ring; Enter and Space work them', async () => {
    const problems: string[] = [];
    // From the top of the page: the skip link, the sections' links, then Status. In each theme (the focus ring's colour is the theme's).
    for (const look of WALK_LOOKS) {
      await page.goto(device.url!);
      await page.waitForSelector('[data-section="status"][data-ready]');
      await setLook(look);
      await settle();
      problems.push(...(await tabThrough(`the page with Status (${look.name})`, 'body')));
    }
    // The skip link shows when focused, and Enter moves the focus to the content (the address keeps its section).
    await page.locator('.skip').focus();
    expect((await page.locator('.skip').boundingBox())!.x).toBeGreaterThanOrEqual(0);
    await page.keyboard.press('Enter');
    expect(await inPage('document.activeElement.id')).toBe('main');
    expect(new URL(page.url()).hash).toBe('');
    await WORK['status']!();

    for (const id of (await sectionIds()).slice(1)) {
      // A section's link, worked with Enter, opens it and puts the focus on its heading.
      await page.locator(`nav a[href="#${id}"]`).focus();
      await page.keyboard.press('Enter');
      await page.waitForSelector(`[data-section="${id}"][data-ready]`);
      expect(await inPage('document.activeElement.id')).toBe(`${id}-title`);
      await settle();
      for (const look of WALK_LOOKS) {
        await setLook(look);
        await page.locator(`#${id}-title`).focus();
        problems.push(...(await tabThrough(`${id} (${look.name})`, 'main')));
      }
      expect(WORK[id], `a keyboard check for ${id}`).toBeDefined();
      await WORK[id]!();
    }
    expect(problems, problems.join('\n')).toEqual([]);
  }, 180_000);

  it('signs out and in again from the keyboard alone', async () => {
    await page.locator('nav a[href="#access"]').focus();
    await page.keyboard.press('Enter');
    await page.waitForSelector('[data-section="access"][data-ready]');
    await press(page.getByRole('button', { name: 'Sign out of this browser' }), 'Enter');
    await page.waitForSelector('#signin-title');
    // The code field has the focus at once.
    expect(await inPage("document.activeElement.getAttribute('name')")).toBe('code');
    await page.locator('#signin-title').focus();
    const problems = await tabThrough('sign-in', 'main');
    expect(problems, problems.join('\n')).toEqual([]);
    const res = await device.fetch('/api/signin/code?purpose=hand', { token });
    const { code } = (await res.json()) as { code: string };
    await page.getByLabel('Sign-in code').focus();
    await page.keyboard.type(code);
    await page.keyboard.press('Enter');
    // Signed in again where it was: the address still names Sign-in & access.
    await page.waitForSelector('[data-section="access"][data-ready]');
    expect(await inPage('localStorage.getItem("deskToken")')).toBe(token);
  });

  it('the walk can fail: a control Tab cannot reach is named', async () => {
    await open('status');
    await page.locator('#status-title').focus();
    await inPage(`(() => {
      const fake = document.createElement('div');
      fake.setAttribute('role', 'button');
      fake.textContent = 'Fake button';
      document.querySelector('[data-section="status"]').prepend(fake);
    })()`);
    const problems = await tabThrough('negative control', 'main');
    await inPage("document.querySelector('[role=button]').remove()");
    expect(problems).toEqual([expect.stringMatching(/^negative control: Tab 1 reached .* where div\[role=button\] "Fake button" was next/)]);
  });
});

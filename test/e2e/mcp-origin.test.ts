// The Origin rule of /mcp in a real browser (Debian's Chromium, headless)
// against the real firmware on the simulator, on every origin the owner's
// web page is served from, and on a DNS-rebinding attacker's:
// - the simulator's own address (http://127.0.0.1:<port>), the device's LAN
//   address (http://192.168.1.23) and its mDNS name (http://desk-XXXX.local,
//   from GET /api/connect), the latter two reached through a proxy the
//   browser is told to use, which sends each request to the simulator
//   unchanged (Host as the browser wrote it);
// - the cloud relay's page origin (http://relay-web.test), which the proxy
//   sends through the local relay (tools/cloud-relay.mjs) to the paired
//   device, as the relay service would;
// - http://evil.example.com, a name that "resolves" to the device: DNS
//   rebinding, the attack MCP's Origin rule is for.
// On each: the page signs in and shows the device (its routes never look at
// Host or Origin), and /mcp answers a same-origin request from the page;
// only the rebinding origin and the relay's page are refused /mcp (403),
// the first even when it presents the real token.
import { createServer, request, type IncomingMessage, type Server, type ServerResponse } from 'node:http';
import type { AddressInfo } from 'node:net';
import type { BrowserContext, Page } from 'playwright-core';
import { afterAll, beforeAll, describe, expect, it } from 'vitest';
import { DEFAULT_ACCOUNT, routeArgs, start as startRelay, type RelayServer } from '../../tools/cloud-relay.mjs';
import { ensureChromium, launchBrowser } from './fixtures/browser.ts';
import { cleanup, startDevice, type Device } from './harness.ts';

const LAN = 'http://192.168.1.23';
const RELAY_WEB = 'relay-web.test';
const EVIL = 'http://evil.example.com';

let relay: RelayServer;
let device: Device;
let proxy: Server;
let browser: BrowserContext;
let page: Page;
let token = '';
let deviceId = '';
let mdnsOrigin = '';

/** The browser's proxy: absolute-form requests go to the simulator (Host kept), or through the relay for its page origin. */
function forward(req: IncomingMessage, res: ServerResponse): void {
  const target = new URL(req.url ?? '/');
  const viaRelay = target.hostname === RELAY_WEB;
  const local = new URL(device.url!);
  const up = request(
    viaRelay
      ? { host: '127.0.0.1', port: relay.ownerPort, method: req.method, path: `/d/${deviceId}${target.pathname}${target.search}`, headers: { ...req.headers, authorization: `Bearer ${DEFAULT_ACCOUNT}` } }
      : { host: local.hostname, port: local.port, method: req.method, path: `${target.pathname}${target.search}`, headers: req.headers },
    (answer) => {
      res.writeHead(answer.statusCode ?? 502, answer.headers);
      answer.pipe(res);
    },
  );
  up.on('error', (e) => {
    if (!res.headersSent) res.writeHead(502);
    res.end(String(e));
  });
  req.pipe(up);
}

async function waitFor(check: () => Promise<boolean>, ms = 15_000): Promise<void> {
  const end = Date.now() + ms;
  while (!(await check())) {
    if (Date.now() > end) throw new Error('timed out');
    await new Promise((r) => setTimeout(r, 100));
  }
}

beforeAll(async () => {
  ensureChromium();
  relay = await startRelay();
  device = await startDevice({ args: routeArgs(relay.devicePort) });
  token = (await device.command('WEBTOK?')).split('\n')[0]!;
  // A set-up device, as an owner's is (no setup-network handout any more).
  expect((await device.fetch('/savewifi', { method: 'POST', body: new URLSearchParams({ ssid: 'SimNet', pass: 'simnet-pass' }) })).status).toBe(202);
  await waitFor(async () => ((await (await device.fetch('/api/state', { token })).json()) as { wifi: { station: { state: string } } }).wifi.station.state === 'connected');
  expect((await device.fetch('/api/wifi/handoff', { method: 'POST', token })).status).toBe(200);
  const links = ((await (await device.fetch('/api/connect', { token })).json()) as { links: Array<{ label: string; url: string }> }).links;
  mdnsOrigin = new URL(links.find((l) => l.label === 'local name')!.url).origin;
  expect(mdnsOrigin).toMatch(/^http:\/\/desk-[0-9a-f]{4}\.local$/);
  // Paired with the relay, as in test/e2e/cloud.test.ts.
  const code = /code=(\S+)/.exec(await device.command('CLOUDPAIR', 20_000))![1];
  const claim = await fetch(`${relay.ownerUrl}/claim`, { method: 'POST', headers: { Authorization: `Bearer ${DEFAULT_ACCOUNT}`, 'Content-Type': 'application/json' }, body: JSON.stringify({ code }) });
  deviceId = ((await claim.json()) as { deviceId: string }).deviceId;
  await waitFor(async () => /state=online/.test(await device.command('CLOUD?')));
  proxy = createServer(forward);
  await new Promise<void>((r) => proxy.listen(0, '127.0.0.1', r));
  // Loopback stays direct (Chromium's default); every other origin goes through the proxy.
  browser = await launchBrowser(undefined, [`--proxy-server=http://127.0.0.1:${(proxy.address() as AddressInfo).port}`]);
  browser.setDefaultTimeout(10_000);
  page = browser.pages()[0] ?? (await browser.newPage());
  page.on('pageerror', (e) => console.error(`page error: ${e.message}`));
}, 180_000);

afterAll(async () => {
  await browser?.close();
  proxy?.closeAllConnections();
  await new Promise((r) => (proxy ? proxy.close(r) : r(null)));
  await cleanup();
  await relay?.close();
});

// Code that runs in the page is passed as text: this project's tests typecheck without the DOM's types.
const inPage = <T>(expr: string): Promise<T> => page.evaluate(expr) as Promise<T>;

/** POST /mcp initialize from the page itself (same origin), with the token this origin stored, or the one given. */
function mcpFromPage(withToken?: string): Promise<{ status: number; body: Record<string, unknown> }> {
  const tokenExpr = withToken === undefined ? "localStorage.getItem('deskToken') || ''" : JSON.stringify(withToken);
  return inPage(`fetch('/mcp', { method: 'POST', headers: { 'Content-Type': 'application/json', Accept: 'application/json, text/event-stream', 'X-Device-Token': ${tokenExpr} },
    body: JSON.stringify({ jsonrpc: '2.0', id: 1, method: 'initialize', params: { protocolVersion: '2025-11-25', capabilities: {}, clientInfo: { name: 'page', version: '1' } } }) })
    .then(async (r) => ({ status: r.status, body: await r.json() }))`);
}

async function signInAt(origin: string): Promise<void> {
  const { code } = (await (await device.fetch('/api/signin/code', { token })).json()) as { code: string };
  await page.goto(`${origin}/?c=${code}`);
  await page.waitForSelector('[data-section="status"][data-ready]');
  expect(await inPage("localStorage.getItem('deskToken')")).toBe(token);
  // The header's identity line is fetched beside the first section, not before it is ready.
  await expect.poll(() => page.locator('#ident').innerText(), { timeout: 10_000 }).toMatch(/^v\d+\.\d+\.\d+ · /);
}

describe('the web page and /mcp on each origin of the device', () => {
  for (const [label, origin] of [
    ['the simulator\'s address', () => new URL(device.url!).origin],
    ['the LAN address', () => LAN],
    ['the mDNS name', () => mdnsOrigin],
  ] as Array<[string, () => string]>) {
    it(`${label}: the page signs in and works, and /mcp answers the page`, async () => {
      const o = origin();
      await signInAt(o);
      expect(new URL(page.url()).origin).toBe(o);
      // Another section reads the device as well.
      await page.click('nav a[href="#updates"]');
      await page.waitForSelector('[data-section="updates"][data-ready]');
      const r = await mcpFromPage();
      expect(r.status).toBe(200);
      expect(r.body).toMatchObject({ result: { serverInfo: { name: 'desk-assistant' } } });
    });
  }

  it('the cloud relay\'s page origin: the page works through the tunnel; /mcp is refused to a browser page there', async () => {
    const o = `http://${RELAY_WEB}`;
    // Sign-in routes are denied on the tunnel; the relay signs its owner in, and the device puts its own token on each request.
    await page.goto(`${o}/`);
    await inPage(`localStorage.setItem('deskToken', ${JSON.stringify(token)})`);
    await page.reload();
    await page.waitForSelector('[data-section="status"][data-ready]');
    // The header's identity line is fetched beside the first section, not before it is ready.
  await expect.poll(() => page.locator('#ident').innerText(), { timeout: 10_000 }).toMatch(/^v\d+\.\d+\.\d+ · /);
    const r = await mcpFromPage();
    expect(r.status).toBe(403);
    expect(r.body).toMatchObject({ jsonrpc: '2.0', error: { code: -32000, message: expect.stringContaining('relay-web.test') } });
  });

  it('DNS rebinding (evil.example.com resolving to the device): /mcp answers 403 even with the real token', async () => {
    await page.goto(`${EVIL}/`);
    // The page shell is served (it carries no device data); this origin holds no token, so it asks to sign in.
    await page.waitForSelector('#signin-title');
    expect(await inPage("localStorage.getItem('deskToken')")).toBeNull();
    const withToken = await mcpFromPage(token);
    expect(withToken.status).toBe(403);
    expect(withToken.body).toEqual({ jsonrpc: '2.0', error: { code: -32000, message: 'Forbidden: Origin http://evil.example.com is a name this device does not answer to.' } });
    expect((await mcpFromPage('')).status).toBe(401);
    expect(await inPage<number>("fetch('/api/state').then((r) => r.status)")).toBe(401);
  });
});

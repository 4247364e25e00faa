// Connectors on the in-memory HAL against the fake OAuth provider
// (tools/oauth-fake.mjs on the in-memory network, virtual clock): the
// idempotent upsert, write-only secrets, the launch key rules of /oauth/go
// (exact key only; empty, missing, wrong, expired or replaced keys go home),
// the consent window of at most one hour, the callback's state check, PKCE,
// refresh, and the prompt's connector line.
import { describe, expect, it } from 'vitest';
import { mount, ready } from '../../../src/core/subsystem.ts';
import { connectors } from '../../../src/connectors/index.ts';
import { CONSENT_WINDOW_MAX_MS, FlowTable } from '../../../src/connectors/flows.ts';
import { createOAuthProvider, DEFAULT_CLIENT, OAUTH_HOST, type OAuthProvider } from '../../../tools/oauth-fake.mjs';
import { request, type ParsedResponse } from '../../support/http.ts';
import { bootParts, deviceKernel, mountAuth, mountSystem, mountWifi, HTTP_PORT } from '../../support/kernel.ts';
import { createMemHal, type MemHal } from '../../support/memhal.ts';
import { serveHttp } from '../../support/telegram-net.ts';

/**
 * Connectors on a kernel with the device's token gate and HTTP server, after Wi-Fi (the verify links'
 * addresses) and auth (the token's rotation, the live secrets), as src/main.ts mounts them; src/system's
 * log route shows what reached the log.
 */
function mountConnectors(mem: MemHal) {
  const dk = deviceKernel({ mem });
  const provisioning = mountWifi(dk);
  mountAuth(dk, provisioning);
  const { client, hotspots } = bootParts(dk.kernel);
  const c = mount(dk.kernel, connectors, { client, sha256: hotspots.sha256, token: dk.token, secrets: dk.secrets, network: provisioning, commands: ready({ register: () => {} }) });
  mountSystem(dk.kernel);
  dk.start();
  return { ctx: { ...dk.kernel, token: dk.token, connectors: c } };
}

interface Rig {
  mem: MemHal;
  device: ReturnType<typeof mountConnectors>;
  oauth: OAuthProvider;
  token: string;
}

const SECRET = 'client-secret-0123456789';

function setup(): Rig {
  const mem = createMemHal();
  mem.nvs.setMany('wifi', [['ssid', 'Home'], ['pass', 'home-pass-1']]);
  const rig = { mem } as Rig;
  rig.oauth = createOAuthProvider({ clients: [{ id: DEFAULT_CLIENT, secret: SECRET }], now: () => rig.mem.clock.wallMs() });
  serveHttp(mem.net, OAUTH_HOST, async (method, path, headers, body) => rig.oauth.handle(method, path, headers, body));
  rig.device = mountConnectors(mem);
  rig.token = rig.device.ctx.token.reveal();
  return rig;
}

async function call(rig: Rig, method: string, path: string, fields?: Record<string, string>, token: string | null = rig.token): Promise<ParsedResponse & { json: Record<string, unknown> }> {
  const body = fields ? new URLSearchParams(fields).toString() : undefined;
  const res = await request(rig.mem.net, HTTP_PORT, method, path, {
    headers: { ...(token ? { 'X-Device-Token': token } : {}), ...(body ? { 'Content-Type': 'application/x-www-form-urlencoded' } : {}) },
    ...(body ? { body } : {}),
  });
  let json: Record<string, unknown> = {};
  try {
    json = JSON.parse(res.body) as Record<string, unknown>;
  } catch {
    // an HTML page or a redirect
  }
  return { ...res, json };
}

const OAUTH_FIELDS = {
  id: 'calendar',
  name: 'Calendar',
  kind: 'mcp',
  url: 'https://mcp.calendar.test/mcp',
  auth: 'oauth',
  authorize_url: `https://${OAUTH_HOST}/authorize`,
  token_url: `https://${OAUTH_HOST}/token`,
  client_id: DEFAULT_CLIENT,
  client_secret: SECRET,
  scope: 'calendar.read calendar.write',
};

async function signIn(rig: Rig, fields: Record<string, string> = {}): Promise<{ key: string; path: string }> {
  const r = await call(rig, 'POST', '/api/connectors', { action: 'signin', id: 'calendar', ...fields });
  expect(r.status, r.body).toBe(200);
  const path = r.json['verifyPath'] as string;
  return { key: /k=([0-9a-f]+)$/.exec(path)![1]!, path };
}

/** The browser's part: POST /oauth/go, follow to the provider, come back with code and state. */
async function consent(rig: Rig, path: string): Promise<string> {
  const go = await call(rig, 'POST', path, undefined, null);
  expect(go.status).toBe(303);
  const authorize = new URL(go.headers.get('location')!);
  const back = rig.oauth.handle('GET', authorize.pathname + authorize.search, {}, new Uint8Array(0));
  expect(back.status).toBe(302);
  const cb = new URL(back.headers['Location']!);
  return cb.pathname + cb.search;
}

describe('the connector record', () => {
  it('upserts idempotently: the same fields twice change nothing the second time; secrets are write-only', async () => {
    const rig = setup();
    const first = await call(rig, 'POST', '/api/connectors', OAUTH_FIELDS);
    expect(first.status).toBe(201);
    expect(first.json).toMatchObject({ created: true, changed: true, connector: { id: 'calendar', kind: 'mcp', auth: 'oauth', status: 'needs-sign-in', clientSecretSet: true } });
    const updated = (first.json['connector'] as { updated: number }).updated;
    await rig.mem.clock.advance(5_000);
    rig.mem.clock.setWall(rig.mem.clock.wallMs() + 5_000);
    const again = await call(rig, 'POST', '/api/connectors', OAUTH_FIELDS);
    expect(again.status).toBe(200);
    expect(again.json).toMatchObject({ created: false, changed: false, connector: { updated } });
    // JSON bodies too; absent fields keep their values.
    const renamed = await request(rig.mem.net, HTTP_PORT, 'POST', '/api/connectors', {
      headers: { 'X-Device-Token': rig.token, 'Content-Type': 'application/json' },
      body: JSON.stringify({ id: 'calendar', name: 'Work calendar' }),
    });
    expect(JSON.parse(renamed.body)).toMatchObject({ changed: true, connector: { name: 'Work calendar', scope: 'calendar.read calendar.write' } });
    const list = await call(rig, 'GET', '/api/connectors');
    expect(list.json['connectors']).toHaveLength(1);
    expect(list.body).not.toContain(SECRET);
    expect((await call(rig, 'GET', '/api/log')).body).not.toContain(SECRET);
    // Bad input changes nothing.
    const bads: Array<Record<string, string>> = [{ id: 'Bad Id' }, { id: 'calendar', url: 'http://plain.example/mcp' }, { id: 'calendar', auth: 'magic' }, { id: 'calendar', colour: 'red' }, { id: 'x', kind: 'provider', connector_id: 'connector_gmail' }];
    for (const bad of bads) {
      const r = await call(rig, 'POST', '/api/connectors', bad);
      expect(r.status, JSON.stringify(bad)).toBe(400);
      expect(r.json['message']).toMatch(/Nothing was changed\.$/);
    }
    expect((await call(rig, 'GET', '/api/connectors')).json['connectors']).toEqual(list.json['connectors']);
    // Without the token: 401.
    expect((await call(rig, 'POST', '/api/connectors', OAUTH_FIELDS, null)).status).toBe(401);
    expect((await call(rig, 'POST', '/api/connectors', { action: 'delete', id: 'calendar' })).status).toBe(200);
    expect((await call(rig, 'GET', '/api/connectors')).json['connectors']).toEqual([]);
  });

  it('keeps at most eight, bearer connectors are ready with their secret, and the prompt names them', async () => {
    const rig = setup();
    for (let i = 0; i < 8; i++) expect((await call(rig, 'POST', '/api/connectors', { id: `c${i}`, url: `https://mcp${i}.test/`, auth: 'bearer', bearer: `bearer-secret-${i}` })).status).toBe(201);
    expect((await call(rig, 'POST', '/api/connectors', { id: 'c8', url: 'https://mcp8.test/' })).status).toBe(409);
    const list = (await call(rig, 'GET', '/api/connectors')).json['connectors'] as Array<Record<string, unknown>>;
    expect(list.every((c) => c['status'] === 'ready' && c['bearerSet'] === true)).toBe(true);
    expect(await rig.device.ctx.connectors.credential('c3')).toBe('bearer-secret-3');
    rig.mem.nvs.set('orch', 'key.openai', 'sk-test');
    expect(rig.device.ctx.connectors.promptLine()).toContain('c0 (MCP server, ready, not approved)');
  });
});

describe('the launch key and /oauth/go', () => {
  it('returns the authorize URL only for the exact key; keyless, empty, wrong or other-case keys go home', async () => {
    const rig = setup();
    await call(rig, 'POST', '/api/connectors', OAUTH_FIELDS);
    // Starting a sign-in needs the token.
    expect((await call(rig, 'POST', '/api/connectors', { action: 'signin', id: 'calendar' }, null)).status).toBe(401);
    const { key, path } = await signIn(rig);
    expect(key).toMatch(/^[0-9a-f]{32}$/);
    const ok = await call(rig, 'POST', path, undefined, null);
    expect(ok.status).toBe(303);
    const url = new URL(ok.headers.get('location')!);
    expect(url.origin + url.pathname).toBe(`https://${OAUTH_HOST}/authorize`);
    expect(Object.fromEntries(url.searchParams)).toMatchObject({ response_type: 'code', client_id: DEFAULT_CLIENT, code_challenge_method: 'S256', scope: 'calendar.read calendar.write' });
    expect(url.searchParams.get('state')).toMatch(/^[0-9a-f]{32}$/);
    expect(url.searchParams.get('state')).not.toBe(key);
    expect(url.search).not.toContain(key);
    expect(ok.headers.get('referrer-policy')).toBe('no-referrer');
    for (const bad of ['/oauth/go', '/oauth/go?k=', `/oauth/go?k=${key.slice(0, 31)}`, `/oauth/go?k=${key}0`, `/oauth/go?k=${key.toUpperCase()}`, `/oauth/go?x=${key}`, `/oauth/go?k=${'0'.repeat(32)}`]) {
      const r = await call(rig, 'POST', bad, undefined, null);
      expect(r.status, bad).toBe(303);
      expect(r.headers.get('location'), bad).toBe('/');
    }
    // GET shows a page whose button POSTs the same address; a wrong key goes home there too.
    const page = await call(rig, 'GET', path, undefined, null);
    expect(page.status).toBe(200);
    expect(page.body).toContain('<form method="post">');
    expect(page.body).not.toContain(key);
    expect(page.headers.get('content-security-policy')).toContain(`form-action 'self' https://${OAUTH_HOST}`);
    expect((await call(rig, 'GET', '/oauth/go?k=nope', undefined, null)).headers.get('location')).toBe('/');
  });

  it('wrong keys never keep the owner out: after a thousand of them the exact key still gets the authorize URL (128 bits: no lockout needed)', async () => {
    const rig = setup();
    await call(rig, 'POST', '/api/connectors', OAUTH_FIELDS);
    const { key, path } = await signIn(rig);
    for (let i = 0; i < 1000; i++) {
      const wrong = (BigInt('0x' + key) ^ BigInt(i + 1)).toString(16).padStart(32, '0');
      expect((await call(rig, 'POST', `/oauth/go?k=${wrong}`, undefined, null)).headers.get('location')).toBe('/');
    }
    const ok = await call(rig, 'POST', path, undefined, null);
    expect(ok.status).toBe(303);
    expect(ok.headers.get('location')).toMatch(new RegExp(`^https://${OAUTH_HOST.replace(/\./g, '\\.')}/authorize\\?`));
  });

  it('fails closed on an empty published key as on an empty presented one', () => {
    const table = new FlowTable(() => 0);
    table.put({ connector: 'x', key: '', state: '', verifier: 'v', redirectUri: 'http://d/oauth/callback', deadline: 1000 });
    expect(table.byKey('')).toBeNull();
    expect(table.byKey(undefined)).toBeNull();
    expect(table.takeByState('')).toBeNull();
    table.put({ connector: 'y', key: 'a'.repeat(32), state: 'b'.repeat(32), verifier: 'v', redirectUri: 'http://d/oauth/callback', deadline: 1000 });
    expect(table.byKey('a'.repeat(32))?.connector).toBe('y');
    expect(table.byKey(['a'.repeat(32)])).toBeNull();
  });

  it('keeps a key for the consent window only (one hour at most); a new sign-in or a token rotation voids the old key', async () => {
    const rig = setup();
    await call(rig, 'POST', '/api/connectors', OAUTH_FIELDS);
    const long = await call(rig, 'POST', '/api/connectors', { action: 'signin', id: 'calendar', window: '7200' });
    expect(long.json['expiresInMs']).toBe(CONSENT_WINDOW_MAX_MS);
    const key = /k=(\w+)/.exec(long.json['verifyPath'] as string)![1]!;
    await rig.mem.clock.advance(CONSENT_WINDOW_MAX_MS - 1000);
    expect((await call(rig, 'POST', `/oauth/go?k=${key}`, undefined, null)).headers.get('location')).not.toBe('/');
    expect((await call(rig, 'GET', '/api/connectors')).json['pending']).toEqual([{ id: 'calendar', expiresInMs: 1000 }]);
    await rig.mem.clock.advance(1000);
    expect((await call(rig, 'POST', `/oauth/go?k=${key}`, undefined, null)).headers.get('location')).toBe('/');
    expect((await call(rig, 'GET', '/api/connectors')).json['pending']).toEqual([]);
    // A shorter window on request.
    const short = await signIn(rig, { window: '120' });
    await rig.mem.clock.advance(121_000);
    expect((await call(rig, 'POST', short.path, undefined, null)).headers.get('location')).toBe('/');
    // A second sign-in replaces the first key.
    const a = await signIn(rig);
    const b = await signIn(rig);
    expect((await call(rig, 'POST', a.path, undefined, null)).headers.get('location')).toBe('/');
    expect((await call(rig, 'POST', b.path, undefined, null)).headers.get('location')).not.toBe('/');
    // Rotating the device token voids every link.
    await call(rig, 'POST', '/api/token/regen');
    expect((await call(rig, 'POST', b.path, undefined, null)).headers.get('location')).toBe('/');
  });
});

describe('the callback', () => {
  it('checks state equality, exchanges the code with PKCE and the client secret, keeps the tokens secret, and takes a state once', async () => {
    const rig = setup();
    await call(rig, 'POST', '/api/connectors', OAUTH_FIELDS);
    const { path } = await signIn(rig);
    const back = await consent(rig, path);
    const state = new URL(back, 'http://d').searchParams.get('state')!;
    // A wrong or missing state: refused, nothing stored, the flow still waits.
    const forged = back.replace(state, 'f'.repeat(32));
    expect((await call(rig, 'GET', forged, undefined, null)).status).toBe(400);
    expect((await call(rig, 'GET', back.replace(/state=[^&]+&?/, ''), undefined, null)).status).toBe(400);
    expect(rig.oauth.issued).toHaveLength(0);
    const ok = await call(rig, 'GET', back, undefined, null);
    expect(ok.status, ok.body).toBe(200);
    expect(ok.body).toContain('Signed in');
    expect(rig.oauth.issued).toHaveLength(1);
    const token = rig.oauth.calls.find((c) => c.path === '/token')!;
    expect(token.form).toMatchObject({ grant_type: 'authorization_code', client_id: DEFAULT_CLIENT, client_secret: SECRET });
    expect(token.form['code_verifier']).toMatch(/^[A-Za-z0-9_-]{43}$/);
    const list = await call(rig, 'GET', '/api/connectors');
    expect(list.json['connectors']).toMatchObject([{ id: 'calendar', status: 'signed-in' }]);
    expect(list.body).not.toContain(rig.oauth.issued[0]!.access);
    expect(list.body).not.toContain(rig.oauth.issued[0]!.refresh);
    expect(await rig.device.ctx.connectors.credential('calendar')).toBe(rig.oauth.issued[0]!.access);
    // Used once.
    expect((await call(rig, 'GET', back, undefined, null)).status).toBe(400);
    expect(rig.device.ctx.log.redactor.containsSecret(rig.oauth.issued[0]!.access)).toBe(true);
  });

  it('refreshes an expiring access token, signs out when the grant is revoked, and reports a refused consent', async () => {
    const rig = setup();
    await call(rig, 'POST', '/api/connectors', OAUTH_FIELDS);
    await call(rig, 'GET', await consent(rig, (await signIn(rig)).path), undefined, null);
    const first = rig.oauth.issued[0]!.access;
    rig.mem.clock.setWall(rig.mem.clock.wallMs() + 3600_000 - 30_000);
    let got: string | null = null;
    void rig.device.ctx.connectors.credential('calendar').then((v) => (got = v));
    await rig.mem.clock.until(() => got !== null, 10_000);
    expect(got).not.toBe(first);
    expect(got).toBe(rig.oauth.issued[1]!.access);
    expect(rig.oauth.issued[1]!.grant).toBe('refresh_token');
    rig.oauth.revokeAll();
    rig.mem.clock.setWall(rig.mem.clock.wallMs() + 3600_000);
    let after: string | null | undefined;
    void rig.device.ctx.connectors.credential('calendar').then((v) => (after = v));
    await rig.mem.clock.until(() => after !== undefined, 10_000);
    expect(after).toBeNull();
    expect((await call(rig, 'GET', '/api/connectors')).json['connectors']).toMatchObject([{ status: 'needs-sign-in' }]);
    // The owner refuses consent at the service.
    rig.oauth.setConsent('deny');
    const denied = await call(rig, 'GET', await consent(rig, (await signIn(rig)).path), undefined, null);
    expect(denied.status).toBe(400);
    expect(denied.body).toContain('access_denied');
    expect((await call(rig, 'GET', '/api/connectors')).json['connectors']).toMatchObject([{ status: 'needs-sign-in' }]);
  });

  it('changing the service settings voids a sign-in', async () => {
    const rig = setup();
    await call(rig, 'POST', '/api/connectors', OAUTH_FIELDS);
    await call(rig, 'GET', await consent(rig, (await signIn(rig)).path), undefined, null);
    expect((await call(rig, 'POST', '/api/connectors', { id: 'calendar', scope: 'calendar.read' })).json).toMatchObject({ changed: true, connector: { status: 'needs-sign-in' } });
    expect(await rig.device.ctx.connectors.credential('calendar')).toBeNull();
  });
});

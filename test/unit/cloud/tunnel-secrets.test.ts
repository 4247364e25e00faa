// Boots the whole device: no route of any subsystem may leak a secret through the tunnel.
// Issue 29, item 1: no route reachable through the cloud tunnel mints or
// returns a sign-in code, a launch key, the token, apPass or a registered
// credential, in any form. The screen (src/auth/secret-screen.ts) on its own:
// every kind in every form the device writes, in any case, across every cut
// of a streamed body, with nothing of a secret leaving before it is found.
// Then the real tunnel (tools/cloud-relay.mjs on the in-memory network, a
// device on the in-memory HAL): EVERY registered route (the router lists
// them) is called through it with plausible inputs while every kind of
// secret is live, and each answer's status line, headers and body are
// searched for each secret in each form by this test's own search (not the
// screen's); no tunnelled request mints a code or a key. Secrets planted
// where real routes return them are withheld, which shows the screen, not
// luck, keeps them in.
import { describe, expect, it } from 'vitest';
import { SecretScreen, secretForms } from '../../../src/auth/secret-screen.ts';
import { SECRET_KINDS, type LiveSecret, type SecretKind } from '../../../src/auth/secrets.ts';
import { HAND_LIFETIME_MS } from '../../../src/auth/signin.ts';
import { TunnelDispatcher } from '../../../src/cloud/dispatch.ts';
import { Router } from '../../../src/core/router.ts';
import { HTTP_PORT } from '../../../src/main.ts';
import type { BodyWriter, HttpResponse } from '../../../src/net/http/types.ts';
import { groupSignInCode } from '../../../src/util/ids.ts';
import type { RelayResponse } from '../../../tools/cloud-relay.mjs';
import { cmd, header, owner, pair, setup, until, type Rig } from '../../support/cloud-rig.ts';
import { request } from '../../support/http.ts';

const CODE = 'ABCD2345EFGH';
const SAMPLE: LiveSecret[] = [
  { kind: 'token', value: '0123456789abcdef01234567' },
  { kind: 'signin-code', value: CODE },
  { kind: 'setup-passphrase', value: 'k7m2x9q4pz' },
  { kind: 'launch-key', value: 'fedcba9876543210fedcba9876543210' },
  { kind: 'credential', value: 'sk-ant-api03-secret/with+odd=chars&"quotes"' },
];

/** This test's own list of the forms a secret could take in an answer (independent of the screen's). */
function formsOf(s: LiveSecret): string[] {
  const bases = [s.value];
  if (s.kind === 'signin-code') bases.push(groupSignInCode(s.value), groupSignInCode(s.value).replace(/-/g, ' '));
  const out = new Set<string>();
  for (const b of bases) {
    out.add(b);
    out.add(JSON.stringify(b).slice(1, -1));
    out.add(encodeURIComponent(b));
    out.add(encodeURIComponent(b).replace(/%20/g, '+'));
  }
  return [...out].map((f) => f.toLowerCase());
}

/** Where a live secret shows in an answer: [kind, part] pairs (status line, a header, the body). */
function leaks(r: RelayResponse, secrets: readonly LiveSecret[]): string[] {
  const parts: Array<[string, string]> = [
    ['status line', `HTTP/1.1 ${r.status}`],
    ...r.headers.map(([k, v]): [string, string] => [`header ${k}`, `${k}: ${v}`]),
    ['body', r.body.toString('latin1')],
  ];
  const found: string[] = [];
  for (const s of secrets) {
    const forms = formsOf(s);
    for (const [where, text] of parts) {
      const lower = text.toLowerCase();
      if (forms.some((f) => lower.includes(f))) found.push(`${s.kind} in the ${where}`);
    }
  }
  return found;
}

function bytes(text: string): Uint8Array {
  return new TextEncoder().encode(text);
}

describe('the secret screen', () => {
  it('finds every kind in every form the device writes (plain, JSON-escaped, URL-encoded, HTML-escaped, the grouped code), in any case', () => {
    const screen = new SecretScreen(SAMPLE);
    for (const s of SAMPLE) {
      const forms = secretForms(s);
      for (const f of [...forms, ...forms.map((x) => x.toUpperCase()), ...forms.map((x) => x.toLowerCase())]) {
        for (const around of [(x: string) => x, (x: string) => `{"next":"http://10.0.0.2/?c=${x}"}`, (x: string) => `prefix ${x} suffix`, (x: string) => `\u00e9\u4e2d${x}\u{1F600}`]) {
          expect(screen.findText(around(f)), `${s.kind}: ${around(f)}`).toBe(s.kind);
        }
      }
    }
    expect(secretForms({ kind: 'signin-code', value: CODE })).toEqual(expect.arrayContaining(['ABCD-2345-EFGH', 'ABCD 2345 EFGH', 'ABCD%202345%20EFGH', 'ABCD+2345+EFGH']));
    expect(secretForms(SAMPLE[4]!)).toEqual(expect.arrayContaining(['sk-ant-api03-secret/with+odd=chars&\\"quotes\\"', 'sk-ant-api03-secret%2Fwith%2Bodd%3Dchars%26%22quotes%22', 'sk-ant-api03-secret/with+odd=chars&amp;&quot;quotes&quot;']));
    // Near misses are not secrets: a code one character short, or with one character changed.
    expect(screen.findText(`c=${CODE.slice(0, 11)}`)).toBeNull();
    expect(screen.findText(`c=${CODE.slice(0, 11)}X`)).toBeNull();
    // Random bytes (a PNG, a download) hold none: 4 MB of them.
    const noise = new Uint8Array(4 * 1024 * 1024);
    for (let i = 0, x = 12345; i < noise.length; i++) noise[i] = (x = (Math.imul(x, 1103515245) + 12345) | 0) >>> 24;
    expect(screen.find(noise)).toBeNull();
    // Nothing to look for: everything passes.
    expect(new SecretScreen([]).findText(SAMPLE[0]!.value)).toBeNull();
  });

  it('a body in pieces: a secret is found whatever the cut, and no byte of it leaves before it is found', () => {
    const screen = new SecretScreen(SAMPLE);
    for (const s of SAMPLE) {
      for (const form of secretForms(s)) {
        const body = bytes(`${'x'.repeat(37)}${form}${'y'.repeat(29)}`);
        for (let a = 0; a <= body.length; a += 3) {
          for (let b = a; b <= body.length; b += 5) {
            const pieces = screen.stream();
            let out = '';
            let found: SecretKind | null = null;
            for (const piece of [body.subarray(0, a), body.subarray(a, b), body.subarray(b)]) {
              const step = pieces.push(piece);
              if (!step.ok) {
                found = step.kind;
                break;
              }
              out += new TextDecoder().decode(step.pass);
            }
            expect(found, `${form} cut at ${a}, ${b}`).toBe(s.kind);
            // What left before the screen found it holds no more than a part of the secret shorter than any whole form.
            expect(out.length).toBeLessThan(37 + form.length);
            expect(new SecretScreen(SAMPLE).findText(out)).toBeNull();
          }
        }
      }
    }
    // A clean body in pieces comes out whole, in order.
    const clean = bytes('z'.repeat(10_000));
    const pieces = screen.stream();
    const chunks: Uint8Array[] = [];
    for (let at = 0; at < clean.length; at += 999) {
      const step = pieces.push(clean.subarray(at, at + 999));
      if (!step.ok) throw new Error('found a secret in a clean body');
      chunks.push(step.pass);
    }
    chunks.push(pieces.end());
    expect(Buffer.concat(chunks).toString()).toBe('z'.repeat(10_000));
  });

  it('the tunnel path withholds an answer carrying a secret in a header, a whole body, a JSON body or a streamed one, and fails closed when an owner cannot list its secrets', async () => {
    const token = SAMPLE[0]!.value;
    const router = new Router(() => true);
    const streamed = (text: string): HttpResponse => ({
      status: 200,
      headers: { 'Content-Type': 'application/octet-stream' },
      stream: {
        start(w: BodyWriter) {
          for (let at = 0; at < text.length; at += 7) w.write(text.slice(at, at + 7));
          w.end();
        },
      },
    });
    router.add({ method: 'GET', path: '/h', handler: () => ({ status: 302, headers: { Location: `/?c=${groupSignInCode(CODE).toLowerCase()}` }, body: '' }) });
    router.add({ method: 'GET', path: '/t', handler: () => ({ status: 200, headers: { 'Content-Type': 'text/plain' }, body: `pass=${encodeURIComponent(SAMPLE[2]!.value)}` }) });
    router.add({ method: 'GET', path: '/j', handler: () => ({ status: 200, headers: { 'Content-Type': 'application/json' }, body: JSON.stringify({ link: `http://x/oauth/go?k=${SAMPLE[3]!.value}` }) }) });
    router.add({ method: 'GET', path: '/k', handler: () => ({ status: 200, headers: { 'Content-Type': 'application/json' }, body: JSON.stringify({ token: 'not-a-secret-but-a-token-key', keep: 1 }) }) });
    router.add({ method: 'GET', path: '/s', handler: () => streamed(`${'a'.repeat(50)}${token}${'b'.repeat(50)}`) });
    router.add({ method: 'GET', path: '/ok', handler: () => streamed('c'.repeat(500)) });
    const d = new TunnelDispatcher({ router, token: () => token, secrets: () => SAMPLE });
    const drain = async (res: HttpResponse): Promise<{ text: string; aborted: string | null }> => {
      if (!res.stream) return { text: typeof res.body === 'string' ? res.body : new TextDecoder().decode(res.body ?? new Uint8Array(0)), aborted: null };
      let text = '';
      let aborted: string | null = null;
      await new Promise<void>((resolve) =>
        res.stream!.start({
          onDrain: null,
          write: (c) => ((text += typeof c === 'string' ? c : new TextDecoder().decode(c)), true),
          end: () => resolve(),
          abort: (why) => ((aborted = why), resolve()),
        }),
      );
      return { text, aborted };
    };
    for (const path of ['/h', '/t', '/j']) {
      const r = await d.dispatch('GET', path);
      expect(r.status, path).toBe(403);
      expect((await drain(r)).text).toMatch(/carried a credential/);
    }
    // The spec's stripping still applies to token and apPass keys, whatever their values.
    expect(JSON.parse((await drain(await d.dispatch('GET', '/k'))).text)).toEqual({ keep: 1 });
    const s = await drain(await d.dispatch('GET', '/s'));
    expect(s.aborted).toMatch(/carried a credential/);
    // What left is the start of the body before the secret (the screen holds back a secret's length).
    expect('a'.repeat(50).startsWith(s.text)).toBe(true);
    expect(await drain(await d.dispatch('GET', '/ok'))).toEqual({ text: 'c'.repeat(500), aborted: null });
    expect(d.stats.withheld).toBe(4);
    const broken = new TunnelDispatcher({
      router,
      token: () => token,
      secrets: () => {
        throw new Error('no list');
      },
    });
    expect((await broken.dispatch('GET', '/ok')).status).toBe(403);
  });
});

const PROVIDER_KEY = 'sk-anthropic-walk-secret-0123456789';
const BOT_TOKEN = '123456789:AAH-walk-token-for-tests-0123456789';

interface Live {
  secrets: LiveSecret[];
  codes: Set<string>;
  keys: Set<string>;
}

/** Every secret alive on the device now, asked of each owner directly (not of the registry). */
function liveNow(rig: Rig): Live {
  const { ctx } = rig.device;
  const codes = new Set(ctx.signin.live());
  const keys = new Set(ctx.connectors.flows.liveKeys());
  const secrets: LiveSecret[] = [
    { kind: 'token', value: ctx.token.reveal() },
    { kind: 'setup-passphrase', value: rig.mem.nvs.get('auth', 'apPass') as string },
    ...[...codes].map((value): LiveSecret => ({ kind: 'signin-code', value })),
    ...[...keys].map((value): LiveSecret => ({ kind: 'launch-key', value })),
    { kind: 'credential', value: PROVIDER_KEY },
    { kind: 'credential', value: BOT_TOKEN },
    { kind: 'credential', value: 'home-pass-1' },
    { kind: 'credential', value: 'cafe-pass-2345' },
  ];
  return { secrets, codes, keys };
}

type Variant = { query?: string; body?: string | Uint8Array; type?: string };
const FORM = 'application/x-www-form-urlencoded';
const JSON_TYPE = 'application/json';
const form = (fields: Record<string, string>): Variant => ({ body: new URLSearchParams(fields).toString(), type: FORM });
const rpc = (method: string, params?: unknown): Variant => ({ body: JSON.stringify({ jsonrpc: '2.0', id: 1, method, ...(params ? { params } : {}) }), type: JSON_TYPE });

function multipart(name: string, text: string, fields: Record<string, string> = {}): Variant {
  const b = 'walkboundary42';
  const parts = [
    ...Object.entries(fields).map(([k, v]) => `--${b}\r\nContent-Disposition: form-data; name="${k}"\r\n\r\n${v}\r\n`),
    `--${b}\r\nContent-Disposition: form-data; name="file"; filename="${name}"\r\nContent-Type: text/plain\r\n\r\n${text}\r\n`,
    `--${b}--\r\n`,
  ];
  return { body: parts.join(''), type: `multipart/form-data; boundary=${b}` };
}

/**
 * Plausible inputs for the routes that take some, by "METHOD path". A route
 * not named here is still walked, with a bare request (GET: no query; a
 * body method: an empty form), so a route added later is never skipped.
 */
function inputs(live: Live): Record<string, Variant[]> {
  const code = [...live.codes][0]!;
  const key = [...live.keys][0]!;
  return {
    'POST /api/timezone': [form({ tz: 'CET-1CEST,M3.5.0,M10.5.0/3' })],
    'POST /savewifi': [form({ ssid: 'Cafe', pass: 'cafe-pass-2345' })],
    'POST /api/wifi/handoff': [form({ ack: '1' }), {}],
    'POST /api/wifi': [form({ action: 'save', ssid: 'Cafe', pass: 'cafe-pass-2345' }), form({ action: 'rename', from: 'Cafe', to: 'Cafe2' })],
    'GET /api/signin/code': [{}, { query: 'purpose=hand' }],
    'POST /api/signin/exchange': [form({ code }), { body: JSON.stringify({ code: groupSignInCode(code) }), type: JSON_TYPE }],
    'POST /api/connectors': [form({ action: 'signin', id: 'calendar' }), form({ action: 'approve', id: 'calendar' }), form({ id: 'notes', name: 'Notes', kind: 'mcp', url: 'https://mcp.notes.test/mcp', auth: 'bearer', bearer: 'bearer-secret-0123456789' })],
    'GET /oauth/go': [{ query: `k=${key}` }, { query: 'k=wrong' }],
    'POST /oauth/go': [{ query: `k=${key}` }],
    'GET /oauth/callback': [{ query: 'state=nope&code=x' }],
    'POST /api/orch': [form({ midFail: '0' }), form({ directive: 'Be brief.' })],
    'GET /api/conversation': [{ query: 'chat=web' }],
    'POST /api/conversation/clear': [form({ chat: 'web' })],
    'POST /api/chat': [form({ modIn: '0' })],
    'POST /api/people': [form({ action: 'quota', chat: '2002', vectors: '100' })],
    'GET /api/files/dl': [{ query: 'project=notes&name=plan.md' }, { query: 'ref=notes/data.json' }, { query: 'project=notes&name=missing.md' }],
    'POST /api/files/upload': [multipart('walk.md', '# from outside\n', { project: 'notes' })],
    'POST /api/downloads': [form({ action: 'policy', value: 'ask' })],
    'POST /api/music': [form({ action: 'stop' })],
    'GET /api/mem/vector': [{ query: 'query=plan&limit=5' }, { query: 'limit=5' }],
    'POST /api/mem/vector/flush': [form({ keep_permanent: '1' })],
    'GET /api/mem/blob': [{ query: 'kind=message&limit=5' }],
    'PUT /api/mem/config': [form({ retrieval_count: '5' })],
    'GET /api/mem/episodic': [{ query: 'since_hours=24' }],
    'POST /api/factory-reset': [form({ confirm: 'factory reset' })],
    'POST /api/storage/erase': [form({ confirm: 'erase' })],
    'POST /api/card/format': [form({ confirm: 'format' })],
    'GET /': [{}, { query: `c=${code}` }],
    'POST /api/sessions': [form({ action: 'terminate', id: 'nope' })],
    'POST /api/skills': [form({ action: 'save', id: 'walk', md: '# Walk\nA skill.' })],
    'POST /api/routines': [form({ action: 'approve', id: 'nope' })],
    'POST /api/wakeups': [form({ action: 'mode', value: 'ask' })],
    'GET /api/models': [{}, { query: 'all=1' }],
    'POST /api/websearch': [form({ budget: '0' })],
    'POST /mcp': [rpc('tools/list'), rpc('tools/call', { name: 'device.status', arguments: {} }), rpc('tools/call', { name: 'system.health', arguments: {} }), rpc('tools/call', { name: 'files.read', arguments: { project: 'notes', name: 'plan.md' } })],
    'POST /api/ota/check': [{}],
    'POST /api/ota/apply': [form({ dry: '1' })],
    'POST /api/ota/auto': [form({ on: '0' })],
    'POST /api/cloud': [form({ action: 'pair' })],
    'GET /api/ui/frame': [{}, { query: 'describe=1' }],
  };
}

/** A device with every kind of secret live and something behind every route, paired with the relay. */
async function walkRig(): Promise<{ rig: Rig; id: string }> {
  const rig = setup({
    before: (mem) => {
      mem.wifi.networks.set('Home', 'home-pass-1');
      mem.nvs.set('orch', 'key.anthropic', PROVIDER_KEY);
      mem.nvs.set('chat', 'token', BOT_TOKEN);
      mem.nvs.set('chat', 'allow', '1001,2002');
    },
  });
  const id = await pair(rig);
  const { ctx } = rig.device;
  await until(rig, () => rig.mem.wifi.station().state === 'connected');
  // A sign-in code from the screen, and one from the hand-entry path (10 minutes).
  expect(rig.device.ui.showSignIn()).toBe(true);
  await until(rig, () => ctx.signin.live().length >= 2);
  ctx.signin.mint(HAND_LIFETIME_MS);
  // A connector sign-in started on the LAN: a live launch key.
  const lan = (method: string, path: string, fields: Record<string, string>) =>
    request(rig.mem.net, HTTP_PORT, method, path, { headers: { 'X-Device-Token': ctx.token.reveal(), 'Content-Type': FORM }, body: new URLSearchParams(fields).toString() });
  const oauth = { id: 'calendar', name: 'Calendar', kind: 'mcp', url: 'https://mcp.calendar.test/mcp', auth: 'oauth', authorize_url: 'https://auth.calendar.test/authorize', token_url: 'https://auth.calendar.test/token', client_id: 'desk', client_secret: 'client-secret-0123456789' };
  expect((await lan('POST', '/api/connectors', oauth)).status).toBe(201);
  expect((await lan('POST', '/api/connectors', { action: 'signin', id: 'calendar' })).status).toBe(200);
  // Files and memory for the file and memory routes to return.
  rig.device.files.store.save(null, 'notes', 'plan.md', bytes('# Plan\nWalk every route.\n'));
  rig.device.files.store.save(null, 'notes', 'data.json', bytes(JSON.stringify({ a: 1, list: [1, 2, 3] })));
  await ctx.memory.applyMemWrites([{ content: 'The plan is to walk every route.', importance: 0.6, permanent: false, ttl: 'weeks' }], null);
  return { rig, id };
}

describe('every registered route through the real tunnel', () => {
  it('no answer carries a live code, launch key, the token, apPass or a credential in its status line, headers or body, in any form; no tunnelled request mints a code or a key', async () => {
    const { rig, id } = await walkRig();
    const { ctx } = rig.device;
    expect(ctx.secrets.kinds().sort()).toEqual([...SECRET_KINDS].sort());
    const start = liveNow(rig);
    expect(start.codes.size).toBeGreaterThanOrEqual(3); // boot's, the screen's, the hand-entry one
    expect(start.keys.size).toBe(1);
    const token = ctx.token.reveal();
    const table = inputs(start);
    const routes = ctx.router.list();
    const walked = new Set<string>();
    const statuses: string[] = [];
    for (const r of routes) {
      const name = `${r.method} ${r.path}`;
      const variants = table[name] ?? [r.method === 'GET' || r.method === 'HEAD' || r.method === 'DELETE' ? {} : form({})];
      for (const v of variants) {
        const before = liveNow(rig);
        const target = `${r.path}${v.query ? `?${v.query}` : ''}`;
        const got = await owner(rig, id, r.method, target, { headers: v.type ? [['Content-Type', v.type]] : [], ...(v.body !== undefined ? { body: v.body } : {}) });
        const after = liveNow(rig);
        const found = leaks(got, [...before.secrets, ...after.secrets]);
        expect(found, `${r.method} ${target} answered ${got.status}: ${got.text.slice(0, 200)}`).toEqual([]);
        // Nothing new was minted by the tunnelled request (the screen's code is replaced only minutes apart).
        for (const c of after.codes) expect(before.codes.has(c), `${r.method} ${target} minted a sign-in code`).toBe(true);
        for (const k of after.keys) expect(before.keys.has(k), `${r.method} ${target} minted a launch key`).toBe(true);
        expect(ctx.token.reveal(), `${r.method} ${target} rotated the token`).toBe(token);
        statuses.push(`${r.method} ${target} ${got.status}`);
      }
      walked.add(name);
    }
    expect(walked.size).toBe(routes.length);
    expect(routes.length).toBeGreaterThan(60);
    // The minting routes were refused before they ran; the rest answered as on the LAN.
    for (const denied of ['GET /api/connect ', 'GET /api/signin/code ', 'POST /api/signin/exchange ', 'POST /api/token/regen ', 'POST /api/wifi/handoff ']) {
      expect(statuses.filter((s) => s.startsWith(denied)).every((s) => s.endsWith(' 403')), denied).toBe(true);
    }
    expect(statuses).toContain('POST /api/connectors 403');
    expect(statuses).toContain('GET /api/state 200');
    expect(statuses).toContain('GET /api/files/dl?project=notes&name=plan.md 200');
    expect(statuses).toContain('GET /api/ui/frame 200');
    // On the LAN the wizard's acknowledgement still gets its sign-in link.
    const lan = await request(rig.mem.net, HTTP_PORT, 'POST', '/api/wifi/handoff', { headers: { 'X-Device-Token': token, 'Content-Type': FORM }, body: 'ack=1' });
    expect(lan.status).toBe(200);
    expect(JSON.parse(lan.body)).toMatchObject({ next: expect.stringMatching(/\/\?c=[2-9A-HJKMNP-Z]{12}$/) });
  }, 120_000);

  it('the screen is what keeps them in: secrets planted where routes return them are withheld (403), a streamed download is cut (the relay answers 502), CLOUDLOOP reports none', async () => {
    const { rig, id } = await walkRig();
    const { ctx } = rig.device;
    const live = liveNow(rig);
    const code = [...live.codes][0]!;
    const key = [...live.keys][0]!;
    const pass = rig.mem.nvs.get('auth', 'apPass') as string;
    const store = rig.device.files.store;
    store.save(null, 'leak', 'code.md', bytes(`Sign in: ${groupSignInCode(code).toLowerCase()}\n`));
    store.save(null, 'leak', 'link.json', bytes(JSON.stringify({ note: { link: `http://10.0.0.9/oauth/go?k=${key}` } })));
    store.save(null, 'leak', 'token.txt', bytes(`${'x'.repeat(9000)}${ctx.token.reveal().toUpperCase()}${'y'.repeat(40_000)}`));
    await ctx.memory.applyMemWrites([{ content: `The setup network password is ${pass}.`, importance: 0.9, permanent: true, ttl: 'permanent' }], null);
    const withheld = async (target: string, method = 'GET', v: Variant = {}): Promise<RelayResponse & { text: string }> => {
      const r = await owner(rig, id, method, target, { headers: v.type ? [['Content-Type', v.type]] : [], ...(v.body !== undefined ? { body: v.body } : {}) });
      expect(leaks(r, liveNow(rig).secrets), target).toEqual([]);
      return r;
    };
    expect((await withheld('/api/files/dl?project=leak&name=code.md')).status).toBe(403);
    expect((await withheld('/api/files/dl?project=leak&name=link.json')).status).toBe(403);
    expect((await withheld('/api/mem/vector?query=setup%20network%20password')).status).toBe(403);
    expect((await withheld('/mcp', 'POST', rpc('tools/call', { name: 'files.read', arguments: { project: 'leak', name: 'code.md' } }))).status).toBe(403);
    // A download streamed past the secret: the 9000 bytes before it may have left, never the secret; the relay sees the stream reset.
    const cut = await withheld('/api/files/dl?project=leak&name=token.txt');
    expect(cut.status).toBe(502);
    expect(cut.text).toMatch(/abandoned/);
    expect(await cmd(rig, 'CLOUD?')).toMatch(/withheld=5\b/);
    // A file without secrets still downloads whole.
    expect((await withheld('/api/files/dl?project=notes&name=plan.md')).text).toBe('# Plan\nWalk every route.\n');
    expect(header(await withheld('/api/files/dl?project=notes&name=plan.md'), 'content-type')).toMatch(/text\/markdown/);
    expect(await cmd(rig, 'CLOUDLOOP /api/files/dl?project=leak&name=code.md')).toMatch(/via=relay status=403 .*secrets=none/);
  }, 60_000);
});

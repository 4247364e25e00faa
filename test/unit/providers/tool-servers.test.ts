// Boots the whole device: connectors, the chat's owner commands and the provider wire meet in one approval flow.
// Tool server entries (spec: Approval-gated objects "Tool server entry",
// Chat owner commands "/mcp approve or deny <name>"): every connector is one,
// inert until the owner approves it in the chat (/mcp) or on the web page;
// deny removes the approval and keeps the record; pointing it elsewhere
// takes the approval away; the approval survives a restart. Then their use:
// an approved, ready connector rides in the owner's provider A and B rounds
// (with its credential, in the request body only) and in sub-agent jobs;
// an unapproved, signed-out or denied one does not, nor do a guest's turns.
// On the in-memory HAL with the Bot API fake, the OAuth fake, fake provider
// servers that record every request, and the emulator's sub-agent backends.
import { describe, expect, it } from 'vitest';
import { boot, HTTP_PORT, type Device } from '../../../src/main.ts';
import { createOAuthProvider, DEFAULT_CLIENT, OAUTH_HOST, type OAuthProvider } from '../../../tools/oauth-fake.mjs';
import type { BotApiFake } from '../../../tools/telegram-fake.mjs';
import { agentNet, type AgentNet } from '../../support/agent-net.ts';
import { request } from '../../support/http.ts';
import { createMemHal, rebootMemHal, type MemHal } from '../../support/memhal.ts';
import { fakeProvider, TURN, type SeenRequest } from '../../support/provider-fake.ts';
import { fakeTelegram, serveHttp, serveTelegram } from '../../support/telegram-net.ts';
import { POLL_MS } from '../../../src/agents/limits.ts';

type Json = Record<string, any>; // eslint-disable-line @typescript-eslint/no-explicit-any

const TOKEN = '123456789:AAH-fake-token-for-tests-0123456789abc';
const OWNER = '1001';
const USER = '2002';
const SIGNATURE = /\n\n— Desk assistant · firmware v0\.1\.0$/;
const BEARER = 'bearer-secret-for-tools-0123';
const CLIENT_SECRET = 'client-secret-0123456789';

const CALENDAR = {
  id: 'calendar',
  name: 'Calendar',
  kind: 'mcp',
  url: 'https://mcp.calendar.test/mcp',
  auth: 'oauth',
  authorize_url: `https://${OAUTH_HOST}/authorize`,
  token_url: `https://${OAUTH_HOST}/token`,
  client_id: DEFAULT_CLIENT,
  client_secret: CLIENT_SECRET,
  scope: 'calendar.read',
};
const NOTES = { id: 'notes', name: 'Notes', kind: 'mcp', url: 'https://mcp.notes.test/', auth: 'bearer', bearer: BEARER };

interface Rig {
  mem: MemHal;
  device: Device;
  bot: BotApiFake;
  oauth: OAuthProvider;
  token: string;
  openai: SeenRequest[];
  anthropic: SeenRequest[];
  agents: AgentNet | null;
}

/** Answers a provider A or B round with the turn (and moderation as clean), recording every request. */
function serveProviders(rig: Rig): void {
  rig.openai = fakeProvider(rig.mem.net, 'api.openai.com', 443, (r) => {
    if (r.path === '/v1/moderations') return { status: 200, body: { id: 'modr-1', model: 'omni-moderation-latest', results: [{ flagged: false, categories: {}, category_scores: {} }] } };
    return { status: 200, body: { status: 'completed', output: [{ type: 'function_call', call_id: 'c1', name: 'orch_turn', arguments: JSON.stringify({ ...TURN, reply: 'Done (A).' }) }] } };
  });
  rig.anthropic = fakeProvider(rig.mem.net, 'api.anthropic.com', 443, () => ({ status: 200, body: { content: [{ type: 'tool_use', id: 'toolu_1', name: 'orch_turn', input: { ...TURN, reply: 'Done (B).' } }], stop_reason: 'tool_use' } }));
}

function setup(options: { agents?: boolean } = {}): Rig {
  const mem = createMemHal();
  mem.nvs.setMany('wifi', [['ssid', 'Home'], ['pass', 'home-pass-1']]);
  mem.nvs.set('orch', 'key.openai', 'sk-openai-secret');
  mem.nvs.set('orch', 'key.anthropic', 'sk-anthropic-secret');
  mem.nvs.set('orch', 'priority', 'openai,anthropic');
  mem.nvs.set('chat', 'token', TOKEN);
  mem.nvs.set('chat', 'allow', [OWNER, USER].join(','));
  const rig = { mem, agents: null } as unknown as Rig;
  rig.bot = fakeTelegram(mem.net, () => rig.mem.clock);
  rig.oauth = createOAuthProvider({ clients: [{ id: DEFAULT_CLIENT, secret: CLIENT_SECRET }], now: () => rig.mem.clock.wallMs() });
  serveHttp(mem.net, OAUTH_HOST, async (method, path, headers, body) => rig.oauth.handle(method, path, headers, body));
  // Sub-agent tests serve the emulator's job logic on the providers' names instead.
  if (options.agents) rig.agents = agentNet(mem.net, mem.clock);
  else serveProviders(rig);
  rig.device = boot(mem.hal);
  rig.token = rig.device.ctx.token.reveal();
  return rig;
}

/** A restart on the same NVS; the fakes serve the new network. */
function reboot(rig: Rig): void {
  rig.device.stop();
  rig.mem = rebootMemHal(rig.mem);
  serveTelegram(rig.bot, rig.mem.net);
  serveHttp(rig.mem.net, OAUTH_HOST, async (method, path, headers, body) => rig.oauth.handle(method, path, headers, body));
  serveProviders(rig);
  rig.device = boot(rig.mem.hal);
  rig.token = rig.device.ctx.token.reveal();
}

async function api(rig: Rig, method: string, path: string, fields?: Record<string, string>): Promise<{ status: number; json: Json; body: string }> {
  const body = fields ? new URLSearchParams(fields).toString() : undefined;
  const res = await request(rig.mem.net, HTTP_PORT, method, path, {
    headers: { 'X-Device-Token': rig.token, ...(body ? { 'Content-Type': 'application/x-www-form-urlencoded' } : {}) },
    ...(body ? { body } : {}),
  });
  let json: Json = {};
  try {
    json = JSON.parse(res.body) as Json;
  } catch {
    // a page or a redirect
  }
  return { status: res.status, json, body: res.body };
}

async function until(rig: Rig, pred: () => boolean, ms = 30_000): Promise<void> {
  if (!(await rig.mem.clock.until(pred, ms, 50))) throw new Error(`not within ${ms} ms; sent: ${JSON.stringify(rig.bot.sent.map((s) => [s.chat, s.text]))}`);
}

/** A chat message; resolves with the bot's next message to that chat. */
async function ask(rig: Rig, chat: string, text: string): Promise<string> {
  const before = rig.bot.to(chat).length;
  rig.bot.say(chat, text);
  await until(rig, () => rig.bot.to(chat).length > before);
  return rig.bot.to(chat)[before]!.text;
}

/** Signs the calendar connector in through the OAuth fake (the owner's browser part included). */
async function signIn(rig: Rig): Promise<void> {
  const start = await api(rig, 'POST', '/api/connectors', { action: 'signin', id: 'calendar' });
  expect(start.status, start.body).toBe(200);
  const go = await request(rig.mem.net, HTTP_PORT, 'POST', start.json['verifyPath'] as string, {});
  const authorize = new URL(go.headers.get('location')!);
  const back = rig.oauth.handle('GET', authorize.pathname + authorize.search, {}, new Uint8Array(0));
  const cb = new URL(back.headers['Location']!);
  const done = await request(rig.mem.net, HTTP_PORT, 'GET', cb.pathname + cb.search, {});
  expect(done.status, done.body).toBe(200);
}

/** The access token the OAuth fake issued last (what the providers must be given). */
async function accessToken(rig: Rig): Promise<string> {
  const t = await rig.device.ctx.connectors.credential('calendar');
  expect(t).toBeTruthy();
  return t!;
}

/** Runs an owner turn (or a guest's) and waits for it. */
async function turn(rig: Rig, text: string, admin = true): Promise<string> {
  let reply: string | null = null;
  void rig.device.assistant.engine.run({ chat: 'c1', text, person: admin ? null : USER, admin, origin: 'console', deliver: (r) => void (reply = r) });
  await until(rig, () => reply !== null);
  return reply!;
}

const mcpTools = (r: SeenRequest): Json[] => ((r.body as Json)['tools'] as Json[]).filter((t) => t['type'] === 'mcp');

describe('/mcp in the chat', () => {
  it('lists the entries; approves by id or by an unambiguous display name; deny removes the approval and keeps the record; signed replies', async () => {
    const rig = setup();
    expect(await ask(rig, OWNER, '/mcp')).toMatch(/^No tool servers are set up\. Add one on the web page/);
    expect((await api(rig, 'POST', '/api/connectors', CALENDAR)).status).toBe(201);
    expect((await api(rig, 'POST', '/api/connectors', NOTES)).status).toBe(201);
    // New entries start unapproved.
    const list = await ask(rig, OWNER, '/mcp');
    expect(list).toContain('calendar "Calendar" (MCP server, needs sign-in, for openai and anthropic): not approved');
    expect(list).toContain('notes "Notes" (MCP server, ready, for openai and anthropic): not approved');
    expect(list).toMatch(SIGNATURE);

    const byName = await ask(rig, OWNER, '/mcp approve  notes ');
    expect(byName).toMatch(/^Approved notes "Notes"\. It goes to openai and anthropic turns from now on\./);
    expect(byName).toMatch(SIGNATURE);
    expect(await ask(rig, OWNER, '/mcp approve Notes')).toMatch(/^notes "Notes" was already approved\./);
    // Not signed in yet: approved, and told it waits for the sign-in.
    expect(await ask(rig, OWNER, '/mcp APPROVE calendar')).toMatch(/^Approved calendar "Calendar"\. It is not usable yet \(needs sign-in\): it goes to openai and anthropic turns once it is signed in on the web page\./);
    expect((await api(rig, 'GET', '/api/connectors')).json['connectors'].map((c: Json) => [c['id'], c['approved']])).toEqual([
      ['calendar', true],
      ['notes', true],
    ]);

    expect(await ask(rig, OWNER, '/mcp deny calendar')).toMatch(/^Removed the approval of calendar "Calendar": providers no longer get it\. The record stays; delete it on the web page\./);
    expect(await ask(rig, OWNER, '/mcp deny calendar')).toMatch(/^calendar "Calendar" was not approved; nothing was changed\./);
    const after = (await api(rig, 'GET', '/api/connectors')).json['connectors'] as Json[];
    expect(after.map((c) => [c['id'], c['approved']])).toEqual([
      ['calendar', false],
      ['notes', true],
    ]);
  });

  it('refuses an unknown name, an ambiguous display name, bad usage, and anyone but the owner, changing nothing', async () => {
    const rig = setup();
    await api(rig, 'POST', '/api/connectors', { ...NOTES, id: 'notes-home', name: 'Notes' });
    await api(rig, 'POST', '/api/connectors', { ...NOTES, id: 'notes-work', name: 'notes', url: 'https://mcp.work.test/' });
    const before = (await api(rig, 'GET', '/api/connectors')).json['connectors'];
    expect(await ask(rig, OWNER, '/mcp approve github')).toMatch(/^No tool server is called "github"\. \/mcp lists the tool servers\. Nothing was changed\./);
    expect(await ask(rig, OWNER, '/mcp approve Notes')).toMatch(/^"Notes" is the name of 2 tool servers \(notes-home, notes-work\): use the id\. \/mcp lists the tool servers\. Nothing was changed\./);
    expect(await ask(rig, OWNER, '/mcp approve')).toMatch(/^Usage: \/mcp approve \| deny <name>/);
    expect(await ask(rig, OWNER, '/mcp allow notes-home')).toMatch(/^Usage: \/mcp approve \| deny <name>/);
    // A user (not an admin) is refused by the chat service; nothing runs.
    const refused = await ask(rig, USER, '/mcp approve notes-home');
    expect(refused).toMatch(/^\/mcp is for the device's owner\. \/help lists what you can do\./);
    expect(refused).toMatch(SIGNATURE);
    expect((await api(rig, 'GET', '/api/connectors')).json['connectors']).toEqual(before);
    // The ids work where the name is ambiguous.
    expect(await ask(rig, OWNER, '/mcp approve notes-work')).toMatch(/^Approved notes-work "notes"\./);
  });
});

describe('the approval on the web route and in the record', () => {
  it('POST /api/connectors approve|deny (token-gated), GET shows it; unknown ids are 404; approval is not an upsert field', async () => {
    const rig = setup();
    const created = await api(rig, 'POST', '/api/connectors', NOTES);
    expect(created.json['connector']).toMatchObject({ id: 'notes', approved: false, reaches: ['openai', 'anthropic'] });
    const ok = await api(rig, 'POST', '/api/connectors', { action: 'approve', id: 'notes' });
    expect(ok.status).toBe(200);
    expect(ok.json).toMatchObject({ changed: true, connector: { id: 'notes', approved: true } });
    expect((await api(rig, 'POST', '/api/connectors', { action: 'approve', id: 'notes' })).json['changed']).toBe(false);
    expect((await api(rig, 'GET', '/api/connectors')).json['connectors'][0]).toMatchObject({ id: 'notes', approved: true, status: 'ready' });
    expect((await api(rig, 'POST', '/api/connectors', { action: 'approve', id: 'nope' })).status).toBe(404);
    expect((await api(rig, 'POST', '/api/connectors', { id: 'notes', approved: 'false' })).status).toBe(400);
    const denied = await api(rig, 'POST', '/api/connectors', { action: 'deny', id: 'notes' });
    expect(denied.json).toMatchObject({ changed: true, connector: { id: 'notes', approved: false } });
    // Without the device token: 401, nothing changes.
    const anon = await request(rig.mem.net, HTTP_PORT, 'POST', '/api/connectors', { headers: { 'Content-Type': 'application/x-www-form-urlencoded' }, body: 'action=approve&id=notes' });
    expect(anon.status).toBe(401);
    expect((await api(rig, 'GET', '/api/connectors')).json['connectors'][0]['approved']).toBe(false);
    expect((await api(rig, 'GET', '/api/connectors')).body).not.toContain(BEARER);
  });

  it('keeps the approval across a restart; changing the URL, connector id or carrying provider voids it, a rename or a new secret does not', async () => {
    const rig = setup();
    await api(rig, 'POST', '/api/connectors', NOTES);
    await api(rig, 'POST', '/api/connectors', { action: 'approve', id: 'notes' });
    reboot(rig);
    expect((await api(rig, 'GET', '/api/connectors')).json['connectors'][0]).toMatchObject({ id: 'notes', approved: true });
    expect((await api(rig, 'POST', '/api/connectors', { id: 'notes', name: 'My notes', bearer: 'another-bearer-secret-0001' })).json['connector']).toMatchObject({ approved: true });
    const moved = await api(rig, 'POST', '/api/connectors', { id: 'notes', url: 'https://mcp.elsewhere.test/' });
    expect(moved.json).toMatchObject({ changed: true, connector: { approved: false } });
    expect((await api(rig, 'GET', '/api/log')).body).not.toContain('another-bearer-secret-0001');
    await api(rig, 'POST', '/api/connectors', { action: 'approve', id: 'notes' });
    expect((await api(rig, 'POST', '/api/connectors', { id: 'notes', provider: 'openai' })).json['connector']).toMatchObject({ approved: false, reaches: ['openai'] });
    // A provider connector by id: changing the id voids it too.
    await api(rig, 'POST', '/api/connectors', { id: 'gmail', kind: 'provider', connector_id: 'connector_gmail', provider: 'openai', auth: 'bearer', bearer: 'gmail-token-0123456789' });
    await api(rig, 'POST', '/api/connectors', { action: 'approve', id: 'gmail' });
    expect((await api(rig, 'POST', '/api/connectors', { id: 'gmail', connector_id: 'connector_googledrive' })).json['connector']).toMatchObject({ approved: false });
    reboot(rig);
    const all = (await api(rig, 'GET', '/api/connectors')).json['connectors'] as Json[];
    expect(all.map((c) => [c['id'], c['approved']])).toEqual([
      ['notes', false],
      ['gmail', false],
    ]);
  });
});

describe('tool servers in provider rounds', () => {
  it('an approved, signed-in connector reaches A and B with its credential; unapproved, signed-out and denied ones do not; the prompt names them without secrets', async () => {
    const rig = setup();
    await api(rig, 'POST', '/api/connectors', CALENDAR);
    await api(rig, 'POST', '/api/connectors', NOTES);
    await signIn(rig);
    const token = await accessToken(rig);

    // Nothing approved: inert.
    expect(await turn(rig, 'what is on today?')).toBe('Done (A).');
    expect(mcpTools(rig.openai.at(-1)!)).toEqual([]);
    const system = ((rig.openai.at(-1)!.body as Json)['input'] as Json[])[1]!['content'] as string;
    expect(system).toContain('Calendar (MCP server, signed in, not approved)');
    expect(system).toContain('Notes (MCP server, ready, not approved)');

    await ask(rig, OWNER, '/mcp approve calendar');
    await turn(rig, 'what is on today?');
    const a = rig.openai.at(-1)!;
    expect(mcpTools(a)).toEqual([{ type: 'mcp', server_label: 'calendar', server_url: 'https://mcp.calendar.test/mcp', server_description: 'Calendar', authorization: token, require_approval: 'never' }]);
    // orch_turn still first and the choice still "a tool each round".
    expect((a.body as Json)['tools'][0]['name']).toBe('orch_turn');
    expect((a.body as Json)['tool_choice']).toBe('required');
    const prompt = ((a.body as Json)['input'] as Json[])[1]!['content'] as string;
    expect(prompt).toContain('Calendar (MCP server, signed in, approved)');
    expect(prompt).not.toContain(token);
    expect(prompt).not.toContain('mcp.calendar.test');

    // Provider B: mcp_servers with the token, one toolset each, and the MCP connector's beta header.
    rig.device.ctx.store('orch').set('priority', 'anthropic,openai');
    await ask(rig, OWNER, '/mcp approve notes');
    expect(await turn(rig, 'and my notes?')).toBe('Done (B).');
    const b = rig.anthropic.at(-1)!;
    expect((b.body as Json)['mcp_servers']).toEqual([
      { type: 'url', url: 'https://mcp.calendar.test/mcp', name: 'calendar', authorization_token: token },
      { type: 'url', url: 'https://mcp.notes.test/', name: 'notes', authorization_token: BEARER },
    ]);
    expect(((b.body as Json)['tools'] as Json[]).filter((t) => t['type'] === 'mcp_toolset')).toEqual([
      { type: 'mcp_toolset', mcp_server_name: 'calendar' },
      { type: 'mcp_toolset', mcp_server_name: 'notes' },
    ]);
    expect(b.headers['anthropic-beta']).toBe('mcp-client-2025-11-20');
    expect((b.body as Json)['tool_choice']).toEqual({ type: 'auto' });

    // Signed out: it drops out; denied: it disappears.
    await api(rig, 'POST', '/api/connectors', { action: 'signout', id: 'calendar' });
    await ask(rig, OWNER, '/mcp deny notes');
    await turn(rig, 'again');
    const c = rig.anthropic.at(-1)!;
    expect((b.body as Json)['mcp_servers']).toHaveLength(2);
    expect((c.body as Json)['mcp_servers']).toBeUndefined();
    expect(c.headers['anthropic-beta']).toBeUndefined();
    expect(((c.body as Json)['tools'] as Json[]).some((t) => t['type'] === 'mcp_toolset')).toBe(false);

    // The secrets never reach the log.
    const log = (await api(rig, 'GET', '/api/log')).body;
    expect(log).not.toContain(token);
    expect(log).not.toContain(BEARER);
  });

  it("a guest's turn carries no tool server, even approved ones", async () => {
    const rig = setup();
    await api(rig, 'POST', '/api/connectors', NOTES);
    await api(rig, 'POST', '/api/connectors', { action: 'approve', id: 'notes' });
    await turn(rig, 'owner asks');
    expect(mcpTools(rig.openai.at(-1)!)).toHaveLength(1);
    await turn(rig, 'a member asks', false);
    expect(mcpTools(rig.openai.at(-1)!)).toEqual([]);
  });

  it('a provider A connector travels by connector id; one only for provider A never reaches B', async () => {
    const rig = setup();
    await api(rig, 'POST', '/api/connectors', { id: 'gmail', name: 'Mail', kind: 'provider', connector_id: 'connector_gmail', provider: 'openai', auth: 'bearer', bearer: 'gmail-token-0123456789' });
    await api(rig, 'POST', '/api/connectors', { action: 'approve', id: 'gmail' });
    await turn(rig, 'mail?');
    expect(mcpTools(rig.openai.at(-1)!)).toEqual([{ type: 'mcp', server_label: 'gmail', connector_id: 'connector_gmail', server_description: 'Mail', authorization: 'gmail-token-0123456789', require_approval: 'never' }]);
    rig.device.ctx.store('orch').set('priority', 'anthropic,openai');
    await turn(rig, 'mail?');
    expect((rig.anthropic.at(-1)!.body as Json)['mcp_servers']).toBeUndefined();
  });
});

describe('tool servers in sub-agent jobs', () => {
  it('provider A: the mcp tools ride beside web search; provider B: declared on the agent (remade when the set changes), credentials in a per-job vault archived at the end', async () => {
    const rig = setup({ agents: true });
    const net = rig.agents!;
    await api(rig, 'POST', '/api/connectors', NOTES);
    await api(rig, 'POST', '/api/connectors', { action: 'approve', id: 'notes' });
    const fabric = rig.device.agents.fabric;
    const job = (provider: string, task: string): void => {
      const r = fabric.enqueue({ task, provider, model: '', skill: '', name: '', project: '', attach: [] }, { chat: 'c1', person: null, admin: true });
      expect(r.ok, JSON.stringify(r)).toBe(true);
    };

    job('openai', 'look through my notes');
    await rig.mem.clock.advance(2_000);
    const create = net.requests.find((q) => q.path === '/v1/responses')!;
    expect(create.body['tools']).toEqual([{ type: 'web_search' }, { type: 'mcp', server_label: 'notes', server_url: 'https://mcp.notes.test/', server_description: 'Notes', authorization: BEARER, require_approval: 'never' }]);

    job('anthropic', 'summarize my notes');
    await rig.mem.clock.advance(2_000);
    const agent = net.requests.find((q) => q.path === '/v1/agents')!;
    expect(agent.body['mcp_servers']).toEqual([{ type: 'url', name: 'notes', url: 'https://mcp.notes.test/' }]);
    expect(agent.body['tools']).toEqual([{ type: 'agent_toolset_20260401' }, { type: 'mcp_toolset', mcp_server_name: 'notes', default_config: { permission_policy: { type: 'always_allow' } } }]);
    expect(JSON.stringify(agent.body)).not.toContain(BEARER);
    const session = net.requests.find((q) => q.path === '/v1/sessions')!;
    const vaultId = session.body['vault_ids'][0] as string;
    const vault = net.jobs.vaults.get(vaultId)!;
    expect(vault.credentials).toMatchObject([{ type: 'static_bearer', mcp_server_url: 'https://mcp.notes.test/', token: BEARER }]);
    expect(vault.archived).toBe(false);
    await rig.mem.clock.advance(POLL_MS + 1_000);
    expect(vault.archived).toBe(true);
    // Archived as the SDK's beta.vaults.archive(id) does: a POST without a body.
    const archive = net.requests.find((q) => q.path === `/v1/vaults/${vaultId}/archive`)!;
    expect([archive.method, archive.body, archive.headers['content-length'], archive.headers['content-type']]).toEqual(['POST', null, '0', undefined]);

    // The same set: the cached agent is reused; a changed set makes a new one; denied: none declared, no vault.
    const agents = () => net.requests.filter((q) => q.path === '/v1/agents');
    job('anthropic', 'again');
    await rig.mem.clock.advance(2_000);
    expect(agents()).toHaveLength(1);
    await api(rig, 'POST', '/api/connectors', { id: 'notes', url: 'https://mcp.notes2.test/' });
    await api(rig, 'POST', '/api/connectors', { action: 'approve', id: 'notes' });
    job('anthropic', 'moved');
    await rig.mem.clock.advance(2_000);
    expect(agents()).toHaveLength(2);
    expect(agents()[1]!.body['mcp_servers']).toEqual([{ type: 'url', name: 'notes', url: 'https://mcp.notes2.test/' }]);
    await api(rig, 'POST', '/api/connectors', { action: 'deny', id: 'notes' });
    const vaultsBefore = net.jobs.vaults.size;
    job('anthropic', 'denied');
    await rig.mem.clock.advance(2_000);
    expect(agents()).toHaveLength(3);
    expect(agents()[2]!.body['mcp_servers']).toBeUndefined();
    expect(net.jobs.vaults.size).toBe(vaultsBefore);
    expect(net.requests.filter((q) => q.path === '/v1/sessions').at(-1)!.body['vault_ids']).toBeUndefined();
    job('openai', 'denied too');
    await rig.mem.clock.advance(2_000);
    expect(net.requests.filter((q) => q.path === '/v1/responses').at(-1)!.body['tools']).toEqual([{ type: 'web_search' }]);
  });

  it("a member's job carries none", async () => {
    const rig = setup({ agents: true });
    await api(rig, 'POST', '/api/connectors', NOTES);
    await api(rig, 'POST', '/api/connectors', { action: 'approve', id: 'notes' });
    const r = rig.device.agents.fabric.enqueue({ task: 'member task', provider: 'openai', model: '', skill: '', name: '', project: '', attach: [] }, { chat: USER, person: USER, admin: false });
    expect(r.ok).toBe(true);
    await rig.mem.clock.advance(2_000);
    expect(rig.agents!.requests.find((q) => q.path === '/v1/responses')!.body['tools']).toEqual([{ type: 'web_search' }]);
  });
});

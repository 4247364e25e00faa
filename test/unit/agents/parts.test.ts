// Boots the whole device: the brief a job gets gathers the owner's time, skills, memory and files from their own subsystems.
// The fabric's parts: the brief in dispatch order (now-header in the owner's
// time zone, skill capsule, separator and task, [CONTEXT], [ATTACHED]) with
// every cap, provider choice, each backend's requests as the emulator records
// them, project auto-save, the session and results tools, GET and POST
// /api/sessions, and the retired session ops.
import { describe, expect, it } from 'vitest';
import { buildBrief, SEPARATOR, type BriefDeps, type ContextMessage } from '../../../src/agents/brief.ts';
import { chooseProvider, DEEP_RESEARCH_MODEL } from '../../../src/agents/choose.ts';
import { POLL_MS, PUMP_MS } from '../../../src/agents/limits.ts';
import { NO_DOCS, NO_SKILLS, type AgentDocs, type AgentSkills } from '../../../src/agents/ports.ts';
import { HTTP_PORT } from '../../../src/main.ts';
import type { ToolCaller } from '../../../src/core/tools/types.ts';
import type { ProviderId } from '../../../src/providers/settings.ts';
import { utf8Length } from '../../../src/util/utf8.ts';
import { rig, spawnOp, turn, turnResult } from '../../support/agent-rig.ts';
import { VirtualClock } from '../../support/clock.ts';
import { createMemHal } from '../../support/memhal.ts';
import { Store } from '../../../src/core/store.ts';
import { Log } from '../../../src/log/log.ts';
import { LocalTime, TIME_NS } from '../../../src/system/local-time.ts';
import { request } from '../../support/http.ts';

const spec = (task: string, over: Record<string, unknown> = {}) => ({ task, provider: '', model: '', skill: '', name: '', project: '', attach: [] as string[], ...over });
const owner = { chat: 'c1', person: null, admin: true };
const mcp: ToolCaller = { via: 'mcp', admin: true, scheduled: false, unattended: false, person: null };

/** The owner's local time (ctx.time) on a virtual clock, in a zone. */
function ownerTime(clock = new VirtualClock(), tz = ''): LocalTime {
  const mem = createMemHal();
  const time = new LocalTime(clock, new Store(mem.nvs, TIME_NS), new Log(mem.clock, mem.system));
  expect(time.set(tz).ok).toBe(true);
  return time;
}

const unsynced = (): Pick<BriefDeps, 'now'> => {
  const time = ownerTime(new VirtualClock({ synced: false }));
  return { now: () => time.nowStamp() };
};

function briefDeps(over: Partial<BriefDeps> = {}, messages: ContextMessage[] = []): BriefDeps {
  const time = ownerTime();
  return { now: () => time.nowStamp(), skills: NO_SKILLS, docs: NO_DOCS, conversation: () => messages, ...over };
}

const skills = (md: string, approved = true, inject = 'spawn'): AgentSkills => ({ capsule: (id) => (id === 'travel' ? { md, approved, inject } : null), provider: () => null });

describe('the brief', () => {
  it('is in dispatch order: now-header, capsule, separator and task, [CONTEXT], [ATTACHED]', () => {
    const docs: AgentDocs = { read: (_p, project, name) => (name === 'plan.md' ? { ok: true, text: `plan of ${project}` } : { ok: false, reason: 'not found' }), save: NO_DOCS.save };
    const messages: ContextMessage[] = [
      { role: 'assistant', text: 'Which city?' },
      { role: 'user', text: 'Lisbon, in May' },
    ];
    const b = buildBrief({ ...spec('Find three hotels', { skill: 'travel', attach: ['trip/plan.md', 'trip/gone.md', 'nonsense'] }), ...owner }, briefDeps({ skills: skills('# Travel skill\nPrefer quiet places.'), docs }, messages));
    expect(b.text).toBe(
      [
        'Now: Sun 2026-11-22 09:00 UTC',
        '# Travel skill\nPrefer quiet places.',
        `${SEPARATOR}\nFind three hotels`,
        '[CONTEXT]\nuser: Lisbon, in May\nassistant: Which city?',
        '[ATTACHED: trip/plan.md]\nplan of trip',
        '[ATTACHED: trip/gone.md]\n(This document could not be attached: not found.)',
        '[ATTACHED: nonsense]\n(This document could not be attached: not a <project>/<name> reference.)',
      ].join('\n\n'),
    );
    expect(b.notes).toEqual(['trip/gone.md not attached: not found', 'nonsense not attached: not a <project>/<name> reference']);
  });

  it('says now in the owner\'s time zone, with its abbreviation and UTC offset, across a daylight-saving change', () => {
    // Berlin changes to summer time at 01:00 UTC on 29 March 2026.
    const clock = new VirtualClock({ wallMs: Date.UTC(2026, 2, 29, 0, 59) });
    const time = ownerTime(clock, 'CET-1CEST,M3.5.0,M10.5.0/3');
    const header = (): string => buildBrief({ ...spec('t'), ...owner }, briefDeps({ now: () => time.nowStamp() })).text.split('\n\n')[0]!;
    expect(header()).toBe('Now: Sun 2026-03-29 01:59 CET (UTC+01:00)');
    clock.setWall(Date.UTC(2026, 2, 29, 1, 0));
    expect(header()).toBe('Now: Sun 2026-03-29 03:00 CEST (UTC+02:00)');
    // A zone whose name is its offset says it once; the owner's change shows at once.
    expect(time.set('<+0530>-5:30').ok).toBe(true);
    expect(header()).toBe('Now: Sun 2026-03-29 06:30 UTC+5:30');
  });

  it('leaves out the now-header while the clock is unsynced, and a capsule that is not approved or not for spawns', () => {
    for (const s of [skills('x', false), skills('x', true, 'prompt')]) {
      const b = buildBrief({ ...spec('task', { skill: 'travel' }), ...owner }, briefDeps({ ...unsynced(), skills: s }));
      expect(b.text).toBe(`${SEPARATOR}\ntask`);
      expect(b.notes[0]).toMatch(/^skill travel is not/);
    }
    expect(buildBrief({ ...spec('t', { skill: 'travel' }), ...owner }, briefDeps({ skills: skills('x', true, 'both') })).text).toContain('x\n\n-----');
    expect(buildBrief({ ...spec('t', { skill: 'nope' }), ...owner }, briefDeps()).notes).toEqual(['skill nope does not exist: not injected']);
  });

  it('caps the capsule at 4096 bytes and the task at 4095, on character boundaries', () => {
    const b = buildBrief({ ...spec('é'.repeat(3000)), skill: 'travel', ...owner }, briefDeps({ ...unsynced(), skills: skills('ü'.repeat(3000)) }));
    const [capsule, rest] = b.text.split(`\n\n${SEPARATOR}\n`);
    expect(utf8Length(capsule!)).toBe(4096);
    expect(utf8Length(rest!)).toBe(4094);
  });

  it('carries the last 6 messages, each at most 300 characters, within 1200 bytes, dropping the oldest first', () => {
    const newestFirst: ContextMessage[] = Array.from({ length: 8 }, (_, i) => ({ role: i % 2 ? 'assistant' : 'user', text: `m${8 - i} ${'x'.repeat(i === 0 ? 500 : 250)}` }));
    const b = buildBrief({ ...spec('t'), ...owner }, briefDeps({}, newestFirst));
    const context = b.text.split('\n\n').find((p) => p.startsWith('[CONTEXT]'))!;
    const lines = context.split('\n').slice(1);
    expect(lines.every((l) => [...l].length <= 300)).toBe(true);
    expect(lines.reduce((n, l) => n + utf8Length(l) + 1, 0)).toBeLessThanOrEqual(1200);
    // Of the last six (m3..m8), the oldest went first to fit 1200 bytes.
    expect(lines.map((l) => l.split(' ')[1])).toEqual(['m5', 'm6', 'm7', 'm8']);
    expect(lines[3]!.length).toBe(300);
  });

  it('attaches up to 24 KB across documents, cutting the one that overflows and noting the rest', () => {
    const docs: AgentDocs = { read: (_p, _project, name) => ({ ok: true, text: name[0]!.repeat(10 * 1024) }), save: NO_DOCS.save };
    const b = buildBrief({ ...spec('t', { attach: ['p/a.md', 'p/b.md', 'p/c.md', 'p/d.md'] }), ...owner }, briefDeps({ docs, ...unsynced() }));
    const parts = b.text.split('\n\n');
    expect(parts[1]).toBe(`[ATTACHED: p/a.md]\n${'a'.repeat(10240)}`);
    expect(parts[2]).toBe(`[ATTACHED: p/b.md]\n${'b'.repeat(10240)}`);
    expect(parts[3]).toBe(`[ATTACHED: p/c.md]\n${'c'.repeat(4096)}\n(Cut here: the 24 KB budget for attachments is spent.)`);
    expect(parts[4]).toBe('[ATTACHED: p/d.md]\n(Not included: the 24 KB budget for attachments is spent.)');
  });
});

describe('provider choice', () => {
  const deps = (keyed: ProviderId[], skillProvider: string | null = null) => ({ keyed: () => keyed, customModel: () => 'local', skills: { capsule: () => null, provider: () => skillProvider }, demo: null });
  it('takes the requested provider if keyed, else a skill provider, else the first keyed by priority', () => {
    expect(chooseProvider(spec('t', { provider: 'OpenAI' }), deps(['anthropic', 'openai']))).toMatchObject({ ok: true, provider: 'openai', model: 'gpt-5-mini', note: null });
    expect(chooseProvider(spec('t', { provider: 'mistral' }), deps(['anthropic', 'openai']))).toMatchObject({ provider: 'anthropic', note: 'mistral has no key' });
    expect(chooseProvider(spec('t', { provider: 'mistral', skill: 's' }), deps(['anthropic', 'openai'], 'openai'))).toMatchObject({ provider: 'openai' });
    expect(chooseProvider(spec('t', { skill: 's' }), deps(['anthropic'], 'openai'))).toMatchObject({ provider: 'anthropic' });
    expect(chooseProvider(spec('t'), deps([]))).toEqual({ ok: false, reason: 'no model provider has a key for sub-agents' });
    // Past its monthly token budget a provider takes no new job; with every one spent the spawn is refused.
    const spent = (list: ProviderId[]) => (p: ProviderId) => list.includes(p);
    expect(chooseProvider(spec('t', { provider: 'openai' }), { ...deps(['anthropic', 'openai']), spent: spent(['openai']) })).toMatchObject({ ok: true, provider: 'anthropic', note: "openai's monthly token budget is used up" });
    expect(chooseProvider(spec('t'), { ...deps(['anthropic', 'openai']), spent: spent(['anthropic', 'openai']) })).toEqual({ ok: false, reason: 'the monthly token budget is used up for anthropic, openai' });
  });
  it("coerces an invalid model to the provider's default; deep_research upgrades provider A's", () => {
    expect(chooseProvider(spec('t', { model: 'claude-opus-4-1' }), deps(['openai']))).toMatchObject({ model: 'gpt-5-mini' });
    expect(chooseProvider(spec('t', { model: 'gpt-5' }), deps(['openai']))).toMatchObject({ model: 'gpt-5' });
    expect(chooseProvider(spec('t', { model: 'deep_research' }), deps(['openai']))).toMatchObject({ model: DEEP_RESEARCH_MODEL });
    expect(chooseProvider(spec('t', { model: 'deep_research' }), deps(['anthropic']))).toMatchObject({ model: 'claude-sonnet-4-5' });
    expect(chooseProvider(spec('t'), deps(['custom']))).toMatchObject({ provider: 'custom', model: 'local' });
  });
});

describe('backends as the emulator sees them', () => {
  it('provider A: a background response, stored, with web search; polled by id', async () => {
    const { device, net, mem } = rig({ keys: ['openai'], priority: 'openai' });
    net.script({ polls: 1, result: 'A says hi' });
    device.agents.fabric.enqueue(spec('research it', { model: 'deep_research' }), owner);
    await mem.clock.advance(10);
    const create = net.requests[0]!;
    expect(create).toMatchObject({ method: 'POST', host: 'api.openai.com', path: '/v1/responses' });
    expect(create.body).toMatchObject({ model: DEEP_RESEARCH_MODEL, background: true, store: true, tools: [{ type: 'web_search' }] });
    expect(create.body.input).toContain('research it');
    expect(create.headers['authorization']).toBe('Bearer sk-openai-secret');
    await mem.clock.advance(POLL_MS);
    expect(net.requests[1]).toMatchObject({ method: 'GET', path: `/v1/responses/${net.jobs.list()[0]!.id}` });
    expect(device.agents.results.list(null)[0]!.text).toBe('A says hi');
  });

  it('provider B: environment and agent made once and cached, a new agent per model, a stale cache made again', async () => {
    const { device, net, mem } = rig({ keys: ['anthropic'], priority: 'anthropic' });
    const f = device.agents.fabric;
    f.enqueue(spec('one'), owner);
    f.enqueue(spec('two'), owner);
    f.enqueue(spec('three', { model: 'claude-opus-4-1' }), owner);
    await mem.clock.advance(PUMP_MS * 3);
    expect(net.jobs.created).toEqual({ environments: 1, agents: 2, sessions: 3 });
    expect(net.jobs.list().map((j) => j.model)).toEqual(['claude-sonnet-4-5', 'claude-sonnet-4-5', 'claude-opus-4-1']);
    const agentBody = net.requests.find((q) => q.path === '/v1/agents')!.body;
    expect(agentBody).toMatchObject({ model: 'claude-sonnet-4-5', tools: [{ type: 'agent_toolset_20260401' }] });
    // The provider forgot our agent: the session create answers 404 and the cache is made again, once.
    net.jobs.reset();
    const before = net.requests.length;
    device.agents.fabric.enqueue(spec('four'), owner);
    await mem.clock.advance(PUMP_MS);
    expect(net.requests.slice(before).map((q) => q.path.replace(/sesn_\w+/, 'S'))).toEqual(['/v1/sessions', '/v1/environments', '/v1/agents', '/v1/sessions', '/v1/sessions/S/events']);
    expect(net.jobs.created).toEqual({ environments: 1, agents: 1, sessions: 1 });
    expect(device.agents.fabric.running(null)).toHaveLength(4);
  });

  it('provider C: one synchronous conversations call, served at once', async () => {
    const { device, net, mem } = rig({ keys: ['mistral'], priority: 'mistral' });
    net.script({ result: 'C says hi' });
    device.agents.fabric.enqueue(spec('quick one'), owner);
    await mem.clock.advance(10);
    expect(net.requests[0]).toMatchObject({ method: 'POST', host: 'api.mistral.ai', path: '/v1/conversations', body: { model: 'mistral-medium-latest', store: false } });
    expect(net.requests[0]!.body.inputs).toContain('quick one');
    expect(device.agents.results.list(null)[0]!.text).toBe('C says hi');
    expect(device.agents.fabric.messages()[0]!.text).toBe('Job [' + device.agents.results.list(null)[0]!.tag + '] is done. A summary follows.');
  });

  it('the custom endpoint (chat and messages styles), keyless over plain http; Z.ai-style and router paths', async () => {
    const nvs: Array<[string, string, string]> = [
      ['orch', 'customBase', 'http://custom.emulator.test'],
      ['orch', 'key.custom', 'sk-custom-secret'],
      ['orch', 'customModel', 'local-model'],
    ];
    const { device, net, mem } = rig({ keys: ['zai', 'router'], priority: 'zai,router', nvs });
    const f = device.agents.fabric;
    f.enqueue(spec('c1', { provider: 'custom' }), owner);
    f.enqueue(spec('z1', { provider: 'zai' }), owner);
    f.enqueue(spec('r1', { provider: 'router', model: 'openai/gpt-5' }), owner);
    await mem.clock.advance(PUMP_MS * 3);
    const [c, z, ro] = net.requests;
    expect(c).toMatchObject({ host: 'custom.emulator.test', path: '/v1/chat/completions', body: { model: 'local-model', messages: [{ role: 'user' }] } });
    expect(c!.headers['authorization']).toBeUndefined();
    expect(z).toMatchObject({ host: 'api.z.ai', path: '/api/paas/v4/chat/completions', body: { model: 'glm-4.6' } });
    expect(ro).toMatchObject({ host: 'router.desk-assistant.invalid', path: '/router/openai/v1/chat/completions', body: { model: 'gpt-5' } });
    expect(device.agents.results.list(null)).toHaveLength(3);
    device.ctx.store('orch').set('customStyle', 'messages');
    f.enqueue(spec('m1', { provider: 'custom' }), owner);
    await mem.clock.advance(PUMP_MS);
    expect(net.requests[3]).toMatchObject({ path: '/v1/messages', body: { model: 'local-model', max_tokens: 8192 } });
    expect(device.agents.results.list(null)).toHaveLength(4);
  });
});

describe('project auto-save', () => {
  it('saves a result with a project as <project>/<name>-<tag>.md and says where', async () => {
    const { device, net, mem } = rig({ keys: ['mistral'], priority: 'mistral' });
    const saved: string[] = [];
    device.agents.setDocs({ read: NO_DOCS.read, save: (person, project, name, text) => (saved.push(`${person}|${project}/${name}|${text}`), { ok: true, path: `${project}/${name}` }) });
    net.script({ result: 'the report' }, { result: 'second' });
    const q = device.agents.fabric.enqueue(spec('write it', { name: 'Weekly report!', project: 'work' }), owner);
    await mem.clock.advance(10);
    if (!q.ok) throw new Error('not queued');
    expect(saved).toEqual([`null|work/Weekly-report-${q.tag}.md|the report`]);
    expect(device.agents.fabric.messages()[0]!.text).toBe(`Job [Weekly report!] is done. Saved as work/Weekly-report-${q.tag}.md. A summary follows.`);
    device.agents.setDocs(NO_DOCS);
    device.agents.fabric.enqueue(spec('again', { name: 'x', project: 'work' }), owner);
    await mem.clock.advance(PUMP_MS);
    expect(device.agents.fabric.messages()[0]!.text).toMatch(/It could not be saved to work: the file store is not available on this device\. A summary follows\.$/);
  });
});

describe('the file store behind attachments and project saves', () => {
  it('attaches a saved document, says when one is missing, and saves the result into the project', async () => {
    const { device, net, mem } = rig({ keys: ['mistral'], priority: 'mistral' });
    device.files.store.save(null, 'trip', 'plan.md', new TextEncoder().encode('# Plan\nLisbon in May.'));
    net.script({ result: '## Hotels\nA, B, C' });
    const q = device.agents.fabric.enqueue(spec('find hotels for the plan', { name: 'hotels', project: 'trip', attach: ['trip/plan.md', 'trip/missing.md'] }), owner);
    await mem.clock.advance(10);
    if (!q.ok) throw new Error('not queued');
    const brief = net.jobs.list()[0]!.brief;
    expect(brief).toContain('[ATTACHED: trip/plan.md]\n# Plan\nLisbon in May.');
    expect(brief).toContain('[ATTACHED: trip/missing.md]\n(This document could not be attached: No file trip/missing.md.)');
    const saved = device.files.store.readText(null, 'trip', `hotels-${q.tag}.md`);
    expect(saved.text).toBe('## Hotels\nA, B, C');
    expect(device.agents.results.get(q.tag, null)!.saved).toEqual({ ok: true, path: `trip/hotels-${q.tag}.md` });
  });

  it('reports a save that fails without a card', async () => {
    const { device, net, mem } = rig({ keys: ['mistral'], priority: 'mistral', mem: { sd: { present: false } } });
    net.script({ result: 'text' });
    device.agents.fabric.enqueue(spec('t', { name: 'n', project: 'p' }), owner);
    await mem.clock.advance(10);
    expect(device.agents.fabric.messages()[0]!.text).toMatch(/^Job \[n\] is done\. It could not be saved to p: .+\. A summary follows\.$/);
  });
});

describe('tools', () => {
  it('session.spawn reports to the turn\'s chat (or mcp); session.list, session.terminate, results.get by offset, results.list', async () => {
    const { device, wire, net, mem } = rig({ keys: ['mistral'], priority: 'mistral' });
    const tools = device.ctx.tools;
    const long = `${'word '.repeat(1799)}word.`;
    net.script({ result: long }, { hold: true });
    // A turn's tool call: the job belongs to that turn's chat.
    wire.script({ kind: 'tools', calls: [{ id: 'c1', name: 'session_spawn', args: JSON.stringify({ task: 'from a turn', name: 'turnjob' }) }], items: [] }, turnResult({ reply: 'queued' }));
    await turn(device, 'spawn one', { chat: 'tg1' });
    expect(device.agents.fabric.pending(null)[0]).toMatchObject({ chat: 'tg1', name: 'turnjob' });
    const spawned = await tools.call('session.spawn', { task: 'over mcp' }, mcp);
    expect(spawned.output).toMatch(/^Queued j\w+ \(position 2\)/);
    expect(device.agents.fabric.pending(null)[1]!.chat).toBe('mcp');
    expect((await tools.call('session.list', {}, mcp)).output).toMatch(/queued #1\n.*queued #2$/);
    await mem.clock.advance(PUMP_MS + 10);
    const tag = device.agents.results.list(null)[0]!.tag;
    const p1 = await tools.call('results.get', { tag }, mcp);
    expect(p1.output).toMatch(/^\[j\w+ turnjob\] result, 9000 bytes, 9000 characters, from mistral mistral-medium-latest; characters 0-4000 follow\.\n/);
    expect(p1.output.endsWith(`(more: results.get tag ${tag} offset 4000)`)).toBe(true);
    const p3 = await tools.call('results.get', { tag, offset: 8000 }, mcp);
    expect(p3.output).toMatch(/characters 8000-9000 follow\.\n(word ){199}word\.\n\(end of result\)$/);
    expect((await tools.call('results.get', { tag: 'jnothing' }, mcp)).error_type).toBe('not-found');
    expect((await tools.call('results.list', {}, mcp)).output).toMatch(/^j\w+ result \[turnjob\] 9000 bytes \(fresh\)/);
    // A chat member sees neither the owner's jobs nor results.
    const member: ToolCaller = { via: 'turn', admin: false, scheduled: false, unattended: false, person: 'p9' };
    expect((await tools.call('results.list', {}, member)).output).toBe('No results stored.');
    expect((await tools.call('results.get', { tag }, member)).error_type).toBe('not-found');
    const running = device.agents.fabric.running(null)[0]!.tag;
    expect((await tools.call('session.terminate', { id: running }, member)).error_type).toBe('not-found');
    expect((await tools.call('session.terminate', { id: running }, mcp)).output).toBe(`Stopped ${running}. It yields no result.`);
    expect((await tools.call('session.tell', { id: running, message: 'hi' }, mcp)).error_type).toBe('unsupported');
  });

  it('session.spawn is unavailable in a release build with no provider keyed', async () => {
    const { device } = rig({ keys: [], mem: { testBuild: false } });
    expect((await device.ctx.tools.call('session.spawn', { task: 'x' }, mcp)).error_type).toBe('unavailable');
    expect((await device.ctx.tools.call('session.list', {}, mcp)).output).toBe('No sub-agent jobs.');
  });
});

describe('GET and POST /api/sessions', () => {
  it('spawns, lists, terminates, and refuses bad input without changing anything', async () => {
    const { device, net, mem } = rig();
    const token = device.ctx.token.reveal();
    const post = (body: string) => request(mem.net, HTTP_PORT, 'POST', '/api/sessions', { headers: { 'X-Device-Token': token, 'Content-Type': 'application/x-www-form-urlencoded' }, body });
    net.script({ polls: 50 });
    const created = await post('action=spawn&task=Plan+a+trip&name=trip&attach=a%2Fb.md,c%2Fd.md');
    expect(created.status).toBe(202);
    const { queued } = JSON.parse(created.body);
    expect((await post('action=spawn')).status).toBe(400);
    expect((await post('action=explode')).status).toBe(400);
    expect((await post('action=spawn&task=x&attach=1,2,3,4,5')).status).toBe(400);
    await mem.clock.advance(10);
    const view = JSON.parse((await request(mem.net, HTTP_PORT, 'GET', '/api/sessions', { headers: { 'X-Device-Token': token } })).body);
    expect(view.capacity).toMatchObject({ queued: 0, queueDepth: 12, inFlight: 1, window: 4, journal: 1, slots: 6, spawnCapacity: 6 });
    expect(view.running[0]).toMatchObject({ tag: queued, name: 'trip', state: 'running', provider: 'anthropic', chat: 'web' });
    expect(net.jobs.list()[0]!.brief).toContain('[ATTACHED: a/b.md]');
    const stop = await post(`action=terminate&id=${queued}`);
    expect(JSON.parse(stop.body)).toEqual({ terminated: queued });
    expect((await post(`action=terminate&id=${queued}`)).status).toBe(409);
    expect((await post('action=terminate&id=jmissing')).status).toBe(404);
    const json = await request(mem.net, HTTP_PORT, 'POST', '/api/sessions', { headers: { 'X-Device-Token': token, 'Content-Type': 'application/json' }, body: JSON.stringify({ action: 'spawn', task: 'json spawn', attach: ['x/y.md'] }) });
    expect(json.status).toBe(202);
    expect((await request(mem.net, HTTP_PORT, 'GET', '/api/sessions', {})).status).toBe(401);
  });
});

describe('retired and unknown session ops', () => {
  it('are refused in plain text in the next turn; the retired spawn array is ignored and said so', async () => {
    const { device, wire } = rig();
    wire.script(
      turnResult({ reply: 'hmm', session_ops: [{ ...spawnOp(''), op: 'tell', id: 'j1', message: 'hi' }, { ...spawnOp(''), op: 'poll', id: 'j1' }], spawn: [{ task: 'old style', provider: null, model: null, skill: null, name: null, category: null, note: null }] }),
      turnResult({ reply: 'ok' }),
    );
    await turn(device, 'x');
    await turn(device, 'y');
    const user = wire.prompt(1).user;
    expect(user).toContain('[SESSIONS] Refused: tell, poll (retired or unknown session ops; the fabric is fire-and-forget).');
    expect(user).toContain('[SESSIONS] The top-level spawn array is retired: 1 item(s) ignored. Use session_ops with op spawn.');
    expect(device.agents.fabric.queued()).toBe(0);
  });
});

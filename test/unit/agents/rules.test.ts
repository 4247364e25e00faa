// Boots the whole device: the fabric's limits are told through the chat, the outbox and the web page together.
// The fabric's rules beyond the happy path, on the virtual clock against the
// provider emulator's job logic: a full queue, terminate, failures (told at
// once, no fresh result), the Mistral-style 60 s timeout, a restart with jobs
// in flight (resumed or expired, journal checksums), the 60 s direct
// delivery, results a person's own turn has seen, trace rows only while a
// card is live, the result sizes, partial results, B's requires_action,
// terminating a synchronous call, dispatch notes for the model, and the
// queue-full message whichever way a spawn came.
import { describe, expect, it } from 'vitest';
import { queueFullText } from '../../../src/agents/fabric.ts';
import { DIRECT_HEADING } from '../../../src/agents/synthesis.ts';
import { DIRECT_MS, ENVELOPE_BYTES, EXCERPT_CHARS, FRESH_CHARS, POLL_MS, PUMP_MS, QUEUE_DEPTH } from '../../../src/agents/limits.ts';
import { HTTP_PORT } from '../../../src/main.ts';
import type { RoundResult } from '../../../src/contracts/index.ts';
import { reboot, rig, spawnOp, turn, turnResult } from '../../support/agent-rig.ts';
import { request } from '../../support/http.ts';

const spec = (task: string, over: Record<string, unknown> = {}) => ({ task, provider: '', model: '', skill: '', name: '', project: '', attach: [] as string[], ...over });
const owner = { chat: 'c1', person: null, admin: true };

describe('the queue', () => {
  it('holds 12; a turn may spawn min(6, 12 minus queued); a full queue is told to the chat and the model', async () => {
    const { device, wire, net, mem } = rig();
    for (let i = 0; i < 20; i++) net.script({ polls: 1000 });
    const f = device.agents.fabric;
    // Four in flight, then twelve waiting.
    for (let i = 0; i < 4; i++) f.enqueue(spec(`busy ${i}`), owner);
    await mem.clock.advance(PUMP_MS * 4);
    expect(f.inFlight()).toBe(4);
    for (let i = 0; i < 9; i++) expect(f.enqueue(spec(`wait ${i}`), owner).ok).toBe(true);
    expect(f.capacity()).toBe(3);
    wire.script(turnResult({ reply: 'ok' }));
    await turn(device, 'status?');
    expect(wire.prompt(0).system).toContain('[SPAWN CAPACITY]\nYou may start up to 3 sub-agent(s) this turn (session_ops op spawn); queued 9 of 12, in flight 4 of 4.');
    wire.script(turnResult({ reply: 'starting five', session_ops: [1, 2, 3, 4, 5].map((n) => spawnOp(`more ${n}`, { name: `more${n}` })) }));
    await turn(device, 'five more');
    expect(f.queued()).toBe(QUEUE_DEPTH);
    const notice = 'The sub-agent queue is full (12 waiting), so more4, more5 were not queued. The queued jobs start as running ones finish; ask again then.';
    expect(f.messages()[0]!.text).toBe(notice);
    wire.script(turnResult({ reply: 'ok' }));
    await turn(device, 'and now?');
    const next = wire.prompt(2);
    expect(next.user).toContain(`[SESSIONS] ${notice}`);
    expect(next.system).toContain('[SPAWN CAPACITY]\nThe sub-agent queue is full: start none this turn');
    expect(next.system).toContain('[RUNNING SESSIONS]');
    // The tool says so too.
    const r = await device.ctx.tools.call('session.spawn', { task: 'one more' }, { via: 'mcp', admin: true, scheduled: false, unattended: false, person: null });
    expect(r).toMatchObject({ success: false, error_type: 'queue-full' });
  });
});

describe('terminate', () => {
  it('stops a running job at its provider (B: user.interrupt, A: cancel) and a queued one; none yields a result', async () => {
    const { device, net, mem } = rig();
    net.script({ polls: 3, host: 'api.anthropic.com' }, { polls: 3, host: 'api.openai.com' });
    const f = device.agents.fabric;
    const b = f.enqueue(spec('b job', { provider: 'anthropic' }), owner);
    const a = f.enqueue(spec('a job', { provider: 'openai' }), owner);
    const q = f.enqueue(spec('queued job'), owner);
    await mem.clock.advance(PUMP_MS + 10);
    expect(f.inFlight()).toBe(2);
    if (!a.ok || !b.ok || !q.ok) throw new Error('not queued');
    expect(f.terminate(q.tag, null)).toBe('terminated');
    expect(f.terminate(b.tag, null)).toBe('terminated');
    expect(f.terminate(a.tag, null)).toBe('terminated');
    expect(f.terminate(a.tag, null)).toBe('ended');
    expect(f.terminate('j00000000', null)).toBe('not-found');
    await mem.clock.advance(POLL_MS * 5);
    const sent = net.requests.filter((x) => x.method === 'POST').map((x) => `${x.path} ${JSON.stringify(x.body?.events?.[0]?.type ?? '')}`);
    expect(sent.some((s) => s.endsWith('events "user.interrupt"'))).toBe(true);
    // Cancelled as the SDK's responses.cancel(id) does: a POST without a body.
    const cancel = net.requests.find((x) => x.method === 'POST' && /^\/v1\/responses\/resp_\w+\/cancel$/.test(x.path))!;
    expect([cancel.body, cancel.headers['content-length'], cancel.headers['content-type']]).toEqual([null, '0', undefined]);
    expect(net.jobs.list().every((j) => j.cancelled)).toBe(true);
    expect(device.agents.results.list(null)).toHaveLength(0);
    expect(f.messages()).toHaveLength(0);
    expect(f.recent(null).map((j) => j.state)).toEqual(['terminated', 'terminated', 'terminated']);
    expect(mem.nvs.keys('agents').filter((k) => k.startsWith('j'))).toEqual([]);
  });

  it('is a session op too: the model stops a job by its tag', async () => {
    const { device, wire, net, mem } = rig();
    net.script({ polls: 100 });
    const f = device.agents.fabric;
    const q = f.enqueue(spec('long one', { name: 'long' }), owner);
    await mem.clock.advance(10);
    if (!q.ok) throw new Error('not queued');
    wire.script(turnResult({ reply: 'stopping it', session_ops: [{ ...spawnOp(''), op: 'terminate', id: q.tag, task: null }] }), turnResult({ reply: 'ok' }));
    await turn(device, 'stop it');
    await turn(device, 'next');
    expect(wire.prompt(1).user).toContain(`[SESSIONS] Stopped ${q.tag} [long]; it yields no result.`);
    expect(f.inFlight()).toBe(0);
  });
});

describe('failures', () => {
  it("tells 'Job [<name>] failed: <error>' at once and stores no fresh result", async () => {
    const { device, wire, net, mem } = rig();
    net.script({ error: 'the sandbox crashed', host: 'api.anthropic.com' }, { status: 401, host: 'api.openai.com' });
    const f = device.agents.fabric;
    f.enqueue(spec('x', { name: 'crashy', provider: 'anthropic' }), owner);
    f.enqueue(spec('y', { name: 'refused', provider: 'openai' }), owner);
    await mem.clock.advance(PUMP_MS + 10);
    // The refused start is told at once.
    expect(f.messages().map((m) => m.text)).toEqual([expect.stringMatching(/^Job \[refused\] failed: the key was refused \(HTTP 401/)]);
    await mem.clock.advance(POLL_MS);
    expect(f.messages()[0]!.text).toBe('Job [crashy] failed: the sandbox crashed');
    expect(device.agents.results.list(null)).toHaveLength(0);
    const rows = device.ctx.memory.episodic.query({ session: 'c1', kind: 'log', limit: 10 }).rows.map((x) => x.text);
    expect(rows.some((t) => /^ev:subresult j\w+ \[crashy\] failed: the sandbox crashed$/.test(t))).toBe(true);
    // No synthesis follows a failure.
    await mem.clock.advance(DIRECT_MS * 2);
    expect(wire.seen).toHaveLength(0);
  });

  it('classifies a Mistral-style call beyond 60 s as a timeout, not a connection failure', async () => {
    const { device, net, mem } = rig();
    net.script({ hold: true, host: 'api.mistral.ai' });
    const f = device.agents.fabric;
    f.enqueue(spec('slow', { name: 'slowpoke', provider: 'mistral' }), owner);
    await mem.clock.advance(10);
    expect(f.running(null)[0]).toMatchObject({ provider: 'mistral', state: 'running' });
    await mem.clock.advance(59_000);
    expect(f.messages()).toHaveLength(0);
    await mem.clock.advance(1_100);
    expect(f.messages()[0]!.text).toBe('Job [slowpoke] failed: the agent ran longer than can be awaited (60 s)');
    const rows = device.ctx.memory.episodic.query({ session: 'c1', kind: 'log', limit: 10 }).rows.map((x) => x.text);
    expect(rows.some((t) => t.includes('[slowpoke] failed (timeout)'))).toBe(true);
  });

  it('also for an answer that arrives after 60 s', async () => {
    const { device, net, mem } = rig();
    net.script({ delayMs: 61_000, result: 'too late', host: 'api.mistral.ai' });
    device.agents.fabric.enqueue(spec('slow', { name: 'late', provider: 'mistral' }), owner);
    await mem.clock.advance(62_000);
    expect(device.agents.fabric.messages()[0]!.text).toBe('Job [late] failed: the agent ran longer than can be awaited (60 s)');
  });

  it('keeps polling through transient poll failures', async () => {
    const { device, net, mem } = rig();
    net.script({ polls: 1, pollStatus: 503, pollErrors: 2, result: 'survived', host: 'api.openai.com' });
    device.agents.fabric.enqueue(spec('flaky', { provider: 'openai' }), owner);
    await mem.clock.advance(POLL_MS * 2 + 100);
    expect(device.agents.results.list(null)).toHaveLength(0);
    expect(device.agents.fabric.running(null)[0]!.failures).toBe(2);
    await mem.clock.advance(POLL_MS);
    expect(device.agents.results.list(null)[0]!.text).toBe('survived');
  });
});

describe('a restart with jobs in flight', () => {
  it('resumes provider A and B jobs from the journal and reports a Mistral job expired', async () => {
    let r = rig();
    r.net.script({ polls: 2, result: 'B result', host: 'api.anthropic.com' }, { polls: 2, result: 'A result', host: 'api.openai.com' }, { hold: true, host: 'api.mistral.ai' });
    const f = r.device.agents.fabric;
    f.enqueue(spec('b', { name: 'bee', provider: 'anthropic' }), owner);
    f.enqueue(spec('a', { name: 'ay', provider: 'openai' }), owner);
    f.enqueue(spec('c', { name: 'sea', provider: 'mistral' }), owner);
    await r.mem.clock.advance(PUMP_MS * 2 + 10);
    expect(f.inFlight()).toBe(3);
    expect(r.mem.nvs.keys('agents').filter((k) => /^j\d$/.test(k))).toHaveLength(3);
    await r.mem.clock.advance(POLL_MS);
    // Power cut: the device comes back with the same NVS.
    r = reboot(r, 'power-on');
    const g = r.device.agents.fabric;
    expect(g.running(null).map((j) => `${j.name} ${j.provider}`).sort()).toEqual(['ay openai', 'bee anthropic']);
    expect(g.recent(null)).toMatchObject([{ name: 'sea', state: 'expired' }]);
    expect(g.messages()[0]!.text).toBe('Job [sea] expired: the device restarted while it ran, and a mistral job cannot be resumed.');
    expect(r.device.ctx.outbox.pending().some((n) => n.text.startsWith('Job [sea] expired'))).toBe(true);
    r.wire.script(turnResult({ reply: 'Both came back.' }));
    await r.mem.clock.advance(POLL_MS + 10);
    expect(r.device.agents.results.list(null).map((e) => e.text).sort()).toEqual(['A result', 'B result']);
    await r.mem.clock.advance(3_100);
    // One synthesis turn for both (same chat, same window).
    expect(r.wire.seen).toHaveLength(1);
    expect(r.wire.prompt(0).system).toContain('A result');
    expect(r.wire.prompt(0).system).toContain('B result');
    expect(r.mem.nvs.keys('agents').filter((k) => /^j\d$/.test(k))).toEqual([]);
  });

  it('leaves the journal alone in Notifier mode and resumes at the next Orchestrator boot', async () => {
    let r = rig();
    r.net.script({ polls: 1, result: 'after the nap', host: 'api.openai.com' });
    r.device.agents.fabric.enqueue(spec('a', { name: 'napper', provider: 'openai' }), owner);
    await r.mem.clock.advance(10);
    const slot = r.mem.nvs.get('agents', 'j0');
    r.mem.nvs.set('sys', 'mode', 0);
    r = reboot(r);
    expect(r.device.ctx.mode).toBe(0);
    await r.mem.clock.advance(POLL_MS * 3);
    expect(r.mem.nvs.get('agents', 'j0')).toBe(slot);
    expect(r.device.agents.fabric.inFlight()).toBe(0);
    r.mem.nvs.set('sys', 'mode', 1);
    r = reboot(r);
    await r.mem.clock.advance(POLL_MS + 10);
    expect(r.device.agents.results.list(null).map((e) => e.text)).toEqual(['after the nap']);
  });

  it('reports a job journaled before it reached the provider as expired, and drops a slot whose checksum fails', async () => {
    const base = rig();
    base.net.script({ hold: true, host: 'api.openai.com' });
    base.device.agents.fabric.enqueue(spec('x', { name: 'early', provider: 'openai' }), owner);
    await base.mem.clock.advance(10);
    const slot = String(base.mem.nvs.get('agents', 'j0'));
    expect(slot).toContain('"state\\":\\"starting\\"');
    base.mem.nvs.set('agents', 'j3', slot.replace('early', 'forged'));
    const r = reboot(base);
    const f = r.device.agents.fabric;
    expect(f.recent(null).map((j) => `${j.name} ${j.state}`)).toEqual(['early expired']);
    expect(f.messages()[0]!.text).toBe('Job [early] expired: the device restarted before the job reached the provider.');
    expect(r.mem.nvs.keys('agents').filter((k) => /^j\d$/.test(k))).toEqual([]);
    expect(r.mem.system.logs.some((l) => l.includes('1 journal slot(s) did not check'))).toBe(true);
  });
});

describe('synthesis', () => {
  it('delivers the raw results directly when the synthesis turn cannot start within 60 s', async () => {
    const { device, wire, net, mem } = rig();
    net.script({ polls: 1, result: 'The answer is 42.' });
    const f = device.agents.fabric;
    f.enqueue(spec('compute', { name: 'deep thought' }), owner);
    await mem.clock.advance(10);
    // A turn that holds the engine for two minutes.
    let release: (r: RoundResult) => void = () => {};
    wire.script(() => new Promise<RoundResult>((res) => (release = res)));
    const busy = turn(device, 'a long question');
    await mem.clock.advance(POLL_MS);
    expect(device.agents.results.list(null)).toHaveLength(1);
    await mem.clock.advance(DIRECT_MS - 100);
    expect(f.messages()[0]!.text).toBe('Job [deep thought] is done. A summary follows.');
    await mem.clock.advance(200);
    const direct = f.messages()[0]!.text;
    expect(direct.startsWith(DIRECT_HEADING)).toBe(true);
    expect(direct).toContain('[deep thought]');
    expect(direct).toContain('The answer is 42.');
    expect(device.agents.results.list(null)[0]!.fresh).toBe(false);
    release(turnResult({ reply: 'done thinking' }));
    await busy;
    await mem.clock.advance(10_000);
    // Only the held turn ran: no synthesis afterwards.
    expect(wire.seen).toHaveLength(1);
    expect(device.agents.synthesis.directs).toBe(1);
  });

  it('delivers directly when the synthesis turn fails, and never sends the engine\'s apology', async () => {
    const { device, wire, net, mem } = rig();
    net.script({ polls: 1, result: 'Result text.' });
    device.agents.fabric.enqueue(spec('t', { name: 'n' }), owner);
    wire.script({ kind: 'error', error: 'auth', message: 'bad key' });
    await mem.clock.advance(POLL_MS + 3_100);
    const texts = device.agents.fabric.messages().map((m) => m.text);
    expect(texts[0]!.startsWith(DIRECT_HEADING)).toBe(true);
    expect(texts.some((t) => t.startsWith('Sorry'))).toBe(false);
  });

  it('runs no synthesis for results a turn of the chat already showed', async () => {
    const { device, wire, net, mem } = rig();
    net.script({ polls: 1, result: 'Seen in my own turn.' });
    device.agents.fabric.enqueue(spec('t', { name: 'n' }), owner);
    await mem.clock.advance(POLL_MS + 10);
    wire.script(turnResult({ reply: 'I see the result.' }));
    await turn(device, 'anything new?');
    expect(wire.prompt(0).system).toContain('Seen in my own turn.');
    await mem.clock.advance(10_000);
    expect(wire.seen).toHaveLength(1);
    expect(device.agents.results.list(null)[0]!.fresh).toBe(false);
  });

  it('runs the synthesis turn under the unattended rails: no reboot, no ttsOn', async () => {
    const { device, wire, net, mem } = rig();
    net.script({ polls: 1, result: 'r' });
    device.agents.fabric.enqueue(spec('t', { name: 'n' }), owner);
    wire.script(turnResult({ reply: 'summary', device: [{ reboot: true }, { config: { ttsOn: true } }] }));
    await mem.clock.advance(POLL_MS + 3_100);
    expect(device.assistant.engine.lastOutcome).toMatchObject({ status: 'ok', reply: 'summary' });
    await mem.clock.advance(10_000);
    expect(mem.system.reboots).toEqual([]);
    expect(device.ctx.actions.config('ttsOn')).toBeUndefined();
    wire.script(turnResult({ reply: 'ok' }));
    await turn(device, 'next');
    expect(wire.prompt(1).user).toMatch(/\[DEVICE\] .*reboot/i);
    expect(wire.prompt(1).user).toMatch(/\[DEVICE\] .*ttsOn/);
  });
});

describe('trace rows', () => {
  it('are written only while a card is live', async () => {
    const { device, net, mem } = rig({ mem: { sd: { present: false } } });
    net.script({ polls: 1, result: 'r' });
    device.agents.fabric.enqueue(spec('t', { name: 'n' }), owner);
    await mem.clock.advance(POLL_MS + 10);
    expect(device.agents.results.list(null)).toHaveLength(1);
    expect(device.ctx.memory.episodic.query({ kind: 'log', session: 'c1', limit: 10 }).rows).toHaveLength(0);
  });
});

describe('result sizes (spec Limits: envelope 16 KB, fresh 3500 characters, excerpt 512 characters)', () => {
  // 3499 two-byte characters, a marker, then far more than the envelope holds.
  const head = 'é'.repeat(FRESH_CHARS - 1);
  const result = `${head}Z${'é'.repeat(10_000)}`;

  it('keeps the whole result within 16 KB, shows the first 3500 characters fresh, and excerpts 512 in the trace row', async () => {
    const { device, wire, net, mem } = rig();
    net.script({ polls: 1, result });
    device.agents.fabric.enqueue(spec('big', { name: 'big' }), owner);
    wire.script(turnResult({ reply: 'A big one came back.' }));
    await mem.clock.advance(POLL_MS + 10);
    const [entry] = device.agents.results.list(null);
    // The envelope is UTF-8 bytes and never cuts a character: 16383 bytes here (16384 would split an é).
    expect(entry!.size).toBe(ENVELOPE_BYTES - 1);
    expect(Buffer.byteLength(entry!.text)).toBe(entry!.size);
    expect(entry!.text.startsWith(`${head}Z`)).toBe(true);
    expect(result.startsWith(entry!.text)).toBe(true);
    const rows = device.ctx.memory.episodic.query({ session: 'c1', kind: 'log', limit: 10 }).rows.map((r) => r.text);
    const row = rows.find((t) => t.startsWith('ev:subresult'))!;
    expect(row).toBe(`ev:subresult ${entry!.tag} [big]: ${'é'.repeat(EXCERPT_CHARS)}`);
    // The synthesis turn sees exactly 3500 characters, and where the rest is.
    await mem.clock.advance(3_100);
    const system = wire.prompt(0).system;
    expect(system).toContain(`:\n${head}Z\n(cut at ${FRESH_CHARS} characters; results.get tag ${entry!.tag} offset ${FRESH_CHARS} has the rest)`);
    expect(system).not.toContain(`${head}Zé`);
    // results.get serves the rest from there.
    const page = await device.ctx.tools.call('results.get', { tag: entry!.tag, offset: FRESH_CHARS }, { via: 'mcp', admin: true, scheduled: false, unattended: false, person: null });
    expect(page.output).toMatch(new RegExp(`^\\[${entry!.tag} big\\] result, ${ENVELOPE_BYTES - 1} bytes, ${FRESH_CHARS + (ENVELOPE_BYTES - 1 - 2 * (FRESH_CHARS - 1) - 1) / 2} characters`));
  });

  it('delivers at most 3500 characters of a result directly', async () => {
    const { device, wire, net, mem } = rig();
    net.script({ polls: 1, result });
    device.agents.fabric.enqueue(spec('big', { name: 'big' }), owner);
    wire.script({ kind: 'error', error: 'auth', message: 'bad key' });
    await mem.clock.advance(POLL_MS + 3_100);
    const direct = device.agents.fabric.messages().find((m) => m.text.startsWith(DIRECT_HEADING))!.text;
    expect(direct.endsWith(`:\n${head}Z\n(cut; results.get has the rest)`)).toBe(true);
  });
});

describe('partial results, approvals and stops', () => {
  it('stores an incomplete provider A response and an interrupted provider B session as partial results, and says so', async () => {
    const { device, wire, net, mem } = rig();
    net.script({ polls: 1, partial: true, result: 'half of A', host: 'api.openai.com' }, { polls: 1, partial: true, result: 'half of B', host: 'api.anthropic.com' });
    const f = device.agents.fabric;
    f.enqueue(spec('a', { name: 'ay', provider: 'openai' }), owner);
    f.enqueue(spec('b', { name: 'bee', provider: 'anthropic' }), owner);
    wire.script(turnResult({ reply: 'Both stopped halfway.' }));
    await mem.clock.advance(PUMP_MS + POLL_MS + 10);
    expect(device.agents.results.list(null).map((e) => `${e.name} ${e.kind} ${e.text}`).sort()).toEqual(['ay partial half of A', 'bee partial half of B']);
    expect(f.messages().map((m) => m.text).sort()).toEqual(['Job [ay] is done (partial result). A summary follows.', 'Job [bee] is done (partial result). A summary follows.']);
    await mem.clock.advance(3_100);
    expect(wire.prompt(0).system).toMatch(/\[j\w+ ay\] from openai \S+ \(partial\):\nhalf of A/);
    expect(wire.prompt(0).system).toMatch(/\[j\w+ bee\] from anthropic \S+ \(partial\):\nhalf of B/);
  });

  it("fails a provider B job that stops for an approval (requires_action): nobody can give one", async () => {
    const { device, wire, net, mem } = rig();
    net.script({ polls: 1, requiresAction: true, host: 'api.anthropic.com' });
    device.agents.fabric.enqueue(spec('b', { name: 'asker', provider: 'anthropic' }), owner);
    await mem.clock.advance(POLL_MS + 10);
    expect(device.agents.fabric.messages()[0]!.text).toBe('Job [asker] failed: the agent stopped to wait for an approval nobody can give');
    expect(device.agents.results.list(null)).toHaveLength(0);
    await mem.clock.advance(DIRECT_MS);
    expect(wire.seen).toHaveLength(0);
  });

  it('terminates a synchronous job in the middle of its call: the late answer yields nothing and nobody is told', async () => {
    const { device, net, mem } = rig();
    net.script({ delayMs: 20_000, result: 'too late to matter', host: 'api.mistral.ai' });
    const f = device.agents.fabric;
    const q = f.enqueue(spec('slow', { name: 'sync', provider: 'mistral' }), owner);
    await mem.clock.advance(5_000);
    if (!q.ok) throw new Error('not queued');
    expect(f.running(null)[0]).toMatchObject({ tag: q.tag, provider: 'mistral', state: 'running' });
    expect(f.terminate(q.tag, null)).toBe('terminated');
    await mem.clock.advance(DIRECT_MS * 2);
    expect(device.agents.results.list(null)).toHaveLength(0);
    expect(f.messages()).toHaveLength(0);
    expect(f.recent(null)).toMatchObject([{ tag: q.tag, state: 'terminated' }]);
    expect(mem.nvs.keys('agents').filter((k) => /^j\d$/.test(k))).toEqual([]);
  });
});

describe('dispatch notes', () => {
  it("carry the brief's and the provider choice's notes into the chat's next turn, and into the log", async () => {
    const { device, wire, net, mem } = rig();
    device.agents.setSkills({ capsule: (id) => (id === 'tips' ? { md: '# Tips', approved: false, inject: 'spawn' } : null), provider: () => null });
    net.script({ polls: 50 });
    device.agents.fabric.enqueue(spec('go', { name: 'noted', provider: 'zai', skill: 'tips', attach: ['trips/missing.md'] }), owner);
    await mem.clock.advance(10);
    const notes = 'zai has no key; skill tips is not approved: not injected; trips/missing.md not attached: No file trips/missing.md';
    wire.script(turnResult({ reply: 'ok' }));
    await turn(device, 'how is it going?');
    expect(wire.prompt(0).user).toMatch(new RegExp(`\\[SESSIONS\\] j\\w+ \\[noted\\] went to anthropic \\S+ with notes: ${notes.replace(/[.*+?^${}()|[\]\\/]/g, '\\$&')}\\.`));
    expect(mem.system.logs.some((l) => l.includes(`notes: ${notes}`))).toBe(true);
    // Said once: the turn after does not repeat them.
    wire.script(turnResult({ reply: 'ok' }));
    await turn(device, 'and now?');
    expect(wire.prompt(1).user).not.toContain('[SESSIONS]');
  });
});

describe('a full queue, whichever way the spawn came', () => {
  it('tells the chat for session.spawn and POST /api/sessions too, not only for session ops', async () => {
    const { device, net, mem } = rig();
    for (let i = 0; i < 20; i++) net.script({ polls: 1000 });
    const f = device.agents.fabric;
    for (let i = 0; i < 4; i++) f.enqueue(spec(`busy ${i}`), owner);
    await mem.clock.advance(PUMP_MS * 4);
    for (let i = 0; i < QUEUE_DEPTH; i++) f.enqueue(spec(`wait ${i}`), owner);
    expect(f.messages()).toHaveLength(0);
    const r = await device.ctx.tools.call('session.spawn', { task: 'one more', name: 'extra' }, { via: 'mcp', admin: true, scheduled: false, unattended: false, person: null });
    expect(r).toMatchObject({ success: false, error_type: 'queue-full', error: queueFullText(['extra']) });
    expect(f.messages()[0]).toMatchObject({ chat: 'mcp', text: queueFullText(['extra']) });
    const token = device.ctx.token.reveal();
    const res = await request(mem.net, HTTP_PORT, 'POST', '/api/sessions', { headers: { 'X-Device-Token': token, 'Content-Type': 'application/x-www-form-urlencoded' }, body: 'action=spawn&task=from+the+web+page+with+a+long+task+text' });
    expect(res.status).toBe(409);
    expect(JSON.parse(res.body)).toMatchObject({ error: 'queue-full' });
    expect(f.messages()[0]).toMatchObject({ chat: 'web', text: queueFullText(['"from the web page with a long task text"']) });
    expect(f.messages()).toHaveLength(2);
  });
});

// Boots the whole device: the fabric's flows run from a turn through the outbox, the chat and the web page (through test/support/agent-rig.ts).
// The sub-agent fabric's flow on the virtual clock against the provider
// emulator's job logic: a spawn op queues, the pump dispatches, polls every
// 15 s, the terminal poll stores a fresh result and tells the chat, trace
// rows go to the chat's episodic session, and after the 3 s coalesce window
// a synthesis turn runs with [FRESH RESULTS] under the unattended rails.
import { describe, expect, it } from 'vitest';
import { POLL_MS, PUMP_MS } from '../../../src/agents/limits.ts';
import { SYNTHESIS_PREAMBLE } from '../../../src/agents/synthesis.ts';
import { rig, spawnOp, turn, turnResult } from '../../support/agent-rig.ts';

describe('a spawned job, start to synthesis', () => {
  it('queues, dispatches, polls, stores a fresh result, tells the chat, traces, and runs one synthesis turn', async () => {
    const r = rig();
    const { device, wire, net, mem } = r;
    net.script({ polls: 2, result: 'Three hotels near the station: A, B and C.' });
    wire.script(turnResult({ reply: 'On it.', session_ops: [spawnOp('Find hotels near the station', { name: 'hotels' })] }));
    const first = await turn(device, 'find me a hotel');
    expect(first.delivered).toEqual(['On it.']);
    const agents = device.agents;
    expect(agents.fabric.queued()).toBe(1);
    const tag = agents.fabric.pending(null)[0]!.tag;
    expect(tag).toMatch(/^j[0-9a-f]{8}$/);

    // The pump dispatches at once: environment, agent, session, then the brief.
    await mem.clock.advance(10);
    expect(net.requests.map((q) => `${q.method} ${q.path}`)).toEqual(['POST /v1/environments', 'POST /v1/agents', 'POST /v1/sessions', expect.stringMatching(/^POST \/v1\/sessions\/sesn_\w+\/events$/)]);
    const job = net.jobs.list()[0]!;
    expect(job.task).toBe('Find hotels near the station');
    expect(job.model).toBe('claude-sonnet-4-5');
    expect(agents.fabric.running(null)[0]).toMatchObject({ tag, state: 'running', provider: 'anthropic', jobId: job.id });
    // The journal holds it (slot j0) with its provider id.
    expect(String(mem.nvs.get('agents', 'j0'))).toContain(job.id);
    const session = net.requests[3]!;
    expect(session.headers['anthropic-beta']).toBe('managed-agents-2026-04-01');
    expect(session.headers['x-api-key']).toBe('sk-anthropic-secret');

    // Polls about every 15 s: running at the first, done at the second.
    await mem.clock.advance(POLL_MS);
    expect(agents.fabric.running(null)[0]!.polls).toBe(1);
    expect(agents.results.list(null)).toHaveLength(0);
    wire.script(turnResult({ reply: 'Found three hotels near the station: A, B and C.' }));
    await mem.clock.advance(POLL_MS);
    const stored = agents.results.get(tag, null)!;
    expect(stored).toMatchObject({ kind: 'result', name: 'hotels', fresh: true, text: 'Three hotels near the station: A, B and C.' });
    expect(mem.nvs.get('agents', 'j0')).toBeUndefined();
    const messages = agents.fabric.messages().map((m) => m.text);
    expect(messages[0]).toBe('Job [hotels] is done. A summary follows.');
    expect(device.ctx.outbox.pending().map((n) => n.text)).toContain('Job [hotels] is done. A summary follows.');

    // Trace rows in the chat's session.
    const rows = device.ctx.memory.episodic.query({ session: 'c1', kind: 'log', limit: 10 }).rows.map((x) => x.text);
    expect(rows.some((t) => t.startsWith(`ev:spawn ${tag} [hotels] anthropic claude-sonnet-4-5`))).toBe(true);
    expect(rows.some((t) => t.startsWith(`ev:subresult ${tag} [hotels]: Three hotels`))).toBe(true);

    // No synthesis before the 3 s window closes; then one automatic turn.
    const rounds = wire.seen.length;
    await mem.clock.advance(2_900);
    expect(wire.seen.length).toBe(rounds);
    await mem.clock.advance(200);
    expect(wire.seen.length).toBe(rounds + 1);
    const p = wire.prompt(rounds);
    expect(p.system).toContain('[FRESH RESULTS]');
    expect(p.system).toContain(`[${tag} hotels] from anthropic claude-sonnet-4-5:`);
    expect(p.system).toContain('Three hotels near the station');
    expect(p.user.startsWith(SYNTHESIS_PREAMBLE)).toBe(true);
    expect(device.assistant.engine.lastOutcome).toMatchObject({ status: 'ok' });
    // The synthesis reply went to the chat; the result is no longer fresh; no empty user message was recorded.
    expect(agents.fabric.messages()[0]!.text).toBe('Found three hotels near the station: A, B and C.');
    expect(agents.results.get(tag, null)!.fresh).toBe(false);
    const convo = device.ctx.memory.episodic.query({ session: 'c1', kind: 'message', limit: 10 }).rows;
    expect(convo.map((x) => x.role)).toEqual(['assistant', 'assistant', 'creator']);
    // Nothing else runs.
    await mem.clock.advance(60_000);
    expect(wire.seen.length).toBe(rounds + 1);
  });

  it('dispatches one job per pump cycle (about 1.5 s) into an in-flight window of 4', async () => {
    const { device, wire, net, mem } = rig();
    for (let i = 0; i < 6; i++) net.script({ polls: 100 });
    wire.script(turnResult({ reply: 'ok', session_ops: [1, 2, 3, 4, 5, 6].map((n) => spawnOp(`task ${n}`)) }));
    await turn(device, 'six at once');
    const f = device.agents.fabric;
    expect(f.queued()).toBe(6);
    const starts = (): number => net.jobs.list().length;
    await mem.clock.advance(10);
    expect(starts()).toBe(1);
    await mem.clock.advance(PUMP_MS - 20);
    expect(starts()).toBe(1);
    await mem.clock.advance(20);
    expect(starts()).toBe(2);
    await mem.clock.advance(PUMP_MS * 5);
    // The window is full: four in flight, two waiting.
    expect(f.inFlight()).toBe(4);
    expect(f.queued()).toBe(2);
    expect(starts()).toBe(4);
    // Stopping one frees the window: the next starts within a cycle.
    const running = f.running(null);
    expect(f.terminate(running[0]!.tag, null)).toBe('terminated');
    await mem.clock.advance(PUMP_MS);
    expect(starts()).toBe(5);
    expect(f.inFlight()).toBe(4);
  });

  it('defers dispatch while free internal heap is below 28 KB', async () => {
    const { device, net, mem } = rig();
    const f = device.agents.fabric;
    mem.system.heapFigures.freeInternal = 27 * 1024;
    expect(f.enqueue({ task: 'later', provider: '', model: '', skill: '', name: '', project: '', attach: [] }, { chat: 'c1', person: null, admin: true }).ok).toBe(true);
    await mem.clock.advance(PUMP_MS * 4);
    expect(net.jobs.list()).toHaveLength(0);
    expect(f.queued()).toBe(1);
    expect(f.deferrals).toBeGreaterThanOrEqual(4);
    mem.system.heapFigures.freeInternal = 29 * 1024;
    await mem.clock.advance(PUMP_MS);
    expect(net.jobs.list()).toHaveLength(1);
    expect(f.queued()).toBe(0);
  });
});

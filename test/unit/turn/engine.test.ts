// Boots the whole device: a turn applies its actions through memory, the device, the chat and files.
// The turn engine on the in-memory HAL with a scripted provider wire: applying
// a turn (reply first), the tool loop, every cap, failover with midFail on and
// off, context overflow, the heap floor, provider choice, and one turn at a time.
import { describe, expect, it } from 'vitest';
import { boot, HTTP_PORT, type Device } from '../../../src/main.ts';
import type { ProviderId } from '../../../src/providers/settings.ts';
import { CATALOG } from '../../../src/providers/catalog.ts';
import type { RoundRequest, RoundResult, TranscriptItem } from '../../../src/contracts/index.ts';
import { MAX_ROUNDS, ONE_MOMENT, ROUND_FLOOR_MS, type TurnRequest } from '../../../src/turn/engine.ts';
import type { TurnWire } from '../../../src/turn/index.ts';
import { request } from '../../support/http.ts';
import { createMemHal, type MemHal } from '../../support/memhal.ts';

type Step = RoundResult | ((req: RoundRequest) => RoundResult | Promise<RoundResult>);

class ScriptedWire implements TurnWire {
  readonly seen: Array<{ req: RoundRequest; transcript: TranscriptItem[]; timeoutMs: number }> = [];
  readonly scripts = new Map<ProviderId, Step[]>();
  keys = new Set<ProviderId>();
  script(p: ProviderId, ...steps: Step[]): this {
    this.scripts.set(p, [...(this.scripts.get(p) ?? []), ...steps]);
    return this;
  }
  keyed(p: ProviderId): boolean {
    return this.keys.has(p);
  }
  loops(): boolean {
    return true;
  }
  modelFor(p: ProviderId, requested: string | null | undefined): string {
    return requested && !requested.startsWith('bad') ? requested : `${p}-default`;
  }
  async round(req: RoundRequest, timeoutMs: number): Promise<RoundResult> {
    this.seen.push({ req, transcript: req.transcript.map((t) => ({ ...t })), timeoutMs });
    const step = this.scripts.get(req.provider)?.shift();
    if (!step) return { kind: 'error', error: 'transport', message: 'no script left' };
    return typeof step === 'function' ? step(req) : step;
  }
}

const turn = (fields: Record<string, unknown>): RoundResult => {
  const json = JSON.stringify({ reply: '', memory: '', ask: '', ...fields });
  return { kind: 'turn', json, items: [{ kind: 'assistant', text: json }] };
};
const calls = (...c: Array<[string, Record<string, unknown>]>): RoundResult => ({
  kind: 'tools',
  calls: c.map(([name, args], i) => ({ id: `call${i}`, name, args: JSON.stringify(args) })),
  items: c.map(([name, args], i) => ({ kind: 'tool_call' as const, id: `call${i}`, name, args: JSON.stringify(args) })),
});
const fail = (error: 'transport' | 'context-overflow' | 'http' | 'auth', message = 'boom'): RoundResult => ({ kind: 'error', error, message });

function setup(keys: ProviderId[] = ['anthropic'], options: { testBuild?: boolean } = {}): { mem: MemHal; device: Device; wire: ScriptedWire } {
  const mem = createMemHal(options.testBuild === false ? { testBuild: false } : {});
  mem.nvs.setMany('wifi', [['ssid', 'Home'], ['pass', 'home-pass-1']]);
  for (const k of keys) mem.nvs.set('orch', `key.${k}`, `sk-${k}-secret`);
  mem.nvs.set('orch', 'priority', 'anthropic,openai,mistral');
  const wire = new ScriptedWire();
  wire.keys = new Set(keys);
  const device = boot(mem.hal, { wire });
  return { mem, device, wire };
}

function ask(device: Device, text: string, extra: Partial<TurnRequest> = {}) {
  const delivered: string[] = [];
  const out = device.assistant.engine.run({ chat: 'c1', text, person: null, admin: true, origin: 'console', deliver: (r) => delivered.push(r), ...extra });
  return { out, delivered };
}

describe('a turn', () => {
  it('runs tools, delivers the reply before applying, then applies actions, memory and the scratchpad', async () => {
    const { device, wire } = setup();
    let memoriesAtDelivery = -1;
    wire.script(
      'anthropic',
      calls(['device_status', {}]),
      turn({
        reply: 'Saved it and set the light.',
        memory: 'running: owner likes blue',
        mem_write: [{ content: 'The owner likes blue light', importance: 0.8, permanent: false, ttl: 'months' }],
        mem_query: ['favourite colour'],
        device: [{ led: { mode: 'solid', color: { r: 0, g: 0, b: 255 }, brightness: 100 } }, { config: { apiKeyA: 'stolen' } }],
        session_ops: [{ op: 'spawn', task: 'research', id: null }],
        scratchpad: { active: 'helping with lights', short: ['blue'], mid: null, long: null },
      }),
    );
    const delivered: string[] = [];
    const outcome = await device.assistant.engine.run({
      chat: 'c1',
      text: 'remember I like blue and set the light',
      person: null,
      admin: true,
      origin: 'console',
      deliver: (r) => {
        delivered.push(r);
        memoriesAtDelivery = Number(device.ctx.memory.stats()['vectors'] ?? 0);
      },
    });
    expect(outcome).toMatchObject({ status: 'ok', reply: 'Saved it and set the light.', rounds: 2, toolCalls: 1, provider: 'anthropic' });
    expect(delivered).toEqual(['Saved it and set the light.']);
    expect(memoriesAtDelivery).toBe(0);
    expect(Number(device.ctx.memory.stats()['vectors'])).toBe(1);
    const second = wire.seen[1]!.transcript;
    const result = second.find((t) => t.kind === 'tool_result');
    expect(result && JSON.parse((result as { output: string }).output)).toMatchObject({ success: true });
    expect(device.ctx.actions.ledState()).toMatchObject({ mode: 'solid', color: { r: 0, g: 0, b: 255 } });
    expect(device.ctx.memory.runningMemory()).toBe('running: owner likes blue');
    expect(device.ctx.memory.scratchpadBlock()).toContain('helping with lights');
    // What the model hears next turn: the refusal, the query results, the queued sub-agent.
    wire.script('anthropic', turn({ reply: 'ok' }));
    await device.assistant.engine.run({ chat: 'c1', text: 'next', person: null, admin: true, origin: 'console' });
    const user = wire.seen[2]!.transcript.find((t) => t.kind === 'user') as { text: string };
    expect(user.text).toMatch(/\[DEVICE\] device action 2 \(config\) was refused: protected-BLOCKED/);
    expect(user.text).not.toContain('stolen');
    expect(user.text).toMatch(/\[MEMORY QUERY RESULTS\] for "favourite colour"/);
    expect(user.text).toMatch(/\[SESSIONS\] Queued j[0-9a-f]{8} \(position 1\)/);
    expect(user.text.endsWith('next')).toBe(true);
    // The conversation shows in the next prompt, in its changing part (the second system item; the stable part comes first).
    const [stable, changing] = wire.seen[2]!.transcript.filter((t) => t.kind === 'system') as Array<{ text: string }>;
    expect(stable!.text).toContain('[CAPABILITIES]');
    expect(stable!.text).not.toContain('[RECENT CONVERSATION]');
    expect(changing!.text).toContain('[RECENT CONVERSATION]');
    expect(changing!.text).toContain('user: remember I like blue');
  });

  it('feeds a failing tool back to the model as its result and keeps going', async () => {
    const { device, wire } = setup();
    wire.script('anthropic', calls(['no_such_tool', {}], ['device_control', { action: { reboot: true } }]), turn({ reply: 'done' }));
    const { out } = ask(device, 'x');
    expect((await out).status).toBe('ok');
    const results = wire.seen[1]!.transcript.filter((t) => t.kind === 'tool_result').map((t) => JSON.parse((t as { output: string }).output));
    expect(results.map((r) => r.success)).toEqual([false, false]);
  });

  it('serves GET /api/lastturn and PROMPT? from the last turn', async () => {
    const { mem, device, wire } = setup();
    const token = device.ctx.token.reveal();
    expect((await request(mem.net, HTTP_PORT, 'GET', '/api/lastturn', { headers: { 'X-Device-Token': token } })).status).toBe(404);
    wire.script('anthropic', turn({ reply: 'hello there' }));
    await ask(device, 'hi').out;
    const last = await request(mem.net, HTTP_PORT, 'GET', '/api/lastturn', { headers: { 'X-Device-Token': token } });
    expect(JSON.parse(last.body)).toMatchObject({ chat: 'c1', provider: 'anthropic', turn: { reply: 'hello there' } });
    const working = JSON.parse((await request(mem.net, HTTP_PORT, 'GET', '/api/mem/working', { headers: { 'X-Device-Token': token } })).body);
    expect(working.sections.map((s: { name: string }) => s.name)).toContain('capabilities');
    mem.serial.take();
    mem.serial.type('PROMPT?\r\n');
    for (let i = 0; i < 5; i++) await mem.clock.advance(0);
    expect(mem.serial.take()).toMatch(/^prompt \d+ bytes of 32768\r\ndirective 0 0\r\n[\s\S]*OK\r\n$/);
  });

  it('answers TURN on the console', async () => {
    const { mem, wire } = setup();
    wire.script('anthropic', turn({ reply: 'line one\nline two', ask: 'anything else?' }));
    mem.serial.take();
    mem.serial.type('TURN hello\r\n');
    for (let i = 0; i < 10; i++) await mem.clock.advance(0);
    expect(mem.serial.take()).toBe('line one\r\nline two\r\nASK: anything else?\r\nOK\r\n');
  });
});

describe('caps', () => {
  it('after the round cap, one forced tool-less round pins orch_turn; a model that still calls tools gets a clean error', async () => {
    const { device, wire } = setup();
    for (let i = 0; i < MAX_ROUNDS + 1; i++) wire.script('anthropic', calls(['device_status', { n: i }]));
    const { out, delivered } = ask(device, 'loop forever');
    const o = await out;
    expect(o).toMatchObject({ status: 'error', cap: 'rounds' });
    expect(delivered[0]).toMatch(/could not finish that within my limits \(rounds\)/);
    const final = wire.seen[wire.seen.length - 1]!.req;
    expect(final).toMatchObject({ forceFinal: true, tools: [] });
    expect(wire.seen).toHaveLength(MAX_ROUNDS + 1);
  });

  it('a forced final round that answers gives the turn', async () => {
    const { device, wire } = setup();
    for (let i = 0; i < MAX_ROUNDS; i++) wire.script('anthropic', calls(['device_status', { n: i }]));
    wire.script('anthropic', turn({ reply: 'finally' }));
    expect(await ask(device, 'x').out).toMatchObject({ status: 'ok', reply: 'finally', cap: 'rounds' });
  });

  it('trips on a stall (the same call three times)', async () => {
    const { device, wire } = setup();
    wire.script('anthropic', calls(['device_status', {}]), calls(['device_status', {}]), calls(['device_status', {}]), turn({ reply: 'ok' }));
    const o = await ask(device, 'x').out;
    expect(o.cap).toBe('stall');
    expect(wire.seen[3]!.req.forceFinal).toBe(true);
  });

  it('trips on the heap floor mid-loop, and defers before any provider call below the turn floor', async () => {
    const { mem, device, wire } = setup();
    wire.script(
      'anthropic',
      () => {
        mem.system.heapFigures.freeInternal = 20 * 1024;
        return calls(['device_status', {}]);
      },
      turn({ reply: 'ok' }),
    );
    const o = await ask(device, 'x').out;
    expect(o.cap).toBe('heap');
    expect(wire.seen[1]!.req.forceFinal).toBe(true);
    const before = wire.seen.length;
    const { out, delivered } = ask(device, 'again');
    expect(await out).toMatchObject({ status: 'deferred', reply: ONE_MOMENT });
    expect(delivered).toEqual([ONE_MOMENT]);
    expect(wire.seen).toHaveLength(before);
  });

  it('trips on transcript bytes', async () => {
    const { device, wire } = setup();
    const big = 'x'.repeat(100 * 1024);
    wire.script('anthropic', calls(['device_status', { pad: big }]), turn({ reply: 'ok' }));
    expect((await ask(device, 'x').out).cap).toBe('bytes');
  });

  it('clamps each round to what is left of the 600 s turn, with an 8 s floor, then trips the deadline', async () => {
    const { mem, device, wire } = setup();
    const slow = async (): Promise<RoundResult> => {
      await mem.clock.advance(100_000);
      return calls(['device_status', { t: mem.clock.monoMs() }]);
    };
    wire.script('anthropic', slow, slow, slow, slow, slow, slow, turn({ reply: 'late' }));
    const o = await ask(device, 'x').out;
    expect(o).toMatchObject({ status: 'ok', cap: 'deadline' });
    // Each round may take the provider's round deadline (sized to its max_tokens: 234.8 s for B), clamped to what is left.
    const cap = CATALOG.anthropic.roundMs;
    expect(wire.seen.map((s) => s.timeoutMs)).toEqual([cap, cap, cap, cap, 200_000, 100_000, ROUND_FLOOR_MS]);
  });
});

describe('provider stop reasons', () => {
  it('a paused provider turn (pause_turn) continues with the next round; no tool runs on the device', async () => {
    const { device, wire } = setup();
    const paused: RoundResult = { kind: 'continue', items: [{ kind: 'opaque', provider: 'anthropic', raw: { type: 'server_tool_use', id: 'srvtoolu_1', name: 'web_search', input: {} } }] };
    wire.script('anthropic', paused, turn({ reply: 'Found it.' }));
    const o = await ask(device, 'search').out;
    expect(o).toMatchObject({ status: 'ok', reply: 'Found it.', rounds: 2, toolCalls: 0 });
    expect(wire.seen[1]!.transcript.at(-1)).toMatchObject({ kind: 'opaque', raw: { type: 'server_tool_use' } });
  });

  it('a refusal is answered as such: not retried, no failover', async () => {
    const { device, wire } = setup(['anthropic', 'openai']);
    wire.script('anthropic', { kind: 'error', error: 'refused', message: 'anthropic: the model declined to answer (refusal)' });
    const o = await ask(device, 'x').out;
    expect(o.reply).toBe('Sorry, anthropic anthropic-default declined to answer that.');
    expect(wire.seen).toHaveLength(1);
  });
});

describe('failover', () => {
  it('midFail on: retries the same host once on a transport failure, then an alternate on the shared transcript', async () => {
    const { device, wire } = setup(['anthropic', 'openai']);
    wire.script('anthropic', calls(['device_status', {}]), fail('transport'), fail('transport'));
    wire.script('openai', turn({ reply: 'from openai' }));
    const { out, delivered } = ask(device, 'hello');
    const o = await out;
    expect(o).toMatchObject({ status: 'ok', provider: 'openai', switches: 1, servedBy: 'served by openai openai-default' });
    expect(delivered[0]).toBe('from openai\n\n(served by openai openai-default)');
    expect(wire.seen.map((s) => s.req.provider)).toEqual(['anthropic', 'anthropic', 'anthropic', 'openai']);
    // Progress carried over: the alternate saw the tool call and its result.
    expect(wire.seen[3]!.transcript.some((t) => t.kind === 'tool_result')).toBe(true);
    expect(JSON.stringify(device.ctx.outbox.pending())).toMatch(/switched from anthropic anthropic-default to openai openai-default/);
  });

  it('midFail on: at most two switches, then a clean error', async () => {
    const { device, wire } = setup(['anthropic', 'openai', 'mistral']);
    for (const p of ['anthropic', 'openai', 'mistral'] as const) wire.script(p, fail('http'), fail('http'));
    const o = await ask(device, 'x').out;
    expect(o).toMatchObject({ status: 'error', switches: 2 });
    expect(wire.seen.map((s) => s.req.provider)).toEqual(['anthropic', 'anthropic', 'openai', 'openai', 'mistral', 'mistral']);
  });

  it('a turn object that will not parse gets one repair round and never fails over', async () => {
    const { device, wire } = setup(['anthropic', 'openai']);
    const broken: RoundResult = { kind: 'turn', json: '{"reply": 1}', items: [] };
    wire.script('anthropic', broken, broken);
    wire.script('openai', turn({ reply: 'should not be asked' }));
    const o = await ask(device, 'x').out;
    expect(o.status).toBe('error');
    expect(o.reply).toMatch(/could not read/);
    expect(wire.seen.map((s) => s.req.provider)).toEqual(['anthropic', 'anthropic']);
    expect(wire.seen[1]!.req.forceFinal).toBe(true);
  });

  it('midFail off: retries once with a fresh conversation, then alternates; skipped once a tool ran', async () => {
    const a = setup(['anthropic', 'openai']);
    a.device.ctx.hal.nvs.set('orch', 'midFail', '0');
    a.wire.script('anthropic', fail('transport'), fail('transport'));
    a.wire.script('openai', turn({ reply: 'alt' }));
    expect(await ask(a.device, 'x').out).toMatchObject({ status: 'ok', provider: 'openai' });
    expect(a.wire.seen.map((s) => s.req.provider)).toEqual(['anthropic', 'anthropic', 'openai']);
    expect(a.wire.seen[1]!.transcript.map((t) => t.kind)).toEqual(['system', 'system', 'user']);

    const b = setup(['anthropic', 'openai']);
    b.device.ctx.hal.nvs.set('orch', 'midFail', '0');
    b.wire.script('anthropic', calls(['device_status', {}]), fail('transport'));
    b.wire.script('openai', turn({ reply: 'never' }));
    expect(await ask(b.device, 'x').out).toMatchObject({ status: 'error', switches: 0 });
    expect(b.wire.seen.map((s) => s.req.provider)).toEqual(['anthropic', 'anthropic']);
  });

  it('a context overflow retries through a fresh thread and marks the chat fold-due', async () => {
    const { mem, device, wire } = setup();
    wire.script('anthropic', calls(['device_status', {}]), fail('context-overflow'), turn({ reply: 'fresh' }));
    expect(await ask(device, 'x').out).toMatchObject({ status: 'ok', reply: 'fresh' });
    expect(wire.seen[2]!.transcript.map((t) => t.kind)).toEqual(['system', 'system', 'user']);
    expect(mem.nvs.get('conv', 'f.c1')).toBe(1);
  });
});

describe('provider choice', () => {
  it('puts the orch_model provider first with its model, coercing an invalid model to the default', async () => {
    const { device } = setup(['anthropic', 'openai']);
    const nvs = device.ctx.hal.nvs; // the firmware's own (cached) view
    nvs.setMany('orch', [['provider', 'openai'], ['model', 'gpt-x']]);
    expect(device.assistant.chain().map((c) => [c.provider, c.model])).toEqual([
      ['openai', 'gpt-x'],
      ['anthropic', 'anthropic-default'],
    ]);
    nvs.set('orch', 'model', 'bad-model');
    expect(device.assistant.chain()[0]!.model).toBe('openai-default');
  });

  it('uses the offline demo in test builds with nothing keyed, and says so in a release build', async () => {
    expect(setup([]).device.assistant.chain()).toMatchObject([{ provider: 'custom', label: 'offline demo' }]);
    const release = setup([], { testBuild: false });
    expect(release.device.assistant.chain()).toEqual([]);
    const o = await ask(release.device, 'x').out;
    expect(o.reply).toMatch(/No model provider is set up/);
  });

  it('runs one turn at a time', async () => {
    const { mem, device, wire } = setup();
    const order: string[] = [];
    wire.script(
      'anthropic',
      async () => {
        order.push('first-start');
        await mem.clock.advance(1000);
        order.push('first-end');
        return turn({ reply: '1' });
      },
      () => {
        order.push('second');
        return turn({ reply: '2' });
      },
    );
    const a = ask(device, 'a').out;
    const b = ask(device, 'b').out;
    await Promise.all([a, b]);
    expect(order).toEqual(['first-start', 'first-end', 'second']);
  });
});

describe('random model output', () => {
  it('never breaks the loop: every turn ends with a status and a reply string', async () => {
    const fc = (await import('fast-check')).default;
    const kinds = ['transport', 'timeout', 'context-overflow', 'auth', 'rate-limit', 'http', 'malformed', 'config'] as const;
    const step = fc.oneof(
      fc.oneof(fc.json(), fc.string(), fc.constant('{"reply":"ok","memory":"","ask":""}')).map((json): RoundResult => ({ kind: 'turn', json, items: [] })),
      fc
        .array(fc.record({ name: fc.oneof(fc.string(), fc.constantFrom('device_status', 'memory_search', 'docs_read', 'device_control')), args: fc.oneof(fc.string(), fc.json()) }), { minLength: 1, maxLength: 3 })
        .map((cs): RoundResult => ({ kind: 'tools', calls: cs.map((c, i) => ({ id: `r${i}`, ...c })), items: [] })),
      fc.constantFrom(...kinds).map((error): RoundResult => ({ kind: 'error', error, message: 'x' })),
    );
    await fc.assert(
      fc.asyncProperty(fc.array(step, { maxLength: 16 }), fc.array(step, { maxLength: 6 }), async (primary, alternate) => {
        const { device, wire } = setup(['anthropic', 'openai']);
        wire.script('anthropic', ...primary);
        wire.script('openai', ...alternate);
        const o = await ask(device, 'hello').out;
        device.stop();
        return ['ok', 'error', 'deferred'].includes(o.status) && typeof o.reply === 'string' && o.rounds <= 2 * (MAX_ROUNDS + 2) * 3;
      }),
      { numRuns: 60 },
    );
  }, 60_000);
});

// The sub-agent fabric on the simulator (the real firmware on XS) against the
// provider emulator over TLS: a turn spawns three jobs (provider B, A and C),
// the device restarts while they run, the journal resumes B and A and
// reports the Mistral-style job expired, polls (on a warped clock) bring
// both results back, and one synthesis turn runs with [FRESH RESULTS]; the
// trace rows are in the console chat's episodic session.
import { afterAll, beforeAll, describe, expect, it } from 'vitest';
import { EMULATOR_NAMES, routeArgs, start, turnObject, type Emulator } from '../../tools/provider-emulator.mjs';
import { cleanup, startDevice, type Device } from './harness.ts';

let emu: Emulator;
let device: Device;
let token = '';

async function until<T>(what: string, probe: () => Promise<T | null | false>, timeoutMs = 15_000): Promise<T> {
  const end = Date.now() + timeoutMs;
  for (;;) {
    const v = await probe();
    if (v) return v;
    if (Date.now() > end) throw new Error(`timed out waiting for ${what}`);
    await new Promise((r) => setTimeout(r, 50));
  }
}

const warp = (ms: number) => device.board.request('clock.warp', { ms });
const spawn = (task: string, name: string, provider: string) => ({ op: 'spawn', task, name, provider, id: null, model: null, skill: null, project: null, attach: null });

beforeAll(async () => {
  emu = await start();
  device = await startDevice({ args: routeArgs(emu.port, EMULATOR_NAMES) });
  token = (await device.command('WEBTOK?')).split('\n')[0]!;
  const res = await device.fetch('/api/orch', {
    method: 'POST',
    token,
    body: new URLSearchParams({ key_anthropic: 'sk-e2e-anthropic', key_openai: 'sk-e2e-openai', key_mistral: 'sk-e2e-mistral', priority: 'anthropic,openai,mistral' }),
  });
  expect(res.status).toBe(200);
});

afterAll(async () => {
  await cleanup();
  await emu?.close();
});

describe('sub-agents on the simulator', () => {
  it('spawn, restart with jobs in flight, resume, results and one synthesis turn', async () => {
    emu.reset();
    emu.script([
      { turn: turnObject('On it: three agents are looking.', { session_ops: [spawn('Find the B answer', 'bee', 'anthropic'), spawn('Find the A answer', 'ay', 'openai'), spawn('Find the C answer', 'sea', 'mistral')] }) },
      { job: { polls: 2, result: 'B found: the answer is blue.' }, match: { host: 'api.anthropic.com' } },
      { job: { polls: 2, result: 'A found: the answer is green.' }, match: { host: 'api.openai.com' } },
      { job: { hold: true }, match: { host: 'api.mistral.ai' } },
    ]);
    expect(await device.command('TURN ask three agents', 30_000)).toBe('On it: three agents are looking.\nOK');
    // The pump starts one per 1.5 s: warp through the cycles until all three reached their providers.
    await until('three dispatches', async () => {
      await warp(1_500);
      return emu.jobs.list().length === 3;
    });
    await until('three running', async () => ((await device.command('SESSIONS?')).match(/^job /gm)?.length === 3 ? true : null));
    const before = await device.command('SESSIONS?');
    expect(before).toMatch(/^job j\w+ \[bee\] running anthropic claude-sonnet-4-5 polls=0 chat=console$/m);
    expect(before).toMatch(/^job j\w+ \[ay\] running openai gpt-5-mini polls=0 chat=console$/m);
    expect(before).toMatch(/^job j\w+ \[sea\] running mistral mistral-medium-latest polls=0 chat=console$/m);
    const briefs = emu.jobs.list().map((j) => j.task).sort();
    expect(briefs).toEqual(['Find the A answer', 'Find the B answer', 'Find the C answer']);
    expect(emu.jobs.list().find((j) => j.kind === 'session')!.brief).toContain('[CONTEXT]\nuser: ask three agents');

    // The device restarts with the three jobs in flight.
    const boots = (await device.board.request<{ bootCount: number }>('status')).bootCount;
    await device.board.request('reboot', { reason: 'software' });
    await device.board.request('wait', { for: 'ready', after: boots, timeoutMs: 15_000 });
    const after = await device.command('SESSIONS?');
    expect(after).toMatch(/^job j\w+ \[bee\] running anthropic/m);
    expect(after).toMatch(/^job j\w+ \[ay\] running openai/m);
    expect(after).toMatch(/^ended j\w+ \[sea\] expired mistral mistral-medium-latest: the device restarted while it ran, and a mistral job cannot be resumed chat=console$/m);
    expect(await device.command('SESSIONMSG?')).toMatch(/^console: Job \[sea\] expired: the device restarted while it ran/m);

    // Polls every 15 s: running at the first, done at the second; then the 3 s window and one synthesis turn.
    emu.script({ turn: turnObject('Both agents reported back: blue and green.') });
    await warp(15_000);
    await until('first polls', async () => ((await device.command('SESSIONS?')).match(/polls=1/g)?.length === 2 ? true : null));
    await warp(15_000);
    await until('two results', async () => ((await device.command('SESSIONS?')).match(/^result /gm)?.length === 2 ? true : null));
    await warp(3_000);
    const messages = await until('the synthesis reply', async () => {
      const m = await device.command('SESSIONMSG?');
      return m.includes('console: Both agents reported back: blue and green.') ? m : null;
    });
    expect(messages).toMatch(/^console: Job \[bee\] is done\. A summary follows\.$/m);
    expect(messages).toMatch(/^console: Job \[ay\] is done\. A summary follows\.$/m);
    const synth = emu.requests.filter((r) => !r.agent && r.method === 'POST').pop()!;
    const sent = JSON.stringify(synth.body);
    expect(sent).toContain('[FRESH RESULTS]');
    expect(sent).toContain('B found: the answer is blue.');
    expect(sent).toContain('A found: the answer is green.');
    expect(sent).toContain('[SYSTEM] Automatic turn: sub-agent results arrived');

    const view = (await (await device.fetch('/api/sessions', { token })).json()) as { results: Array<{ name: string; fresh: boolean; kind: string }>; synthesis: { turns: number } };
    expect(view.results.map((r) => `${r.name} ${r.kind} ${r.fresh}`).sort()).toEqual(['ay result false', 'bee result false']);
    expect(view.synthesis.turns).toBe(1);
    const rows = (await (await device.fetch('/api/mem/episodic?kind=log', { token })).json()) as { rows: Array<{ session: string; text: string }> };
    const trace = rows.rows.filter((r) => r.session === 'console').map((r) => r.text.split(' ')[0]);
    expect(trace.filter((t) => t === 'ev:spawn')).toHaveLength(3);
    expect(trace.filter((t) => t === 'ev:subresult')).toHaveLength(2);
  });
});

// A long answer on the simulator (the real firmware on XS): the model writes
// a ~24 KB artifact.save argument, which a real provider takes minutes to
// generate. The emulator sends it slowly and the device's clock is moved on
// 90 s while it arrives (a board clock warp), past the old 60 s cap on a
// round; the round's deadline is sized to the output it asked for (8192
// tokens: 235 s), so the answer completes, the file is saved whole, and the
// turn ends with the model's reply.
import { afterAll, beforeAll, describe, expect, it } from 'vitest';
import { EMULATOR_NAMES, routeArgs, start, turnObject, type Emulator } from '../../tools/provider-emulator.mjs';
import { cleanup, startDevice, type Device } from './harness.ts';

let emu: Emulator;
let device: Device;
let token = '';

beforeAll(async () => {
  emu = await start();
  device = await startDevice({ args: routeArgs(emu.port, EMULATOR_NAMES) });
  token = (await device.command('WEBTOK?')).split('\n')[0]!;
  const res = await device.fetch('/api/orch', { method: 'POST', token, body: new URLSearchParams({ key_anthropic: 'sk-e2e-anthropic', priority: 'anthropic' }) });
  expect(res.status).toBe(200);
});

afterAll(async () => {
  await cleanup();
  await emu?.close();
});

describe('a long answer', () => {
  it('a ~24 KB artifact.save argument arriving over more than a minute of device time completes', async () => {
    const line = 'The desk assistant keeps notes for its owner, one line at a time.\n';
    const text = line.repeat(Math.floor((24 * 1024 - 200) / line.length));
    expect(text.length).toBeGreaterThan(23_000);
    emu.reset();
    emu.script([
      // 2 KB every 250 ms: the answer takes about 3 s of real time to arrive.
      { tools: [{ name: 'artifact_save', args: { project: 'notes', name: 'long.md', text } }], slow: { chunkBytes: 2048, intervalMs: 250 } },
      { turn: turnObject('Saved the long note.') },
    ]);
    const turn = device.command('TURN write me a long note', 60_000);
    // Once the answer has started, the device's clock moves on 90 s: past a 60 s cap, well inside the sized one.
    for (let i = 0; i < 200 && emu.requests.filter((r) => r.method === 'POST').length === 0; i++) await new Promise((r) => setTimeout(r, 20));
    await new Promise((r) => setTimeout(r, 300));
    await device.board.request('clock.warp', { ms: 90_000 });
    expect(await turn).toBe('Saved the long note.\nOK');
    const rounds = emu.requests.filter((r) => r.method === 'POST' && r.path === '/v1/messages');
    expect(rounds).toHaveLength(2);
    const result = rounds[1]!.body.messages.at(-1).content.find((c: { type: string }) => c.type === 'tool_result');
    expect(result.content).toContain(`Saved notes/long.md (${new TextEncoder().encode(text).length} bytes)`);
  }, 90_000);
});

// A long answer on the simulator (the real firmware on XS): the model writes
// a ~24 KB artifact.save argument, which a real provider takes minutes to
// generate. Read whole (the stream setting off), the emulator sends it slowly
// and the device's clock is moved on 90 s while it arrives (a board clock
// warp), past the old 60 s cap on a round; the round's deadline is sized to
// the output it asked for (8192 tokens: 235 s), so the answer completes.
// Streamed (the default), the deadline is silence: the answer flows while the
// device's clock moves on 300 s, longer than a whole answer may take, and it
// completes. Either way the file is saved whole and the turn ends with the
// model's reply.
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

const LINE = 'The desk assistant keeps notes for its owner, one line at a time.\n';
const TEXT = LINE.repeat(Math.floor((24 * 1024 - 200) / LINE.length));
const waitForRound = async (): Promise<void> => {
  for (let i = 0; i < 200 && emu.requests.filter((r) => r.method === 'POST').length === 0; i++) await new Promise((r) => setTimeout(r, 20));
};
const saved = (): void => {
  const rounds = emu.requests.filter((r) => r.method === 'POST' && r.path === '/v1/messages');
  expect(rounds).toHaveLength(2);
  const result = rounds[1]!.body.messages.at(-1).content.find((c: { type: string }) => c.type === 'tool_result');
  expect(result.content).toContain(`Saved notes/long.md (${new TextEncoder().encode(TEXT).length} bytes)`);
};

describe('a long answer', () => {
  it('read whole (stream off): a ~24 KB artifact.save argument arriving over more than a minute of device time completes', async () => {
    expect(TEXT.length).toBeGreaterThan(23_000);
    expect((await device.fetch('/api/orch', { method: 'POST', token, body: new URLSearchParams({ stream: '0' }) })).status).toBe(200);
    emu.reset();
    emu.script([
      // 2 KB every 250 ms: the answer takes about 3 s of real time to arrive.
      { tools: [{ name: 'artifact_save', args: { project: 'notes', name: 'long.md', text: TEXT } }], slow: { chunkBytes: 2048, intervalMs: 250 } },
      { turn: turnObject('Saved the long note.') },
    ]);
    const turn = device.command('TURN write me a long note', 60_000);
    // Once the answer has started, the device's clock moves on 90 s: past a 60 s cap, well inside the sized one.
    await waitForRound();
    await new Promise((r) => setTimeout(r, 300));
    await device.board.request('clock.warp', { ms: 90_000 });
    expect(await turn).toBe('Saved the long note.\nOK');
    expect(emu.requests[0]!.body.stream).toBeUndefined();
    saved();
  }, 90_000);

  it('streamed (the default): the same argument flowing for longer than a whole answer may take completes, because only silence counts', async () => {
    expect((await device.fetch('/api/orch', { method: 'POST', token, body: new URLSearchParams({ stream: '1' }) })).status).toBe(200);
    emu.reset();
    emu.script([
      // About 6000 tokens at 1000 a second: six seconds of real time, the stream never quiet for long.
      { tools: [{ name: 'artifact_save', args: { project: 'notes', name: 'long.md', text: TEXT } }], pace: { firstMs: 100, tokensPerS: 1000 } },
      { turn: turnObject('Saved the long note.') },
    ]);
    const turn = device.command('TURN write me a long note', 60_000);
    await waitForRound();
    // While it flows, the device's clock moves on 20 s at a time, 300 s in all: longer than a whole answer's
    // deadline (235 s), never 60 s without a byte.
    for (let i = 0; i < 15; i++) {
      await new Promise((r) => setTimeout(r, 250));
      await device.board.request('clock.warp', { ms: 20_000 });
    }
    expect(await turn).toBe('Saved the long note.\nOK');
    expect(emu.requests[0]!.streamed).toBe(true);
    saved();
  }, 90_000);
});

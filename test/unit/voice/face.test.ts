// Voice's face built from its declared options on a test kernel (no device
// boot): VOICE <text> runs the owner's voice turn through the turn engine it
// was given (chat voice, admin, with a cancel handle) and speaks the reply;
// a press on the screen while the turn is in flight cancels that handle and
// answers ERR stopped at once; ring-tft's main button stops it too; the voice
// section of the state snapshot and the busy probe it hands to updates; the
// live heap high-water VOICE? shows while the engine's heap probe is on.
import { describe, expect, it } from 'vitest';
import { mount } from '../../../src/core/subsystem.ts';
import type { TurnOutcome, TurnRequest } from '../../../src/contracts/index.ts';
import { voice, type VoiceOptions } from '../../../src/voice/index.ts';
import { testKernel } from '../../support/kernel.ts';

function rig(board?: 'ring-tft') {
  const { kernel, mem } = testKernel(board ? { hal: { board } } : {});
  const asked: TurnRequest[] = [];
  type Answer = Pick<TurnOutcome, 'status' | 'reply' | 'ask' | 'error'> & { xsLivePeak?: number };
  let answer: ((o: Answer) => void) | null = null;
  const probes: Array<() => boolean> = [];
  const spoken: string[] = [];
  const holds: number[] = [];
  const options: VoiceOptions = {
    client: { request: async () => ({ ok: false, error: 'connect', message: 'no network here' }) },
    providers: { key: () => 'sk-test', customFor: () => ({ base: '', model: '' }) },
    actions: { config: () => 'openai', apply: () => ({ ok: true, note: 'config: saved' }) },
    updates: { installing: () => false, addBusyProbe: (p) => void probes.push(p) },
    card: { live: () => false },
    ring: {
      hold: (anim) => {
        holds.push(anim);
        return () => undefined;
      },
    },
    memory: { episodic: { append: () => undefined } },
    engine: {
      probeHeap: false,
      run: (req) => {
        asked.push(req);
        return new Promise((resolve) => (answer = resolve));
      },
    },
    audio: {
      recorder: { open: () => ({ ok: false, reason: 'no-mic: not in this test' }) },
      record: async () => ({ ok: false, reason: 'not in this test' }),
      speak: (text) => {
        spoken.push(text);
        return { ok: false, reason: 'voice replies are off', degraded: true };
      },
      speakStream: () => {
        spoken.push('(a spoken reply)');
        return { ok: false, reason: 'voice replies are off', degraded: true };
      },
    },
  };
  const face = mount(kernel, voice, options);
  kernel.console.start();
  const run = async (line: string): Promise<string> => {
    mem.serial.take();
    mem.serial.type(line + '\r\n');
    await mem.clock.until(() => /(OK|ERR[^\r\n]*)\r\n$/.test(mem.serial.output), 2000, 10);
    return mem.serial.take();
  };
  return { kernel, mem, face, options, asked, probes, spoken, holds, answer: (o: Answer) => answer!(o), run };
}

describe("voice's face", () => {
  it('VOICE <text> runs the voice turn through the given engine and speaks the reply', async () => {
    const r = rig();
    const out = r.run('VOICE what time is it');
    await r.mem.clock.until(() => r.asked.length > 0, 2000, 10);
    expect(r.asked[0]).toMatchObject({ chat: 'voice', text: 'what time is it', person: null, admin: true, origin: 'voice' });
    expect(r.asked[0]!.cancel?.cancelled).toBe(false);
    expect(r.face.session.state()).toBe('thinking');
    expect(r.probes.map((p) => p())).toEqual([false]);
    r.answer({ status: 'ok', reply: 'Ten past four.', ask: '', error: null });
    expect(await out).toBe('Ten past four.\r\nnot spoken: voice replies are off\r\nOK\r\n');
    expect(r.spoken).toEqual(['(a spoken reply)']);
    expect(r.face.session.state()).toBe('idle');
    expect(r.kernel.status.snapshot()).toMatchObject({ voice: { state: 'idle', turns: 1, stops: 0, last: 'ok' } });
  });

  it('a press on the screen while the turn is in flight cancels the turn handle and answers ERR stopped at once', async () => {
    const r = rig();
    const out = r.run('VOICE tell me a story');
    await r.mem.clock.until(() => r.asked.length > 0, 2000, 10);
    expect(r.face.ptt.gesture('press', 'status')).toBe(true);
    expect(r.asked[0]!.cancel?.cancelled).toBe(true);
    expect(await out).toBe('ERR stopped\r\n');
    expect(r.face.session.state()).toBe('idle');
    // The engine's late answer is not spoken.
    r.answer({ status: 'cancelled', reply: '', ask: '', error: 'cancelled' });
    await Promise.resolve();
    expect(r.spoken).toEqual([]);
    expect(r.kernel.status.snapshot()).toMatchObject({ voice: { state: 'idle', turns: 1, stops: 1 } });
  });

  it("ring-tft's main button pressed while a turn runs stops it", async () => {
    const r = rig('ring-tft');
    const out = r.run('VOICE hello');
    await r.mem.clock.until(() => r.asked.length > 0, 2000, 10);
    r.mem.hal.buttons!.onButton!('main', true);
    r.mem.hal.buttons!.onButton!('main', false);
    expect(r.asked[0]!.cancel?.cancelled).toBe(true);
    expect(await out).toBe('ERR stopped\r\n');
  });

  it("with the engine's heap probe on, VOICE? adds the live XS heap high-water (the turn's rounds' included); off, the line is as before", async () => {
    const r = rig();
    const out = r.run('VOICE hi');
    await r.mem.clock.until(() => r.asked.length > 0, 2000, 10);
    r.answer({ status: 'ok', reply: 'Hello.', ask: '', error: null, xsLivePeak: 99_999_999 });
    await out;
    expect(await r.run('VOICE?')).toMatch(/ xsPeak=\d+ xsStatic=\d+\r\nOK\r\n$/);
    (r.options.engine as { probeHeap: boolean }).probeHeap = true;
    const again = r.run('VOICE hi again');
    await r.mem.clock.until(() => r.asked.length > 1, 2000, 10);
    r.answer({ status: 'ok', reply: 'Hello again.', ask: '', error: null, xsLivePeak: 99_999_999 });
    await again;
    expect(await r.run('VOICE?')).toMatch(/ xsPeak=\d+ xsStatic=\d+ xsLivePeak=99999999\r\nOK\r\n$/);
  });
});

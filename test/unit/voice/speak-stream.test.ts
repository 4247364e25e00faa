// Boots the whole device: a streamed reply goes from the provider wire through the turn to speech and the speaker.
// The reply spoken while it streams, on the in-memory device (the firmware
// booted, its real audio and speech client, a provider wire that streams the
// turn a piece at a time on the virtual clock, a speech server that answers
// after a first-byte delay): the first sentence's speech request leaves as
// soon as that sentence is complete, while the model still writes; later
// sentences queue behind it (one request at a time, each after the one before
// arrived) into one utterance; the screen shows the reply growing; a stop
// while it speaks closes the turn, the speech request in flight and the
// playback at once, with nothing recorded; a turn that fails validation after
// speech began stops speaking and says so. Sentence cutting and the replay
// after a reset are tested on their own below.
import { describe, expect, it } from 'vitest';
import { boot, type Device } from '../../../src/main.ts';
import type { RoundCancel, RoundRequest, RoundResult, RoundStream } from '../../../src/contracts/index.ts';
import { ReplySpeaker } from '../../../src/voice/reply-speaker.ts';
import { MAX_CHARS, SentenceSplitter } from '../../../src/voice/sentences.ts';
import { speechAnswer } from '../../../tools/provider-emulator.mjs';
import { createMemHal, type MemHal } from '../../support/memhal.ts';
import type { MemSocket } from '../../support/memnet.ts';
import { TestWire } from '../../support/test-wire.ts';

const enc = new TextEncoder();
const dec = new TextDecoder();

/** Streams each round's turn JSON in pieces, one every gapMs of virtual time; `broken` answers JSON the parser refuses. */
class StreamingWire extends TestWire {
  reply = 'The coffee is ready. It is still hot. Enjoy it while it lasts!';
  gapMs = 50;
  broken = false;
  memory = '';
  finishedAt: number | null = null;
  constructor(private readonly mem: MemHal) {
    super();
  }
  override async round(req: RoundRequest, _t?: number, _e?: unknown, cancel?: RoundCancel, stream?: RoundStream): Promise<RoundResult> {
    this.seen.push(req);
    const json = this.broken ? JSON.stringify({ reply: this.reply }) : JSON.stringify({ reply: this.reply, memory: this.memory, ask: '' });
    let closed = false;
    if (cancel) cancel.onCancel = () => void (closed = true);
    for (let i = 0; i < json.length && !closed; i += 6) {
      stream?.onText(json.slice(i, i + 6));
      await new Promise<void>((r) => this.mem.clock.setTimeout(r, this.gapMs));
    }
    if (closed) return { kind: 'error', error: 'transport', message: 'aborted: cancelled' };
    this.finishedAt = this.mem.clock.monoMs();
    return { kind: 'turn', json, items: [{ kind: 'assistant', text: json }] };
  }
}

interface Asked {
  input: string;
  at: number;
  answeredAt: number | null;
  socket: MemSocket;
}

/** Speech on api.openai.com: each request answered after firstByteMs (virtual), or held. */
function speechServer(mem: MemHal, firstByteMs: number, hold: () => boolean): Asked[] {
  const asked: Asked[] = [];
  mem.net.serve('api.openai.com', 443, (s) => {
    let buf = new Uint8Array(0);
    s.onData = (c) => {
      const joined = new Uint8Array(buf.length + c.length);
      joined.set(buf);
      joined.set(c, buf.length);
      buf = joined;
      const text = dec.decode(buf);
      const end = text.indexOf('\r\n\r\n');
      if (end < 0) return;
      const len = Number(/content-length: (\d+)/i.exec(text)?.[1] ?? 0);
      const body = buf.subarray(enc.encode(text.slice(0, end + 4)).length);
      if (body.length < len) return;
      buf = body.slice(len);
      const req = JSON.parse(dec.decode(body.subarray(0, len))) as { input: string };
      const a: Asked = { input: req.input, at: mem.clock.monoMs(), answeredAt: null, socket: s };
      asked.push(a);
      if (hold()) return;
      mem.clock.setTimeout(() => {
        if (s.closed) return;
        const wav = speechAnswer({ ...req, response_format: 'wav' }, { ms: 1000 })!.bytes;
        s.send(`HTTP/1.1 200 OK\r\nContent-Type: audio/wav\r\nContent-Length: ${wav.length}\r\n\r\n`);
        s.send(new Uint8Array(wav));
        a.answeredAt = mem.clock.monoMs();
      }, firstByteMs);
    };
  });
  return asked;
}

function rig(options: { firstByteMs?: number } = {}) {
  const mem = createMemHal();
  mem.nvs.set('orch', 'key.anthropic', 'sk-anthropic-secret');
  mem.nvs.set('orch', 'key.openai', 'sk-openai-secret');
  mem.nvs.set('cfg', 'ttsOn', 1);
  mem.nvs.setMany('wifi', [['ssid', 'Home'], ['pass', 'home-pass-1']]);
  let held = false;
  const asked = speechServer(mem, options.firstByteMs ?? 300, () => held);
  const wire = new StreamingWire(mem);
  const device: Device = boot(mem.hal, { wire });
  const run = async (line: string): Promise<string> => {
    mem.serial.take();
    mem.serial.type(`${line}\r\n`);
    await mem.clock.until(() => /(OK|ERR[^\r\n]*)\r\n$/.test(mem.serial.output), 60_000, 20);
    return mem.serial.take().replace(/\r/g, '');
  };
  return { mem, wire, device, asked, run, hold: (on: boolean) => void (held = on) };
}

describe('the reply spoken while it streams', () => {
  it('the first sentence is asked for while the model still writes; the next ones queue behind it into one utterance', async () => {
    const r = rig();
    const shown: string[] = [];
    const out = r.run('VOICE is the coffee ready');
    const screen = (): string => {
      r.device.ui.tick();
      return r.device.ui.frame()!.list.items.map((i) => (i.kind === 'text' ? i.text : '')).join(' ');
    };
    await r.mem.clock.until(() => r.asked.length > 0, 10_000, 10);
    shown.push(screen());
    const text = await out;
    expect(text).toMatch(/^The coffee is ready\. It is still hot\. Enjoy it while it lasts!\nspoken: \d+\.\d\d s\nOK\n$/);
    expect(r.asked.map((a) => a.input)).toEqual(['The coffee is ready.', 'It is still hot.', 'Enjoy it while it lasts!']);
    // The first request left while the turn was still streaming; each later one after the one before had arrived.
    expect(r.asked[0]!.at).toBeLessThan(r.wire.finishedAt!);
    for (let i = 1; i < r.asked.length; i++) expect(r.asked[i]!.at).toBeGreaterThanOrEqual(r.asked[i - 1]!.answeredAt!);
    // One utterance in the mixer (one output stream), all three sentences in it.
    expect(r.mem.audio.starts).toBe(1);
    // The screen showed the reply while it was still growing.
    expect(shown[0]).toContain('The coffee is ready.');
    expect(shown[0]).not.toContain('Enjoy it while it lasts!');
    const stats = await r.run('VOICE?');
    const m = /reply=(\d+) sentence=(\d+) firstAudio=(\d+)/.exec(stats)!;
    // The first sentence went to speech long before the reply was whole; its audio followed the speech's first byte.
    expect(Number(m[2])).toBeLessThan(Number(m[1]));
    expect(Number(m[3])).toBeGreaterThanOrEqual(Number(m[2]) + 300);
  });

  it('a one-sentence reply is asked for as soon as its string closes, while the model still writes the rest of the turn', async () => {
    const r = rig();
    r.wire.reply = 'The coffee is ready.';
    r.wire.memory = 'The owner asked about the coffee; it was ready at nine. '.repeat(8);
    expect(await r.run('VOICE is the coffee ready')).toMatch(/^The coffee is ready\.\nspoken: /);
    expect(r.asked.map((a) => a.input)).toEqual(['The coffee is ready.']);
    // About 450 characters of memory still to come, 6 every 50 ms: seconds before the turn was whole.
    expect(r.asked[0]!.at).toBeLessThan(r.wire.finishedAt! - 2000);
  });

  it('a stop while it speaks closes the turn, the speech request in flight and the playback at once; nothing is recorded', async () => {
    const r = rig();
    r.hold(true);
    const out = r.run('VOICE is the coffee ready');
    await r.mem.clock.until(() => r.asked.length > 0, 10_000, 10);
    r.device.ui.tick();
    expect(r.device.ui.frame()!.list.items.some((i) => i.kind === 'text' && i.text === 'Speaking...')).toBe(true);
    // A tap on the screen: the voice stop.
    const ui = r.device.ui as unknown as { touch: { onGesture: (g: { kind: string; x?: number; y?: number }) => void } };
    ui.touch.onGesture({ kind: 'press', x: 10, y: 10 });
    expect(await out).toBe('ERR stopped\n');
    await r.mem.clock.advance(50);
    expect(r.asked[0]!.socket.closed).toBe(true);
    expect(r.device.ctx.audio.speaker.speaking()).toBe(false);
    expect(await r.run('CTX? voice')).not.toMatch(/coffee/);
    // Nothing more is asked for after the stop.
    await r.mem.clock.advance(5_000);
    expect(r.asked).toHaveLength(1);
  });

  it('the console stops it too: VOICESTOP runs while VOICE still runs, mid-stream', async () => {
    const r = rig();
    r.hold(true);
    r.mem.serial.take();
    r.mem.serial.type('VOICE is the coffee ready\r\n');
    await r.mem.clock.until(() => r.asked.length > 0, 10_000, 10);
    r.mem.serial.type('VOICESTOP\r\n');
    await r.mem.clock.until(() => /ERR stopped\r\n/.test(r.mem.serial.output), 5_000, 10);
    const out = r.mem.serial.take().replace(/\r/g, '');
    // The stop's own answer, then VOICE's: stopped mid-stream, before the model finished writing.
    expect(out).toBe('OK\nERR stopped\n');
    expect(r.wire.finishedAt).toBeNull();
    await r.mem.clock.advance(50);
    expect(r.asked[0]!.socket.closed).toBe(true);
    expect(await r.run('VOICESTOP')).toBe('nothing to stop: the voice turn is idle\nOK\n');
  });

  it('a turn that fails validation after speech began stops speaking and says so', async () => {
    const r = rig();
    r.wire.broken = true;
    const out = await r.run('VOICE is the coffee ready');
    expect(out).toMatch(/^Sorry, the model answered in a form I could not read\. Please ask again\.\nERR parse/);
    const inputs = r.asked.map((a) => a.input);
    expect(inputs[0]).toBe('The coffee is ready.');
    expect(inputs.at(-1)).toBe('Sorry, the model answered in a form I could not read. Please ask again.');
    // The apology is the last thing asked for: what streamed before it was stopped.
    expect(inputs.filter((i) => i.startsWith('Sorry'))).toHaveLength(1);
  });
});

describe('sentences for speech', () => {
  const split = (pieces: string[]): string[] => {
    const s = new SentenceSplitter();
    const out = pieces.flatMap((p) => s.push(p));
    const last = s.flush();
    return last ? [...out, last] : out;
  };

  it('a sentence is out once its end mark and the space after it arrived; decimals, abbreviations and initials do not end one', () => {
    const s = new SentenceSplitter();
    expect(s.push('It costs 3.5 euros')).toEqual([]);
    expect(s.push('.')).toEqual([]);
    expect(s.push(' Dr. Smith and J. Doe agree, e.g. on this. ')).toEqual(['It costs 3.5 euros.', 'Dr. Smith and J. Doe agree, e.g. on this.']);
    expect(split(['Yes! Really? "Quite so." ', '好的。明天见！Line one\nline two'])).toEqual(['Yes!', 'Really? "Quite so."', '好的。明天见！', 'Line one line two']);
  });

  it('the first sentence goes at once however short; later short ones join the next; a long run without an end is cut at a comma or space', () => {
    expect(split(['Ok. Sure. Fine. This one is longer. '])).toEqual(['Ok.', 'Sure. Fine. This one is longer.']);
    const long = `${'word, '.repeat(60)}end`;
    const parts = split([long]);
    expect(parts.length).toBeGreaterThan(1);
    expect(parts.every((p) => p.length <= MAX_CHARS)).toBe(true);
    expect(parts.join(' ').replace(/\s+/g, ' ')).toBe(long.replace(/\s+/g, ' ').trim());
  });

  it('after a reset, a new reply that repeats what was spoken speaks only what goes beyond it; one that says something else starts over', () => {
    const said: string[] = [];
    let aborts = 0;
    const sink = { say: (t: string) => void said.push(t), end: () => undefined, abort: () => void aborts++ };
    const sp = new ReplySpeaker(() => ({ ok: true, stream: sink }), () => undefined);
    sp.grow('First sentence here. Second ');
    sp.reset();
    sp.grow('First sent');
    sp.grow('ence here. Second one now. ');
    sp.finish('First sentence here. Second one now. Third.');
    expect(said).toEqual(['First sentence here.', 'Second one now.', 'Third.']);
    expect(aborts).toBe(0);
    const other: string[] = [];
    const sp2 = new ReplySpeaker(() => ({ ok: true, stream: { say: (t) => void other.push(t), end: () => undefined, abort: () => void aborts++ } }), () => undefined);
    sp2.grow('The answer is yes. ');
    sp2.reset();
    sp2.grow('Sorry, the answer is no. ');
    sp2.finish('Sorry, the answer is no.');
    expect(other).toEqual(['The answer is yes.', 'Sorry, the answer is no.']);
    expect(aborts).toBe(1);
  });
});

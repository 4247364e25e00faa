// The turn engine with streamed rounds: the reply grows at the turn's starter
// (TurnRequest.stream) and the engine's reply listeners while the provider
// writes the turn, before it is complete; a round that ends without a turn to
// deliver (tool calls, a failure before a retry or a failover, a turn that
// fails validation) voids what grew, and the next round grows it afresh; the
// turn applies, records and delivers only once it has arrived whole and
// parsed; a cancel mid-stream stops the growing at once and leaves nothing
// recorded or applied; a streamed round may run as long as the turn may.
import { describe, expect, it } from 'vitest';
import { ToolRegistry } from '../../../src/core/tools/registry.ts';
import { ok } from '../../../src/core/tools/types.ts';
import { turnCancel, type RoundCancel, type RoundRequest, type RoundResult, type RoundStream, type TurnRequest } from '../../../src/contracts/index.ts';
import { Log } from '../../../src/log/log.ts';
import { PromptBlocks } from '../../../src/prompt/index.ts';
import { TURN_DEADLINE_MS, TurnEngine, type EngineDeps, type ProviderChoice } from '../../../src/turn/engine.ts';
import { createMemHal } from '../../support/memhal.ts';

const turnJson = (reply: string, extra: Record<string, unknown> = {}): string => JSON.stringify({ reply, memory: '', ask: '', ...extra });
const turnResult = (json: string): RoundResult => ({ kind: 'turn', json, items: [{ kind: 'assistant', text: json }] });

interface Round {
  req: RoundRequest;
  stream: RoundStream | undefined;
  /** Sends text as the provider's stream would, in pieces. */
  say(text: string, size?: number): void;
  answer(r: RoundResult): void;
  closed: boolean;
}

class StreamingWire {
  readonly rounds: Round[] = [];
  private waiters: Array<(r: Round) => void> = [];
  private taken = 0;
  next(): Promise<Round> {
    const r = this.rounds.length > this.taken ? Promise.resolve(this.rounds[this.taken]!) : new Promise<Round>((res) => this.waiters.push(res));
    this.taken++;
    return r;
  }
  round(req: RoundRequest, _timeoutMs: number, _endpoint?: unknown, cancel?: RoundCancel, stream?: RoundStream): Promise<RoundResult> {
    return new Promise<RoundResult>((resolve) => {
      const round: Round = {
        req,
        stream,
        closed: false,
        say(text, size = 3) {
          for (let i = 0; i < text.length; i += size) if (!round.closed) stream?.onText(text.slice(i, i + size));
        },
        answer: (r) => resolve(r),
      };
      if (cancel) {
        cancel.onCancel = () => {
          round.closed = true;
          resolve({ kind: 'error', error: 'transport', message: 'aborted: cancelled' });
        };
      }
      this.rounds.push(round);
      this.waiters.shift()?.(round);
    });
  }
}

function rig(providers = 2) {
  const mem = createMemHal();
  const log = new Log(mem.hal.clock, mem.hal.system);
  const tools = new ToolRegistry();
  tools.register({ name: 'device.status', description: 'status', schema: { type: 'object', properties: {} }, access: 'open', where: 'both', handler: () => ok('battery 80%') });
  const wire = new StreamingWire();
  const seen = { remembered: [] as string[], applied: 0, delivered: [] as string[], events: [] as string[] };
  const choice = (provider: 'anthropic' | 'openai'): ProviderChoice => ({ provider, model: `${provider}-m`, loops: true, readMs: 60_000, label: provider });
  const deps: EngineDeps = {
    hal: mem.hal,
    log,
    tools,
    blocks: new PromptBlocks(),
    wire,
    providers: () => (providers === 1 ? [choice('anthropic')] : [choice('anthropic'), choice('openai')]),
    midFail: () => true,
    apply: async () => {
      seen.applied++;
      seen.events.push('applied');
      return [];
    },
    remember: (_c, role, text) => void seen.remembered.push(`${role}: ${text}`),
    notify: () => undefined,
    foldDue: () => undefined,
  };
  const engine = new TurnEngine(deps);
  const shown: Array<string | null> = [];
  engine.onReply((_req, text) => shown.push(text));
  let grown = '';
  const stream = {
    grow: (t: string) => {
      grown += t;
      seen.events.push(`grow ${t}`);
    },
    reset: () => {
      grown = '';
      seen.events.push('reset');
    },
  };
  const ask = (text: string, extra: Partial<TurnRequest> = {}) =>
    engine.run({ chat: 'voice', text, person: null, admin: true, origin: 'voice', stream, deliver: (r) => (seen.delivered.push(r), seen.events.push(`deliver ${r}`)), ...extra });
  return { engine, wire, seen, ask, shown, grown: () => grown, clock: mem.clock };
}

describe('streamed turns', () => {
  it('the reply grows before the turn is complete; the rest applies only when it has arrived and parsed', async () => {
    const { wire, seen, ask, shown, grown } = rig();
    const out = ask('is the coffee ready?');
    const round = await wire.next();
    const json = turnJson('The coffee is ready. Enjoy!', { mem_write: [{ content: 'likes coffee', importance: 0.5, permanent: false, ttl: null }] });
    round.say(json.slice(0, 25));
    expect(grown()).toBe('The coffee is r');
    expect(seen.delivered).toEqual([]);
    expect(seen.applied).toBe(0);
    round.say(json.slice(25));
    round.answer(turnResult(json));
    await expect(out).resolves.toMatchObject({ status: 'ok', reply: 'The coffee is ready. Enjoy!' });
    expect(grown()).toBe('The coffee is ready. Enjoy!');
    // The growing came first, then the delivery, then the effects.
    const firstDeliver = seen.events.indexOf('deliver The coffee is ready. Enjoy!');
    expect(seen.events.slice(firstDeliver)).toEqual(['deliver The coffee is ready. Enjoy!', 'applied']);
    expect(seen.events.slice(0, firstDeliver).every((e) => e.startsWith('grow '))).toBe(true);
    expect(shown.at(-1)).toBe('The coffee is ready. Enjoy!');
    // The streamed round may run as long as the turn may.
    expect(round.stream!.turnLeftMs).toBe(TURN_DEADLINE_MS);
  });

  it('a round that ends in tool calls, or a turn that fails validation, voids what grew; the next round grows it afresh', async () => {
    const { wire, seen, ask, shown, grown } = rig();
    const out = ask('status?');
    const first = await wire.next();
    // The model began a turn, then called a tool instead.
    first.say('{"reply":"Let me');
    first.answer({ kind: 'tools', calls: [{ id: 'c1', name: 'device_status', args: '{}' }], items: [{ kind: 'tool_call', id: 'c1', name: 'device_status', args: '{}' }] });
    const second = await wire.next();
    expect(grown()).toBe('');
    expect(shown.at(-1)).toBeNull();
    // A turn whose reply streamed but which does not parse (memory missing): voided, and the repair round streams again.
    second.say('{"reply":"Battery at 80%."}');
    second.answer(turnResult('{"reply":"Battery at 80%."}'));
    const repair = await wire.next();
    expect(repair.req.forceFinal).toBe(true);
    expect(grown()).toBe('');
    const good = turnJson('Battery at 80%.');
    repair.say(good);
    repair.answer(turnResult(good));
    await expect(out).resolves.toMatchObject({ status: 'ok', reply: 'Battery at 80%.' });
    expect(seen.events.filter((e) => e === 'reset')).toHaveLength(2);
    expect(grown()).toBe('Battery at 80%.');
  });

  it('a failure mid-stream voids what grew before the retry and the failover; the provider that answers grows the reply', async () => {
    const { wire, ask, grown, seen } = rig();
    const out = ask('hello');
    const a = await wire.next();
    a.say('{"reply":"Hel');
    a.answer({ kind: 'error', error: 'transport', message: "anthropic: the answer's stream ended before it was complete" });
    const again = await wire.next();
    expect(again.req.provider).toBe('anthropic');
    again.say('{"reply":"Hi th');
    again.answer({ kind: 'error', error: 'timeout', message: 'no byte of the answer for 60000 ms' });
    const b = await wire.next();
    expect(b.req.provider).toBe('openai');
    expect(grown()).toBe('');
    b.say(turnJson('Hi there.'));
    b.answer(turnResult(turnJson('Hi there.')));
    await expect(out).resolves.toMatchObject({ status: 'ok', reply: 'Hi there.\n\n(served by openai openai-m)' });
    expect(grown()).toBe('Hi there.');
    expect(seen.events.filter((e) => e === 'reset')).toHaveLength(2);
  });

  it('a stop mid-stream: nothing grows after it, the round is closed, nothing is delivered, recorded or applied', async () => {
    const { wire, seen, ask, grown } = rig();
    const cancel = turnCancel();
    const out = ask('tell me a story', { cancel });
    const round = await wire.next();
    round.say('{"reply":"Once upon a time');
    cancel.cancel();
    round.say(', there was a');
    await expect(out).resolves.toMatchObject({ status: 'cancelled' });
    expect(round.closed).toBe(true);
    expect(grown()).toBe('Once upon a time');
    expect(seen.delivered).toEqual([]);
    expect(seen.remembered).toEqual([]);
    expect(seen.applied).toBe(0);
  });

  it('what is left of the turn bounds each streamed round', async () => {
    const { wire, ask, clock } = rig(1);
    const out = ask('long job');
    const first = await wire.next();
    await clock.advance(100_000);
    first.answer({ kind: 'tools', calls: [{ id: 'c1', name: 'device_status', args: '{}' }], items: [{ kind: 'tool_call', id: 'c1', name: 'device_status', args: '{}' }] });
    const second = await wire.next();
    expect(second.stream!.turnLeftMs).toBe(TURN_DEADLINE_MS - 100_000);
    second.answer(turnResult(turnJson('Done.')));
    await expect(out).resolves.toMatchObject({ status: 'ok' });
  });
});

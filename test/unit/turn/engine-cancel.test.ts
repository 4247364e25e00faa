// The turn engine's cancel (contracts' TurnCancel, the voice stop): the
// engine is built from its declared dependencies (no device boot) with a
// provider wire that never answers until its round is cancelled, as the HTTP
// client does when the connection is closed. A cancelled turn resolves at
// once, closes the round in flight, delivers, records and applies nothing,
// asks no other provider, and the next turn runs normally.
import { describe, expect, it } from 'vitest';
import { ToolRegistry } from '../../../src/core/tools/registry.ts';
import { ok } from '../../../src/core/tools/types.ts';
import { turnCancel, type RoundCancel, type RoundRequest, type RoundResult, type TurnRequest } from '../../../src/contracts/index.ts';
import { Log } from '../../../src/log/log.ts';
import { PromptBlocks } from '../../../src/prompt/index.ts';
import { TurnEngine, type EngineDeps, type ProviderChoice } from '../../../src/turn/engine.ts';
import { createMemHal } from '../../support/memhal.ts';

const turnResult = (reply: string): RoundResult => {
  const json = JSON.stringify({ reply, memory: '', ask: '' });
  return { kind: 'turn', json, items: [{ kind: 'assistant', text: json }] };
};

interface Round {
  req: RoundRequest;
  /** Resolves when the round's connection is closed by a cancel. */
  closed: Promise<void>;
  wasClosed: boolean;
  answer(r: RoundResult): void;
}

/** A provider wire whose rounds wait until the test answers them or the turn cancels them. */
class HoldingWire {
  readonly rounds: Round[] = [];
  private waiters: Array<(r: Round) => void> = [];
  /** Resolves with the next round to arrive (a barrier, not a sleep). */
  next(): Promise<Round> {
    const waiting = this.rounds.length > this.taken ? Promise.resolve(this.rounds[this.taken]!) : new Promise<Round>((r) => this.waiters.push(r));
    this.taken++;
    return waiting;
  }
  private taken = 0;
  /** When false the wire ignores the cancel hook (a wire that cannot close its call). */
  honoursCancel = true;

  round(req: RoundRequest, _timeoutMs: number, _endpoint?: unknown, cancel?: RoundCancel): Promise<RoundResult> {
    return new Promise<RoundResult>((resolve) => {
      let markClosed: () => void = () => undefined;
      const round: Round = {
        req,
        closed: new Promise<void>((r) => (markClosed = r)),
        wasClosed: false,
        answer: (r) => resolve(r),
      };
      if (cancel && this.honoursCancel) {
        // What src/net/http/client.ts does: the hook destroys the socket and the request ends 'aborted'.
        cancel.onCancel = () => {
          round.wasClosed = true;
          markClosed();
          resolve({ kind: 'error', error: 'transport', message: 'aborted: cancelled' });
        };
      }
      this.rounds.push(round);
      this.waiters.shift()?.(round);
    });
  }
}

function rig(options: { tool?: { started: () => void; finish: Promise<void> }; providers?: number } = {}) {
  const mem = createMemHal();
  const log = new Log(mem.hal.clock, mem.hal.system);
  const tools = new ToolRegistry();
  if (options.tool) {
    const t = options.tool;
    tools.register({
      name: 'test.slow',
      description: 'a slow tool',
      schema: { type: 'object', properties: {} },
      access: 'open',
      where: 'both',
      handler: async () => {
        t.started();
        await t.finish;
        return ok('done');
      },
    });
  }
  const wire = new HoldingWire();
  const seen = { remembered: [] as string[], applied: 0, notified: [] as string[], delivered: [] as string[] };
  const choice = (provider: 'anthropic' | 'openai'): ProviderChoice => ({ provider, model: `${provider}-m`, loops: true, readMs: 60_000, label: provider });
  const deps: EngineDeps = {
    hal: mem.hal,
    log,
    tools,
    blocks: new PromptBlocks(),
    wire,
    providers: () => (options.providers === 1 ? [choice('anthropic')] : [choice('anthropic'), choice('openai')]),
    midFail: () => true,
    apply: async () => {
      seen.applied++;
      return [];
    },
    remember: (_chat, role, text) => void seen.remembered.push(`${role}: ${text}`),
    notify: (_key, text) => void seen.notified.push(text),
    foldDue: () => undefined,
  };
  const engine = new TurnEngine(deps);
  const ask = (text: string, extra: Partial<TurnRequest> = {}) =>
    engine.run({ chat: 'voice', text, person: null, admin: true, origin: 'voice', deliver: (r) => void seen.delivered.push(r), ...extra });
  return { engine, wire, seen, ask };
}

describe('cancelling a turn', () => {
  it('closes the provider call in flight, records, applies and delivers nothing, and the next turn runs', async () => {
    const { engine, wire, seen, ask } = rig();
    engine.queueInput('voice', '[DEVICE] a line for the next turn');
    const cancel = turnCancel();
    const out = ask('what is on today', { cancel });
    const round = await wire.next();
    expect(engine.busy).toBe(true);
    cancel.cancel();
    await round.closed;
    expect(round.wasClosed).toBe(true);
    await expect(out).resolves.toMatchObject({ status: 'cancelled', reply: '', turn: null });
    expect(engine.busy).toBe(false);
    // One round only: a cancel is neither retried on the same provider nor failed over to the next.
    expect(wire.rounds).toHaveLength(1);
    expect(seen).toEqual({ remembered: [], applied: 0, notified: [], delivered: [] });
    expect(engine.last()).toBeNull();

    // The next turn at once: it is answered, recorded and applied, and carries the input the cancelled one never sent.
    const next = ask('and tomorrow?');
    const second = await wire.next();
    const user = second.req.transcript.find((t) => t.kind === 'user') as { text: string };
    expect(user.text).toBe('[DEVICE] a line for the next turn\n\nand tomorrow?');
    second.answer(turnResult('Nothing planned.'));
    await expect(next).resolves.toMatchObject({ status: 'ok', reply: 'Nothing planned.' });
    expect(seen.delivered).toEqual(['Nothing planned.']);
    expect(seen.remembered).toEqual(['creator: and tomorrow?', 'assistant: Nothing planned.']);
    expect(seen.applied).toBe(1);
    // A late answer to the cancelled round changes nothing.
    round.answer(turnResult('too late'));
    await Promise.resolve();
    expect(seen.delivered).toEqual(['Nothing planned.']);
  });

  it('resolves at once even when the wire cannot close its call, and ignores the late answer', async () => {
    const { wire, seen, ask } = rig();
    wire.honoursCancel = false;
    const cancel = turnCancel();
    const out = ask('hello', { cancel });
    const round = await wire.next();
    cancel.cancel();
    await expect(out).resolves.toMatchObject({ status: 'cancelled' });
    round.answer(turnResult('Hello!'));
    const next = ask('again');
    (await wire.next()).answer(turnResult('Hi again.'));
    await expect(next).resolves.toMatchObject({ status: 'ok', reply: 'Hi again.' });
    expect(seen.delivered).toEqual(['Hi again.']);
    expect(seen.remembered).toEqual(['creator: again', 'assistant: Hi again.']);
  });

  it('stops between tool rounds: the tool running is left behind and no further round is sent', async () => {
    let started: () => void = () => undefined;
    const toolStarted = new Promise<void>((r) => (started = r));
    let finish: () => void = () => undefined;
    const { wire, seen, ask } = rig({ tool: { started, finish: new Promise<void>((r) => (finish = r)) } });
    const cancel = turnCancel();
    const out = ask('do the slow thing', { cancel });
    const first = await wire.next();
    expect(first.req.mode).toBe('loop');
    first.answer({ kind: 'tools', calls: [{ id: 'c1', name: 'test_slow', args: '{}' }], items: [{ kind: 'tool_call', id: 'c1', name: 'test_slow', args: '{}' }] });
    await toolStarted;
    cancel.cancel();
    await expect(out).resolves.toMatchObject({ status: 'cancelled' });
    finish();
    await Promise.resolve();
    expect(wire.rounds).toHaveLength(1);
    expect(seen).toEqual({ remembered: [], applied: 0, notified: [], delivered: [] });
  });

  it('a turn cancelled while it waits behind another never calls a provider', async () => {
    const { wire, seen, ask } = rig({ providers: 1 });
    const first = ask('first');
    const cancel = turnCancel();
    const queued = ask('second', { cancel });
    const round = await wire.next();
    cancel.cancel();
    round.answer(turnResult('First answer.'));
    await expect(first).resolves.toMatchObject({ status: 'ok' });
    await expect(queued).resolves.toMatchObject({ status: 'cancelled' });
    expect(wire.rounds).toHaveLength(1);
    expect(seen.delivered).toEqual(['First answer.']);
  });

  it('a cancel after the reply went out changes nothing', async () => {
    const { wire, seen, ask } = rig();
    const cancel = turnCancel();
    const out = ask('hi', { cancel });
    (await wire.next()).answer(turnResult('Hi.'));
    const done = await out;
    cancel.cancel();
    expect(done).toMatchObject({ status: 'ok', reply: 'Hi.' });
    expect(seen.delivered).toEqual(['Hi.']);
    expect(seen.applied).toBe(1);
  });
});

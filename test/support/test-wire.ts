// A provider wire for unit tests that boot the firmware: the Anthropic key is
// set, every model is '<provider>-model', each round is recorded, scripted
// steps answer first and answer() (a test's own default) after them.

import type { ProviderId } from '../../src/providers/settings.ts';
import type { RoundRequest, RoundResult } from '../../src/contracts/index.ts';
import type { TurnWire } from '../../src/turn/index.ts';

export type Step = RoundResult | ((req: RoundRequest) => RoundResult | Promise<RoundResult>);

/** A final turn with these contract fields (reply, memory and ask default to empty). */
export const turnResult = (fields: Record<string, unknown>): RoundResult => {
  const json = JSON.stringify({ reply: '', memory: '', ask: '', ...fields });
  return { kind: 'turn', json, items: [{ kind: 'assistant', text: json }] };
};

/** The text of a round's last user message. */
export function lastUserText(req: RoundRequest): string {
  const user = [...req.transcript].reverse().find((t) => t.kind === 'user');
  return user && 'text' in user ? user.text : '';
}

export class TestWire implements TurnWire {
  readonly seen: RoundRequest[] = [];
  readonly steps: Step[] = [];
  keyed(p: ProviderId): boolean {
    return p === 'anthropic';
  }
  loops(): boolean {
    return true;
  }
  modelFor(p: ProviderId): string {
    return `${p}-model`;
  }
  async round(req: RoundRequest): Promise<RoundResult> {
    this.seen.push(req);
    const step = this.steps.shift();
    if (step) return typeof step === 'function' ? step(req) : step;
    return this.answer(req);
  }
  /** The answer when no step is scripted. */
  protected answer(_req: RoundRequest): RoundResult | Promise<RoundResult> {
    return turnResult({ reply: 'ok' });
  }
}

// The assistant's console commands: TURN (one owner turn), TURNSTAT? (the
// last turn's figures), HEAPPROBE, PROMPT? (the prompt as last assembled)
// and CTX? (a chat's recent conversation as the next prompt sees it).

import { CommandError, type Command } from '../core/console.ts';
import type { Hal } from '../hal/index.ts';
import type { TurnOutcome } from '../contracts/index.ts';
import { capBytes } from '../util/cap.ts';
import type { ConversationLog } from './conversation.ts';
import type { TurnEngine } from './engine.ts';

/** What the commands run and read of the assistant. */
export interface ConsoleAssistant {
  readonly engine: Pick<TurnEngine, 'lastOutcome' | 'probeHeap' | 'lastPrompt'>;
  ownerTurn(chat: string, text: string, origin: 'console'): Promise<TurnOutcome>;
  clearedAt(chat: string): number;
}

export function turnCommands(a: ConsoleAssistant, conversation: () => ConversationLog, hal: Pick<Hal, 'system'>): Command[] {
  return [
    {
      verb: 'TURN',
      usage: '<text>',
      help: 'run one assistant turn as the owner (chat console) and print the reply',
      run: async (c) => {
        if (!c.args) throw new CommandError('TURN needs text');
        const out = await a.ownerTurn('console', c.args, 'console');
        for (const line of out.reply.split('\n')) c.out(line);
        if (out.ask) c.out(`ASK: ${out.ask}`);
        if (out.status !== 'ok') throw new CommandError(out.status === 'deferred' ? 'deferred (heap below the turn floor)' : (out.error ?? 'turn failed'));
      },
    },
    {
      verb: 'TURNSTAT?',
      maxArgs: 0,
      help: 'figures of the last turn: device and provider ms, rounds, tool calls, XS heap high-water',
      run: (c) => {
        const o = a.engine.lastOutcome;
        if (!o) throw new CommandError('no turn has run yet');
        const h = hal.system.heap();
        c.out(`status=${o.status} deviceMs=${o.deviceMs} providerMs=${o.providerMs} rounds=${o.rounds} tools=${o.toolCalls} switches=${o.switches} cap=${o.cap ?? '-'} xsPeak=${o.xsPeak} xsLivePeak=${o.xsLivePeak} xsStatic=${h.xsStatic}`);
      },
    },
    {
      verb: 'HEAPPROBE',
      maxArgs: 1,
      usage: '<on or off>',
      help: 'measure the live XS heap after every round of later turns (slow; for benchmarks)',
      run: (c) => {
        const v = (c.argv[0] ?? '').toLowerCase();
        if (v !== 'on' && v !== 'off') throw new CommandError('HEAPPROBE on or off');
        a.engine.probeHeap = v === 'on';
      },
    },
    {
      verb: 'PROMPT?',
      maxArgs: 0,
      help: 'the prompt sections as last assembled: name, bytes offered and sent',
      run: (c) => {
        const p = a.engine.lastPrompt();
        if (!p) throw new CommandError('no prompt assembled yet (run a turn)');
        c.out(`prompt ${p.bytes} bytes of ${p.budget}${p.overBudget ? ' (over budget)' : ''}`);
        for (const s of p.sections) c.out(`${s.name} ${s.offered} ${s.sent}`);
      },
    },
    {
      verb: 'CTX?',
      maxArgs: 1,
      usage: '[chat]',
      help: 'the recent conversation of a chat (default console) as the next prompt will see it',
      run: (c) => {
        const chat = c.argv[0] ?? 'console';
        const page = conversation().query({ session: chat, kind: 'message', limit: 12 });
        const since = a.clearedAt(chat);
        for (const r of page.rows.filter((row) => row.ts > since).reverse()) c.out(`${r.role}: ${capBytes(r.text, 200)}`);
      },
    },
  ];
}

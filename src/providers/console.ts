// The provider wire's test-console commands (test builds only), for scripts
// and the end-to-end tests that exercise the wire on the simulator without
// the turn engine:
//   WIRE <provider|demo> [single|loop|final] <text>
//                 one round with the text as the user message and the
//                 registry's tools offered; prints the outcome (the turn's
//                 reply, or the tool calls the model made; never runs them)
//   WIREKEY <provider>
//                 the key check (Z.ai-style: probes both regions, pins one)
//   WIRE?         which providers are usable, their models, the pinned
//                 Z.ai host and the router host
//   USAGE?        tokens per provider today and this month, and the budgets

import { CommandError, type Command } from '../core/console.ts';
import type { ToolRegistry } from '../core/tools/registry.ts';
import { PROVIDERS, type ProviderId, type RoundRequest, type TurnCodec } from '../contracts/index.ts';
import { DEMO_ENDPOINT } from './demo.ts';
import type { ProviderSettings } from './settings.ts';
import type { ProviderWire } from './wire.ts';
import type { UsageLedger } from './usage.ts';
import { replaceEvery } from '../util/replace.ts';

// Regular expressions are module constants: XS compiles a literal each time it is evaluated.
const LINE_BREAKS = /[\r\n]+/;

/** A console round's deadline: the synchronous provider read (the wire caps it per provider). */
const CONSOLE_ROUND_MS = 60_000;
const SYSTEM = 'You are a desk assistant answering a wire test from the serial console. Keep the reply short.';

function oneLine(s: string): string {
  return replaceEvery(s, LINE_BREAKS, ' ');
}

export interface WireConsoleParts {
  settings: ProviderSettings;
  wire: ProviderWire;
  usage: UsageLedger;
  /** The tools a WIRE loop round offers (the kernel's registry). */
  tools: Pick<ToolRegistry, 'list'>;
  /** The turn's schema, field documentation and parser (src/turn/). */
  turn: { get(): TurnCodec };
}

export function wireCommands(p: WireConsoleParts): Command[] {
  const { settings, wire, usage, tools, turn } = p;
  const usageCommand: Command = {
    verb: 'USAGE?',
    maxArgs: 0,
    help: 'token usage today and this month per provider, and the monthly budgets',
    run: (c) => {
      for (const [p, v] of Object.entries(usage.view())) {
        const u = v as { daily: { input: number; output: number }; monthly: { input: number; output: number; reasoning: number; cached: number }; budget: number | null; exhausted: boolean };
        c.out(`${p} day=${u.daily.input + u.daily.output} month=${u.monthly.input + u.monthly.output} reasoning=${u.monthly.reasoning} cached=${u.monthly.cached} budget=${u.budget ?? '-'}${u.exhausted ? ' EXHAUSTED' : ''}`);
      }
    },
  };
  const providerArg = (word: string | undefined): ProviderId | 'demo' => {
    const p = (word ?? '').toLowerCase();
    if (p === 'demo' || (PROVIDERS as readonly string[]).includes(p)) return p as ProviderId | 'demo';
    throw new CommandError(`unknown provider ${word ?? ''}: one of ${PROVIDERS.join(', ')}, demo`);
  };

  const wireCommand: Command = {
    verb: 'WIRE',
    usage: '<provider|demo> [single|loop|final] [stream] <text>',
    help: 'send one provider round and print the turn reply or the tool calls; stream: streamed as a turn\'s rounds are (while the stream setting is on), with how many pieces of the turn arrived',
    run: async (c) => {
      const [first, maybeMode, ...more] = c.argv;
      const which = providerArg(first);
      const provider: ProviderId = which === 'demo' ? 'custom' : which;
      const endpoint = which === 'demo' ? DEMO_ENDPOINT : undefined;
      const modeWord = (maybeMode ?? '').toLowerCase();
      const explicit = modeWord === 'single' || modeWord === 'loop' || modeWord === 'final';
      const all = explicit ? more : maybeMode === undefined ? more : [maybeMode, ...more];
      const streamed = all[0]?.toLowerCase() === 'stream';
      const words = streamed ? all.slice(1) : all;
      const text = words.join(' ').trim();
      if (!text) throw new CommandError('usage: WIRE <provider|demo> [single|loop|final] [stream] <text>');
      const mode = explicit ? (modeWord === 'single' ? 'single' : 'loop') : wire.loops(provider, endpoint) ? 'loop' : 'single';
      const caller = { via: 'turn' as const, admin: true, scheduled: false, unattended: false, person: null };
      const req: RoundRequest = {
        provider,
        model: endpoint ? endpoint.model : settings.model(),
        transcript: [
          { kind: 'system', text: SYSTEM },
          { kind: 'user', text },
        ],
        mode,
        tools: mode === 'loop' ? tools.list(caller).map((t) => ({ name: t.providerName, description: t.description, parameters: t.schema })) : [],
        forceFinal: modeWord === 'final',
        schema: turn.get().schema(),
        schemaName: 'orch_turn',
        schemaDoc: turn.get().doc(),
        // The console is the owner's: approved tool servers ride along as in the owner's turns.
        connectors: true,
      };
      c.out(`provider=${which} model=${wire.modelFor(provider, req.model, endpoint)} mode=${mode}${req.forceFinal ? ' final' : ''}`);
      let pieces = 0;
      const r = await wire.round(req, CONSOLE_ROUND_MS, endpoint, undefined, streamed ? { onText: () => void pieces++, turnLeftMs: CONSOLE_ROUND_MS } : undefined);
      if (streamed) c.out(`pieces=${pieces}`);
      if (r.kind === 'error') throw new CommandError(oneLine(`${r.error}${r.status !== undefined ? ` ${r.status}` : ''}: ${r.message}`));
      c.out(`kind=${r.kind}`);
      if (r.kind === 'tools') {
        for (const call of r.calls) c.out(oneLine(`call=${call.name} ${call.args}`));
        return;
      }
      if (r.kind === 'continue') {
        c.out(`items=${r.items.length}`);
        return;
      }
      const parsed = turn.get().parse(r.json);
      if (parsed.code !== 'Ok') throw new CommandError(oneLine(`turn ${parsed.code}${parsed.detail ? `: ${parsed.detail}` : ''}`));
      c.out(oneLine(`reply=${parsed.turn.reply}`));
    },
  };

  const keyCommand: Command = {
    verb: 'WIREKEY',
    usage: '<provider>',
    help: "check a provider's key (Z.ai-style: probes both regions and pins the one that answers)",
    run: async (c) => {
      const which = providerArg(c.argv[0]);
      if (which === 'demo') throw new CommandError('the demo has no key');
      const v = await wire.verifyKey(which);
      if (!v.ok) throw new CommandError(oneLine(`${v.error}${v.status !== undefined ? ` ${v.status}` : ''}: ${v.message}`));
      c.out(`ok ${v.url}`);
    },
  };

  const whichCommand: Command = {
    verb: 'WIRE?',
    maxArgs: 0,
    help: 'usable providers and their models, the pinned Z.ai host, the router host',
    run: (c) => {
      for (const p of PROVIDERS) c.out(`${p} usable=${wire.keyed(p) ? 1 : 0} model=${wire.modelFor(p, settings.model())} loops=${wire.loops(p) ? 1 : 0}`);
      c.out(`zaiHost=${wire.zaiHost() ?? '-'}`);
      c.out(`routerHost=${wire.routerHost()}`);
    },
  };
  return [usageCommand, wireCommand, keyCommand, whichCommand];
}

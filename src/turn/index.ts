// The assistant subsystem's face: the turn engine on the context, the
// provider chain for a turn, conversations (recent messages from the
// episodic log, forgotten by /clear), GET /api/lastturn, GET /api/mem/working,
// the web page's conversations (GET /api/conversation, POST
// /api/conversation/clear), and the console's TURN, PROMPT? and CTX?.

import { CommandError } from '../core/console.ts';
import type { Context } from '../core/context.ts';
import { parseForm } from '../net/http/body.ts';
import { errorResponse, jsonResponse } from '../net/http/errors.ts';
import type { PromptBlocks } from '../prompt/index.ts';
import { registerConversationBlock } from './conversation.ts';
import type { ProviderId } from '../contracts/index.ts';
import type { ProviderSettings } from '../providers/index.ts';
import { capBytes } from '../util/cap.ts';
import { makeApplier, type SessionOpsHandler } from './apply.ts';
import { TurnEngine } from './engine.ts';
import type { ProviderChoice, TurnCodec, TurnOutcome, TurnWire } from '../contracts/index.ts';
import { parseTurn } from './parse.ts';
import { turnPromptDoc } from './promptdoc.ts';
import { buildTurnSchema } from './schema.ts';
import { DEMO_ENDPOINT, DEMO_LABEL, DEMO_MODEL } from '../providers/index.ts';
import { CATALOG } from '../providers/index.ts';

export type { TurnWire } from '../contracts/index.ts';
export type { SessionOpsHandler } from './apply.ts';
export { MAX_SWITCHES, TRANSPORTISH } from './engine.ts';

/** The turn's schema, field documentation and parser, for those that send a turn round without the engine. */
export const turnCodec: TurnCodec = { schema: () => buildTurnSchema(), doc: turnPromptDoc, parse: parseTurn };

const CONV_NS = 'conv';
const MODEL_LABEL_MAX = 39;
/** Chat ids the web page offers to clear: from this many recent message rows. */
const RECENT_MESSAGE_ROWS = 200;
const CHAT_ID_MAX = 64;
/** A turn's answer in Notifier mode. */
export const NOTIFIER_MODE_REPLY = 'The assistant runs in Orchestrator mode; this device is in Notifier mode (Bluetooth only). Switch with MODE 1.';

function chatKey(chat: string): string {
  // NVS keys are at most 15 bytes; long chat ids are folded into a short hash.
  if (chat.length <= 15) return chat;
  let h = 2166136261;
  for (const ch of chat) h = Math.imul(h ^ (ch.codePointAt(0) ?? 0), 16777619) >>> 0;
  return `c${h.toString(16)}`;
}

export class Assistant {
  readonly engine: TurnEngine;
  private sessionOps: SessionOpsHandler | null = null;
  /** The model an alternate provider runs on (the model catalog's choice; null: the wire's default). */
  alternateModel: ((provider: ProviderId) => string | null) | null = null;
  /** Why the last chain() was empty although providers are keyed (every one past its budget), or null. */
  private budgetRefusal: string | null = null;

  constructor(
    private readonly ctx: Context,
    private readonly settings: ProviderSettings,
    private readonly wire: TurnWire,
    /** The prompt blocks (src/prompt/): the assistant adds the recent conversation. */
    readonly blocks: PromptBlocks,
  ) {
    const conv = ctx.store(CONV_NS);
    // Memory mounts after the assistant (src/main.ts): its episodic log is read when a prompt is built.
    registerConversationBlock(blocks, { query: (q) => ctx.memory.episodic.query(q) }, (chat) => this.clearedAt(chat));
    const applier = makeApplier(ctx, null);
    this.engine = new TurnEngine({
      hal: ctx.hal,
      log: ctx.log,
      tools: ctx.tools,
      blocks: this.blocks,
      wire,
      providers: () => this.chain(),
      midFail: () => settings.midFail(),
      apply: (turn, req) => (this.sessionOps ? makeApplier(ctx, this.sessionOps)(turn, req) : applier(turn, req)),
      remember: (chat, role, text) => {
        // An automatic turn (a sub-agent synthesis) has no user message: nothing to record.
        if (!text) return;
        try {
          ctx.memory.episodic.append({ session: chat, role, kind: 'message', text });
        } catch (e) {
          ctx.log.warn('turn', `conversation not recorded: ${String(e)}`);
        }
      },
      notify: (key, text) => void ctx.outbox.post(key, text),
      foldDue: (chat) => {
        conv.set(`f.${chatKey(chat)}`.slice(0, 15), 1);
        ctx.log.info('turn', `chat ${chat} is due for folding (context overflow)`);
      },
      budget: () => settings.promptBudget(),
      noProvider: () => this.budgetRefusal,
      // Notifier mode runs no assistant (Wi-Fi is off): every way into a turn gets this answer.
      unavailable: () => (ctx.mode === 1 ? null : NOTIFIER_MODE_REPLY),
    });
  }

  /** The sub-agent fabric serves session ops once it runs. */
  setSessionOps(handler: SessionOpsHandler): void {
    this.sessionOps = handler;
  }

  /** Wall-clock ms before which a chat's messages are forgotten (/clear). */
  clearedAt(chat: string): number {
    // Kept as text in milliseconds (NVS integers are 32-bit); an older whole number is seconds.
    const store = this.ctx.store(CONV_NS);
    const ms = Number(store.str(chatKey(chat), ''));
    return Number.isFinite(ms) && ms > 0 ? ms : store.int(chatKey(chat), 0) * 1000;
  }

  /** Forgets a chat's conversation (and active task); long-term memory and files stay. */
  clear(chat: string): void {
    // To the millisecond: a message answered a moment before /clear is forgotten with the rest.
    this.ctx.store(CONV_NS).set(chatKey(chat), String(this.ctx.hal.clock.wallMs()));
  }

  /** Providers for one turn: the orchestrator's choice (or the first keyed), then up to two alternates (on the catalog's model). */
  chain(): ProviderChoice[] {
    const s = this.settings;
    const keyed = s.keyedList().filter((p) => this.wire.keyed(p));
    if (!keyed.includes('custom') && this.wire.keyed('custom')) keyed.push('custom');
    const chosen = s.orchProvider();
    const first = chosen && keyed.includes(chosen) ? chosen : (keyed[0] ?? null);
    // The owner's monthly budgets: a provider past its budget takes no new turn; a keyed alternate with budget left does.
    const spent = keyed.filter((p) => this.wire.overBudget?.(p) === true);
    this.budgetRefusal = keyed.length > 0 && spent.length === keyed.length ? spentReply(spent, s) : null;
    const usable = keyed.filter((p) => !spent.includes(p));
    const order = chosen && usable.includes(chosen) ? [chosen, ...usable.filter((p) => p !== chosen)] : usable;
    const out: ProviderChoice[] = order.slice(0, 3).map((provider, i) => {
      const requested = i === 0 ? (provider === 'custom' ? s.customModel() : s.model()) : (this.alternateModel?.(provider) ?? null);
      const model = this.wire.modelFor(provider, requested);
      return {
        provider,
        model,
        loops: this.wire.loops(provider),
        readMs: CATALOG[provider].roundMs,
        label: `${provider} ${capBytes(model, MODEL_LABEL_MAX)}`,
        ...(i === 0 && first !== null && spent.includes(first) ? { note: `${first}'s monthly token budget is used up` } : {}),
      };
    });
    if (this.budgetRefusal !== null) return [];
    // Test builds answer out of the box through the offline demo (the provider emulator).
    if (!out.length && this.ctx.hal.build.testBuild) {
      out.push({ provider: 'custom', model: DEMO_MODEL, loops: true, readMs: CATALOG.custom.roundMs, label: DEMO_LABEL, endpoint: DEMO_ENDPOINT });
    }
    return out;
  }

  /** Runs a console or web turn for the owner and resolves with its outcome. */
  ownerTurn(chat: string, text: string, origin: 'console' | 'web' | 'voice'): Promise<TurnOutcome> {
    return this.engine.run({ chat, text, person: null, admin: true, origin });
  }
}

/** The reply to a turn no provider may take: every keyed one is past its monthly token budget. */
function spentReply(spent: readonly ProviderId[], s: ProviderSettings): string {
  const list = spent.map((p) => `${p} (${s.budget(p)} tokens)`).join(', ');
  return `I cannot take this: the monthly token budget is used up for ${list}. The owner can raise a budget on the web page (Assistant); budgets start again on the first of next month.`;
}

export function installAssistant(ctx: Context, settings: ProviderSettings, wire: TurnWire, blocks: PromptBlocks): Assistant {
  const a = new Assistant(ctx, settings, wire, blocks);

  ctx.router.add({
    method: 'GET',
    path: '/api/lastturn',
    handler: () => {
      const last = a.engine.last();
      if (!last) return errorResponse(404, 'no-turn', 'No turn has run since the device started.');
      let turn: unknown = last.json;
      try {
        turn = JSON.parse(last.json);
      } catch {
        // kept as text: the raw turn is what the model sent
      }
      return jsonResponse({ chat: last.chat, provider: last.provider, model: last.model, at: last.atWall, turn });
    },
  });
  ctx.router.add({
    method: 'GET',
    path: '/api/mem/working',
    handler: () => {
      const p = a.engine.lastPrompt();
      if (!p) return jsonResponse({ assembled: false, sections: [] });
      return jsonResponse({
        assembled: true,
        bytes: p.bytes,
        budget: p.budget,
        overBudget: p.overBudget,
        sections: p.sections.map((s) => ({ name: s.name, offeredBytes: s.offered, sentBytes: s.sent, text: s.text })),
      });
    },
  });

  // The web page's Memory > Clear conversation: the conversations seen lately, and /clear for one of them.
  ctx.router.add({
    method: 'GET',
    path: '/api/conversation',
    handler: () => {
      const last = new Map<string, number>();
      for (const row of ctx.memory.episodic.query({ kind: 'message', limit: RECENT_MESSAGE_ROWS }).rows) {
        if (row.session !== 'system' && !last.has(row.session)) last.set(row.session, row.ts);
      }
      const chats = [...last].map(([chat, at]) => ({ chat, lastAt: at, clearedAt: a.clearedAt(chat) || null, cleared: a.clearedAt(chat) >= at }));
      return jsonResponse({ chats });
    },
  });
  ctx.router.add({
    method: 'POST',
    path: '/api/conversation/clear',
    bodyLimit: 1024,
    handler: (req) => {
      const form = parseForm(req);
      const chat = (form.ok ? (form.form.fields.get('chat') ?? '') : '').trim();
      if (!chat || chat.length > CHAT_ID_MAX) return errorResponse(400, 'bad-request', 'Name the conversation to clear (chat, a chat id). Nothing was changed.');
      a.clear(chat);
      ctx.log.info('turn', `conversation ${chat} cleared from the web`);
      return jsonResponse({ chat, cleared: true });
    },
  });

  ctx.console.register({
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
  });
  ctx.console.register({
    verb: 'TURNSTAT?',
    maxArgs: 0,
    help: 'figures of the last turn: device and provider ms, rounds, tool calls, XS heap high-water',
    run: (c) => {
      const o = a.engine.lastOutcome;
      if (!o) throw new CommandError('no turn has run yet');
      const h = ctx.hal.system.heap();
      c.out(`status=${o.status} deviceMs=${o.deviceMs} providerMs=${o.providerMs} rounds=${o.rounds} tools=${o.toolCalls} switches=${o.switches} cap=${o.cap ?? '-'} xsPeak=${o.xsPeak} xsLivePeak=${o.xsLivePeak} xsStatic=${h.xsStatic}`);
    },
  });
  ctx.console.register({
    verb: 'HEAPPROBE',
    maxArgs: 1,
    usage: '<on or off>',
    help: 'measure the live XS heap after every round of later turns (slow; for benchmarks)',
    run: (c) => {
      const v = (c.argv[0] ?? '').toLowerCase();
      if (v !== 'on' && v !== 'off') throw new CommandError('HEAPPROBE on or off');
      a.engine.probeHeap = v === 'on';
    },
  });
  ctx.console.register({
    verb: 'PROMPT?',
    maxArgs: 0,
    help: 'the prompt sections as last assembled: name, bytes offered and sent',
    run: (c) => {
      const p = a.engine.lastPrompt();
      if (!p) throw new CommandError('no prompt assembled yet (run a turn)');
      c.out(`prompt ${p.bytes} bytes of ${p.budget}${p.overBudget ? ' (over budget)' : ''}`);
      for (const s of p.sections) c.out(`${s.name} ${s.offered} ${s.sent}`);
    },
  });
  ctx.console.register({
    verb: 'CTX?',
    maxArgs: 1,
    usage: '[chat]',
    help: 'the recent conversation of a chat (default console) as the next prompt will see it',
    run: (c) => {
      const chat = c.argv[0] ?? 'console';
      const page = ctx.memory.episodic.query({ session: chat, kind: 'message', limit: 12 });
      const since = a.clearedAt(chat);
      for (const r of page.rows.filter((row) => row.ts > since).reverse()) c.out(`${r.role}: ${capBytes(r.text, 200)}`);
    },
  });
  return a;
}

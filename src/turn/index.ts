// The assistant subsystem's face: the turn engine, the provider chain for a
// turn, conversations (recent messages from the episodic log, forgotten by
// /clear), conversation compaction (compact.ts), GET /api/lastturn, GET
// /api/mem/working, GET /api/turn/live (the turn now, its reply as it grows:
// live.ts), the web page's conversations (GET /api/conversation,
// POST /api/conversation/clear: routes.ts), and the console's TURN,
// TURNSTAT?, HEAPPROBE, PROMPT?, CTX? and COMPACT (console.ts, compact.ts).

import type { Kernel } from '../core/kernel.ts';
import type { Later, Subsystem } from '../core/subsystem.ts';
import type { PromptBlocks } from '../prompt/index.ts';
import { registerConversationBlock } from './conversation.ts';
import type { ProviderId } from '../contracts/index.ts';
import type { ProviderSettings } from '../providers/index.ts';
import { capBytes } from '../util/cap.ts';
import { makeApplier, type ApplierDeps, type SessionOpsHandler, type TurnMemory } from './apply.ts';
import { compactCommand, Compactor } from './compact.ts';
import { turnCommands } from './console.ts';
import { NOTIFIER_MODE_REPLY, TurnEngine } from './engine.ts';
import type { ProviderChoice, TurnCodec, TurnOutcome, TurnWire } from '../contracts/index.ts';
import { parseTurn } from './parse.ts';
import { turnPromptDoc } from './promptdoc.ts';
import { turnRoutes } from './routes.ts';
import { LiveTurn } from './live.ts';
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

function chatKey(chat: string): string {
  // NVS keys are at most 15 bytes; long chat ids are folded into a short hash.
  if (chat.length <= 15) return chat;
  let h = 2166136261;
  for (const ch of chat) h = Math.imul(h ^ (ch.codePointAt(0) ?? 0), 16777619) >>> 0;
  return `c${h.toString(16)}`;
}

export class Assistant {
  readonly engine: TurnEngine;
  /** Why the last chain() was empty although providers are keyed (every one past its budget), or null. */
  private budgetRefusal: string | null = null;

  private readonly settings: ProviderSettings;
  private readonly wire: TurnWire;
  /** The prompt blocks (src/prompt/): the assistant adds the recent conversation. */
  readonly blocks: PromptBlocks;
  /** The model an alternate provider runs on: the model catalog's choice once models has mounted (null: the wire's default). */
  private readonly alternate: (provider: ProviderId) => string | null;

  constructor(
    private readonly k: Kernel,
    o: TurnOptions,
  ) {
    const { providers: settings, wire, blocks } = o;
    this.alternate = (p) => o.catalog?.peek()?.alternateModel(p) ?? null;
    this.settings = settings;
    this.wire = wire;
    this.blocks = blocks;
    const conv = k.store(CONV_NS);
    // Memory mounts after the assistant (a late need): its episodic log is read when a prompt is built.
    registerConversationBlock(blocks, { query: (q) => o.memory.get().episodic.query(q) }, (chat) => this.clearedAt(chat));
    const effects: ApplierDeps = { people: { roleOf: (p) => o.people.get().roleOf(p) }, actions: o.actions, memory: () => o.memory.get() };
    const applier = makeApplier(effects, null);
    this.engine = new TurnEngine({
      hal: k.hal,
      log: k.log,
      tools: k.tools,
      blocks: this.blocks,
      wire,
      providers: () => this.chain(),
      midFail: () => settings.midFail(),
      apply: (turn, req) => {
        // The sub-agent fabric serves session ops once it has mounted.
        const ops = o.agents?.peek()?.sessionOps ?? null;
        return ops ? makeApplier(effects, ops)(turn, req) : applier(turn, req);
      },
      remember: (chat, role, text) => {
        // An automatic turn (a sub-agent synthesis) has no user message: nothing to record.
        if (!text) return;
        try {
          o.memory.get().episodic.append({ session: chat, role, kind: 'message', text });
        } catch (e) {
          k.log.warn('turn', `conversation not recorded: ${String(e)}`);
        }
      },
      notify: (key, text) => void o.outbox.post(key, text),
      foldDue: (chat) => {
        conv.set(`f.${chatKey(chat)}`.slice(0, 15), 1);
        k.log.info('turn', `chat ${chat} is due for folding (context overflow)`);
      },
      budget: () => settings.promptBudget(),
      noProvider: () => this.budgetRefusal,
      // Notifier mode runs no assistant (Wi-Fi is off): every way into a turn gets this answer.
      unavailable: () => (k.mode === 1 ? null : NOTIFIER_MODE_REPLY),
    });
  }

  /** Wall-clock ms before which a chat's messages are forgotten (/clear). */
  clearedAt(chat: string): number {
    // Kept as text in milliseconds (NVS integers are 32-bit); an older whole number is seconds.
    const store = this.k.store(CONV_NS);
    const ms = Number(store.str(chatKey(chat), ''));
    return Number.isFinite(ms) && ms > 0 ? ms : store.int(chatKey(chat), 0) * 1000;
  }

  /** Forgets a chat's conversation (and active task); long-term memory and files stay. */
  clear(chat: string): void {
    // To the millisecond: a message answered a moment before /clear is forgotten with the rest.
    this.k.store(CONV_NS).set(chatKey(chat), String(this.k.hal.clock.wallMs()));
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
      const requested = i === 0 ? (provider === 'custom' ? s.customModel() : s.model()) : (this.alternate(provider) ?? null);
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
    if (!out.length && this.k.hal.build.testBuild) {
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

/** What the assistant needs from others. */
export interface TurnOptions {
  /** The provider settings (src/providers/): keyed providers, the owner's choice, models, budgets. */
  providers: ProviderSettings;
  /** The provider wire a turn's rounds go through. */
  wire: TurnWire;
  /** The prompt builder with the core blocks (src/prompt/). */
  blocks: PromptBlocks;
  /** The memory (src/memory/), read when a turn runs: it mounts after the assistant. */
  memory: Later<TurnMemory>;
  /** Owner notices (the chat's outbox). */
  outbox: { post(key: string, text: string): unknown };
  /** The people's roles (src/chat/, mounted later: read when a turn runs): who may apply which device action, and whose namespace a chat's compaction writes to (null: the owner's). */
  people: Later<ApplierDeps['people'] & { conversationPerson(conversation: string): string | null }>;
  /** The device's applier (src/device/actions.ts). */
  actions: ApplierDeps['actions'];
  /** The sub-agent fabric (src/agents/, mounted later): its session ops, once it runs (none in a turn alone). */
  agents?: Later<{ sessionOps: SessionOpsHandler }>;
  /** The model catalog (src/models/, mounted later): the model an alternate provider runs on. */
  catalog?: Later<{ alternateModel(provider: ProviderId): string | null }>;
}

/** What the assistant provides: the Assistant (its engine, the provider chain, conversations) and compaction. */
export interface TurnFace {
  assistant: Assistant;
  compactor: Compactor;
}

export const turn: Subsystem<TurnOptions, TurnFace> = {
  name: 'turn',
  needs: ['providers', 'wire', 'blocks', 'outbox', 'actions'],
  later: ['memory', 'people', 'agents', 'catalog'],
  provides: { assistant: (f) => f.assistant, compactor: (f) => f.compactor, engine: (f) => f.assistant.engine, turnCodec: () => turnCodec },
  start(k: Kernel, o: TurnOptions) {
    const assistant = new Assistant(k, o);
    const episodic = () => o.memory.get().episodic;
    const compactor = new Compactor(k.log, episodic, assistant);
    const live = new LiveTurn(assistant.engine);
    return {
      provides: { assistant, compactor },
      routes: [...turnRoutes(assistant, episodic, k.log), ...live.routes()],
      commands: [...turnCommands(assistant, episodic, k.hal), compactCommand(compactor, (chat) => o.people.get().conversationPerson(chat))],
    };
  },
};

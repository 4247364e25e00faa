// The sub-agent fabric's face: builds the journal, the result store, the
// fabric and the synthesis; registers the prompt blocks (sessions digest,
// [SPAWN CAPACITY], [FRESH RESULTS], [SUB-AGENT CAPABILITIES]), the session
// ops handler of the turn engine (spawn and terminate; the applier refuses
// the retired and unknown ops), the tools (session.spawn, session.list,
// session.terminate, results.get, results.list), GET and POST
// /api/sessions, the console's SESSIONS? and SESSIONMSG?, and the agents
// section of the state snapshot; then resumes the journal's jobs.
//
// Ports (src/agents/ports.ts) the rest of the device plugs in:
//   agents.setMessenger(m)  where the fabric's messages go (installAgents
//                           plugs in the chat's send queue, ctx.chat.notify;
//                           default: the outbox)
//   agents.setDocs(d)       the file store for attachments and project saves
//                           (installAgents plugs in deps.files)
//   agents.setSkills(s)     skill capsules and a connector-matching skill's provider

import type { Context } from '../core/context.ts';
import type { ArtifactStore } from '../files/index.ts';
import type { ToolCaller } from '../core/tools/types.ts';
import { CATALOG } from '../providers/index.ts';
import { DEMO_ENDPOINT } from '../providers/index.ts';
import type { CustomEndpoint } from '../contracts/index.ts';
import type { ProviderId } from '../contracts/index.ts';
import type { ProviderSettings } from '../providers/index.ts';
import type { ProviderWire } from '../providers/index.ts';
import type { Assistant, SessionOpsHandler } from '../turn/index.ts';
import { backendFor, resumable } from './backends/index.ts';
import type { BackendEnv } from './backends/types.ts';
import { FabricBlocks } from './blocks.ts';
import { buildBrief, type ContextMessage } from './brief.ts';
import { chooseProvider, modelFor } from './choose.ts';
import { installFabricConsole } from './console.ts';
import { filesDocs } from './docs.ts';
import { Fabric, queueFullText, spawnLabel } from './fabric.ts';
import { AGENTS_NS, Journal } from './journal.ts';
import { CONTEXT_MESSAGES } from './limits.ts';
import { chatMessenger, NO_DOCS, NO_SKILLS, outboxMessenger, type AgentDocs, type AgentMessenger, type AgentSkills } from './ports.ts';
import { ResultStore } from './results.ts';
import { installSessionRoutes } from './routes.ts';
import { Synthesis } from './synthesis.ts';
import { fabricTools } from './tools.ts';
import { displayName, type JobOrigin } from './types.ts';

export type { AgentSkills, SkillCapsule } from './ports.ts';

export interface AgentsDeps {
  /** The file store (src/files/) for [ATTACHED] documents and project saves. */
  files: ArtifactStore;
  assistant: Assistant;
  providers: ProviderSettings;
  /** The provider wire (keyed providers, the pinned Z.ai host, the router host). */
  wire: Pick<ProviderWire, 'keyed' | 'zaiHost' | 'routerHost'> & { usage?: ProviderWire['usage']; overBudget?: ProviderWire['overBudget'] };
}

export class Agents {
  readonly results = new ResultStore();
  readonly journal: Journal;
  readonly fabric: Fabric;
  readonly synthesis: Synthesis;
  readonly blocks: FabricBlocks;
  private messenger: AgentMessenger;
  private docs: AgentDocs = NO_DOCS;
  private skills: AgentSkills = NO_SKILLS;

  constructor(
    private readonly ctx: Context,
    private readonly deps: AgentsDeps,
  ) {
    const { assistant, providers, wire } = deps;
    const { hal, log } = ctx;
    this.messenger = outboxMessenger(ctx.outbox);
    this.journal = new Journal(ctx.store(AGENTS_NS));
    const env = (endpoint: CustomEndpoint | null): BackendEnv => ({
      client: ctx.client,
      key: (p) => providers.key(p),
      customBase: () => providers.customBase(),
      customStyle: () => providers.customStyle(),
      zaiHost: () => wire.zaiHost() ?? CATALOG.zai.base,
      routerHost: () => wire.routerHost(),
      store: ctx.store(AGENTS_NS),
      endpoint,
      servers: ctx.connectors,
      warn: (m) => log.warn('agents', m),
      usage: (p, u) => wire.usage?.record(p, u),
    });
    this.fabric = new Fabric({
      hal,
      log,
      random: ctx.random,
      journal: this.journal,
      results: this.results,
      choose: (spec) =>
        chooseProvider(spec, {
          keyed: () => this.keyed(),
          customModel: () => providers.customModel(),
          skills: this.skills,
          demo: hal.build.testBuild ? DEMO_ENDPOINT : null,
          spent: (p) => wire.overBudget?.(p) === true,
        }),
      brief: (spec) => buildBrief(spec, { now: () => ctx.time.nowStamp(), skills: this.skills, docs: this.docs, conversation: (chat) => this.conversation(chat) }),
      backend: (provider, endpoint) => backendFor(provider, env(endpoint), hal.clock),
      resumable,
      messenger: () => this.messenger,
      docs: () => this.docs,
      trace: (chat, ev, tag, text) => this.trace(chat, ev, tag, text),
      landed: (origin) => this.synthesis.landed(origin),
      note: (chat, line) => assistant.engine.queueInput(chat, line),
    });
    this.synthesis = new Synthesis({ clock: hal.clock, log, results: this.results, engine: assistant.engine, send: (chat, text, key, author) => this.fabric.send(chat, text, key, author) });
    this.blocks = new FabricBlocks({
      fabric: this.fabric,
      results: this.results,
      clock: hal.clock,
      providers: () => this.keyed().map((p) => ({ provider: p, model: modelFor(p, '', providers.customModel()) })),
    });
  }

  setMessenger(m: AgentMessenger): void {
    this.messenger = m;
  }
  setDocs(d: AgentDocs): void {
    this.docs = d;
  }
  setSkills(s: AgentSkills): void {
    this.skills = s;
  }

  /** Providers a spawn can use, in priority order (the custom endpoint when its base URL is set). */
  keyed(): ProviderId[] {
    const usable = this.deps.providers.keyedList().filter((p) => this.deps.wire.keyed(p));
    if (!usable.includes('custom') && this.deps.wire.keyed('custom')) usable.push('custom');
    return usable;
  }

  private conversation(chat: string): ContextMessage[] {
    const since = this.deps.assistant.clearedAt(chat);
    return this.ctx.memory.episodic
      .query({ session: chat, kind: 'message', limit: CONTEXT_MESSAGES })
      .rows.filter((r) => r.ts > since)
      .map((r) => ({ role: r.role === 'assistant' ? 'assistant' : 'user', text: r.text }));
  }

  /** Spawn trace rows go to the chat's episodic session while a card is live (spec: glass-box rows stop without one). */
  private trace(chat: string, ev: string, tag: string, text: string): void {
    if (!this.ctx.card.live()) return;
    try {
      this.ctx.memory.episodic.append({ session: chat, role: 'system', kind: 'log', text, tags: [ev, tag] });
    } catch (e) {
      this.ctx.log.warn('agents', `trace row not written: ${String(e)}`);
    }
  }

  /** Who a tool call's spawn reports to: the chat of the turn in progress, or 'mcp'. */
  originOf(caller: ToolCaller): JobOrigin {
    if (caller.via === 'mcp') return { chat: 'mcp', person: caller.person, admin: caller.admin };
    const cur = this.blocks.current;
    const chat = cur && cur.person === caller.person ? cur.chat : (caller.person ?? 'console');
    return { chat, person: caller.person, admin: caller.admin };
  }

  /** The turn engine's session ops: spawn and terminate (tell, poll, list and unknown ops are refused by the applier). */
  readonly sessionOps: SessionOpsHandler = (turn, req) => {
    const lines: string[] = [];
    // Results this turn's prompt showed are seen now that it is applied.
    const shown = this.blocks.takeShown(req.chat);
    if (shown.length) this.results.consume(shown);
    const origin: JobOrigin = { chat: req.chat, person: req.person, admin: req.admin };
    const full: string[] = [];
    for (const op of turn.session_ops) {
      if (op.op === 'spawn') {
        const spec = { task: op.task, provider: op.provider, model: op.model, skill: op.skill, name: op.name, project: op.project, attach: op.attach };
        const r = this.fabric.enqueue(spec, origin);
        if (r.ok) lines.push(`[SESSIONS] Queued ${r.tag}${op.name ? ` [${op.name}]` : ''} (position ${r.position}); its result comes back to this chat by itself.`);
        // The fabric tells the chat, once for the turn's refused spawns.
        else if (r.reason === 'queue-full') full.push(spawnLabel(spec));
        else lines.push(`[SESSIONS] A spawn was refused: ${r.message}.`);
      } else if (op.op === 'terminate') {
        if (!op.id) {
          lines.push('[SESSIONS] terminate needs id, the job tag.');
          continue;
        }
        const r = this.fabric.terminate(op.id, req.person);
        const j = this.fabric.job(op.id);
        const label = j ? `${op.id} [${displayName(j)}]` : op.id;
        lines.push(r === 'terminated' ? `[SESSIONS] Stopped ${label}; it yields no result.` : r === 'ended' ? `[SESSIONS] ${label} had already ended.` : `[SESSIONS] No job ${op.id} to stop.`);
      }
    }
    if (turn.spawn.length) lines.push(`[SESSIONS] The top-level spawn array is retired: ${turn.spawn.length} item(s) ignored. Use session_ops with op spawn.`);
    if (full.length) lines.push(`[SESSIONS] ${queueFullText(full)}`);
    return Promise.resolve(lines);
  };

  stop(): void {
    this.fabric.stop();
    this.synthesis.stop();
  }
}

export function installAgents(ctx: Context, deps: AgentsDeps): Agents {
  const agents = new Agents(ctx, deps);
  // The chat messenger's durable send queue (the outbox while the chat cannot take a message).
  agents.setMessenger(chatMessenger(ctx.chat));
  // The file store (src/files/) for [ATTACHED] documents and project saves.
  agents.setDocs(filesDocs(deps.files));
  agents.blocks.register(deps.assistant.blocks);
  deps.assistant.setSessionOps(agents.sessionOps);
  for (const spec of fabricTools({ fabric: agents.fabric, results: agents.results, originOf: (c) => agents.originOf(c), canSpawn: () => agents.keyed().length > 0 || ctx.hal.build.testBuild })) ctx.tools.register(spec);
  installSessionRoutes(ctx, { fabric: agents.fabric, results: agents.results, synthesis: agents.synthesis, slotsInUse: () => agents.journal.inUse() });
  installFabricConsole(ctx, { fabric: agents.fabric, results: agents.results });
  ctx.status.section(() => ({
    agents: {
      queued: agents.fabric.queued(),
      running: agents.fabric.inFlight(),
      results: agents.results.list(null).length,
      fresh: agents.results.freshChats().length,
    },
  }));
  // Notifier mode keeps Wi-Fi off: journaled jobs wait, untouched, for the next Orchestrator boot.
  if (ctx.mode === 1) agents.fabric.resume();
  return agents;
}

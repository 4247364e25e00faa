// The sub-agent fabric's face: builds the journal, the result store, the
// fabric and the synthesis; registers the prompt blocks (sessions digest,
// [SPAWN CAPACITY], [FRESH RESULTS], [SUB-AGENT CAPABILITIES]), the session
// ops handler of the turn engine (spawn and terminate; the applier refuses
// the retired and unknown ops), the tools (session.spawn, session.list,
// session.terminate, results.get, results.list), GET and POST
// /api/sessions, the console's SESSIONS? and SESSIONMSG?, and the agents
// section of the state snapshot; resumes the journal's jobs once the chat
// messenger has mounted.
//
// session.tell and session.poll (unsupported, /mcp only: session-tools.ts)
// are mounted with the fabric's own tools.
//
// Ports (src/agents/ports.ts) the rest of the device plugs in:
//   agents.setMessenger(m)  where the fabric's messages go (mounting plugs in
//                           the chat's send queue, options.chat, once
//                           the chat mounts; default: the outbox)
//   agents.setDocs(d)       the file store for attachments and project saves
//                           (mounting plugs in options.files)
//   agents.setSkills(s)     skill capsules and a connector-matching skill's provider
//                           (mounting plugs in options.skills once skills mounts)

import type { Kernel } from '../core/kernel.ts';
import { whole, type Later, type Subsystem } from '../core/subsystem.ts';
import type { ArtifactStore } from '../files/index.ts';
import type { ToolCaller } from '../core/tools/types.ts';
import { CATALOG } from '../providers/index.ts';
import { DEMO_ENDPOINT } from '../providers/index.ts';
import type { CustomEndpoint, ProviderId, ToolServerSource } from '../contracts/index.ts';
import type { ProviderSettings } from '../providers/index.ts';
import type { ProviderWire } from '../providers/index.ts';
import type { Assistant, SessionOpsHandler } from '../turn/index.ts';
import { backendFor, resumable } from './backends/index.ts';
import type { BackendEnv } from './backends/types.ts';
import { FabricBlocks } from './blocks.ts';
import { buildBrief, type ContextMessage } from './brief.ts';
import { chooseProvider, modelFor } from './choose.ts';
import { fabricCommands } from './console.ts';
import { filesDocs } from './docs.ts';
import { Fabric, queueFullText, spawnLabel } from './fabric.ts';
import { AGENTS_NS, Journal } from './journal.ts';
import { CONTEXT_MESSAGES } from './limits.ts';
import { chatMessenger, NO_DOCS, NO_SKILLS, outboxMessenger, type AgentDocs, type AgentMessenger, type AgentSkills, type DeviceNotifier, type NoticeQueue } from './ports.ts';
import { ResultStore } from './results.ts';
import { sessionRoutes } from './routes.ts';
import { SESSION_UNSUPPORTED_TOOLS } from './session-tools.ts';
import { Synthesis } from './synthesis.ts';
import { fabricTools } from './tools.ts';
import { displayName, type JobOrigin } from './types.ts';

export type { SkillCapsule } from './ports.ts';

/** What the fabric reads and writes of the memory's episodic log: a chat's messages, and trace rows. */
interface AgentsEpisodic {
  query(q: { session: string; kind: 'message'; limit: number }): { rows: ReadonlyArray<{ ts: number; role: string; text: string }> };
  append(row: { session: string; role: 'system'; kind: 'log'; text: string; tags: string[] }): unknown;
}

/** What the sub-agent fabric needs from others. */
export interface AgentsOptions {
  /** The assistant (src/turn/): its engine (synthesis turns, notes for the next turn), its prompt blocks, a chat's clear point, and where the fabric serves session ops. */
  assistant: Pick<Assistant, 'engine' | 'blocks' | 'clearedAt'>;
  /** The provider settings (keys, the custom endpoint, the owner's priority). */
  providers: Pick<ProviderSettings, 'key' | 'customBase' | 'customStyle' | 'customModel' | 'keyedList'>;
  /** The provider wire (keyed providers, the pinned Z.ai host, the router host). */
  wire: Pick<ProviderWire, 'keyed' | 'zaiHost' | 'routerHost'> & { usage?: ProviderWire['usage']; overBudget?: ProviderWire['overBudget'] };
  /** The files (src/files/): their store, for [ATTACHED] documents and project saves. */
  files: { store: Pick<ArtifactStore, 'readText' | 'save'> };
  /** The skills (src/skills/, mounted after the fabric, whose skills port it fills): capsules and a skill's provider. */
  skills: Later<AgentSkills>;
  /** Outbound HTTP(S), for the sub-agent backends. */
  client: BackendEnv['client'];
  /** The owner's approved tool servers (src/connectors/). */
  connectors: ToolServerSource;
  /** Owner notices (the chat's outbox): where messages go until the chat's send queue is plugged in. */
  outbox: NoticeQueue;
  /** The chat messenger's durable send queue (src/chat/), once the chat has mounted (until then messages wait in the outbox). */
  chat: Later<DeviceNotifier>;
  /** The memory's episodic log (src/memory/). */
  memory: { readonly episodic: AgentsEpisodic };
  /** The SD card's state (src/storage/): trace rows only while a card is live. */
  card: { live(): boolean };
  /** The owner's local time (src/system/), for the brief's date line. */
  time: { nowStamp(): string | null };
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
    private readonly k: Kernel,
    private readonly deps: AgentsOptions,
  ) {
    const { assistant, providers, wire } = deps;
    const { hal, log } = k;
    this.messenger = outboxMessenger(deps.outbox);
    this.journal = new Journal(k.store(AGENTS_NS));
    const env = (endpoint: CustomEndpoint | null): BackendEnv => ({
      client: deps.client,
      key: (p) => providers.key(p),
      customBase: () => providers.customBase(),
      customStyle: () => providers.customStyle(),
      zaiHost: () => wire.zaiHost() ?? CATALOG.zai.base,
      routerHost: () => wire.routerHost(),
      store: k.store(AGENTS_NS),
      endpoint,
      servers: deps.connectors,
      warn: (m) => log.warn('agents', m),
      usage: (p, u) => wire.usage?.record(p, u),
    });
    this.fabric = new Fabric({
      hal,
      log,
      random: (bytes) => hal.system.random(bytes),
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
      brief: (spec) => buildBrief(spec, { now: () => deps.time.nowStamp(), skills: this.skills, docs: this.docs, conversation: (chat) => this.conversation(chat) }),
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
    return this.deps.memory.episodic
      .query({ session: chat, kind: 'message', limit: CONTEXT_MESSAGES })
      .rows.filter((r) => r.ts > since)
      .map((r) => ({ role: r.role === 'assistant' ? 'assistant' : 'user', text: r.text }));
  }

  /** Spawn trace rows go to the chat's episodic session while a card is live (spec: glass-box rows stop without one). */
  private trace(chat: string, ev: string, tag: string, text: string): void {
    if (!this.deps.card.live()) return;
    try {
      this.deps.memory.episodic.append({ session: chat, role: 'system', kind: 'log', text, tags: [ev, tag] });
    } catch (e) {
      this.k.log.warn('agents', `trace row not written: ${String(e)}`);
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

export const agents: Subsystem<AgentsOptions, Agents> = {
  name: 'agents',
  needs: ['assistant', 'providers', 'wire', 'files', 'client', 'connectors', 'outbox', 'memory', 'card', 'time'],
  later: ['skills', 'chat'],
  provides: { agents: whole },
  start(k: Kernel, o: AgentsOptions) {
    const agents = new Agents(k, o);

    // The file store (src/files/) for [ATTACHED] documents and project saves.
    agents.setDocs(filesDocs(o.files.store));
    // Skill capsules for briefs, once the skills mount.
    o.skills.when((s) => agents.setSkills(s));
    agents.blocks.register(o.assistant.blocks);
    o.chat.when((chat) => {
      // The chat messenger's durable send queue (the outbox while the chat cannot take a message).
      agents.setMessenger(chatMessenger(chat));
      // Notifier mode keeps Wi-Fi off: journaled jobs wait, untouched, for the next Orchestrator boot. Jobs resume
      // once the chat can take what they report.
      if (k.mode === 1) agents.fabric.resume();
    });
    return {
      provides: agents,
      tools: [
        ...SESSION_UNSUPPORTED_TOOLS,
        ...fabricTools({ fabric: agents.fabric, results: agents.results, originOf: (c) => agents.originOf(c), canSpawn: () => agents.keyed().length > 0 || k.hal.build.testBuild }),
      ],
      routes: sessionRoutes({ fabric: agents.fabric, results: agents.results, synthesis: agents.synthesis, slotsInUse: () => agents.journal.inUse() }),
      commands: fabricCommands({ fabric: agents.fabric, results: agents.results }),
      status: {
        sections: [
          () => ({
            agents: {
              queued: agents.fabric.queued(),
              running: agents.fabric.inFlight(),
              results: agents.results.list(null).length,
              fresh: agents.results.freshChats().length,
            },
          }),
        ],
      },
      stop: () => agents.stop(),
    };
  },
};

// The chat messenger (ctx.chat): the settings (bot token, allowlist,
// moderation switches: human-web-only), the people registry (roles and
// quotas, handed to memory), the chat command registry other subsystems
// register their owner commands into, the moderation gates (other subsystems
// screen fetched content through screenFetched), and sending for other
// subsystems (text, documents, voice). The chat subsystem's mount (index.ts)
// makes it; attach() wires the Bot API client, the service and the owner
// commands, and starts the long poll in Orchestrator mode.

import type { Kernel } from '../core/kernel.ts';
import type { Later } from '../core/subsystem.ts';
import type { Store } from '../core/store.ts';
import type { Files, FilesChatView } from '../files/index.ts';
import type { Nvs } from '../hal/index.ts';
import type { Log } from '../log/log.ts';
import type { HttpClient } from '../net/http/client.ts';
import type { Updates } from '../ota/index.ts';
import { errorMessage } from '../util/json.ts';
import { ChatCommands } from './commands.ts';
import { connectFiles, type FilesBridgeDeps } from './files-bridge.ts';
import { Moderation, type FetchedDecision, type ModerationProvider, type Provenance } from './moderation.ts';
import { registerOwnerCommands, type ActiveTask, type ChatCompactor } from './owner-commands.ts';
import { PEOPLE_NS, PeopleRegistry } from './people.ts';
import { OUTBOX_MAX, type Outbox } from '../outbox/index.ts';
import { ChatQueue } from './queue.ts';
import { ChatService, type ChatAssistant, type DeviceMessage, type InboundFiles, type NotifyOutcome, type ServiceDeps, type VoiceNoteSink } from './service.ts';
import { CHAT_NS, ChatSettings } from './settings.ts';
import { BotApi, type BotResult, type Upload } from './telegram.ts';
import type { ChatVoice, Conversations } from './tools.ts';

/** What the chat needs from others when it is mounted (the chat subsystem's options, index.ts). */
export interface ChatNeeds {
  /** Owner notices waiting for the chat (src/outbox/; drained into the send queue). */
  outbox: Outbox;
  /** Outbound HTTPS under the device's TLS policy (the Bot API, moderation). */
  client: Pick<HttpClient, 'request'>;
  /** The assistant (src/turn/): a turn per message, /clear. */
  assistant: ChatAssistant;
  /** Conversation compaction (src/turn/compact.ts): /compact. */
  compactor: ChatCompactor;
  /** The provider keys (src/providers/), for the moderation endpoints. */
  providers: { key(provider: ModerationProvider): string | null };
  /** The file store (src/files/): people, the sender, inbound files, the fetched-content screen, /fetch. */
  files: Files;
  /** The music player (src/music/): /play. */
  music: FilesBridgeDeps['music'];
  /** Firmware updates (src/ota/): /update, and an install waits while a message is handled. */
  updates: Pick<Updates, 'apply' | 'addBusyProbe'>;
  /** The device actions (src/device/): devName in the signature, ttsOn for voice replies. */
  actions: ServiceDeps['config'];
  /** Long-term memory (src/memory/, mounted after the chat: it takes the chat's people): the active task /clear forgets; messages sent to another chat join its conversation. */
  memory: Later<ActiveTask & Conversations>;
  /** Device sound (src/audio/): voice replies of reply.telegram. */
  audio: ChatVoice;
  /** The SD card's state (src/storage/). */
  card: { live(): boolean };
}

/** What attach() hands the chat subsystem's tables (routes, console, tools). */
export interface ChatParts {
  service: ChatService;
  api: BotApi;
  /** Memory as the chat's commands and tools read it, when they run. */
  memory: ActiveTask & Conversations;
}

export type SendResult = { ok: true } | { ok: false; error: string };

export class Chat {
  readonly settings: ChatSettings;
  readonly people: PeopleRegistry;
  readonly commands = new ChatCommands();
  readonly moderation: Moderation;
  readonly queue: ChatQueue;
  private client: Pick<HttpClient, 'request'> | null = null;
  private providers: ChatNeeds['providers'] | null = null;
  private api: BotApi | null = null;
  private service: ChatService | null = null;
  private files: InboundFiles | null = null;
  private notes: VoiceNoteSink | null = null;
  private outbox: Outbox | null = null;
  private forFiles: FilesChatView | null = null;
  private log: Log;

  constructor(nvs: Nvs, store: (ns: string) => Store, log: Log) {
    this.log = log;
    this.settings = new ChatSettings(store(CHAT_NS), log.redactor);
    this.people = new PeopleRegistry(store(PEOPLE_NS), this.settings);
    this.queue = new ChatQueue(nvs);
    this.moderation = new Moderation({
      client: { request: (r) => (this.client ? this.client.request(r) : Promise.resolve({ ok: false, error: 'connect', message: 'not started' })) },
      log,
      switches: () => this.settings.moderation(),
      key: (p) => this.providers?.key(p) ?? null,
    });
  }

  /** What files takes from the chat once it has mounted (src/files/: FilesChatView). */
  filesView(): FilesChatView {
    if (!this.forFiles) throw new Error('the chat is not attached');
    return this.forFiles;
  }

  /** Voice notes are transcribed through this (src/voice). */
  setVoiceNotes(sink: VoiceNoteSink | null): void {
    this.notes = sink;
  }

  /** The file store receives inbound photos and documents through this. */
  setInboundFiles(sink: InboundFiles | null): void {
    this.files = sink;
  }

  /** The injection screen for fetched content, by the caller's role (admins are not screened). */
  screenFetched(content: string, caller: { admin: boolean }): FetchedDecision {
    return this.moderation.fetched(content, caller);
  }

  /**
   * Sends a message the device writes on its own (a notice, a sub-agent's
   * completion, summary or results) to the chat it names or the owner's:
   * through the durable send queue, de-duplicated by key across restarts,
   * split into messages of 4096 characters. While the chat cannot take it
   * (no bot token or owner chat, Notifier mode) it waits in the owner-notice
   * outbox, whose bounds never lose text silently (`rest` names where the
   * whole text can be read if it has to be cut there).
   */
  notify(m: DeviceMessage & { rest?: string }): NotifyOutcome | 'waiting' {
    let r: NotifyOutcome = 'unroutable';
    try {
      if (this.service) r = this.service.notify(m);
    } catch (e) {
      // The send queue could not be written (NVS full): the outbox keeps it instead.
      this.log.warn('chat', `message ${m.key} not queued (${errorMessage(e)}); it waits in the outbox`);
    }
    if (r !== 'unroutable') return r;
    if (!this.outbox) {
      this.log.warn('chat', `message ${m.key} not sent: the chat is not installed`);
      return 'unroutable';
    }
    this.outbox.post(m.key, m.text, { chat: m.chat, signed: m.signed, rest: m.rest });
    return 'waiting';
  }

  /** Queues text for a chat on the allowlist (model-written text to a guest is screened first). */
  async sendText(chat: string, text: string, provenance: Provenance): Promise<SendResult> {
    if (!this.service || !this.settings.token()) return { ok: false, error: 'the chat messenger is not set up (no bot token)' };
    if (!this.people.mayChat(chat)) return { ok: false, error: `chat ${chat} is not on the allowlist` };
    const r = await this.service.sendText(chat, text, provenance);
    return r.queued ? { ok: true } : { ok: false, error: 'held back by the content check' };
  }

  private async upload(chat: string, send: (api: BotApi) => Promise<BotResult<number>>): Promise<SendResult> {
    if (!this.api || !this.settings.token()) return { ok: false, error: 'the chat messenger is not set up (no bot token)' };
    if (!this.people.mayChat(chat)) return { ok: false, error: `chat ${chat} is not on the allowlist` };
    const r = await send(this.api);
    return r.ok ? { ok: true } : { ok: false, error: r.message };
  }

  /** Sends a document now (files.send); not queued across a reboot. */
  sendDocument(chat: string, doc: Upload, caption = ''): Promise<SendResult> {
    return this.upload(chat, (api) => api.sendDocument(chat, doc, caption));
  }

  /** Sends a voice message (OGG/Opus) now. */
  sendVoice(chat: string, audio: Upload, caption = ''): Promise<SendResult> {
    return this.upload(chat, (api) => api.sendVoice(chat, audio, caption));
  }

  /** Wires the client, the assistant and the rest of the device; starts polling in Orchestrator mode. */
  attach(k: Kernel, o: ChatNeeds): ChatParts {
    const { outbox } = o;
    const { log } = k;
    // Memory is read when a command or tool runs.
    const later = o.memory;
    const memory: ActiveTask & Conversations = {
      get scratch() {
        return later.get().scratch;
      },
      get episodic() {
        return later.get().episodic;
      },
    };
    this.client = o.client;
    this.providers = o.providers;
    const api = (this.api = new BotApi(o.client));
    const service = (this.service = new ChatService({
      clock: k.hal.clock,
      log,
      version: k.hal.build.version,
      config: o.actions,
      outbox,
      card: o.card,
      assistant: o.assistant,
      api,
      settings: this.settings,
      people: this.people,
      commands: this.commands,
      moderation: this.moderation,
      queue: this.queue,
      files: () => this.files,
      voiceNotes: () => this.notes,
    }));
    this.outbox = outbox;
    outbox.onPost = () => service.drainNotices();
    outbox.onDrop = (n) => log.warn('chat', `owner notice ${n.key} dropped: the outbox is full (at most ${OUTBOX_MAX} wait); the next delivery says so`);
    o.updates.addBusyProbe(() => service.busy());
    registerOwnerCommands(this.commands, {
      clock: k.hal.clock,
      log,
      version: k.hal.build.version,
      updates: o.updates,
      memory,
      assistant: o.assistant,
      compactor: o.compactor,
      later: (chat, text) => void service.sendText(chat, service.sign(text), 'device'),
    });
    this.forFiles = connectFiles({
      files: o.files,
      music: o.music,
      random: (bytes) => k.hal.system.random(bytes),
      sd: k.hal.sd,
      people: this.people,
      commands: this.commands,
      setInbound: (sink) => this.setInboundFiles(sink),
      screenFetched: (text, caller) => this.screenFetched(text, caller).text,
      sendDocument: (chat, doc, caption) => this.sendDocument(chat, doc, caption),
    });
    this.settings.onChange = ({ token }) => {
      if (k.mode !== 1) return;
      // The allowlist and the switches are read live; a new token restarts the poll (the
      // stored offset belongs to one bot id, so another bot starts from its oldest update).
      if (!token) return service.drainNotices();
      service.botUsername = null;
      service.start();
      void service.identify();
    };
    if (k.mode === 1) {
      k.defer(() => {
        service.start();
        if (this.settings.token()) void service.identify();
      });
    }
    return { service, api, memory };
  }

  stop(): void {
    this.service?.stop();
  }
}

// The chat messenger subsystem's face (ctx.chat): the settings (bot token,
// allowlist, moderation switches: human-web-only), the people registry
// (roles and quotas, handed to memory), the chat command registry other
// subsystems register their owner commands into, the moderation gates
// (other subsystems screen fetched content through screenFetched), and
// sending for other subsystems (text, documents, voice). It exists from the
// start of boot so any subsystem can register commands; installChat wires
// the Bot API client, routes, tools and console, and starts the long poll
// in Orchestrator mode.

import type { Context } from '../core/context.ts';
import type { Store } from '../core/store.ts';
import type { Nvs } from '../hal/index.ts';
import type { Log } from '../log/log.ts';
import type { HttpClient } from '../net/http/client.ts';
import type { ProviderSettings } from '../providers/index.ts';
import type { Compactor } from '../turn/compact.ts';
import type { Assistant } from '../turn/index.ts';
import { errorMessage } from '../util/json.ts';
import { ChatCommands } from './commands.ts';
import { installChatConsole } from './console.ts';
import { connectFiles } from './files-bridge.ts';
import type { Files } from '../files/index.ts';
import { Moderation, type FetchedDecision, type Provenance } from './moderation.ts';
import { registerOwnerCommands } from './owner-commands.ts';
import { PEOPLE_NS, PeopleRegistry } from './people.ts';
import { OUTBOX_MAX, type Outbox } from './outbox.ts';
import { ChatQueue } from './queue.ts';
import { installChatRoutes } from './routes.ts';
import { ChatService, type DeviceMessage, type InboundFiles, type NotifyOutcome, type VoiceNoteSink } from './service.ts';
import { CHAT_NS, ChatSettings } from './settings.ts';
import { BotApi, type BotResult, type Upload } from './telegram.ts';
import { registerChatTools } from './tools.ts';

export type { DeviceMessage, InboundFiles, InboundWriter, NotifyOutcome, VoiceNoteSink } from './service.ts';
export type { ChatCommands } from './commands.ts';
export { parseSpan } from './span.ts';
export type { ChatCommand, ChatCommandCall } from './commands.ts';

export type SendResult = { ok: true } | { ok: false; error: string };

export class Chat {
  readonly settings: ChatSettings;
  readonly people: PeopleRegistry;
  readonly commands = new ChatCommands();
  readonly moderation: Moderation;
  readonly queue: ChatQueue;
  private client: Pick<HttpClient, 'request'> | null = null;
  private providers: ProviderSettings | null = null;
  private api: BotApi | null = null;
  private service: ChatService | null = null;
  private files: InboundFiles | null = null;
  private notes: VoiceNoteSink | null = null;
  private outbox: Outbox | null = null;
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
  install(ctx: Context, assistant: Assistant, compactor: Compactor, providers: ProviderSettings, files: Files): void {
    this.client = ctx.client;
    this.providers = providers;
    const api = (this.api = new BotApi(ctx.client));
    const service = (this.service = new ChatService({
      ctx,
      assistant,
      api,
      settings: this.settings,
      people: this.people,
      commands: this.commands,
      moderation: this.moderation,
      queue: this.queue,
      files: () => this.files,
      voiceNotes: () => this.notes,
    }));
    this.outbox = ctx.outbox;
    ctx.outbox.onPost = () => service.drainNotices();
    ctx.outbox.onDrop = (n) => ctx.log.warn('chat', `owner notice ${n.key} dropped: the outbox is full (at most ${OUTBOX_MAX} wait); the next delivery says so`);
    ctx.ota.addBusyProbe(() => service.busy());
    registerOwnerCommands(this.commands, { ctx, assistant, compactor, later: (chat, text) => void service.sendText(chat, service.sign(text), 'device') });
    connectFiles(ctx, {
      files,
      people: this.people,
      commands: this.commands,
      setInbound: (sink) => this.setInboundFiles(sink),
      screenFetched: (text, caller) => this.screenFetched(text, caller).text,
      sendDocument: (chat, doc, caption) => this.sendDocument(chat, doc, caption),
    });
    registerChatTools(ctx, { settings: this.settings, people: this.people, service });
    installChatRoutes(ctx, { settings: this.settings, people: this.people, service, moderation: this.moderation, queue: this.queue });
    installChatConsole(ctx, { settings: this.settings, service, queue: this.queue, api });
    ctx.status.section(() => ({ chat: { configured: this.settings.token() !== '', state: service.state, allowlisted: this.settings.allowlist().length } }));
    this.settings.onChange = ({ token }) => {
      if (ctx.mode !== 1) return;
      // The allowlist and the switches are read live; a new token restarts the poll (the
      // stored offset belongs to one bot id, so another bot starts from its oldest update).
      if (!token) return service.drainNotices();
      service.botUsername = null;
      service.start();
      void service.identify();
    };
    if (ctx.mode === 1) {
      ctx.defer(() => {
        service.start();
        if (this.settings.token()) void service.identify();
      });
    }
  }

  stop(): void {
    this.service?.stop();
  }
}

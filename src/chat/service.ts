// The chat messenger at work: the long poll (offsets that survive a reboot,
// backoff on errors), the allowlist, routing each message to an owner
// command or an assistant turn (one chat's messages in order, different
// chats side by side), inbound photos and documents, the moderation gates
// on guest traffic, the durable send queue, and the owner notices of the
// outbox (update available, provider switches, job results).

import { concatBytes } from '../util/bytes.ts';
import type { ConfigKey, DeviceMessage, NotifyOutcome, TurnRequest } from '../contracts/index.ts';
import type { Clock, Timer } from '../hal/index.ts';
import type { Log } from '../log/log.ts';
import type { Role } from '../memory/index.ts';
import { capBytes } from '../util/cap.ts';
import { errorMessage } from '../util/json.ts';
import { parseCommandLine, type ChatCommands } from './commands.ts';
import type { Moderation, Provenance } from './moderation.ts';
import type { Outbox } from './outbox.ts';
import type { PeopleRegistry } from './people.ts';
import type { ChatQueue, InEntry } from './queue.ts';
import type { ChatSettings } from './settings.ts';
import { POLL_TIMEOUT_S, type BotApi, type BotErrorKind, type BotUpdate } from './telegram.ts';

// Regular expressions are module constants: XS compiles a literal each time it is evaluated.
const WHITESPACE = /\s+/;

const BACKOFF_MIN_MS = 1_000;
const BACKOFF_MAX_MS = 60_000;
/** A refused token is not retried often: the owner has to fix it on the web page. */
const UNAUTHORIZED_RETRY_MS = 5 * 60_000;
/** A stranger's chat hears why at most once a day. */
const REJECT_NOTE_EVERY_MS = 24 * 60 * 60_000;
const REJECTED_KEPT = 8;
const HELD_KEPT = 5;
/** Reply pieces that must fit in the send queue before the next message is handled. */
const OUT_ROOM_NEEDED = 4;
/** Inbound files kept per message (the Bot API's download limit is 20 MB). */
export const INBOUND_FILE_MAX = 20 * 1024 * 1024;

export const DEFAULT_DEVICE_NAME = 'Desk assistant';

/** Where inbound photos and documents go (the file store, through src/chat/files-bridge.ts). A refusal's reason is the whole reply. */
export interface InboundFiles {
  begin(meta: { person: string | null; chat: string; kind: 'photo' | 'document'; name: string; size: number | null; mime: string | null }): { ok: true; writer: InboundWriter } | { ok: false; reason: string };
}
export interface InboundWriter {
  /** false refuses the rest (quota, card trouble). */
  write(bytes: Uint8Array): boolean;
  finish(): { ok: true; ref: string } | { ok: false; reason: string };
  abort(): void;
}

export interface RejectedChat {
  chat: string;
  name: string;
  atMono: number;
  count: number;
}
export interface HeldReply {
  chat: string;
  atMono: number;
  categories: string[];
  excerpt: string;
}

/** The assistant as the chat uses it (src/turn/): a turn for a message, and /clear. */
export interface ChatAssistant {
  engine: { run(req: TurnRequest): Promise<unknown> };
  clear(chat: string): void;
}

export interface ServiceDeps {
  clock: Clock;
  log: Log;
  /** The firmware version, in the signature. */
  version: string;
  /** The device's settings (src/device's actions): devName, in the signature. */
  config: { config(key: ConfigKey): unknown };
  /** Owner notices waiting for the chat (src/chat/outbox.ts), drained into the send queue. */
  outbox: Pick<Outbox, 'post' | 'pending' | 'ack'>;
  /** The SD card's state, for why a file cannot be received (src/storage/). */
  card: { live(): boolean };
  assistant: Pick<ChatAssistant, 'engine'>;
  api: BotApi;
  settings: ChatSettings;
  people: PeopleRegistry;
  commands: ChatCommands;
  moderation: Moderation;
  queue: ChatQueue;
  files: () => InboundFiles | null;
  /** Voice notes to text (src/voice's VoiceNotes); null: not wired, notes are declined. */
  voiceNotes: () => VoiceNoteSink | null;
}

/** What the chat needs to hear a voice note. */
export interface VoiceNoteSink {
  /** Why a note of this type and size cannot be heard now (a sentence for the sender), or null. */
  refusal(mime: string | null, name: string | null, size: number | null): string | null;
  transcribe(note: { bytes: Uint8Array; mime: string | null; name: string | null; chat: string }): Promise<{ ok: true; text: string } | { ok: false; reason: string }>;
}

/** The largest voice note downloaded (the transcription takes it from this buffer). */
const VOICE_NOTE_MAX = 1024 * 1024;

type Reply = { chat: string; text: string };

export type { DeviceMessage, NotifyOutcome } from '../contracts/index.ts';

export class ChatService {
  private gen = 0;
  private running = false;
  private pollCancel: { onCancel: (() => void) | null } | null = null;
  private sleeper: { timer: Timer; wake: () => void } | null = null;
  private backoff = 0;
  private sendBackoff = 0;
  private chains = new Map<string, Promise<void>>();
  private inflight = new Set<number>();
  private sending = false;
  private sendTimer: Timer | null = null;
  private screening = false;
  private draining = false;
  private roomWaiters: Array<() => void> = [];
  private rejectNoted = new Map<string, number>();
  readonly rejected: RejectedChat[] = [];
  readonly held: HeldReply[] = [];
  /** What the poll is doing, for the web page and CHAT?. */
  state: 'off' | 'polling' | 'backoff' | 'unauthorized' = 'off';
  lastError: string | null = null;
  lastPollMono: number | null = null;
  botUsername: string | null = null;
  handled = 0;

  constructor(private readonly d: ServiceDeps) {}

  // --- lifecycle ---------------------------------------------------------------

  /** Starts (or restarts, after a settings change) the poll, the sender and the notices. */
  start(): void {
    this.stop();
    const { api, settings, queue } = this.d;
    api.setToken(settings.token());
    this.running = true;
    this.sendBackoff = 0;
    const gen = ++this.gen;
    if (!api.hasToken()) {
      this.state = 'off';
      return;
    }
    // What a reboot left in the queues: handle the held updates, send the held replies.
    for (const e of queue.pendingIn()) this.dispatch(e);
    this.wakeSender();
    this.screenPending();
    this.drainNotices();
    void this.pollLoop(gen);
  }

  stop(): void {
    this.running = false;
    this.gen++;
    this.pollCancel?.onCancel?.();
    this.pollCancel = null;
    this.sleeper?.wake();
    this.sendTimer?.cancel();
    this.sendTimer = null;
    this.state = 'off';
    // Waiters look again (and end, since the service stopped).
    this.roomFreed();
  }

  /** A message is being handled (OTA auto-install waits). */
  busy(): boolean {
    return this.inflight.size > 0;
  }

  private sleep(ms: number, gen: number): Promise<void> {
    return new Promise((resolve) => {
      if (gen !== this.gen) return resolve();
      const wake = (): void => {
        timer.cancel();
        if (this.sleeper?.wake === wake) this.sleeper = null;
        resolve();
      };
      const timer = this.d.clock.setTimeout(wake, ms);
      this.sleeper = { timer, wake };
    });
  }

  private nextBackoff(): number {
    this.backoff = this.backoff ? Math.min(BACKOFF_MAX_MS, this.backoff * 2) : BACKOFF_MIN_MS;
    return this.backoff;
  }

  private waitForRoom(): Promise<void> {
    return new Promise((resolve) => this.roomWaiters.push(resolve));
  }

  private roomFreed(): void {
    const waiters = this.roomWaiters;
    this.roomWaiters = [];
    for (const w of waiters) w();
  }

  // --- the long poll -------------------------------------------------------------

  private async pollLoop(gen: number): Promise<void> {
    const { api, queue, settings, clock, log } = this.d;
    while (gen === this.gen) {
      if (queue.room() === 0) {
        // A full inbox stops the poll: the service keeps the rest until there is room.
        await this.waitForRoom();
        continue;
      }
      const botId = settings.botId();
      const offset = queue.offset(botId);
      const cancel: { onCancel: (() => void) | null } = { onCancel: null };
      this.pollCancel = cancel;
      this.state = this.state === 'off' ? 'polling' : this.state;
      const r = await api.getUpdates(offset, queue.room(), cancel, POLL_TIMEOUT_S);
      if (gen !== this.gen) return;
      this.pollCancel = null;
      if (!r.ok) {
        const wait = this.pollFailed(r.error, r.message, r.retryAfterS);
        await this.sleep(wait, gen);
        continue;
      }
      this.backoff = 0;
      this.state = 'polling';
      this.lastError = null;
      this.lastPollMono = clock.monoMs();
      if (!r.value.length) continue;
      const entries = this.entriesOf(r.value);
      const next = Math.max(offset, ...r.value.map((u) => u.updateId + 1));
      try {
        queue.accept(botId, entries, next);
      } catch (e) {
        // Not stored, so not confirmed: the service sends them again.
        this.lastError = `could not store received messages: ${errorMessage(e)}`;
        log.error('chat', this.lastError);
        await this.sleep(this.nextBackoff(), gen);
        continue;
      }
      for (const e of entries) this.dispatch(e);
    }
  }

  private pollFailed(error: BotErrorKind, message: string, retryAfterS: number | null): number {
    const { log } = this.d;
    this.lastError = message;
    if (error === 'unauthorized') {
      this.state = 'unauthorized';
      log.warn('chat', `the Bot API refused the bot token; set a valid one on the web page (${message})`);
      return UNAUTHORIZED_RETRY_MS;
    }
    this.state = 'backoff';
    const wait = error === 'rate-limit' && retryAfterS ? retryAfterS * 1000 : error === 'conflict' ? Math.max(30_000, this.nextBackoff()) : this.nextBackoff();
    log.warn('chat', `poll failed (${error}: ${message}); next try in ${Math.round(wait / 1000)} s`);
    return wait;
  }

  private entriesOf(updates: readonly BotUpdate[]): InEntry[] {
    const out: InEntry[] = [];
    for (const u of updates) {
      const m = u.message;
      // Updates without a message (edits, channel posts), and messages from bots, are confirmed and skipped.
      if (!m || m.from?.isBot) continue;
      const name = m.from ? [m.from.firstName, m.from.username ? `(@${m.from.username})` : ''].filter(Boolean).join(' ') : m.chat.title;
      const e: InEntry = { u: u.updateId, c: String(m.chat.id), n: capBytes(name, 64), k: m.kind, t: m.kind === 'text' ? m.text : m.caption };
      if (m.file) e.f = { id: m.file.fileId, name: m.file.name, size: m.file.size, mime: m.file.mime };
      out.push(e);
    }
    return out;
  }

  // --- handling ------------------------------------------------------------------

  /** Queues an update's handling behind the earlier messages of its chat. */
  private dispatch(e: InEntry): void {
    if (this.inflight.has(e.u)) return;
    this.inflight.add(e.u);
    const prev = this.chains.get(e.c) ?? Promise.resolve();
    const next = prev
      .then(() => this.handle(e))
      .catch((err: unknown) => {
        this.d.log.error('chat', `handling a message failed: ${errorMessage(err)}`);
        if (this.d.queue.holds(e.u)) this.finish(e, [{ chat: e.c, text: 'Sorry, something went wrong while handling that message.' }]);
      })
      .finally(() => {
        this.inflight.delete(e.u);
        if (this.chains.get(e.c) === next) this.chains.delete(e.c);
      });
    this.chains.set(e.c, next);
  }

  /** The entry is done: it leaves the inbox and its replies enter the send queue atomically. */
  private finish(e: InEntry, replies: Reply[]): void {
    this.d.queue.finish(e.u, replies);
    this.handled++;
    this.roomFreed();
    this.wakeSender();
  }

  // Once begun, handling runs to its end even if the service restarts (a new
  // token): the entry is finished exactly once. A stopped service begins none.
  private async handle(e: InEntry): Promise<void> {
    const { people, log } = this.d;
    if (!this.running || !this.d.queue.holds(e.u)) return;
    while (this.d.queue.outRoom() < OUT_ROOM_NEEDED) {
      await this.waitForRoom();
      if (!this.running) return;
    }
    const role = people.roleOfChat(e.c);
    if (role === 'unknown') return this.finish(e, this.reject(e));
    people.noteName(e.c, e.n);
    const person = people.personOf(e.c);
    if (e.k === 'text') {
      const cmd = e.t.startsWith('/') ? parseCommandLine(e.t) : null;
      if (cmd) {
        // "/cmd@otherbot" in a group is for another bot.
        if (cmd.bot && this.botUsername && cmd.bot.toLowerCase() !== this.botUsername.toLowerCase()) return this.finish(e, []);
        return this.finish(e, [{ chat: e.c, text: await this.command(e.c, person, role, cmd.name, cmd.args) }]);
      }
      return this.turn(e, person, role, e.t);
    }
    if (e.k === 'voice' || e.k === 'audio') {
      const heard = await this.hearVoice(e);
      if (!heard.ok) return this.finish(e, [{ chat: e.c, text: heard.reply }]);
      log.info('chat', `chat ${e.c} sent a voice message, transcribed (${heard.text.length} characters)`);
      return this.turn(e, person, role, heard.text);
    }
    if (e.k === 'photo' || e.k === 'document') {
      const saved = await this.receiveFile(e, person);
      if (!saved.ok) return this.finish(e, [{ chat: e.c, text: saved.reply }]);
      const what = e.k === 'photo' ? 'a photo' : `a document (${e.f?.name ?? 'unnamed'})`;
      log.info('chat', `chat ${e.c} sent ${e.k === 'photo' ? 'a photo' : 'a document'}, saved as ${saved.ref}`);
      return this.turn(e, person, role, `${e.t ? `${e.t}\n\n` : ''}[I sent ${what}; it is saved in the file store as ${saved.ref} (${saved.bytes} bytes).]`);
    }
    return this.finish(e, [{ chat: e.c, text: 'I can only read text messages (and photos or documents, which I keep in the file store when a storage card is in).' }]);
  }

  private reject(e: InEntry): Reply[] {
    const { clock, log, people } = this.d;
    const now = clock.monoMs();
    const seen = this.rejected.find((r) => r.chat === e.c);
    if (seen) {
      seen.count++;
      seen.atMono = now;
      seen.name = e.n;
    } else {
      this.rejected.push({ chat: e.c, name: e.n, atMono: now, count: 1 });
      if (this.rejected.length > REJECTED_KEPT) this.rejected.shift();
    }
    const revoked = people.onAllowlist(e.c);
    log.info('chat', `message from chat ${e.c} refused (${revoked ? 'revoked' : 'not on the allowlist'})`);
    const last = this.rejectNoted.get(e.c);
    if (last !== undefined && now - last < REJECT_NOTE_EVERY_MS) return [];
    this.rejectNoted.set(e.c, now);
    if (this.rejectNoted.size > 64) this.rejectNoted.delete(this.rejectNoted.keys().next().value!);
    return [
      {
        chat: e.c,
        text: revoked
          ? 'This chat may no longer talk to this device.'
          : `This device does not talk to this chat. If the device is yours, add chat id ${e.c} to its allowlist on the device's web page.`,
      },
    ];
  }

  /** The device's name and firmware, under every command reply and notice. */
  sign(text: string): string {
    const name = this.d.config.config('devName');
    return `${text}\n\n— ${typeof name === 'string' && name ? name : DEFAULT_DEVICE_NAME} · firmware ${this.d.version}`;
  }

  private async command(chat: string, person: string | null, role: Role, name: string, args: string): Promise<string> {
    const c = this.d.commands.get(name);
    if (!c) return this.sign(`I don't know ${capBytes(name, 40)}. /help lists the commands.`);
    if (!c.open && role !== 'admin') return this.sign(`${c.name} is for the device's owner. /help lists what you can do.`);
    try {
      return this.sign(await c.run({ chat, person, role, args, argv: args ? args.split(WHITESPACE) : [] }));
    } catch (err) {
      this.d.log.error('chat', `${c.name} failed: ${errorMessage(err)}`);
      return this.sign(`${c.name} failed: ${capBytes(errorMessage(err), 200)}`);
    }
  }

  private async turn(e: InEntry, person: string | null, role: Role, text: string): Promise<void> {
    const { moderation, assistant, people } = this.d;
    const gate = await moderation.inbound(text, role);
    if (!gate.pass) {
      const why =
        gate.reason === 'flagged'
          ? "Your message did not pass this device's content check, so I did not pass it on to the assistant."
          : "I can't check messages right now, so I can't answer this one. Please try again later.";
      return this.finish(e, [{ chat: e.c, text: why }]);
    }
    const delivered: { done: Promise<void> | null } = { done: null };
    const owner = person === null;
    const who = `${e.n || 'someone'}${owner ? ', the owner' : ''}`;
    await assistant.engine.run({
      chat: e.c,
      text,
      person,
      admin: role === 'admin',
      origin: 'chat',
      preamble: `[CHAT] A Telegram message from ${who} (chat ${e.c}, role ${role}).`,
      deliver: (reply, ask) => {
        const full = [reply, ask].filter((s) => s.trim() !== '').join('\n\n');
        delivered.done = this.deliver(e, full, people.roleOfChat(e.c));
      },
    });
    if (delivered.done) await delivered.done;
    else if (this.d.queue.holds(e.u)) this.finish(e, []);
  }

  /** A turn's reply: through the outbound gate, then queued with the entry's removal. */
  private async deliver(e: InEntry, text: string, role: Role): Promise<void> {
    if (!text) return this.finish(e, []);
    const gate = await this.d.moderation.outbound(text, role, 'model');
    if (!gate.send) {
      this.hold(e.c, text, gate.categories);
      return this.finish(e, [{ chat: e.c, text: 'I wrote a reply but held it back: it did not pass this device\'s content check.' }]);
    }
    this.finish(e, [{ chat: e.c, text }]);
  }

  private hold(chat: string, text: string, categories: string[]): void {
    const { clock, outbox } = this.d;
    this.held.push({ chat, atMono: clock.monoMs(), categories, excerpt: capBytes(text, 300) });
    if (this.held.length > HELD_KEPT) this.held.shift();
    outbox.post(`held:${chat}:${clock.monoMs()}`, `A reply to chat ${chat} (${this.d.people.nameOf(chat) ?? 'a guest'}) was held back by the content check (${categories.join(', ') || 'flagged'}). The web page shows it.`);
  }

  /** A voice or audio message: declined with a reason, or downloaded into a bounded buffer and transcribed. */
  private async hearVoice(e: InEntry): Promise<{ ok: true; text: string } | { ok: false; reply: string }> {
    const notes = this.d.voiceNotes();
    if (!notes) return { ok: false, reply: "I can't listen to voice or audio messages on this device. Please type your message instead." };
    const mime = e.f?.mime ?? (e.k === 'voice' ? 'audio/ogg' : null);
    const name = e.f?.name ?? null;
    const refused = notes.refusal(mime, name, e.f?.size ?? null);
    if (refused) return { ok: false, reply: refused };
    if (!e.f) return { ok: false, reply: 'That voice message did not come through. Please send it again.' };
    const meta = await this.d.api.getFile(e.f.id);
    if (!meta.ok || !meta.value.path) return { ok: false, reply: `I could not fetch that voice message from the chat service${meta.ok ? '' : ` (${meta.message})`}. Please send it again.` };
    const chunks: Uint8Array[] = [];
    let size = 0;
    const got = await this.d.api.download(meta.value.path, (chunk) => {
      size += chunk.length;
      if (size > VOICE_NOTE_MAX) return false;
      chunks.push(chunk.slice());
      return true;
    }, VOICE_NOTE_MAX);
    if (!got.ok || size > VOICE_NOTE_MAX) return { ok: false, reply: size > VOICE_NOTE_MAX ? 'That voice message is longer than I can take. Please send a shorter one.' : `I could not download that voice message (${got.ok ? 'refused' : got.message}). Please send it again.` };
    const heard = await notes.transcribe({ bytes: concatBytes(chunks), mime, name, chat: e.c });
    return heard.ok ? heard : { ok: false, reply: heard.reason };
  }

  private async receiveFile(e: InEntry, person: string | null): Promise<{ ok: true; ref: string; bytes: number } | { ok: false; reply: string }> {
    const { card, api } = this.d;
    const describe = 'Please describe it in words instead.';
    const sink = this.d.files();
    if (!sink) return { ok: false, reply: card.live() ? `I can't receive files on this device yet. ${describe}` : `I can't take photos or documents without a storage card in the device. ${describe}` };
    if (!e.f) return { ok: false, reply: `That file did not come through. ${describe}` };
    if (e.f.size !== null && e.f.size > INBOUND_FILE_MAX) return { ok: false, reply: 'That file is larger than the 20 MB I can receive.' };
    const kind = e.k === 'photo' ? 'photo' : 'document';
    const name = e.f.name ?? (kind === 'photo' ? `photo-${e.u}.jpg` : `document-${e.u}`);
    const begun = sink.begin({ person, chat: e.c, kind, name, size: e.f.size, mime: e.f.mime });
    if (!begun.ok) return { ok: false, reply: begun.reason };
    const meta = await api.getFile(e.f.id);
    if (!meta.ok || !meta.value.path) {
      begun.writer.abort();
      return { ok: false, reply: `I could not fetch that ${kind} from the chat service${meta.ok ? '' : ` (${meta.message})`}. Please send it again.` };
    }
    let refused = false;
    const got = await api.download(meta.value.path, (chunk) => {
      if (begun.writer.write(chunk)) return true;
      refused = true;
      return false;
    }, INBOUND_FILE_MAX);
    if (!got.ok || refused) {
      begun.writer.abort();
      return { ok: false, reply: refused ? `I could not keep that ${kind} (no room for it).` : `I could not download that ${kind} (${got.ok ? 'refused' : got.message}). Please send it again.` };
    }
    const done = begun.writer.finish();
    if (!done.ok) return { ok: false, reply: `I could not keep that ${kind}: ${done.reason}` };
    return { ok: true, ref: done.ref, bytes: got.value };
  }

  // --- sending -------------------------------------------------------------------

  /**
   * Queues text for a chat outside a turn (reply.telegram, a command's later
   * result). Model-written text to a guest passes the outbound gate first.
   */
  async sendText(chat: string, text: string, provenance: Provenance): Promise<{ queued: true; screened: boolean } | { queued: false; held: true; categories: string[] }> {
    const gate = await this.d.moderation.outbound(text, this.d.people.roleOfChat(chat), provenance);
    if (!gate.send) {
      this.hold(chat, text, gate.categories);
      return { queued: false, held: true, categories: gate.categories };
    }
    this.d.queue.send([{ chat, text }]);
    this.wakeSender();
    return { queued: true, screened: gate.screened };
  }

  /** Room in the send queue for a message outside a turn. */
  canQueue(): boolean {
    return this.d.queue.outRoom() > 0;
  }

  wakeSender(): void {
    // While backing off after a failure, the timer tries again; a new message does not cut the wait short.
    if (!this.running || this.sending || this.sendTimer) return;
    void this.sendLoop(this.gen);
  }

  private async sendLoop(gen: number): Promise<void> {
    const { api, queue, clock, log } = this.d;
    if (!api.hasToken()) return;
    this.sending = true;
    try {
      for (;;) {
        if (gen !== this.gen) return;
        const m = queue.pendingOut()[0];
        if (!m) break;
        const r = await api.sendMessage(m.c, m.t);
        if (gen !== this.gen) return;
        if (r.ok || r.error === 'refused') {
          // Refused for good (a chat that blocked the bot, a bad chat id): dropped, so later ones are not stuck.
          if (!r.ok) log.warn('chat', `a message to chat ${m.c} was refused and dropped: ${r.message}`);
          queue.sent(m.s);
          this.roomFreed();
          this.sendBackoff = 0;
          continue;
        }
        // The wait grows across tries (a retry starts a new loop, so it is kept on the service).
        this.sendBackoff = Math.min(BACKOFF_MAX_MS, this.sendBackoff ? this.sendBackoff * 2 : BACKOFF_MIN_MS);
        let backoff = r.error === 'rate-limit' && r.retryAfterS ? r.retryAfterS * 1000 : this.sendBackoff;
        if (r.error === 'unauthorized' || r.error === 'no-token') backoff = UNAUTHORIZED_RETRY_MS;
        log.warn('chat', `sending failed (${r.error}: ${r.message}); next try in ${Math.round(backoff / 1000)} s`);
        this.sendTimer = clock.setTimeout(() => {
          this.sendTimer = null;
          this.wakeSender();
        }, backoff);
        return;
      }
    } finally {
      this.sending = false;
      // A restart while a send was out: the new generation carries on.
      if (this.running && gen !== this.gen) this.wakeSender();
    }
    this.drainNotices();
  }

  /**
   * A device message (an owner notice, a sub-agent's completion or summary)
   * into the durable send queue, to the chat it names or the owner's:
   *   queued      it goes out (or waits for the content check first, whole)
   *   duplicate   a message with this key was queued lately: not again
   *   dropped     the chat it names may no longer talk to this device (logged)
   *   unroutable  no bot token, no owner chat, the service is not running, or
   *               the send queue holds DEVICE_QUEUE_MAX pieces already: the
   *               caller keeps it (the outbox)
   * Signed messages get the device's name and firmware; text to a guest
   * whose provenance is 'model' passes the outbound gate before it is sent.
   */
  notify(n: DeviceMessage): NotifyOutcome {
    const { people, queue, moderation, log } = this.d;
    if (!this.running || !this.d.api.hasToken()) return 'unroutable';
    // Notices that waited in the outbox go first, so messages keep their order.
    this.drainNotices();
    if (!queue.deviceRoom()) return 'unroutable';
    const chat = n.chat ?? people.ownerChat();
    if (!chat) return 'unroutable';
    if (n.chat && !people.mayChat(n.chat)) {
      log.info('chat', `message ${n.key} dropped: chat ${n.chat} may no longer talk to this device`);
      return 'dropped';
    }
    if (moderation.screensOutbound(people.roleOfChat(chat), n.provenance)) {
      if (!queue.screenLater(chat, n.text, n.signed, n.key)) return 'duplicate';
      this.screenPending();
      return 'queued';
    }
    if (!queue.sendKeyed(chat, n.signed ? this.sign(n.text) : n.text, n.key)) return 'duplicate';
    this.wakeSender();
    return 'queued';
  }

  /** Device messages waiting for the outbound content check: checked one at a time, oldest first. */
  private screenPending(): void {
    if (!this.running || this.screening) return;
    this.screening = true;
    const gen = this.gen;
    void this.screenLoop(gen)
      .catch((e: unknown) => this.d.log.error('chat', `checking a message failed: ${errorMessage(e)}`))
      .finally(() => {
        this.screening = false;
        if (this.running && gen !== this.gen) this.screenPending();
      });
  }

  private async screenLoop(gen: number): Promise<void> {
    const { queue, people, moderation } = this.d;
    for (let e = queue.pendingScreen()[0]; e && gen === this.gen; e = queue.pendingScreen()[0]) {
      if (!people.mayChat(e.c)) {
        this.d.log.info('chat', `a message to chat ${e.c} dropped: the chat may no longer talk to this device`);
        queue.screened(e.s, []);
        continue;
      }
      const gate = await moderation.outbound(e.t, people.roleOfChat(e.c), 'model');
      if (gen !== this.gen) return;
      if (gate.send) queue.screened(e.s, [{ chat: e.c, text: e.g ? this.sign(e.t) : e.t }]);
      else {
        this.hold(e.c, e.t, gate.categories);
        queue.screened(e.s, [{ chat: e.c, text: this.sign("A message for you was held back: it did not pass this device's content check.") }]);
      }
      this.wakeSender();
    }
  }

  /** Owner notices (the outbox) move into the send queue once there is a token and an owner chat. */
  drainNotices(): void {
    const { outbox } = this.d;
    if (!this.running || this.draining || !this.d.api.hasToken()) return;
    this.draining = true;
    try {
      for (const n of outbox.pending()) {
        // A notice for a named chat may carry model-written text (a sub-agent's result): screened for a guest.
        const r = this.notify({ key: n.key, text: n.text, chat: n.chat, signed: n.signed, provenance: n.chat ? 'model' : 'device' });
        if (r === 'unroutable') return; // no owner chat yet: notices wait
        outbox.ack(n.key);
      }
    } finally {
      this.draining = false;
    }
  }

  /** Asks the Bot API who the bot is (for /cmd@bot in groups and the web page). */
  async identify(): Promise<void> {
    const r = await this.d.api.getMe();
    if (r.ok) this.botUsername = r.value.username;
  }
}

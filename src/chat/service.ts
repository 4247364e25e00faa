// The chat messenger at work: the long poll (offsets that survive a reboot,
// backoff on errors), the allowlist, routing each message to an owner
// command or an assistant turn (one chat's messages in order, different
// chats side by side), inbound photos and documents, the moderation gates
// on guest traffic, the durable send queue, and the owner notices of the
// outbox (update available, provider switches, job results).
//
// This file owns the poll and the handling of each message; sending, device
// messages and the outbox are sender.ts's (ChatSender, which ChatService
// extends), the downloads of voice notes, photos and documents inbound.ts's,
// the service's dependencies service-types.ts's.

import type { Timer } from '../hal/index.ts';
import type { Role } from '../memory/index.ts';
import { capBytes } from '../util/cap.ts';
import { errorMessage } from '../util/json.ts';
import { parseCommandLine } from './commands.ts';
import { entriesOf, hearVoice, receiveFile } from './inbound.ts';
import type { InEntry } from './queue.ts';
import { BACKOFF_MAX_MS, BACKOFF_MIN_MS, ChatSender, UNAUTHORIZED_RETRY_MS } from './sender.ts';
import type { RejectedChat } from './service-types.ts';
import { POLL_TIMEOUT_S, type BotErrorKind } from './telegram.ts';

export { DEFAULT_DEVICE_NAME } from './sender.ts';
export { INBOUND_FILE_MAX } from './service-types.ts';
export type { ChatAssistant, HeldReply, InboundFiles, InboundWriter, RejectedChat, ServiceDeps, VoiceNoteSink } from './service-types.ts';

// Regular expressions are module constants: XS compiles a literal each time it is evaluated.
const WHITESPACE = /\s+/;

/** A stranger's chat hears why at most once a day. */
const REJECT_NOTE_EVERY_MS = 24 * 60 * 60_000;
const REJECTED_KEPT = 8;
/** Reply pieces that must fit in the send queue before the next message is handled. */
const OUT_ROOM_NEEDED = 4;

type Reply = { chat: string; text: string };

export type { DeviceMessage, NotifyOutcome } from '../contracts/index.ts';

export class ChatService extends ChatSender {
  private pollCancel: { onCancel: (() => void) | null } | null = null;
  private sleeper: { timer: Timer; wake: () => void } | null = null;
  private backoff = 0;
  private chains = new Map<string, Promise<void>>();
  private inflight = new Set<number>();
  private rejectNoted = new Map<string, number>();
  readonly rejected: RejectedChat[] = [];
  /** What the poll is doing, for the web page and CHAT?. */
  state: 'off' | 'polling' | 'backoff' | 'unauthorized' = 'off';
  lastError: string | null = null;
  lastPollMono: number | null = null;
  botUsername: string | null = null;
  handled = 0;

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
      const entries = entriesOf(r.value);
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
      const heard = await hearVoice(this.d, e);
      if (!heard.ok) return this.finish(e, [{ chat: e.c, text: heard.reply }]);
      log.info('chat', `chat ${e.c} sent a voice message, transcribed (${heard.text.length} characters)`);
      return this.turn(e, person, role, heard.text);
    }
    if (e.k === 'photo' || e.k === 'document') {
      const saved = await receiveFile(this.d, e, person);
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

  /** Asks the Bot API who the bot is (for /cmd@bot in groups and the web page). */
  async identify(): Promise<void> {
    const r = await this.d.api.getMe();
    if (r.ok) this.botUsername = r.value.username;
  }
}

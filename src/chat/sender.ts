// The chat service's sending half: the durable send queue's sender (one
// message at a time, backoff after a failure, a refused one dropped), device
// messages into the queue (notify: owner notices, sub-agents' completions),
// the outbound content check for what goes to a guest, replies held back by
// it, the owner notices waiting in the outbox, and the signature under
// device messages. The poll and the handling of messages are service.ts's
// (ChatService, which extends this).

import type { DeviceMessage, NotifyOutcome } from '../contracts/index.ts';
import type { Timer } from '../hal/index.ts';
import { capBytes } from '../util/cap.ts';
import { errorMessage } from '../util/json.ts';
import type { Provenance } from './moderation.ts';
import type { HeldReply, ServiceDeps } from './service-types.ts';

/** The poll's and the sender's backoff after a failure: doubling from the first to the longest. */
export const BACKOFF_MIN_MS = 1_000;
export const BACKOFF_MAX_MS = 60_000;
/** A refused token is not retried often: the owner has to fix it on the web page. */
export const UNAUTHORIZED_RETRY_MS = 5 * 60_000;
const HELD_KEPT = 5;

export const DEFAULT_DEVICE_NAME = 'Desk assistant';

export abstract class ChatSender {
  protected gen = 0;
  protected running = false;
  protected sendBackoff = 0;
  protected sending = false;
  protected sendTimer: Timer | null = null;
  protected screening = false;
  protected draining = false;
  protected roomWaiters: Array<() => void> = [];
  readonly held: HeldReply[] = [];

  constructor(protected readonly d: ServiceDeps) {}

  protected waitForRoom(): Promise<void> {
    return new Promise((resolve) => this.roomWaiters.push(resolve));
  }

  protected roomFreed(): void {
    const waiters = this.roomWaiters;
    this.roomWaiters = [];
    for (const w of waiters) w();
  }

  /** The device's name and firmware, under every command reply and notice. */
  sign(text: string): string {
    const name = this.d.config.config('devName');
    return `${text}\n\n— ${typeof name === 'string' && name ? name : DEFAULT_DEVICE_NAME} · firmware ${this.d.version}`;
  }

  protected hold(chat: string, text: string, categories: string[]): void {
    const { clock, outbox } = this.d;
    this.held.push({ chat, atMono: clock.monoMs(), categories, excerpt: capBytes(text, 300) });
    if (this.held.length > HELD_KEPT) this.held.shift();
    outbox.post(`held:${chat}:${clock.monoMs()}`, `A reply to chat ${chat} (${this.d.people.nameOf(chat) ?? 'a guest'}) was held back by the content check (${categories.join(', ') || 'flagged'}). The web page shows it.`);
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

  protected async sendLoop(gen: number): Promise<void> {
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
  protected screenPending(): void {
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

  protected async screenLoop(gen: number): Promise<void> {
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
}

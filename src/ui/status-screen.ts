// The status screen, the base screen: time, the assistant's state, the
// owner's last reply (or a hint), network, battery, and the LED indicator on
// boards without a ring. It keeps what only it shows: the last reply and
// whether the last turn failed (admin turns only: the screen is the
// owner's), and in Notifier mode how many phones are linked.

import type { TurnOutcome, TurnRequest } from '../contracts/index.ts';
import { capBytes } from '../util/cap.ts';
import { ledAnimates, ledIndicator } from './indicator.ts';
import type { Built, Press, Screen, ScreenHost } from './screen-kit.ts';
import { statusScreen, type StatusView, type Target, type Tone } from './screens.ts';
import { stringify } from '../util/json.ts';

/** The reply box shows a few lines: more would only cost memory and key length. */
const REPLY_CAP_BYTES = 600;

/** What the state line says while a voice turn runs (src/voice). */
const VOICE_STATES = { listening: 'Listening...', thinking: 'Thinking...', speaking: 'Speaking...' } as const;

export class StatusScreen implements Screen {
  private reply: string | null = null;
  private lastError: string | null = null;
  private phones = 0;

  constructor(
    private readonly host: ScreenHost,
    private readonly signin: { open(): boolean },
  ) {}

  /** Phones on the Notifier link now; true when the count changed. */
  setPhones(n: number): boolean {
    if (n === this.phones) return false;
    this.phones = n;
    return true;
  }

  /** The reply before a streamed one began to grow (shown again when what grew is void). */
  private before: string | null = null;
  private growing = false;

  /** An owner's reply grows as it streams (null: what grew was void); true when the shown reply changed. */
  noteGrowing(req: TurnRequest, text: string | null): boolean {
    if (!req.admin) return false;
    if (text === null) {
      if (!this.growing) return false;
      this.growing = false;
      this.reply = this.before;
      return true;
    }
    if (!this.growing) {
      this.growing = true;
      this.before = this.reply;
    }
    this.reply = capBytes(text, REPLY_CAP_BYTES);
    return true;
  }

  /** A turn started (out null) or ended; true when there is a new reply to show. */
  noteTurn(req: TurnRequest, out: TurnOutcome | null): boolean {
    if (!out || !req.admin) return false;
    if (this.growing) {
      // The turn's end settles what grew: its final reply, or the one before when it failed.
      this.growing = false;
      if (out.status !== 'ok') this.reply = this.before;
    }
    if (out.status === 'error') {
      this.lastError = out.error ?? 'error';
      return false;
    }
    this.lastError = null;
    const text = (out.reply || out.ask || '').trim();
    if (!text) return false;
    this.reply = capBytes(text, REPLY_CAP_BYTES);
    return true;
  }

  build(): Built {
    const l = this.host.layout();
    const t = this.host.theme();
    const v = this.view();
    return { key: `status|${t.name}|${stringify(v)}`, make: () => statusScreen(l, t, v) };
  }

  /** A tap opens the menu; a hold opens the sign-in QR where there is one. */
  act(_target: Target, how: Press): void {
    const { dev, deps, nav } = this.host;
    if (how === 'hold' && dev.mode === 1 && deps.network) this.signin.open();
    else nav.choose('menu');
  }

  /** The indicator moves (boards without a ring). */
  animating(): boolean {
    const { dev } = this.host;
    return dev.hal.ring.count === 0 && ledAnimates(dev.actions.ledState());
  }

  private view(): StatusView {
    const { dev, reads } = this.host;
    const { hal } = dev;
    const now = hal.clock.monoMs();
    const c = reads.clock();
    const name = dev.actions.config('devName');
    const { net, state, tone } = this.line();
    const hint = hal.touch.present ? 'Tap the screen for settings.' : dev.mode === 1 ? 'Ask me from the web page or the chat.' : this.phones > 0 ? 'Phone connected.' : 'Waiting for the phone.';
    return {
      name: typeof name === 'string' && name ? name : 'Desk assistant',
      time: c.time,
      date: c.date,
      zone: c.zone,
      net,
      battery: reads.batteryText(),
      state,
      tone,
      reply: this.reply ?? hint,
      replyDim: this.reply === null,
      indicator: hal.ring.count === 0 ? ledIndicator(dev.actions.ledState(), dev.actions.config('ledBrightness'), now) : null,
    };
  }

  /** The network and the assistant's state, first match wins. */
  private line(): { net: string; state: string; tone: Tone } {
    const { dev, deps, reads } = this.host;
    const v = reads.netView();
    const ota = reads.otaView();
    if (dev.mode === 0) return { net: this.phones > 0 ? 'Phone connected' : 'Bluetooth', state: 'Notifier mode', tone: 'dim' };
    if (!v) return { net: 'no Wi-Fi', state: 'Ready', tone: 'ok' };
    const net = v.station.state === 'connected' && v.station.ip ? v.station.ip : v.setup.state === 'up' ? 'Wi-Fi setup' : 'no Wi-Fi';
    const voice = deps.voice?.state() ?? 'idle';
    if (voice !== 'idle') return { net, state: VOICE_STATES[voice], tone: 'busy' };
    if (deps.turns?.busy) return { net, state: 'Thinking...', tone: 'busy' };
    if (!v.provisioned) return { net, state: 'Set up Wi-Fi', tone: 'warn' };
    if (v.station.state !== 'connected') return { net, state: 'Offline', tone: 'warn' };
    if (this.lastError) return { net, state: 'Last turn failed', tone: 'err' };
    if (ota.otaResult === 'new-version' && ota.otaLatest) return { net, state: `Update ${ota.otaLatest}`, tone: 'warn' };
    return { net, state: 'Ready', tone: 'ok' };
  }
}

// The notice screen: a message from another subsystem (the Notifier link's
// "show this" frames, the menu's About and refusals) until it is tapped,
// replaced, cleared or its holdMs runs out. hasNotice() reads it from
// show() on, before the frame is drawn (the Notifier's STATUS says so).

import type { Built, Press, Screen, ScreenHost } from './screen-kit.ts';
import { noticeScreen, type NoticeView, type Target } from './screens.ts';
import { stringify } from '../util/json.ts';

export interface Notice {
  title: string;
  body: string;
  source?: string;
  holdMs?: number;
}

export class NoticeScreen implements Screen {
  private notice: (Notice & { until: number | null }) | null = null;

  constructor(private readonly host: ScreenHost) {}

  show(n: Notice): void {
    const now = this.host.dev.hal.clock.monoMs();
    this.notice = { ...n, until: n.holdMs && n.holdMs > 0 ? now + n.holdMs : null };
    this.host.nav.choose('notice');
  }

  /** Drops the notice; true when it was showing (the screen below comes back). */
  clear(): boolean {
    this.notice = null;
    if (this.host.nav.chosen() !== 'notice') return false;
    this.host.nav.back();
    return true;
  }

  has(): boolean {
    return this.notice !== null;
  }

  /** Drops a notice whose holdMs has run out. */
  expire(now: number): void {
    if (this.notice?.until === null || this.notice?.until === undefined || now < this.notice.until) return;
    this.notice = null;
    if (this.host.nav.chosen() === 'notice') this.host.nav.back();
  }

  leave(): void {
    this.notice = null;
  }

  build(): Built {
    const l = this.host.layout();
    const t = this.host.theme();
    const n = this.notice ?? { title: 'Notice', body: '', source: '' };
    const v: NoticeView = { title: n.title, body: n.body, footer: n.source ? `${n.source} - tap to close` : 'Tap to close' };
    return { key: `notice|${t.name}|${stringify(v)}`, make: () => noticeScreen(l, t, v) };
  }

  act(_target: Target, how: Press): void {
    if (how === 'tap') this.host.nav.back();
  }
}

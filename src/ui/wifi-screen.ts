// The Wi-Fi join screen (Orchestrator mode, while the setup network is up):
// the setup network's join QR and its passphrase, the one place the
// passphrase is shown. An unprovisioned device opens on it (first run) until
// a tap puts it away for this boot; chosen from the menu it goes back like
// any other screen.

import { SETUP_SSID } from '../auth/index.ts';
import { encodeQr, wifiJoinString, type QrCode } from './qr.ts';
import { QR_IDLE_MS, type Built, type Press, type Screen, type ScreenHost } from './screen-kit.ts';
import { noticeScreen, qrScreen, type QrView, type Target } from './screens.ts';

export class WifiScreen implements Screen {
  private qr: { text: string; qr: QrCode; serial: number } | null = null;
  private serial = 0;
  private dismissed = false;

  constructor(private readonly host: ScreenHost) {}

  /** The setup network is up and its passphrase known: the screen has something to show. */
  available(): boolean {
    return this.host.reads.setupUp() && !!this.host.deps.passphrase;
  }

  /** Shows the join QR until tapped; refused (false) while no setup network is up. */
  open(): boolean {
    this.host.reads.forgetNet();
    if (!this.available()) return false;
    this.host.nav.choose('wifi');
    return true;
  }

  /** An unprovisioned device with its setup network up, not yet tapped away: the base screen is this one. */
  firstRun(): boolean {
    const { dev, deps, reads } = this.host;
    if (this.dismissed || dev.mode !== 1 || !deps.passphrase) return false;
    const v = reads.netView();
    return v !== null && !v.provisioned && v.setup.state === 'up';
  }

  lapsed(idleMs: number): boolean {
    return idleMs > QR_IDLE_MS || !this.host.reads.setupUp();
  }

  build(): Built {
    const l = this.host.layout();
    const t = this.host.theme();
    const v = this.view();
    if (!v) return { key: 'wifi-none', make: () => noticeScreen(l, t, { title: 'Wi-Fi setup', body: 'The setup network is not up.', footer: 'Tap to close' }) };
    return { key: `wifi|${t.name}|${v.key}`, make: () => qrScreen(l, t, v.view, 'wifi') };
  }

  act(_target: Target, how: Press): void {
    if (how !== 'tap') return;
    if (this.host.nav.chosen() !== 'wifi') this.dismissed = true;
    else this.host.nav.back();
  }

  private view(): { key: string; view: QrView } | null {
    const pass = this.host.deps.passphrase?.reveal();
    if (!pass || !this.host.reads.setupUp()) return null;
    const text = wifiJoinString(SETUP_SSID, pass);
    if (!this.qr || this.qr.text !== text) this.qr = { text, qr: encodeQr(text), serial: ++this.serial };
    const view: QrView = {
      title: 'Join Wi-Fi',
      qr: this.qr.qr,
      label: `WIFI:T:WPA;S:${SETUP_SSID};P:[hidden];;`,
      secret: true,
      lines: [
        { text: `Network: ${SETUP_SSID}` },
        { text: `Password: ${pass}`, secret: true },
        { text: 'Then open http://192.168.4.1', tone: 'dim' },
        { text: 'Tap to close', tone: 'dim' },
      ],
      short: { text: pass, secret: true },
    };
    // The key never carries the passphrase itself: the serial changes with the symbol.
    return { key: String(this.qr.serial), view };
  }
}

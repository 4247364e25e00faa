// The sign-in screen (Orchestrator mode): the ?c=<code> link as a QR, with
// the link and the code written out. The code is minted when the screen
// opens and replaced SIGNIN_REFRESH_MS before it expires, so a scan never
// lands on a dead code. The code is a credential (it buys the token): like
// the setup passphrase it stays on the panel, so no exported frame hands one
// out. The cloud tunnel keeps codes in too: it refuses the routes that mint
// them (src/auth/tunnel-guard.ts, TUNNEL_DENIED) and withholds any answer
// that carries a live one (src/auth/secret-screen.ts).

import { SCAN_LIFETIME_MS } from '../auth/index.ts';
import { groupSignInCode } from '../util/ids.ts';
import { encodeQr, type QrCode } from './qr.ts';
import { QR_IDLE_MS, type Built, type Press, type Screen, type ScreenHost } from './screen-kit.ts';
import { noticeScreen, qrScreen, type QrView, type Target } from './screens.ts';

/** Sign-in codes on screen are replaced this long before they expire. */
export const SIGNIN_REFRESH_MS = 20_000;

export class SigninScreen implements Screen {
  private code: { code: string; url: string; expiresAt: number; qr: QrCode } | null = null;

  constructor(private readonly host: ScreenHost) {}

  /** Shows the sign-in QR with a new code; refused (false) in Notifier mode or without a network. */
  open(): boolean {
    const { dev, deps, nav } = this.host;
    if (dev.mode !== 1 || !deps.network) return false;
    this.code = null;
    nav.choose('signin');
    return true;
  }

  lapsed(idleMs: number): boolean {
    return idleMs > QR_IDLE_MS || this.host.dev.mode !== 1;
  }

  build(): Built {
    const l = this.host.layout();
    const t = this.host.theme();
    const v = this.view();
    if (!v) return { key: 'signin-none', make: () => noticeScreen(l, t, { title: 'Sign in', body: 'The device has no network address yet.', footer: 'Tap to close' }) };
    return { key: `signin|${t.name}|${v.key}`, make: () => qrScreen(l, t, v.view, 'signin') };
  }

  act(_target: Target, how: Press): void {
    if (how === 'tap') this.host.nav.back();
  }

  /** The address a phone on the same network reaches: the home network's, else the setup network's. */
  private base(): string | null {
    const list = this.host.deps.network?.addresses() ?? [];
    const pick = list.find((a) => a.label === 'home network') ?? list.find((a) => a.label === 'setup network') ?? list[0];
    return pick ? pick.base : null;
  }

  private view(): { key: string; view: QrView } | null {
    const now = this.host.dev.hal.clock.monoMs();
    const base = this.base();
    if (!base) return null;
    const s = this.code;
    if (!s || s.expiresAt - now <= SIGNIN_REFRESH_MS || !s.url.startsWith(base + '/')) {
      const code = this.host.dev.signin.mint(SCAN_LIFETIME_MS);
      const url = `${base}/?c=${code.code}`;
      this.code = { code: code.code, url, expiresAt: code.expiresAtMono, qr: encodeQr(url) };
    }
    const cur = this.code!;
    const left = Math.max(0, Math.ceil((cur.expiresAt - SIGNIN_REFRESH_MS - now) / 1000));
    const view: QrView = {
      title: 'Sign in',
      qr: cur.qr,
      label: `${base}/?c=[hidden]`,
      secret: true,
      lines: [
        { text: 'Scan with your phone, or open' },
        { text: cur.url, tone: 'busy', secret: true },
        { text: `Code ${groupSignInCode(cur.code)}`, secret: true },
        { text: `New code in ${left} s`, tone: 'dim' },
        { text: 'Tap to close', tone: 'dim' },
      ],
      short: { text: cur.code, secret: true },
    };
    return { key: `${cur.url}|${left}`, view };
  }
}

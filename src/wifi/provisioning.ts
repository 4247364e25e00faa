// Wi-Fi provisioning in Orchestrator mode: the saved station network, the
// setup network (Device-setup) and its state table, the first-run
// /savewifi overlap (at most 20 s), the handoff acknowledgement (setup
// network dropped 4 s after the answer), and, while nothing is saved, the
// setup network's token handout (GET / and the captive-portal catch-all
// redirect to /?t=<token>).

import type { Context } from '../core/context.ts';
import type { StationStatus, Timer } from '../hal/index.ts';
import { parseForm, parseJsonBody, queryParams } from '../net/http/body.ts';
import { errorResponse, jsonResponse } from '../net/http/errors.ts';
import type { HttpRequest } from '../net/http/types.ts';
import { isPlainObject } from '../util/json.ts';
import { utf8Length } from '../util/utf8.ts';
import { SETUP_SSID, type SetupPassphrase } from '../auth/passphrase.ts';
import { SCAN_LIFETIME_MS } from '../auth/signin.ts';

// Regular expressions are module constants: XS compiles a literal each time it is evaluated.
const COLONS = /:/g;

export const OVERLAP_MS = 20_000;
export const HANDOFF_DROP_MS = 4_000;
/** The device's address on its own setup network (ESP-IDF's default soft-AP address). */
export const SETUP_ADDRESS = '192.168.4.1';

/** The setup network is up, or off (with the station connected, off is the normal steady state). */
export type SetupState = 'up' | 'off';

export interface WifiView {
  provisioned: boolean;
  station: { state: string; ssid: string | null; ip: string | null };
  setup: { state: SetupState; ssid: string };
  overlapArmed: boolean;
}

function credentials(req: HttpRequest): { ssid: unknown; pass: unknown } {
  const type = (req.headers.get('content-type') ?? '').toLowerCase();
  if (type.startsWith('application/json')) {
    const body = parseJsonBody(req);
    return body.ok && isPlainObject(body.value) ? { ssid: body.value['ssid'], pass: body.value['pass'] } : { ssid: undefined, pass: undefined };
  }
  const form = parseForm(req);
  return form.ok ? { ssid: form.form.fields.get('ssid'), pass: form.form.fields.get('pass') } : { ssid: undefined, pass: undefined };
}

export class Provisioning {
  private store;
  private setupState: SetupState = 'off';
  private overlap: Timer | null = null;
  private drop: Timer | null = null;

  constructor(
    private readonly ctx: Context,
    private readonly passphrase: SetupPassphrase,
  ) {
    this.store = ctx.store('wifi');
    const pass = this.store.strOrNull('pass');
    if (pass) ctx.log.redactor.add(pass);
  }

  provisioned(): boolean {
    return this.store.strOrNull('ssid') !== null;
  }

  view(): WifiView {
    const s = this.ctx.hal.wifi.station();
    return {
      provisioned: this.provisioned(),
      station: { state: s.state, ssid: s.ssid, ip: s.ip },
      setup: { state: this.setupState, ssid: SETUP_SSID },
      overlapArmed: this.overlap !== null,
    };
  }

  /** Orchestrator mode: bring the radio up, join the saved network or open the setup network. */
  start(): void {
    const { wifi } = this.ctx.hal;
    wifi.setEnabled(true);
    wifi.onStation = (status) => this.stationChanged(status);
    const ssid = this.store.strOrNull('ssid');
    if (ssid === null) this.setupUp('first run: nothing saved yet');
    else wifi.stationConnect(ssid, this.store.str('pass', ''));
  }

  private setupUp(why: string): void {
    if (this.setupState === 'up') return;
    this.drop?.cancel();
    this.drop = null;
    this.ctx.hal.wifi.apStart(SETUP_SSID, this.passphrase.reveal());
    this.setupState = 'up';
    this.ctx.log.info('wifi', `setup network up (${why})`);
  }

  private setupDown(why: string): void {
    if (this.setupState !== 'up') return;
    this.ctx.hal.wifi.apStop();
    this.setupState = 'off';
    this.ctx.log.info('wifi', `setup network dropped (${why})`);
  }

  private stationChanged(status: StationStatus): void {
    if (status.state === 'connected') {
      this.ctx.log.info('wifi', `station connected to ${status.ssid ?? '?'} as ${status.ip ?? '?'}`);
      return;
    }
    // Station link down (or never up): the setup network is the way back in.
    if ((status.state === 'disconnected' || status.state === 'failed') && this.setupState !== 'up') this.setupUp(`station ${status.state}`);
  }

  private stationIp(): string | null {
    const s = this.ctx.hal.wifi.station();
    return s.state === 'connected' ? s.ip : null;
  }

  /** First provision: store the network, join it, and keep the setup network up for the overlap. */
  saveWifi(req: HttpRequest) {
    if (this.provisioned()) return errorResponse(409, 'already-provisioned', 'Wi-Fi is already set up; change it from the settings.');
    const { ssid, pass } = credentials(req);
    if (typeof ssid !== 'string' || utf8Length(ssid) < 1 || utf8Length(ssid) > 32) return errorResponse(400, 'bad-ssid', 'The network name must be 1 to 32 bytes.');
    const p = typeof pass === 'string' ? pass : '';
    if (p.length !== 0 && (p.length < 8 || p.length > 63)) return errorResponse(400, 'bad-passphrase', 'A Wi-Fi passphrase has 8 to 63 characters (or none for an open network).');
    this.store.setMany([
      ['ssid', ssid],
      ['pass', p],
    ]);
    if (p) this.ctx.log.redactor.add(p);
    this.ctx.hal.wifi.stationConnect(ssid, p);
    this.overlap?.cancel();
    this.overlap = this.ctx.hal.clock.setTimeout(() => {
      this.overlap = null;
      // Not acknowledged in time: drop it, unless the station never came up
      // (then the link-down rule would restore it at once).
      if (this.stationIp() !== null) this.setupDown('no handoff within 20 s');
      else this.ctx.log.warn('wifi', 'no handoff within 20 s and the station is not up; the setup network stays');
    }, OVERLAP_MS);
    this.ctx.log.info('wifi', `saved network ${ssid}; overlap armed`);
    return jsonResponse({ armed: true, overlapMs: OVERLAP_MS }, 202);
  }

  /** The wizard saw the station's address: drop the setup network 4 s after this answer. */
  handoff() {
    const ip = this.stationIp();
    if (ip === null) return errorResponse(409, 'station-not-connected', 'The device has not joined your network yet.');
    this.overlap?.cancel();
    this.overlap = null;
    this.drop?.cancel();
    this.drop = this.ctx.hal.clock.setTimeout(() => {
      this.drop = null;
      this.setupDown('handoff acknowledged');
    }, HANDOFF_DROP_MS);
    const code = this.ctx.signin.mint(SCAN_LIFETIME_MS);
    return jsonResponse({ next: `http://${ip}/?c=${code.code}`, dropInMs: HANDOFF_DROP_MS });
  }

  /**
   * While nothing is saved, a visitor on the setup network is handed the
   * token: GET / and any unknown GET path (captive-portal probes) redirect
   * to /?t=<token>. Once Wi-Fi is configured this never applies.
   */
  handout(req: HttpRequest) {
    if (this.provisioned() || req.method !== 'GET') return null;
    const isRoot = req.path === '/';
    // The page itself, once it carries a token or a sign-in code, is served.
    if (isRoot && (queryParams(req).has('t') || queryParams(req).has('c'))) return null;
    if (!isRoot && this.ctx.router.knows(req.path)) return null;
    return { status: 302, headers: { Location: `/?t=${this.ctx.token.reveal()}`, 'Cache-Control': 'no-store' } };
  }

  /** Base URLs for sign-in links: the LAN address, the mDNS name, the setup network. */
  addresses(): Array<{ label: string; base: string }> {
    const out: Array<{ label: string; base: string }> = [];
    const ip = this.stationIp();
    if (ip) out.push({ label: 'home network', base: `http://${ip}` });
    out.push({ label: 'local name', base: `http://${mdnsName(this.ctx.hal.wifi.mac())}.local` });
    if (this.setupState === 'up') out.push({ label: 'setup network', base: `http://${SETUP_ADDRESS}` });
    return out;
  }
}

/** The mDNS host name: desk- and the last two bytes of the station MAC. */
export function mdnsName(mac: string): string {
  return `desk-${mac.replace(COLONS, '').slice(-4).toLowerCase()}`;
}

export function installProvisioning(ctx: Context, passphrase: SetupPassphrase): Provisioning {
  const p = new Provisioning(ctx, passphrase);
  ctx.router.intercept((req) => p.handout(req));
  ctx.router.add({
    method: 'POST',
    path: '/savewifi',
    access: { openWhile: () => !p.provisioned() },
    bodyLimit: 2048,
    handler: (req) => p.saveWifi(req),
  });
  ctx.router.add({ method: 'POST', path: '/api/wifi/handoff', bodyLimit: 1024, handler: () => p.handoff() });
  ctx.status.section(() => ({ wifi: p.view() }));
  return p;
}

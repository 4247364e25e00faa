// Wi-Fi in Orchestrator mode: the known networks (join the strongest one in
// sight, retrying while none is joined), the setup network (Device-setup)
// and its state table, the first-run /savewifi overlap (at most 20 s), the
// handoff acknowledgement (setup network dropped 4 s after the answer), the
// console's forced setup network (WIFIAP), and, while nothing is saved, the
// setup network's token handout (GET / and the captive-portal catch-all
// redirect to /?t=<token>). In Notifier mode the radio stays off and none of
// this runs (the routes stay registered: without HTTP nothing reaches them).
//
// The setup network's rules (spec "Setup network"):
//   up on first run (nothing saved), and whenever the station link goes down
//   or no known network can be joined;
//   while it is up and the station obtains an address, an overlap of at most
//   20 s is armed (/savewifi arms it at once): the handoff acknowledgement
//   drops it 4 s after its answer, otherwise it drops when the overlap ends
//   (it stays if the station is not up by then: the link-down rule would
//   restore it at once);
//   station connected with the setup network off is the normal steady state.
// WIFIAP on holds it up regardless (RAM only: a restart returns to the rules).

import { formFields } from '../core/form-route.ts';
import type { Kernel } from '../core/kernel.ts';
import type { Route } from '../core/router.ts';
import type { ScanResult, StationStatus, Timer } from '../hal/index.ts';
import { parseJsonBody, queryParams } from '../net/http/body.ts';
import { errorResponse, jsonResponse } from '../net/http/errors.ts';
import type { HttpRequest } from '../net/http/types.ts';
import { isPlainObject } from '../util/json.ts';
import { SCAN_LIFETIME_MS, SETUP_SSID, type MintedCode, type SetupPassphrase } from '../auth/index.ts';
import { KnownNetworks, passProblem, ssidProblem, type KnownNetwork } from './known.ts';
import { sentence } from '../util/sentence.ts';
import { replaceEvery } from '../util/replace.ts';

// Regular expressions are module constants: XS compiles a literal each time it is evaluated.
const COLONS = /:/;

export const OVERLAP_MS = 20_000;
export const HANDOFF_DROP_MS = 4_000;
/** While no known network is joined: the first retry, doubling up to the last. */
export const RETRY_FIRST_MS = 2_000;
export const RETRY_MAX_MS = 30_000;
/** How long WIFI waits for the join's outcome before answering. */
export const JOIN_WAIT_MS = 20_000;
/** The device's address on its own setup network (ESP-IDF's default soft-AP address). */
export const SETUP_ADDRESS = '192.168.4.1';

/** The setup network is up, or off (with the station connected, off is the normal steady state). */
export type SetupState = 'up' | 'off';

export interface WifiView {
  provisioned: boolean;
  /** How many networks are saved (WIFIKNOWN? lists them). */
  known: number;
  station: { state: string; ssid: string | null; ip: string | null };
  setup: { state: SetupState; ssid: string; forced: boolean };
  overlapArmed: boolean;
}

export type JoinOutcome = { ok: true; ssid: string; ip: string } | { ok: false; ssid: string; reason: string };

function credentials(req: HttpRequest): { ssid: unknown; pass: unknown } {
  const type = (req.headers.get('content-type') ?? '').toLowerCase();
  if (type.startsWith('application/json')) {
    const body = parseJsonBody(req);
    return body.ok && isPlainObject(body.value) ? { ssid: body.value['ssid'], pass: body.value['pass'] } : { ssid: undefined, pass: undefined };
  }
  const form = formFields(req);
  return form.ok ? { ssid: form.fields.get('ssid'), pass: form.fields.get('pass') } : { ssid: undefined, pass: undefined };
}

/** Known networks in the order to try: those in sight, strongest first (ties: most recently joined), then the rest (hidden networks do not show in a scan). */
export function joinOrder(known: readonly KnownNetwork[], seen: readonly ScanResult[]): KnownNetwork[] {
  const best = new Map<string, number>();
  for (const r of seen) best.set(r.ssid, Math.max(best.get(r.ssid) ?? -Infinity, r.rssi));
  const rank = (n: KnownNetwork): number => best.get(n.ssid) ?? -Infinity;
  // Array.prototype.sort is stable: equal signal keeps the saved (recency) order.
  return known.map((n) => n).sort((a, b) => (rank(a) === rank(b) ? 0 : rank(b) > rank(a) ? 1 : -1));
}

/** What the setup network's token handout needs of src/auth: the token, and a sign-in code for the screen. */
export interface WifiAuth {
  token: { reveal(): string };
  signin: { mint(lifetimeMs: number): MintedCode };
}

export class Provisioning {
  readonly known: KnownNetworks;
  private setupState: SetupState = 'off';
  private forced = false;
  private overlap: Timer | null = null;
  private drop: Timer | null = null;
  private retry: Timer | null = null;
  private retries = 0;
  /** Networks still to try in this join round (the station is on the one before). */
  private pending: KnownNetwork[] = [];
  private round = 0;
  private waiters: Array<(o: JoinOutcome) => void> = [];
  private listeners: Array<(s: StationStatus) => void> = [];
  private setupListeners: Array<(state: SetupState) => void> = [];
  private running = false;

  constructor(
    private readonly ctx: Kernel,
    private readonly passphrase: SetupPassphrase,
    private readonly auth: WifiAuth,
  ) {
    this.known = new KnownNetworks(ctx.store('wifi'), ctx.log.redactor);
  }

  provisioned(): boolean {
    return this.known.list().length > 0;
  }

  /** Orchestrator mode with the radio running (false in Notifier mode). */
  active(): boolean {
    return this.running;
  }

  view(): WifiView {
    const s = this.ctx.hal.wifi.station();
    return {
      provisioned: this.provisioned(),
      known: this.known.list().length,
      station: { state: s.state, ssid: s.ssid, ip: s.ip },
      setup: { state: this.setupState, ssid: SETUP_SSID, forced: this.forced },
      overlapArmed: this.overlap !== null,
    };
  }

  /** Called on every station change, after the setup network's rules ran (mDNS follows the station). */
  onStation(listener: (s: StationStatus) => void): void {
    this.listeners.push(listener);
  }

  /** Called when the setup network comes up or drops (the captive portal's DNS follows it). */
  onSetup(listener: (state: SetupState) => void): void {
    this.setupListeners.push(listener);
  }

  /** Orchestrator mode: bring the radio up, join the best known network or open the setup network. */
  start(): void {
    const { wifi } = this.ctx.hal;
    this.running = true;
    wifi.setEnabled(true);
    wifi.onStation = (status) => this.stationChanged(status);
    if (!this.provisioned()) this.setupUp('first run: nothing saved yet');
    else void this.joinBest();
  }

  /** Notifier mode: the radio stays off. */
  keepOff(): void {
    this.running = false;
    this.ctx.hal.wifi.setEnabled(false);
  }

  private setupUp(why: string): void {
    if (this.setupState === 'up') return;
    this.drop?.cancel();
    this.drop = null;
    this.ctx.hal.wifi.apStart(SETUP_SSID, this.passphrase.reveal());
    this.setupState = 'up';
    this.ctx.log.info('wifi', `setup network up (${why})`);
    for (const l of this.setupListeners) l('up');
  }

  private setupDown(why: string): void {
    if (this.setupState !== 'up' || this.forced) return;
    this.ctx.hal.wifi.apStop();
    this.setupState = 'off';
    this.ctx.log.info('wifi', `setup network dropped (${why})`);
    for (const l of this.setupListeners) l('off');
  }

  private armOverlap(why: string): void {
    this.overlap?.cancel();
    this.overlap = this.ctx.hal.clock.setTimeout(() => {
      this.overlap = null;
      // Not acknowledged in time: drop it, unless the station never came up
      // (then the link-down rule would restore it at once).
      if (this.stationIp() !== null) this.setupDown('no handoff within 20 s');
      else this.ctx.log.warn('wifi', 'no handoff within 20 s and the station is not up; the setup network stays');
    }, OVERLAP_MS);
    this.ctx.log.info('wifi', `overlap armed (${why})`);
  }

  private stationChanged(status: StationStatus): void {
    if (status.state === 'connected') {
      this.ctx.log.info('wifi', `station connected to ${status.ssid ?? '?'} as ${status.ip ?? '?'}`);
      this.pending = [];
      this.retries = 0;
      this.retry?.cancel();
      this.retry = null;
      if (status.ssid !== null) {
        try {
          this.known.joined(status.ssid);
        } catch (e) {
          this.ctx.log.warn('wifi', `join order not saved: ${String(e)}`);
        }
      }
      if (this.setupState === 'up' && !this.forced && this.overlap === null && this.drop === null) this.armOverlap('the station has an address');
      this.settle({ ok: true, ssid: status.ssid ?? '', ip: status.ip ?? '' });
    } else if (status.state === 'failed' && this.pending.length > 0) {
      // This one failed; the round goes on with the next known network.
      this.connect(this.pending.shift()!);
    } else if (status.state === 'disconnected' || status.state === 'failed') {
      // Station link down (or no known network joined): the setup network is the way back in.
      this.setupUp(`station ${status.state}`);
      this.settle({ ok: false, ssid: status.ssid ?? '', reason: status.state === 'failed' ? 'the network refused the join or is out of reach' : 'the link went down' });
      this.scheduleRetry();
    }
    for (const l of this.listeners) l(status);
  }

  private settle(o: JoinOutcome): void {
    const waiting = this.waiters;
    this.waiters = [];
    for (const w of waiting) w(o);
  }

  private scheduleRetry(): void {
    if (!this.running || !this.provisioned() || this.retry) return;
    const ms = Math.min(RETRY_MAX_MS, RETRY_FIRST_MS * 2 ** Math.min(this.retries, 8));
    this.retries++;
    this.retry = this.ctx.hal.clock.setTimeout(() => {
      this.retry = null;
      if (this.ctx.hal.wifi.station().state !== 'connected') void this.joinBest();
    }, ms);
  }

  private connect(n: KnownNetwork): void {
    this.ctx.log.info('wifi', `joining ${n.ssid}`);
    this.ctx.hal.wifi.stationConnect(n.ssid, n.pass);
  }

  /** Scans, then tries the known networks strongest first. */
  private async joinBest(): Promise<void> {
    const round = ++this.round;
    let seen: ScanResult[] = [];
    try {
      seen = await this.ctx.hal.wifi.scan();
    } catch (e) {
      this.ctx.log.warn('wifi', `scan failed: ${String(e)}`);
    }
    // A later round (WIFI, another retry) took over while this one scanned, or a join made before it
    // came through: joining again would drop the link the owner's page is using.
    if (round !== this.round || !this.running || this.ctx.hal.wifi.station().state === 'connected') return;
    const order = joinOrder(this.known.list(), seen);
    if (!order.length) return;
    this.pending = order.slice(1);
    this.connect(order[0]!);
  }

  private stationIp(): string | null {
    const s = this.ctx.hal.wifi.station();
    return s.state === 'connected' ? s.ip : null;
  }

  /** Joins one network now (WIFI, /savewifi); resolves with the outcome, or a timeout after JOIN_WAIT_MS. */
  joinNow(n: KnownNetwork): Promise<JoinOutcome> {
    this.round++;
    this.pending = [];
    this.retry?.cancel();
    this.retry = null;
    const outcome = new Promise<JoinOutcome>((resolve) => {
      const timer = this.ctx.hal.clock.setTimeout(() => {
        this.waiters = this.waiters.filter((w) => w !== done);
        resolve({ ok: false, ssid: n.ssid, reason: `no answer within ${JOIN_WAIT_MS / 1000} s` });
      }, JOIN_WAIT_MS);
      const done = (o: JoinOutcome): void => {
        timer.cancel();
        resolve(o);
      };
      this.waiters.push(done);
    });
    this.connect(n);
    return outcome;
  }

  /** A network was saved while none is joined: try the known ones now rather than at the next retry. */
  kick(): void {
    // a join under way settles by itself (a failure goes on to the next network or the retry)
    const state = this.ctx.hal.wifi.station().state;
    if (!this.running || state === 'connected' || state === 'connecting' || this.pending.length > 0) return;
    this.retry?.cancel();
    this.retry = null;
    void this.joinBest();
  }

  /** WIFIAP: on holds the setup network up; off hands it back to the state table. */
  forceSetup(on: boolean): void {
    if (!this.running) return;
    if (on) {
      this.setupUp('forced from the console');
      this.forced = true;
      return;
    }
    this.forced = false;
    if (this.setupState === 'up' && this.stationIp() !== null) this.setupDown('no longer forced; the station is connected');
  }

  /** First provision: store the network, join it, and keep the setup network up for the overlap. */
  saveWifi(req: HttpRequest) {
    if (this.provisioned()) return errorResponse(409, 'already-provisioned', 'Wi-Fi is already set up; add or change networks on the web page (Status, Wi-Fi networks).');
    const { ssid, pass } = credentials(req);
    const bad = ssidProblem(ssid);
    if (bad) return errorResponse(400, 'bad-ssid', sentence(bad));
    const p = typeof pass === 'string' ? pass : '';
    const badPass = passProblem(p);
    if (badPass) return errorResponse(400, 'bad-passphrase', sentence(badPass));
    const name = ssid as string;
    try {
      this.known.save(name, p);
    } catch (e) {
      return errorResponse(500, 'storage', `The network was not saved (${String(e)}); nothing changed.`);
    }
    this.armOverlap('first-run /savewifi');
    void this.joinNow({ ssid: name, pass: p });
    this.ctx.log.info('wifi', `saved network ${name}`);
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
    const code = this.auth.signin.mint(SCAN_LIFETIME_MS);
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
    return { status: 302, headers: { Location: `/?t=${this.auth.token.reveal()}`, 'Cache-Control': 'no-store' } };
  }

  /** The mDNS host name claimed now (desk-XXXX-2 after a conflict), or null when none is: set by the wifi subsystem (src/wifi/mdns.ts). */
  localName: () => string | null = () => null;

  /** Base URLs for sign-in links: the LAN address, the mDNS name, the setup network. */
  addresses(): Array<{ label: string; base: string }> {
    const out: Array<{ label: string; base: string }> = [];
    const ip = this.stationIp();
    if (ip) out.push({ label: 'home network', base: `http://${ip}` });
    out.push({ label: 'local name', base: `http://${this.localName() ?? `${mdnsName(this.ctx.hal.wifi.mac())}.local`}` });
    if (this.setupState === 'up') out.push({ label: 'setup network', base: `http://${SETUP_ADDRESS}` });
    return out;
  }
}

/** The mDNS host name: desk- and the last two bytes of the station MAC. */
export function mdnsName(mac: string): string {
  return `desk-${replaceEvery(mac, COLONS, '').slice(-4).toLowerCase()}`;
}

/** The provisioning routes: /savewifi (open until a network is saved) and the setup network's handoff. */
export function provisioningRoutes(p: Provisioning): Route[] {
  return [
    {
      method: 'POST',
      path: '/savewifi',
      access: { openWhile: () => !p.provisioned() },
      bodyLimit: 2048,
      handler: (req) => p.saveWifi(req),
    },
    { method: 'POST', path: '/api/wifi/handoff', bodyLimit: 1024, handler: () => p.handoff() },
  ];
}

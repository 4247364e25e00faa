// The simulated radio: Wi-Fi station (networks from device.json; connecting
// takes ~300 ms and succeeds when the passphrase matches), the setup access
// point, scans, link loss. The home network's multicast side (mDNS) is
// ./lan.ts: the device is on it while online().

import type { ScanResult, StationStatus } from '../../../src/hal/index.ts';
import type { DeviceFolder, WifiNetwork } from './device.ts';
import type { Json, Service, Session } from './service.ts';
import { str } from './service.ts';

const CONNECT_MS = 300;
const SCAN_MS = 150;
const STATION_IP = '192.168.1.50';
/** The access point's own address: ESP-IDF's default soft-AP interface (192.168.4.1/24, its DHCP server offering it as the DNS server). */
export const SETUP_AP_ADDRESS = '192.168.4.1';

export class Radio implements Service {
  private enabled = true;
  private station: StationStatus = { state: 'off', ssid: null, ip: null, rssi: null };
  private ap: { ssid: string; secure: boolean } | null = null;
  private session: Session | null = null;
  private timers = new Set<NodeJS.Timeout>();
  /** Called when the station leaves the home network. */
  onOffline: (() => void) | null = null;

  constructor(private readonly device: DeviceFolder) {}

  status(): Json {
    return { enabled: this.enabled, station: this.station, ap: this.ap, networks: this.device.config.wifi.networks.map((n) => n.ssid) };
  }

  /** The device is on the home network: the radio on and the station connected. */
  online(): boolean {
    return this.enabled && this.station.state === 'connected' && this.station.ip !== null;
  }

  start(session: Session): void {
    this.session = session;
    // a fresh boot: the radio starts on, the station idle (what ESP-IDF gives after esp_wifi_start)
    this.enabled = true;
    this.station = { state: 'off', ssid: null, ip: null, rssi: null };
    this.ap = null;
  }

  stop(): void {
    for (const t of this.timers) clearTimeout(t);
    this.timers.clear();
    this.session = null;
  }

  shutdown(): void {
    this.stop();
  }

  private later(ms: number, fn: () => void): void {
    const t = setTimeout(() => {
      this.timers.delete(t);
      fn();
    }, ms);
    this.timers.add(t);
  }

  /** The setup network (the access point) is up. */
  apUp(): boolean {
    return this.enabled && this.ap !== null;
  }

  private setStation(s: StationStatus): void {
    const was = this.online();
    this.station = s;
    if (was && !this.online()) this.onOffline?.();
    this.session?.emit('wifi.station', { status: { ...s } });
  }

  private network(ssid: string): WifiNetwork | undefined {
    return this.device.config.wifi.networks.find((n) => n.ssid === ssid);
  }

  setNetworks(list: WifiNetwork[]): void {
    for (const n of list) {
      if (typeof n?.ssid !== 'string' || typeof n.passphrase !== 'string') throw new TypeError('each network needs ssid and passphrase strings');
    }
    this.device.update((c) => (c.wifi.networks = list.map((n) => ({ ...n }))));
    // the access point we are on vanished from the air
    if (this.station.state === 'connected' && !this.network(this.station.ssid ?? '')) this.linkDown();
  }

  linkDown(): boolean {
    if (this.station.state !== 'connected') return false;
    this.setStation({ state: 'disconnected', ssid: this.station.ssid, ip: null, rssi: null });
    return true;
  }

  private cancelTimers(): void {
    for (const t of this.timers) clearTimeout(t);
    this.timers.clear();
  }

  readonly ops = {
    'wifi.enable': (args: Json) => {
      const on = args['on'] === true;
      this.enabled = on;
      if (!on) {
        this.onOffline?.();
        this.cancelTimers();
        this.ap = null;
        if (this.station.state !== 'off') this.setStation({ state: 'off', ssid: null, ip: null, rssi: null });
      }
    },
    'wifi.state': () => ({ json: { enabled: this.enabled, station: { ...this.station }, ap: this.ap !== null, mac: this.device.config.mac } }),
    'wifi.connect': (args: Json) => {
      const ssid = str(args, 'ssid');
      const passphrase = str(args, 'passphrase');
      if (!this.enabled) return;
      this.cancelTimers();
      this.setStation({ state: 'connecting', ssid, ip: null, rssi: null });
      this.later(CONNECT_MS, () => {
        const n = this.network(ssid);
        if (n && n.passphrase === passphrase) this.setStation({ state: 'connected', ssid, ip: STATION_IP, rssi: n.rssi ?? -55 });
        else this.setStation({ state: 'failed', ssid, ip: null, rssi: null });
      });
    },
    'wifi.disconnect': () => {
      this.cancelTimers();
      if (this.station.state !== 'off' && this.station.state !== 'disconnected') this.setStation({ state: 'disconnected', ssid: null, ip: null, rssi: null });
    },
    'wifi.apStart': (args: Json) => {
      const ssid = str(args, 'ssid');
      const passphrase = str(args, 'passphrase');
      if (!ssid || Buffer.byteLength(ssid) > 32) throw new TypeError('the access point name must be 1-32 bytes');
      if (passphrase && (passphrase.length < 8 || passphrase.length > 63)) throw new TypeError('a WPA2 passphrase is 8-63 characters');
      if (this.enabled) this.ap = { ssid, secure: passphrase !== '' };
    },
    'wifi.apStop': () => {
      this.ap = null;
    },
    'wifi.scan': (_args: Json, _bin: Buffer, session: Session) => {
      const results: ScanResult[] = this.enabled
        ? this.device.config.wifi.networks.map((n, i) => ({ ssid: n.ssid, rssi: n.rssi ?? -60 - i, secure: n.passphrase !== '', channel: n.channel ?? 1 + ((i * 5) % 11) }))
        : [];
      this.later(SCAN_MS, () => session.emit('wifi.scan', { results }));
    },
  };
}

// Device HAL: the Wi-Fi radio (station, setup access point, scan) on the
// SDK's wifi module ($(MODDABLE)/modules/network/wifi, esp32/xs6wifi.c). mDNS
// is the firmware's own responder (src/wifi/mdns-responder.ts) on a multicast
// socket (./udp.ts), not the SDK's mdns module (docs/decisions.md, "mDNS").
// As the wifi module's sources have it, beyond what the SDK's typings say:
// - WiFi.mode 3 is station and access point at once (xs_wifi_set_mode), and
//   Mode.off (-5) shuts the radio down and frees its memory (deinitWiFi);
// - accessPoint() takes station: true to keep the station running
//   (xs_wifi_accessPoint), and scan results carry their channel.

import Net from 'net';
import WiFi, { type AccessPointOptions, type WiFiMode, type WiFiScanCallback } from 'wifi';
import type { ScanResult, StationStatus, Wifi } from '../../../src/hal/index.ts';
import { HalError } from '../../../src/hal/index.ts';

/** WiFi.Mode.station | WiFi.Mode.accessPoint (xs6wifi.c: WIFI_MODE_APSTA). */
const STATION_AND_AP: WiFiMode = 3;

/** What xs_wifi_accessPoint reads beyond the SDK's typing: station keeps the station up beside the access point. */
type AccessPointWithStation = AccessPointOptions & { station: boolean };
/** A scan result as xs_wifi_scan builds it: the SDK's typing leaves out its channel. */
type ScanItem = NonNullable<Parameters<WiFiScanCallback>[0]> & { channel: number };

export function createWifi(): Wifi {
  let enabled = true;
  let ap = false;
  let station: StationStatus = { state: 'off', ssid: null, ip: null, rssi: null };
  let monitor: WiFi | null = null;
  const set = (next: Partial<StationStatus>): void => {
    station = { ...station, ...next };
    wifi.onStation?.({ ...station });
  };
  const mode = (): void => {
    WiFi.mode = !enabled ? WiFi.Mode.off : ap ? STATION_AND_AP : WiFi.Mode.station;
  };
  const wifi: Wifi = {
    onStation: null,
    setEnabled(on) {
      enabled = on;
      if (!on) {
        monitor?.close();
        monitor = null;
        ap = false;
        set({ state: 'off', ip: null, rssi: null });
      }
      mode();
    },
    enabled: () => enabled,
    stationConnect(ssid, passphrase) {
      if (!enabled) throw new HalError('EBUSY', 'the radio is off');
      monitor?.close();
      set({ state: 'connecting', ssid, ip: null, rssi: null });
      monitor = new WiFi({ ssid, password: passphrase }, (message) => {
        if (message === WiFi.gotIP) set({ state: 'connected', ip: String(Net.get('IP', 'station') ?? ''), rssi: Number(Net.get('RSSI') ?? 0) });
        else if (message === WiFi.disconnected) set({ state: station.state === 'connecting' ? 'failed' : 'disconnected', ip: null, rssi: null });
      });
    },
    stationDisconnect() {
      monitor?.close();
      monitor = null;
      WiFi.disconnect();
      set({ state: 'off', ip: null, rssi: null });
    },
    station: () => ({ ...station }),
    apStart(ssid, passphrase) {
      ap = true;
      mode();
      const options: AccessPointWithStation = { ssid, station: true };
      if (passphrase) options.password = passphrase;
      WiFi.accessPoint(options);
    },
    apStop() {
      ap = false;
      mode();
    },
    apActive: () => ap,
    scan() {
      return new Promise((resolve) => {
        const found: ScanResult[] = [];
        WiFi.scan({}, (result) => {
          if (!result) return resolve(found);
          const item = result as ScanItem;
          found.push({ ssid: item.ssid, rssi: item.rssi, secure: item.authentication !== 'none', channel: item.channel });
        });
      });
    },
    mac: () => String(Net.get('MAC') ?? '00:00:00:00:00:00').toLowerCase(),
  };
  return wifi;
}

// lin HAL: networking. Sockets are the device HAL's own code over the SDK's
// lin ECMA-419 sockets and TLS (hosts/esp32/hal/net.ts), with two changes
// the process's environment makes: the firmware's HTTP port 80 listens on
// DESK_HTTP_PORT, and DESK_ROUTES ("host:port=address:port;...") sends
// connections for those names to local servers (the provider emulator), as the
// simulator's --route does. Wi-Fi and mDNS have no SDK module on lin (its
// "wifi" is a stub without access point or scan), so they are stand-ins: the
// station joins any network at once on the loopback address, the setup
// access point only records that it is up, a scan finds nothing; mDNS does
// not run (the SDK's lin UDP socket cannot join a multicast group:
// net.multicast answers ENOTSUP and the responder stays off).

import type { Clock, Net, ScanResult, StationStatus, Wifi } from '../../../src/hal/index.ts';
import { HalError } from '../../../src/hal/index.ts';
import { createNet } from '../../esp32/hal/net.ts';
import { linEnv } from '../native/lin-native.js';

/** The firmware's HTTP port (src/main.ts HTTP_PORT). */
const DEVICE_HTTP_PORT = 80;

/** The port the firmware's HTTP server really listens on (DESK_HTTP_PORT, default 8080). */
export function httpPort(): number {
  const n = Number(linEnv('DESK_HTTP_PORT') ?? '8080');
  return Number.isInteger(n) && n > 0 && n < 65536 ? n : 8080;
}

/** DESK_ROUTES parsed: "host:port" to where it goes. */
function routes(): Map<string, { address: string; port: number }> {
  const table = new Map<string, { address: string; port: number }>();
  for (const entry of (linEnv('DESK_ROUTES') ?? '').split(';')) {
    const [from, to] = entry.split('=');
    if (!from || !to) continue;
    const colon = to.lastIndexOf(':');
    table.set(from.toLowerCase(), { address: to.slice(0, colon), port: Number(to.slice(colon + 1)) });
  }
  return table;
}

export function createLinNet(clock: Clock): Net {
  const http = httpPort();
  const table = routes();
  return createNet(clock, {
    listenPort: (port) => (port === DEVICE_HTTP_PORT ? http : port),
    route: (host, port) => table.get(`${host.toLowerCase()}:${port}`) ?? null,
    multicast: false,
  });
}

export function createWifi(clock: Clock): Wifi {
  let enabled = true;
  let ap = false;
  let station: StationStatus = { state: 'off', ssid: null, ip: null, rssi: null };
  const wifi: Wifi = {
    onStation: null,
    setEnabled(on) {
      enabled = on;
      if (!on) {
        ap = false;
        station = { state: 'off', ssid: null, ip: null, rssi: null };
        wifi.onStation?.({ ...station });
      }
    },
    enabled: () => enabled,
    stationConnect(ssid) {
      if (!enabled) throw new HalError('EBUSY', 'the radio is off');
      station = { state: 'connecting', ssid, ip: null, rssi: null };
      wifi.onStation?.({ ...station });
      clock.setTimeout(() => {
        if (station.ssid !== ssid || station.state !== 'connecting') return;
        station = { state: 'connected', ssid, ip: '127.0.0.1', rssi: -50 };
        wifi.onStation?.({ ...station });
      }, 0);
    },
    stationDisconnect() {
      station = { state: 'off', ssid: null, ip: null, rssi: null };
      wifi.onStation?.({ ...station });
    },
    station: () => ({ ...station }),
    apStart() {
      ap = true;
    },
    apStop() {
      ap = false;
    },
    apActive: () => ap,
    scan: () => Promise.resolve([] as ScanResult[]),
    mac: () => '02:00:00:00:00:01',
  };
  return wifi;
}

// The fault layer over the HAL (test builds): boot() wraps the SD card, the
// network, the Wi-Fi radio, the clock and the system's heap figures once, and
// every subsystem gets the wrapped services. While a fault is on, the wrapped
// service fails the way the real hardware fails (the same HalError codes and
// socket errors), so the subsystems' own failure paths are what a test
// exercises; nothing outside src/faults knows that faults exist.
//
// What each fault touches is in FAULTS (src/faults/faults.ts). Not touched:
// NVS, flash, the local HTTP listener, UDP, and connections already open when
// a network fault comes on (the HTTP client opens one connection per request,
// so the next request fails).

import type { Clock, ConnectOptions, Hal, HeapFigures, Net, PendingSocket, SdCard, SdFile, StationStatus, System, Wifi } from '../hal/index.ts';
import { HalError } from '../hal/index.ts';
import { FAULT_HEAP_BLOCK, FAULT_HEAP_FREE, type Faults } from './faults.ts';

function sdWith(sd: SdCard, faults: Faults): SdCard {
  const check = (writing: boolean): void => {
    if (faults.isOn('sd-absent')) throw new HalError('ENOCARD', 'no SD card (fault sd-absent)');
    if (writing && faults.isOn('sd-write')) throw new HalError('EIO', 'SD card write failed (fault sd-write)');
  };
  const file = (f: SdFile): SdFile => ({
    get size() {
      return f.size;
    },
    write(bytes) {
      check(true);
      f.write(bytes);
    },
    sync() {
      check(true);
      f.sync();
    },
    close() {
      if (!faults.isOn('sd-absent')) return f.close();
      // The handle is released either way, so nothing leaks past the fault.
      try {
        f.close();
      } catch {
        // the card is "gone": its own complaint adds nothing
      }
      throw new HalError('ENOCARD', 'no SD card (fault sd-absent)');
    },
  });
  return {
    probe: () => (faults.isOn('sd-absent') ? { present: false, totalBytes: null, freeBytes: null } : sd.probe()),
    stat(path) {
      check(false);
      return sd.stat(path);
    },
    list(dir) {
      check(false);
      return sd.list(dir);
    },
    mkdir(path) {
      check(true);
      sd.mkdir(path);
    },
    read(path, offset, length) {
      check(false);
      return sd.read(path, offset, length);
    },
    open(path, mode) {
      check(true);
      return file(sd.open(path, mode));
    },
    rename(from, to) {
      check(true);
      sd.rename(from, to);
    },
    remove(path) {
      check(true);
      sd.remove(path);
    },
  };
}

/** A connection that fails as a refused one does: onClose(error) on the next loop turn, never onConnect. */
function refused(options: ConnectOptions, error: string, clock: Clock): PendingSocket {
  let open = true;
  const s: PendingSocket = {
    remote: `${options.host}:${options.port}`,
    buffered: 0,
    onData: null,
    onDrain: null,
    onEnd: null,
    onClose: null,
    onConnect: null,
    write() {},
    end() {},
    destroy() {
      open = false;
    },
  };
  clock.setTimeout(() => {
    if (!open) return;
    open = false;
    s.onClose?.(error);
  }, 0);
  return s;
}

function netWith(net: Net, faults: Faults, clock: Clock): Net {
  return {
    listen: (port, onAccept) => net.listen(port, onAccept),
    udp: (port) => net.udp(port),
    multicast: (group, port) => net.multicast(group, port),
    connect(options) {
      if (faults.isOn('wifi-down')) return refused(options, 'ECONN: network unreachable (fault wifi-down)', clock);
      if (faults.isOn('outbound')) return refused(options, 'ECONN: connection refused (fault outbound)', clock);
      return net.connect(options);
    },
  };
}

function wifiWith(wifi: Wifi, faults: Faults, clock: Clock): Wifi {
  let handler: ((status: StationStatus) => void) | null = null;
  const down = (): boolean => faults.isOn('wifi-down');
  const seen = (): StationStatus => {
    const real = wifi.station();
    // A radio that is off stays off; any other state reads as a dropped link.
    return down() && real.state !== 'off' ? { state: 'disconnected', ssid: real.ssid, ip: null, rssi: null } : real;
  };
  // The real radio's events pass through unless the link is "down".
  wifi.onStation = (status) => {
    if (!down()) handler?.(status);
  };
  faults.onChange((cap) => {
    if (cap !== 'wifi-down' || wifi.station().state === 'off') return;
    // Going down: the link drops. Coming back: the radio's real state, as a reconnect reports it.
    handler?.(seen());
  });
  return {
    setEnabled: (on) => wifi.setEnabled(on),
    enabled: () => wifi.enabled(),
    stationConnect(ssid, passphrase) {
      wifi.stationConnect(ssid, passphrase);
      if (!down()) return;
      clock.setTimeout(() => {
        if (down()) handler?.({ state: 'failed', ssid, ip: null, rssi: null });
      }, 0);
    },
    stationDisconnect: () => wifi.stationDisconnect(),
    station: seen,
    get onStation() {
      return handler;
    },
    set onStation(fn) {
      handler = fn;
    },
    apStart: (ssid, passphrase) => wifi.apStart(ssid, passphrase),
    apStop: () => wifi.apStop(),
    apActive: () => wifi.apActive(),
    scan: () => (down() ? Promise.resolve([]) : wifi.scan()),
    mac: () => wifi.mac(),
  };
}

function clockWith(clock: Clock, faults: Faults): Clock {
  const unsynced = (): boolean => faults.isOn('clock-unsynced');
  return {
    monoMs: () => clock.monoMs(),
    // An ESP32 that never reached SNTP counts from the epoch at boot.
    wallMs: () => (unsynced() ? clock.monoMs() : clock.wallMs()),
    synced: () => !unsynced() && clock.synced(),
    setWall: (ms) => clock.setWall(ms),
    setTimeout: (fn, ms) => clock.setTimeout(fn, ms),
    setInterval: (fn, ms) => clock.setInterval(fn, ms),
  };
}

function systemWith(system: System, faults: Faults): System {
  return {
    reboot: (reason) => system.reboot(reason),
    resetReason: () => system.resetReason(),
    heap(): HeapFigures {
      const h = system.heap();
      if (!faults.isOn('heap-low')) return h;
      return {
        ...h,
        freeInternal: Math.min(h.freeInternal, FAULT_HEAP_FREE),
        largestBlock: Math.min(h.largestBlock, FAULT_HEAP_BLOCK),
        minFreeInternal: Math.min(h.minFreeInternal, FAULT_HEAP_FREE),
      };
    },
    resetHeapPeak: () => system.resetHeapPeak(),
    gc: () => system.gc(),
    feedWatchdog: () => system.feedWatchdog(),
    log: (line) => system.log(line),
    random: (bytes) => system.random(bytes),
    deepSleep: (ms) => system.deepSleep(ms),
    announce: (info) => system.announce(info),
  };
}

/** The HAL every subsystem gets in a test build: the same services, failing on demand. */
export function withFaults(hal: Hal, faults: Faults): Hal {
  const clock = clockWith(hal.clock, faults);
  return {
    ...hal,
    clock,
    system: systemWith(hal.system, faults),
    sd: sdWith(hal.sd, faults),
    net: netWith(hal.net, faults, hal.clock),
    wifi: wifiWith(hal.wifi, faults, hal.clock),
  };
}

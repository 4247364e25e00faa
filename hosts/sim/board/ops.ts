// The ops the board serves and the events it sends (docs/sim-protocol.md
// points here). Calls (kind 1) block the firmware until the reply; sends
// (kind 3) are one-way. The firmware side is hosts/sim/hal/*.ts.

import type { OpHandler, Service } from './service.ts';

/** Synchronous calls, answered {ok:true,...} or {ok:false,code,message}. */
export const CALL_OPS = [
  'board.info',
  'nvs.get', 'nvs.set', 'nvs.keys', 'nvs.erase',
  'sd.probe', 'sd.stat', 'sd.list', 'sd.mkdir', 'sd.read', 'sd.open', 'sd.write', 'sd.sync', 'sd.close', 'sd.rename', 'sd.remove',
  'flash.info', 'flash.begin', 'flash.write', 'flash.end', 'flash.abort', 'flash.read', 'flash.setBoot', 'flash.markValid',
  'tcp.listen', 'tcp.connect',
  'udp.bind',
  'wifi.enable', 'wifi.state', 'wifi.connect', 'wifi.disconnect', 'wifi.apStart', 'wifi.apStop',
  'battery.read',
  'display.snapshot',
  'ble.start', 'ble.stop', 'ble.bonds', 'ble.forgetBonds',
  'system.heap', 'system.random',
] as const;

/** One-way messages from the firmware. */
export const SEND_OPS = [
  'tcp.unlisten', 'tcp.write', 'tcp.read', 'tcp.end', 'tcp.destroy',
  'udp.send', 'udp.close',
  'wifi.scan',
  'serial.write',
  'ring.show',
  'display.begin', 'display.send', 'display.end', 'display.brightness',
  'audio.start', 'audio.write', 'audio.stop', 'audio.volume',
  'mic.start', 'mic.stop',
  'ble.notify', 'ble.readReply', 'ble.writeReply',
  'system.feed', 'system.reboot', 'system.sleep',
  'clock.set',
  'sim.ready',
] as const;

/** Events (kind 4) the board sends; the json's `type`. */
export const EVENT_TYPES = [
  'tcp.accept', 'tcp.connected', 'tcp.data', 'tcp.drain', 'tcp.close',
  'udp.message',
  'wifi.station', 'wifi.scan',
  'serial.data',
  'touch', 'button',
  'audio.played', 'mic.samples',
  'ble.connect', 'ble.disconnect', 'ble.bond', 'ble.read', 'ble.write',
  'system.heap', 'battery.reading',
] as const;

/** Joins the services' handlers into one table; every listed op must be served exactly once. */
export function opTable(services: ReadonlyArray<Pick<Service, 'ops'>>): Map<string, OpHandler> {
  const table = new Map<string, OpHandler>();
  for (const s of services) {
    for (const [name, handler] of Object.entries(s.ops)) {
      if (table.has(name)) throw new Error(`op ${name} is served twice`);
      table.set(name, handler);
    }
  }
  const missing = [...CALL_OPS, ...SEND_OPS].filter((op) => !table.has(op));
  if (missing.length) throw new Error(`ops without a handler: ${missing.join(', ')}`);
  return table;
}

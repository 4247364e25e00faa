// The local cloud relay (tools/cloud-relay.mjs) on the in-memory network,
// on the virtual clock's timers, so unit tests pair a device booted on the
// in-memory HAL and reach it through the real tunnel as its owner would.

import type { Timer } from '../../src/hal/index.ts';
import { createRelay, RELAY_HOST, type Relay } from '../../tools/cloud-relay.mjs';
import type { VirtualClock } from './clock.ts';
import type { MemNet, MemSocket } from './memnet.ts';

export interface ServedRelay extends Relay {
  /** Drops one device's connection from the relay's side (the core's cut), or with no id every link (a network cut). */
  cut(id?: string): void;
  /** The relay's ends of the device connections (their inbox: what the device wrote, write by write). */
  links: MemSocket[];
}

export function serveRelay(relay: Relay, net: MemNet, options: { trusted?: boolean } = {}): ServedRelay {
  const links: MemSocket[] = [];
  net.serve(
    RELAY_HOST,
    443,
    (s) => {
      links.push(s);
      const h = relay.attach({ write: (b) => s.send(new Uint8Array(b)), end: () => s.end() });
      s.onData = (c) => h.data(c);
      s.onClose = () => h.closed();
    },
    { trusted: options.trusted ?? true },
  );
  const cutOne = relay.cut.bind(relay);
  return Object.assign(relay, {
    links,
    cut(id?: string) {
      if (id !== undefined) return cutOne(id);
      for (const s of links.splice(0)) s.close(null);
    },
  });
}

/** A relay on RELAY_HOST:443 of the in-memory network; untrusted: its certificate is not from the bundle. */
export function fakeRelay(net: MemNet, clock: () => VirtualClock, options: { trusted?: boolean; pairMs?: number } = {}): ServedRelay {
  const relay = createRelay({
    timers: { setTimeout: (fn, ms) => clock().setTimeout(fn, ms), clearTimeout: (t) => (t as Timer).cancel() },
    ...(options.pairMs ? { pairMs: options.pairMs } : {}),
  });
  return serveRelay(relay, net, options);
}

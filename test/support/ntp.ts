// Time servers on the in-memory network: the simulator board's own NTP
// answer (hosts/sim/board/timeserver.ts, which chronyd 4.3 accepts as a
// server) at each of the firmware's server names, serving a "true" time the
// test controls, not the device's clock.

import { TIME_SERVERS } from '../../src/clock/sync.ts';
import { ntpAnswer, type TimeServerMode } from '../../hosts/sim/board/timeserver.ts';
import type { MemNet } from './memnet.ts';

export class FakeTimeServers {
  mode: TimeServerMode = 'answer';
  kissCode = 'DENY';
  /** Per-server overrides of mode (e.g. the first one silent). */
  readonly modes = new Map<string, TimeServerMode>();
  /** Queries seen, by server name. */
  readonly queries: string[] = [];

  constructor(
    net: MemNet,
    /** The true time (Unix ms) the servers serve. */
    private readonly now: () => number,
    names: readonly string[] = TIME_SERVERS,
  ) {
    for (const name of names) {
      net.serveUdp(name, 123, (bytes, reply) => {
        this.queries.push(name);
        const answer = ntpAnswer(bytes, this.now(), this.modes.get(name) ?? this.mode, this.kissCode);
        if (answer) reply(answer);
      });
    }
  }
}

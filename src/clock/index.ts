// The clock subsystem: network time in Orchestrator mode (src/clock/sync.ts)
// kicked again when the station gets an address, its state in the snapshot
// (clock: {...}), and the console's CLOCK? and TIMESYNC. Notifier mode has
// no network, so the clock is whatever the RTC kept (synced after a restart
// from a set clock, unset after a power cut).

import { CommandError } from '../core/console.ts';
import type { Context } from '../core/context.ts';
import type { StationStatus } from '../hal/index.ts';
import { utcStamp, type ClockSync } from './sync.ts';

export { ClockSync } from './sync.ts';
export { gateTlsOnClock } from './tls-gate.ts';

const ORCHESTRATOR_ONLY = 'network time runs in Orchestrator mode (MODE 1)';

export function installClock(ctx: Context, sync: ClockSync, network: { onStation(listener: (s: StationStatus) => void): void }): void {
  ctx.status.section(() => ({ clock: sync.state() }));

  ctx.console.register({
    verb: 'CLOCK?',
    maxArgs: 0,
    help: 'the wall clock: synced or not, the time (UTC), the server that set it, the next sync and the last error',
    run: (c) => {
      const s = sync.state();
      const time = s.wallMs === null ? '-' : utcStamp(s.wallMs).replace(' UTC', 'Z').replace(' ', 'T');
      c.out(
        `synced=${s.synced ? 'yes' : 'no'} now=${time} server=${s.server ?? '-'} last=${s.lastSyncAgoS === null ? '-' : `${s.lastSyncAgoS}s`} next=${s.nextSyncInS === null ? '-' : `${s.nextSyncInS}s`} tlsRefused=${s.tls.refused}`,
      );
      if (s.lastError) c.out(`error=${s.lastError}`);
    },
  });

  ctx.console.register({
    verb: 'TIMESYNC',
    maxArgs: 0,
    help: 'ask the time servers now (no sooner than 15 s after the last answer) and print the outcome',
    run: async (c) => {
      if (ctx.mode !== 1) throw new CommandError(ORCHESTRATOR_ONLY);
      if (!(await sync.syncNow())) throw new CommandError(`no network time: ${sync.state().lastError ?? 'the round did not end well'}`);
      const s = sync.state();
      c.out(`set from ${s.server ?? '?'}: ${s.wallMs === null ? '-' : utcStamp(s.wallMs)} (round trip ${s.roundTripMs ?? '?'} ms)`);
    },
  });

  if (ctx.mode !== 1) return;
  network.onStation((s) => {
    if (s.state === 'connected') sync.networkUp();
  });
  sync.start();
}

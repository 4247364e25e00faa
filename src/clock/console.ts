// The clock's console: CLOCK? (the wall clock, the server that set it, the
// next sync, the last error) and TIMESYNC (ask the servers now; Orchestrator
// mode only).

import { CommandError, type Command } from '../core/console.ts';
import type { Mode } from '../core/kernel.ts';
import { utcStamp, type ClockSync } from './sync.ts';

const ORCHESTRATOR_ONLY = 'network time runs in Orchestrator mode (MODE 1)';

export function clockCommands(sync: ClockSync, mode: Mode): Command[] {
  return [
    {
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
    },
    {
      verb: 'TIMESYNC',
      maxArgs: 0,
      help: 'ask the time servers now (no sooner than 15 s after the last answer) and print the outcome',
      run: async (c) => {
        if (mode !== 1) throw new CommandError(ORCHESTRATOR_ONLY);
        if (!(await sync.syncNow())) throw new CommandError(`no network time: ${sync.state().lastError ?? 'the round did not end well'}`);
        const s = sync.state();
        c.out(`set from ${s.server ?? '?'}: ${s.wallMs === null ? '-' : utcStamp(s.wallMs)} (round trip ${s.roundTripMs ?? '?'} ms)`);
      },
    },
  ];
}

// The console's Battery group (test builds): PROFILE <0-2>, BATTCAL,
// BATTRESET, SLEEPMV [mv], SLEEP, DRAIN on|off [deep]. (STORAGE, listed in
// the same group, is the file store's: src/files/console.ts.)

import { CommandError, type Command, type CommandCall } from '../core/console.ts';
import type { BatteryReading } from '../hal/index.ts';
import { DRAIN_MS_PER_PCT } from './battery.ts';
import { DEFAULT_SLEEP_MV, SLEEP_MV_MAX, SLEEP_MV_MIN } from './limits.ts';
import type { Power, PowerSettings } from './power.ts';

const DECIMAL = /^[0-9]{1,5}$/;

function describe(r: BatteryReading): string {
  if (!r.present) return 'battery=none (no gauge, or monitoring off)';
  return `level=${r.levelPct ?? '?'}% health=${r.healthPct ?? '?'}% mv=${r.millivolts ?? '?'} external=${r.external ? 1 : 0} charging=${r.charging ? 1 : 0}`;
}

export function powerCommands(power: Power, settings: PowerSettings, updates: { installing(): boolean }): Command[] {
  const profileLine = (c: CommandCall): void => {
    const p = power.profile();
    c.out(`profile=${p.id} ${p.name}: ring ${p.ringFps} fps, brightness at most ${p.ringMax}, battery read every ${p.batteryPollMs / 1000} s, screen dims after ${p.screenDimS ? `${p.screenDimS} s` : 'never'}`);
  };

  const commands: Command[] = [];
  commands.push({
    verb: 'PROFILE',
    usage: '<0 or 1 or 2>',
    help: 'the power profile: 0 performance, 1 balanced (default), 2 saver (ring frame rate and brightness, battery polling, screen dimming); bare shows it',
    run: (c) => {
      if (c.argv.length === 0) return profileLine(c);
      const v = c.argv.length === 1 ? c.argv[0]! : '';
      if (v !== '0' && v !== '1' && v !== '2') throw new CommandError('usage: PROFILE <0 or 1 or 2> (0 performance, 1 balanced, 2 saver)');
      const r = settings.apply({ kind: 'config', values: { profile: Number(v) } });
      if (!r.ok) throw new CommandError(r.note);
      profileLine(c);
    },
  });

  commands.push({
    verb: 'BATTCAL',
    help: 'calibrate the battery on a finished charge (on power, charger done): full reads 100 %, and a health estimate is stored',
    run: (c) => {
      if (c.argv.length) throw new CommandError('usage: BATTCAL (no arguments; on power, with the charge finished)');
      const r = power.calibrate();
      if (!r.ok) throw new CommandError(r.reason);
      c.out(`calibrated: full=${r.cal.fullMv ?? '-'} mV gauge=${r.cal.fullRaw ?? '-'}% health=${r.cal.health}% (estimate)`);
      c.out(describe(r.reading));
    },
  });

  commands.push({
    verb: 'BATTRESET',
    help: "erase the battery calibration: the gauge's own figures apply again",
    run: (c) => {
      if (c.argv.length) throw new CommandError('usage: BATTRESET (no arguments)');
      c.out(power.resetCalibration() ? 'calibration erased' : 'no calibration was stored');
      c.out(describe(power.reading()));
    },
  });

  commands.push({
    verb: 'SLEEPMV',
    usage: '[mv]',
    help: `below this battery voltage (on battery) the device deep-sleeps; ${SLEEP_MV_MIN}-${SLEEP_MV_MAX}, 0 off, default ${DEFAULT_SLEEP_MV}; bare shows it`,
    run: (c) => {
      if (c.argv.length > 1 || (c.argv.length === 1 && !DECIMAL.test(c.argv[0]!))) throw new CommandError(`usage: SLEEPMV [mv] (${SLEEP_MV_MIN}-${SLEEP_MV_MAX}, or 0 for off)`);
      if (c.argv.length === 1 && !power.setSleepMv(Number(c.argv[0]))) throw new CommandError(`usage: SLEEPMV [mv] (${SLEEP_MV_MIN}-${SLEEP_MV_MAX}, or 0 for off)`);
      const mv = power.sleepMv();
      c.out(`sleepMv=${mv}${mv === 0 ? ' (off)' : ''}${power.sleepMvIsDefault() ? ' (default)' : ''}`);
      c.out(describe(power.reading()));
    },
  });

  commands.push({
    verb: 'SLEEP',
    help: 'deep sleep now, until woken (the button or touch; the simulator: control op wake)',
    run: (c) => {
      if (c.argv.length) throw new CommandError('usage: SLEEP (no arguments)');
      if (updates.installing()) throw new CommandError('busy: an update is installing');
      power.sleepSoon('SLEEP from the console', 0);
      c.out('sleeping until woken');
    },
  });

  commands.push({
    verb: 'DRAIN',
    usage: 'on or off [deep]',
    help: `simulate a discharge on battery (1 % per ${DRAIN_MS_PER_PCT / 1000} s); deep: reaching SLEEPMV really sleeps (else it is only logged); off restores the gauge`,
    run: (c) => {
      const [onOff, deep, extra] = c.argv.map((a) => a.toLowerCase());
      const on = onOff === 'on';
      if ((onOff !== 'on' && onOff !== 'off') || (deep !== undefined && (deep !== 'deep' || !on)) || extra !== undefined) throw new CommandError('usage: DRAIN on or off [deep] (DRAIN on deep, DRAIN on, DRAIN off)');
      const r = power.setDrain(on, deep === 'deep');
      if (!r.ok) throw new CommandError(r.reason);
      const d = power.drain();
      c.out(d ? `drain=${d.deep ? 'deep' : 'on'} from ${d.fromPct}%: at SLEEPMV ${power.sleepMv()} mV the device ${d.deep ? 'deep-sleeps' : 'only logs that it would sleep'}` : 'drain=off');
      c.out(describe(power.reading()));
    },
  });
  return commands;
}

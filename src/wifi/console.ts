// The Wi-Fi console: APINFO? (the setup network's name and passphrase, as
// the spec allows: an owner at the USB port who cannot read the screen;
// registered in release builds too, it is the one secret the serial port may
// show, and physical access to the port is the credential), and the Network
// group's Wi-Fi commands (test builds): WIFI <ssid>|<pass> (save or update a
// known network and join it), WIFISCAN, WIFIKNOWN? (never a passphrase),
// WIFIRENAME <old>|<new>, WIFIAP [on|off] (hold the setup network up, RAM
// only). Names and passphrases are split at the first '|' (a network name
// with '|' in it cannot be typed here).

import { SETUP_SSID, type SetupPassphrase } from '../auth/index.ts';
import { CommandError, type Command } from '../core/console.ts';
import type { Hal } from '../hal/index.ts';
import { errorMessage, stringify } from '../util/json.ts';
import { KNOWN_MAX, passProblem, ssidProblem } from './known.ts';
import type { Provisioning } from './provisioning.ts';

const ORCHESTRATOR_ONLY = 'Notifier mode keeps Wi-Fi off (MODE 1 switches to Orchestrator mode)';

function pair(args: string, usage: string): [string, string] {
  const bar = args.indexOf('|');
  if (bar < 0) throw new CommandError(`usage: ${usage}`);
  return [args.slice(0, bar), args.slice(bar + 1)];
}

/** A network name as printed: JSON-quoted, so spaces and odd characters stay unambiguous. */
const quoted = (ssid: string): string => stringify(ssid);

export function wifiCommands(hal: Hal, provisioning: Provisioning, passphrase: SetupPassphrase): Command[] {
  const commands: Command[] = [];
  const { known } = provisioning;
  commands.push({
    verb: 'APINFO?',
    maxArgs: 0,
    help: 'the setup network: name, passphrase and whether it is up',
    testOnly: false,
    run: (c) => c.out(`ssid=${SETUP_SSID} pass=${passphrase.reveal()} setup=${provisioning.view().setup.state}`),
  });

  commands.push({
    verb: 'WIFI',
    usage: '<ssid>|<pass>',
    help: `save a network (or its new passphrase; empty for an open one) among the known ones (at most ${KNOWN_MAX}) and join it now`,
    run: async (c) => {
      const [ssid, pass] = pair(c.args, 'WIFI <ssid>|<pass> (an open network: WIFI <ssid>|)');
      const bad = ssidProblem(ssid) ?? passProblem(pass);
      if (bad) throw new CommandError(`${bad}; nothing changed`);
      let saved: { added: boolean; dropped: string | null };
      try {
        saved = known.save(ssid, pass);
      } catch (e) {
        throw new CommandError(`not saved (${errorMessage(e)}); nothing changed`);
      }
      c.out(`${saved.added ? 'saved' : 'updated'} ${quoted(ssid)} (known=${known.list().length})${saved.dropped !== null ? `; ${quoted(saved.dropped)}, joined longest ago, was dropped` : ''}`);
      if (!provisioning.active()) {
        c.out(`${ORCHESTRATOR_ONLY}: it is joined in Orchestrator mode`);
        return;
      }
      const o = await provisioning.joinNow({ ssid, pass });
      if (!o.ok) throw new CommandError(`${quoted(ssid)} is saved but not joined: ${o.reason}`);
      c.out(`joined ${quoted(o.ssid)} as ${o.ip}`);
    },
  });

  commands.push({
    verb: 'WIFISCAN',
    maxArgs: 0,
    help: 'scan for networks: one line each, strongest first, saying which are known',
    run: async (c) => {
      if (!provisioning.active()) throw new CommandError(ORCHESTRATOR_ONLY);
      const results = (await hal.wifi.scan()).slice().sort((a, b) => b.rssi - a.rssi);
      const names = new Set(known.list().map((n) => n.ssid));
      for (const r of results) c.out(`ssid=${quoted(r.ssid)} rssi=${r.rssi} ch=${r.channel} secure=${r.secure ? 'yes' : 'no'} known=${names.has(r.ssid) ? 'yes' : 'no'}`);
      c.out(`networks=${results.length}`);
    },
  });

  commands.push({
    verb: 'WIFIKNOWN?',
    maxArgs: 0,
    help: 'the known networks, most recently joined first (never a passphrase)',
    run: (c) => {
      const list = known.list();
      const s = hal.wifi.station();
      list.forEach((n, i) =>
        c.out(`${i + 1} ssid=${quoted(n.ssid)} security=${n.pass ? 'wpa2' : 'open'} current=${s.state === 'connected' && s.ssid === n.ssid ? 'yes' : 'no'}`),
      );
      c.out(`known=${list.length} max=${KNOWN_MAX}`);
    },
  });

  commands.push({
    verb: 'WIFIRENAME',
    usage: '<old>|<new>',
    help: 'rename a known network (its passphrase stays), e.g. after the router was renamed',
    run: (c) => {
      const [from, to] = pair(c.args, 'WIFIRENAME <old>|<new>');
      const bad = ssidProblem(to);
      if (bad) throw new CommandError(`${bad}; nothing changed`);
      let r: 'ok' | 'unknown' | 'taken';
      try {
        r = known.rename(from, to);
      } catch (e) {
        throw new CommandError(`not saved (${errorMessage(e)}); nothing changed`);
      }
      if (r === 'unknown') throw new CommandError(`${quoted(from)} is not a known network (WIFIKNOWN? lists them)`);
      if (r === 'taken') throw new CommandError(`${quoted(to)} is known already; nothing changed`);
      c.out(`renamed ${quoted(from)} to ${quoted(to)}`);
    },
  });

  commands.push({
    verb: 'WIFIAP',
    usage: '[on or off]',
    maxArgs: 1,
    help: 'the setup network: its state; on holds it up, off returns it to its rules (until the next restart)',
    run: (c) => {
      if (!provisioning.active()) throw new CommandError('the setup network exists only in Orchestrator mode (MODE 1)');
      const arg = c.argv[0]?.toLowerCase();
      if (arg !== undefined && arg !== 'on' && arg !== 'off') throw new CommandError('usage: WIFIAP [on or off]');
      if (arg !== undefined) provisioning.forceSetup(arg === 'on');
      const v = provisioning.view();
      c.out(`setup=${v.setup.state} forced=${v.setup.forced ? 'yes' : 'no'} ssid=${SETUP_SSID} station=${v.station.state}`);
    },
  });
  return commands;
}

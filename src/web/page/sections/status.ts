// Status: the state snapshot (the named fields first, the whole snapshot
// below), the known Wi-Fi networks, and the redacted log ring, with a log
// download.

import { download, get } from '../api.ts';
import type { Section } from '../app.ts';
import { busy, bytes, card, duration, h, kv, message, replace, scrollable, text } from '../dom.ts';
import { wifiCard } from './wifi.ts';

type State = Record<string, unknown> & {
  heap?: Record<string, number>;
  wifi?: { provisioned?: boolean; station?: { state?: string; ssid?: string | null; ip?: string | null }; setup?: { state?: string; ssid?: string } };
  files?: { present?: boolean; unsupported?: boolean; count?: number; bytes?: number; quota?: number; cardFree?: number };
  memory?: { vectors?: number; cap?: number; degraded?: boolean; archive?: number };
};

function wifiLine(s: State): string {
  const w = s.wifi;
  if (!w) return '—';
  const st = w.station;
  const station = st?.state === 'connected' ? `connected to ${st.ssid ?? '?'} (${st.ip ?? 'no address'})` : `station ${st?.state ?? 'unknown'}`;
  const setup = w.setup?.state === 'up' ? `; setup network ${w.setup.ssid ?? ''} up` : '';
  return `${station}${setup}`;
}

export function cardLine(s: State): string {
  const f = s.files;
  if (!f) return text(s['sd']);
  if (f.unsupported) return 'unsupported card (under 1 GB): nothing is saved on it';
  if (!f.present) return 'no SD card: running in the bounded degraded mode';
  return `${bytes(f.bytes)} used by ${f.count ?? 0} files, quota ${bytes(f.quota)}, ${bytes(f.cardFree)} free`;
}

export const status: Section = {
  id: 'status',
  title: 'Status',
  async render(host) {
    const summary = h('div');
    const raw = scrollable(h('pre'), 'State snapshot');
    const log = scrollable(h('pre', { 'data-log': '1' }), 'Device log');
    const msg = message();
    const refresh = h('button', { type: 'button', class: 'secondary' }, 'Refresh');
    const save = h('button', { type: 'button', class: 'secondary' }, 'Download the log');
    const load = async (): Promise<void> => {
      const [s, l] = await Promise.all([get<State>('/api/state'), get<{ text?: string }>('/api/log')]);
      if (!s.ok) {
        msg.say(s.message, 'bad');
        return;
      }
      const st = s.data;
      const heap = st.heap ?? {};
      const mem = st.memory;
      replace(
        summary,
        kv([
          ['Firmware', `${text(st['version'])} (build ${text(st['buildId'])})`],
          ['Device type', text(st['board'])],
          ['Mode', st['mode'] === 0 ? 'Notifier (Bluetooth only)' : 'Orchestrator (Wi-Fi, web, assistant)'],
          ['Up for', typeof st['uptimeS'] === 'number' ? duration(st['uptimeS']) : '—'],
          ['Last restart', text(st['resetReason'])],
          ['Wi-Fi', wifiLine(st)],
          ['SD card', cardLine(st)],
          ['Memory', mem ? `${mem.vectors ?? 0} of ${mem.cap ?? '?'} memories${mem.degraded ? ' (degraded: no card)' : ''}` : '—'],
          ['Heap', `${bytes(heap['freeInternal'])} free internal (lowest ${bytes(heap['minFreeInternal'])}), ${bytes(heap['freePsram'])} PSRAM`],
          ['Updates', `${text(st['otaResult'])}${st['otaLatest'] ? `, latest ${text(st['otaLatest'])}` : ''}`],
          ['Outbound TLS', st['tlsVerify'] === false ? 'certificates NOT verified' : 'certificates verified'],
        ]),
      );
      raw.textContent = JSON.stringify(st, null, 2);
      log.textContent = l.ok ? (l.data.text ?? '') : l.message;
      msg.say('');
    };
    refresh.addEventListener('click', () => void busy(refresh, load));
    save.addEventListener('click', () =>
      void busy(save, async () => {
        const r = await download('/api/log', 'device-log.txt');
        msg.say(r.ok ? 'The log was downloaded.' : r.message, r.ok ? 'ok' : 'bad');
      }),
    );
    host.append(
      card('Device', summary, h('details', null, h('summary', null, 'The whole state snapshot'), raw)),
      wifiCard(),
      card('Log', h('p', { class: 'muted' }, 'The most recent lines (secrets are masked by the device).'), log, h('div', { class: 'row' }, refresh, save), msg),
    );
    await load();
  },
};

// The "Wi-Fi networks" card (GET/POST /api/wifi): the known networks, most
// recently joined first (never a passphrase), with Forget; a form that saves
// a network or its new passphrase. Saving never moves the device off the
// network this page talks through: it is joined when the current one is gone.

import { get, post } from '../api.ts';
import { busy, card, field, h, message, replace, text } from '../dom.ts';
import { itemList, listIn } from './generic.ts';

export function wifiCard(): HTMLElement {
  const list = h('div', { 'data-wifi-known': '1' });
  const msg = message();
  const load = async (): Promise<void> => {
    const r = await get<{ max?: number }>('/api/wifi');
    if (!r.ok) return replace(list, h('p', { class: 'msg bad' }, r.message));
    replace(
      list,
      itemList(listIn(r.data, 'known'), {
        title: (n) => `${text(n['ssid'])}${n['current'] ? ' (connected)' : ''}`,
        fields: ['security'],
        empty: 'No network is saved.',
        actions: [{ label: 'Forget', danger: true, run: (n) => post('/api/wifi', { action: 'forget', ssid: text(n['ssid']) }) }],
        after: () => void load(),
      }),
      h('p', { class: 'muted' }, `At most ${text(r.data.max)} networks; the strongest one in reach is joined.`),
    );
  };
  const ssid = h('input', { type: 'text', name: 'ssid', autocomplete: 'off', spellcheck: 'false', maxlength: '32' });
  const pass = h('input', { type: 'password', name: 'pass', autocomplete: 'new-password', maxlength: '63' });
  const save = h('button', { type: 'submit' }, 'Save network');
  const form = h('form', null, field('Network name', ssid), field('Passphrase', pass, 'empty for an open network'), h('div', { class: 'row' }, save), msg);
  form.addEventListener('submit', (e) => {
    e.preventDefault();
    void busy(save, async () => {
      const name = ssid.value;
      const r = await post<{ added?: boolean; station?: { state?: string; ssid?: string } }>('/api/wifi', { action: 'save', ssid: name, pass: pass.value });
      const st = r.data.station;
      const later = st?.state === 'connected' && st.ssid !== name ? ' It is joined when the current network is out of reach.' : '';
      msg.say(r.ok ? `${r.data.added ? 'Saved' : 'Updated'} ${name}.${later}` : r.message, r.ok ? 'ok' : 'bad');
      if (r.ok) {
        pass.value = '';
        await load();
      }
    });
  });
  void load();
  return card('Wi-Fi networks', list, form);
}

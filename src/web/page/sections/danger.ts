// The danger zone: Erase Storage, Factory Reset (optionally erasing the card)
// and Format Card, each confirmed by typing its exact phrase. The device is
// the judge: the page sends what was typed and shows the device's answer, so
// a wrong phrase is refused and changes nothing.

import { get, post, tokens } from '../api.ts';
import type { Section } from '../app.ts';
import { busy, check, field, h, message } from '../dom.ts';

interface Zone {
  title: string;
  what: string;
  phrase: string;
  path: string;
  button: string;
  after: string;
  extra?: () => { el: HTMLElement; fields(): Record<string, string> };
  needsCard?: boolean;
}

const ZONES: Zone[] = [
  {
    title: 'Erase storage',
    what: 'Deletes everything the device keeps on the SD card: memories, the conversation log and files. Settings, keys and Wi-Fi stay.',
    phrase: 'ERASE STORAGE',
    path: '/api/storage/erase',
    button: 'Erase storage',
    after: 'Erasing; the device restarts when done.',
  },
  {
    title: 'Factory reset',
    what: 'Erases every setting, key, the Wi-Fi network, the device name and the access token. Only the panel model, mount orientation, touch calibration and update channel are kept. The device restarts into first-run setup.',
    phrase: 'FACTORY RESET',
    path: '/api/factory-reset',
    button: 'Factory reset',
    after: 'Resetting; the device restarts into first-run setup. Sign in again from its screen.',
    extra: () => {
      const box = h('input', { name: 'eraseCard' });
      return { el: check('Also erase the SD card', box), fields: (): Record<string, string> => (box.checked ? { eraseCard: '1' } : {}) };
    },
  },
  {
    title: 'Format card',
    what: 'Removes everything on the SD card, including files not made by the device.',
    phrase: 'FORMAT CARD',
    path: '/api/card/format',
    button: 'Format card',
    after: 'Formatting; the device restarts when done.',
    needsCard: true,
  },
];

export const danger: Section = {
  id: 'danger',
  title: 'Danger zone',
  async render(host) {
    const state = await get<{ files?: { present?: boolean } }>('/api/state');
    const cardPresent = state.ok ? state.data.files?.present === true : true;
    for (const z of ZONES) {
      const input = h('input', { type: 'text', name: 'confirm', autocomplete: 'off', autocapitalize: 'characters', spellcheck: 'false' });
      const msg = message();
      const submit = h('button', { type: 'submit', class: 'danger' }, z.button);
      const extra = z.extra?.();
      const noCard = z.needsCard && !cardPresent;
      const form = h(
        'form',
        { class: 'card danger-zone', 'data-zone': z.path },
        h('h3', null, z.title),
        h('p', null, z.what),
        noCard ? h('p', { class: 'msg warn' }, 'There is no SD card to format.') : null,
        field(`Type ${z.phrase} to confirm`, input),
        extra?.el,
        submit,
        msg,
      );
      if (noCard) {
        input.disabled = true;
        submit.disabled = true;
      }
      form.addEventListener('submit', (e) => {
        e.preventDefault();
        void busy(submit, async () => {
          const r = await post(z.path, { confirm: input.value, ...(extra ? extra.fields() : {}) });
          if (r.ok) {
            msg.say(z.after, 'warn');
            input.value = '';
            if (z.path === '/api/factory-reset') tokens.clear();
          } else msg.say(r.message, 'bad');
        });
      });
      host.append(form);
    }
  },
};

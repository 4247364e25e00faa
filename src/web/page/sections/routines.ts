// Routines & Wakeups: routines with their approval (approve, pause, resume,
// delete) and wakeups with the approval mode (ask or auto), approve and
// cancel (POST /api/wakeups action=mode|approve|cancel).

import { post } from '../api.ts';
import type { Section } from '../app.ts';
import { card, field, h, message, text } from '../dom.ts';
import { itemList, listIn, loadList } from './generic.ts';

const approved = (x: Record<string, unknown>): boolean => x['approved'] === true || x['approval'] === 'approved' || x['approval'] === true;

export const routines: Section = {
  id: 'routines',
  title: 'Routines & Wakeups',
  async render(host) {
    const routinesHost = h('div');
    const wakeupsHost = h('div');
    host.append(
      card('Routines', h('p', { class: 'muted' }, 'Routines the assistant creates wait for your approval before they can run.'), routinesHost),
      card('Wakeups', h('p', { class: 'muted' }, 'A wakeup runs one assistant turn at its time, once.'), wakeupsHost),
    );
    const loadRoutines = (): Promise<unknown> =>
      loadList(routinesHost, '/api/routines', 'Routines', (data) =>
        itemList(listIn(data, 'routines', 'loops'), {
          title: (r) => `${text(r['name'] ?? r['id'])}`,
          empty: 'No routines.',
          actions: [
            { label: 'Approve', when: (r) => !approved(r), run: (r) => post('/api/routines', { action: 'approve', id: text(r['id']) }) },
            { label: 'Pause', when: (r) => approved(r) && r['enabled'] !== false, run: (r) => post('/api/routines', { action: 'off', id: text(r['id']) }) },
            { label: 'Resume', when: (r) => approved(r) && r['enabled'] === false, run: (r) => post('/api/routines', { action: 'on', id: text(r['id']) }) },
            { label: 'Delete', danger: true, run: (r) => post('/api/routines', { action: 'deny', id: text(r['id']) }) },
          ],
          after: () => void loadRoutines(),
        }),
      );
    const loadWakeups = (): Promise<unknown> =>
      loadList(wakeupsHost, '/api/wakeups', 'Wakeups', (data) => {
        const d = (data ?? {}) as Record<string, unknown>;
        const mode = h('select', { name: 'mode' }, h('option', { value: 'ask' }, 'Ask me before each wakeup is armed'), h('option', { value: 'auto' }, 'Arm wakeups automatically'));
        mode.value = text(d['mode'] ?? d['approval'] ?? 'ask');
        const mmsg = message();
        mode.addEventListener('change', async () => {
          const r = await post('/api/wakeups', { action: 'mode', value: mode.value });
          mmsg.say(r.ok ? 'Saved.' : r.message, r.ok ? 'ok' : 'bad');
        });
        return [
          field('Approval', mode),
          mmsg,
          itemList(listIn(d, 'wakeups', 'items'), {
            title: (w) => `${text(w['note'] ?? w['id'])}`,
            empty: 'No wakeups.',
            actions: [
              { label: 'Approve', when: (w) => w['state'] === 'pending' || w['armed'] === false, run: (w) => post('/api/wakeups', { action: 'approve', id: text(w['id']) }) },
              { label: 'Cancel', danger: true, run: (w) => post('/api/wakeups', { action: 'cancel', id: text(w['id']) }) },
            ],
            after: () => void loadWakeups(),
          }),
        ];
      });
    await Promise.all([loadRoutines(), loadWakeups()]);
  },
};

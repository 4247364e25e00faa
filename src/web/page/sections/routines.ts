// Routines & Wakeups: the owner's time zone (GET/POST /api/timezone, a POSIX
// TZ string, with common zones offered; the device's one zone, its screen's
// clock and the assistant's sense of now too), routines with their approval
// (approve, pause, resume, delete: POST /api/routines action=approve|off|on|deny),
// and wakeups and reminders with the approval mode (ask or auto), approve and
// cancel (POST /api/wakeups action=mode|approve|cancel).

import { post } from '../api.ts';
import type { Section } from '../app.ts';
import { busy, card, field, h, message, text, uid } from '../dom.ts';
import { itemList, listIn, loadList } from './generic.ts';
// The device's own list (the screen's menu steps through it): one list, checked against the IANA database.
import { COMMON_ZONES } from '../../../util/zones.ts';

const approved = (x: Record<string, unknown>): boolean => x['approved'] === true || x['approval'] === 'approved' || x['approval'] === true;

export const routines: Section = {
  id: 'routines',
  title: 'Routines & Wakeups',
  async render(host) {
    const zoneHost = h('div');
    const routinesHost = h('div');
    const wakeupsHost = h('div');
    host.append(
      card('Time zone', h('p', { class: 'muted' }, 'The device\'s local time: daily and weekly routines run at it, the screen\'s clock and the assistant use it, daylight saving included.'), zoneHost),
      card('Routines', h('p', { class: 'muted' }, 'Routines the assistant creates wait for your approval before they can run.'), routinesHost),
      card('Wakeups and reminders', h('p', { class: 'muted' }, 'A wakeup runs one assistant turn at its time, once. Reminders come from /remind in the chat.'), wakeupsHost),
    );
    const loadZone = (): Promise<unknown> =>
      loadList(zoneHost, '/api/timezone', 'The time zone setting', (data) => {
        const d = (data ?? {}) as Record<string, unknown>;
        const list = uid('z');
        const tz = h('input', { type: 'text', name: 'tz', list, value: text(d['tz']), autocomplete: 'off', spellcheck: 'false' });
        const save = h('button', { type: 'button' }, 'Save time zone');
        const msg = message();
        save.addEventListener('click', () =>
          void busy(save, async () => {
            const r = await post('/api/timezone', { tz: tz.value });
            msg.say(r.ok ? text(r.data['message'] ?? 'Saved.') : r.message, r.ok ? 'ok' : 'bad');
            if (r.ok) void loadRoutines();
          }),
        );
        return [
          h('p', null, `Now: ${text(d['now'])} (UTC${text(d['offset'])})`),
          field('Time zone (POSIX TZ)', tz, 'Pick a place, or write a POSIX TZ string such as CET-1CEST,M3.5.0,M10.5.0/3.'),
          h('datalist', { id: list }, COMMON_ZONES.map((z) => h('option', { value: z.tz }, z.places))),
          save,
          msg,
        ];
      });
    const loadRoutines = (): Promise<unknown> =>
      loadList(routinesHost, '/api/routines', 'Routines', (data) =>
        itemList(listIn(data, 'routines', 'loops'), {
          title: (r) => `${text(r['name'] ?? r['id'])} (${text(r['id'])})`,
          fields: ['approval', 'enabled', 'schedule', 'next', 'last', 'chat_id', 'created_by', 'prompt'],
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
          d['armedMax'] !== undefined ? h('p', { class: 'muted' }, `${text(d['armed'])} of ${text(d['armedMax'])} wakeups armed.`) : null,
          itemList(listIn(d, 'wakeups', 'items'), {
            title: (w) => `${text(w['note'] ?? w['id'])}`,
            fields: ['kind', 'state', 'due', 'minutes', 'tries', 'id'],
            empty: 'No wakeups or reminders.',
            actions: [
              { label: 'Approve', when: (w) => w['state'] === 'pending' || w['armed'] === false, run: (w) => post('/api/wakeups', { action: 'approve', id: text(w['id']) }) },
              { label: 'Cancel', danger: true, run: (w) => post('/api/wakeups', { action: 'cancel', id: text(w['id']) }) },
            ],
            after: () => void loadWakeups(),
          }),
        ];
      });
    await Promise.all([loadZone(), loadRoutines(), loadWakeups()]);
  },
};

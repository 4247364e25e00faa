// People: who may talk to the device in chat, their role (admin, user,
// guest, unknown = revoked) and quotas (0 restores the role's default).

import { post } from '../api.ts';
import type { Section } from '../app.ts';
import { busy, card, field, h, message, text } from '../dom.ts';
import { listIn, loadList } from './generic.ts';

const ROLES = ['admin', 'user', 'guest', 'unknown'];
const QUOTAS: Array<[string, string]> = [
  ['vectors', 'Memories'],
  ['bytes', 'Bytes of memory'],
  ['ttl_hours', 'Longest memory lifetime (hours)'],
  ['pins', 'Pins'],
];

function person(p: Record<string, unknown>, reload: () => void): HTMLElement {
  const chat = text(p['chat'] ?? p['chat_id'] ?? p['id']);
  const role = h('select', { name: 'role' }, ROLES.map((r) => h('option', { value: r }, r === 'unknown' ? 'unknown (revoked)' : r)));
  role.value = text(p['role']);
  const quotas = (p['quotas'] && typeof p['quotas'] === 'object' ? p['quotas'] : p) as Record<string, unknown>;
  const inputs = QUOTAS.map(([k, label]) => [k, field(label, h('input', { type: 'number', min: '0', step: '1', name: k, value: quotas[k] === undefined ? '' : text(quotas[k]) }))] as const);
  const msg = message();
  const save = h('button', { type: 'button' }, 'Save');
  save.addEventListener('click', () =>
    void busy(save, async () => {
      const r1 = await post('/api/people', { action: 'role', chat, role: role.value });
      if (!r1.ok) return msg.say(r1.message, 'bad');
      const form: Record<string, string> = { action: 'quota', chat };
      for (const [k, f] of inputs) {
        const v = (f.querySelector('input') as HTMLInputElement).value;
        if (v !== '') form[k] = v;
      }
      const r2 = await post('/api/people', form);
      msg.say(r2.ok ? 'Saved.' : r2.message, r2.ok ? 'ok' : 'bad');
      if (r2.ok) reload();
    }),
  );
  return h('li', null, h('strong', null, `${text(p['name'] ?? chat)}`), p['name'] ? h('span', { class: 'muted' }, ` (${chat})`) : null, field('Role', role), h('details', null, h('summary', null, 'Quotas (0 = the role\'s default)'), inputs.map(([, f]) => f)), save, msg);
}

export const people: Section = {
  id: 'people',
  title: 'People',
  async render(host) {
    const list = h('div');
    host.append(card('People and roles', h('p', { class: 'muted' }, 'Admins manage the device from chat; users and guests may converse; unknown means revoked. The last admin cannot be demoted.'), list));
    const load = (): Promise<unknown> =>
      loadList(list, '/api/people', 'People and roles', (data) => {
        const items = listIn(data, 'people', 'tenants');
        return items.length ? h('ul', { class: 'items' }, items.map((p) => person(p, () => void load()))) : h('p', { class: 'muted' }, 'Nobody yet: add chats to the allowlist first.');
      });
    await load();
  },
};

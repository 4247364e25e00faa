// Shared pieces for sections whose subsystem may not be built yet: a plain
// "not built" note (a route answering 404 means the firmware lacks it), and
// a tolerant list of objects with per-item actions, so a section keeps
// working when its subsystem's answer grows fields.

import { get, missing, type ApiResult } from '../api.ts';
import { busy, h, message, replace, scrollable, text, type Kid } from '../dom.ts';

export function notBuilt(what: string): HTMLElement {
  return h('p', { class: 'unavailable', 'data-unavailable': '1' }, `${what} is not built on this firmware yet.`);
}

/** The list in an answer: the answer itself, or its first array-valued field. */
export function listIn(data: unknown, ...names: string[]): Array<Record<string, unknown>> {
  if (Array.isArray(data)) return data.filter((x) => x && typeof x === 'object') as Array<Record<string, unknown>>;
  if (!data || typeof data !== 'object') return [];
  const obj = data as Record<string, unknown>;
  for (const n of names) if (Array.isArray(obj[n])) return listIn(obj[n]);
  for (const v of Object.values(obj)) if (Array.isArray(v)) return listIn(v);
  return [];
}

export interface ItemAction {
  label: string;
  danger?: boolean;
  when?(item: Record<string, unknown>): boolean;
  run(item: Record<string, unknown>): Promise<ApiResult<unknown>>;
}

export interface ListOptions {
  /** The item's headline. */
  title(item: Record<string, unknown>): Kid;
  /** Fields shown under it (default: every scalar field but the headline's). */
  fields?: string[];
  actions?: ItemAction[];
  empty: string;
  /** Called after an action succeeded (reload). */
  after?(): void;
  /** A button that loads the item's full text and shows it under the item (e.g. a skill's markdown). */
  more?: { label: string; load(item: Record<string, unknown>): Promise<ApiResult<string>> };
}

export function itemList(items: Array<Record<string, unknown>>, o: ListOptions): HTMLElement {
  if (!items.length) return h('p', { class: 'muted' }, o.empty);
  const ul = h('ul', { class: 'items' });
  for (const item of items) {
    const keys = o.fields ?? Object.keys(item).filter((k) => item[k] === null || typeof item[k] !== 'object');
    const msg = message();
    const buttons = (o.actions ?? [])
      .filter((a) => !a.when || a.when(item))
      .map((a) => {
        const b = h('button', { type: 'button', class: a.danger ? 'danger' : 'secondary' }, a.label);
        b.addEventListener('click', () =>
          void busy(b, async () => {
            const r = await a.run(item);
            msg.say(r.ok ? 'Done.' : r.message, r.ok ? 'ok' : 'bad');
            if (r.ok) o.after?.();
          }),
        );
        return b;
      });
    const shown = h('div');
    if (o.more) {
      const more = o.more;
      const b = h('button', { type: 'button', class: 'secondary' }, more.label);
      b.addEventListener('click', () =>
        void busy(b, async () => {
          const r = await more.load(item);
          if (r.ok) replace(shown, scrollable(h('pre', null, r.data), text(o.title(item))));
          else msg.say(r.message, 'bad');
        }),
      );
      buttons.unshift(b);
    }
    ul.append(
      h(
        'li',
        null,
        h('strong', null, o.title(item)),
        h('div', { class: 'muted' }, keys.filter((k) => item[k] !== undefined).map((k) => h('span', { class: 'tag' }, `${k}: ${text(item[k])}`))),
        shown,
        buttons.length ? h('div', { class: 'row' }, buttons) : null,
        msg,
      ),
    );
  }
  return ul;
}

/** Loads a list route into a host; a 404 reads as "not built". */
export async function loadList(host: HTMLElement, path: string, what: string, build: (data: unknown) => Kid): Promise<unknown> {
  const r = await get<unknown>(path);
  if (missing(r)) replace(host, notBuilt(what));
  else if (!r.ok) replace(host, h('p', { class: 'msg bad' }, r.message));
  else replace(host, build(r.data));
  return r.ok ? r.data : null;
}

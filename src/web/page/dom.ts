// Small DOM helpers for the owner's page: an element builder, labelled
// fields, live messages. Everything the page shows is built here from API
// answers with textContent (never innerHTML), so device data cannot inject
// markup.

export type Kid = Node | string | number | null | undefined | false | Kid[];
type Handler = (e: Event) => void;
export type Attrs = Record<string, string | number | boolean | null | undefined | Handler>;

let seq = 0;
/** A fresh element id (labels and descriptions need ids). */
export function uid(prefix = 'f'): string {
  seq += 1;
  return `${prefix}${seq}`;
}

function append(el: Node, kid: Kid): void {
  if (kid === null || kid === undefined || kid === false) return;
  if (Array.isArray(kid)) {
    for (const k of kid) append(el, k);
    return;
  }
  el.appendChild(typeof kid === 'string' || typeof kid === 'number' ? document.createTextNode(String(kid)) : kid);
}

export function h<K extends keyof HTMLElementTagNameMap>(tag: K, attrs: Attrs | null = null, ...kids: Kid[]): HTMLElementTagNameMap[K] {
  const el = document.createElement(tag);
  if (attrs) {
    for (const [k, v] of Object.entries(attrs)) {
      if (v === null || v === undefined || v === false) continue;
      if (typeof v === 'function') el.addEventListener(k.slice(2).toLowerCase(), v);
      else if (k === 'class') el.className = String(v);
      else if (k === 'value') (el as unknown as { value: string }).value = String(v);
      else if (k === 'checked') (el as unknown as { checked: boolean }).checked = v === true;
      else el.setAttribute(k, v === true ? '' : String(v));
    }
  }
  append(el, kids);
  return el;
}

export function clear(el: Element): void {
  while (el.firstChild) el.removeChild(el.firstChild);
}

/** What can take the focus from the keyboard inside an element, in document order. */
const FOCUSABLE = 'a[href], button, input, select, textarea, summary, [tabindex]:not([tabindex="-1"])';

/** What names a control across a redraw: its data-focus, its name, its aria-label or its text, with its tag. */
function focusKey(el: HTMLElement): string {
  const name = el.dataset['focus'] ?? el.getAttribute('name') ?? el.getAttribute('aria-label') ?? el.textContent?.trim() ?? '';
  return `${el.tagName}:${name}`;
}

/**
 * Replaces an element's content. When the focus was inside it (a button of a
 * list drawn again after its action, a form redrawn after a save), it goes to
 * the new control of the same name, else to the one at the same place, so a
 * keyboard user does not fall back to the top of the page.
 */
export function replace(el: Element, ...kids: Kid[]): void {
  const active = document.activeElement;
  const had = active instanceof HTMLElement && active !== el && el.contains(active) ? active : null;
  const key = had ? focusKey(had) : '';
  const focusable = (): HTMLElement[] => [...el.querySelectorAll<HTMLElement>(FOCUSABLE)].filter((c) => !c.matches(':disabled'));
  const at = had ? focusable().indexOf(had) : -1;
  clear(el);
  append(el, kids);
  if (!had) return;
  const now = focusable();
  const next = now.find((c) => focusKey(c) === key) ?? now[Math.min(at, now.length - 1)];
  next?.focus();
}

type Control = HTMLInputElement | HTMLSelectElement | HTMLTextAreaElement;

/** A labelled control: the label names it for screen readers, the hint describes it. */
export function field(label: string, control: Control, hint?: Kid): HTMLElement {
  if (!control.id) control.id = uid();
  let hintEl: HTMLElement | null = null;
  if (hint) {
    hintEl = h('small', { id: uid('d') }, hint);
    control.setAttribute('aria-describedby', hintEl.id);
  }
  return h('div', { class: 'field' }, h('label', { for: control.id }, label), control, hintEl);
}

/** A checkbox with its label beside it. */
export function check(label: string, input: HTMLInputElement, hint?: string): HTMLElement {
  input.type = 'checkbox';
  if (!input.id) input.id = uid();
  return h('div', { class: 'check' }, input, h('label', { for: input.id }, label, hint ? h('br') : null, hint ? h('small', { class: 'muted' }, hint) : null));
}

/** A polite live region for the outcome of an action. */
export type Message = HTMLElement & { say(text: string, kind?: 'ok' | 'warn' | 'bad' | ''): void };
export function message(): Message {
  const el = h('div', { class: 'msg', role: 'status', 'aria-live': 'polite' }) as unknown as Message;
  el.say = (text, kind = '') => {
    el.className = `msg ${kind}`;
    el.textContent = text;
  };
  return el;
}

/**
 * A box that may scroll (a log, a skill's text): a named region in the tab
 * order, so the keyboard can reach it and scroll it with the arrow keys
 * (a scrolling box without a control inside is otherwise out of reach).
 */
export function scrollable<E extends HTMLElement>(el: E, label: string): E {
  el.setAttribute('role', 'region');
  el.setAttribute('aria-label', label);
  el.tabIndex = 0;
  return el;
}

export function card(title: string, ...kids: Kid[]): HTMLElement {
  const id = uid('h');
  return h('section', { class: 'card', 'aria-labelledby': id }, h('h3', { id }, title), ...kids);
}

/** A definition list of label/value pairs (values may be nodes). */
export function kv(pairs: Array<[string, Kid]>): HTMLElement {
  const dl = h('dl', { class: 'kv' });
  for (const [k, v] of pairs) {
    if (v === undefined) continue;
    dl.append(h('dt', null, k), h('dd', null, v === null || v === '' ? '—' : v));
  }
  return dl;
}

/**
 * Runs an async action with its button marked busy, so a double click sends
 * once. aria-disabled, not disabled: a disabled button drops the keyboard
 * focus to the page, and whoever pressed Enter would lose their place.
 */
export async function busy(button: HTMLButtonElement, work: () => Promise<void>): Promise<void> {
  if (button.disabled || button.getAttribute('aria-busy') === 'true') return;
  button.setAttribute('aria-disabled', 'true');
  button.setAttribute('aria-busy', 'true');
  try {
    await work();
  } finally {
    button.removeAttribute('aria-disabled');
    button.removeAttribute('aria-busy');
  }
}

export function bytes(n: unknown): string {
  if (typeof n !== 'number' || !Number.isFinite(n)) return '—';
  const units = ['bytes', 'KB', 'MB', 'GB', 'TB'];
  let v = n;
  let i = 0;
  while (v >= 1024 && i < units.length - 1) {
    v /= 1024;
    i++;
  }
  return i === 0 ? `${v} bytes` : `${v.toFixed(v < 10 ? 1 : 0)} ${units[i]}`;
}

export function duration(seconds: number): string {
  const s = Math.max(0, Math.floor(seconds));
  const d = Math.floor(s / 86400);
  const hh = Math.floor((s % 86400) / 3600);
  const mm = Math.floor((s % 3600) / 60);
  const ss = s % 60;
  if (d) return `${d} d ${hh} h`;
  if (hh) return `${hh} h ${mm} min`;
  if (mm) return `${mm} min ${ss} s`;
  return `${ss} s`;
}

export function when(ms: unknown): string {
  if (typeof ms !== 'number' || !Number.isFinite(ms) || ms <= 0) return '—';
  // Before 2020 the device clock was not set yet.
  if (ms < 1577836800000) return 'clock not set';
  return new Date(ms).toLocaleString();
}

/** Plain text of a value for generic lists. */
export function text(v: unknown): string {
  if (v === null || v === undefined) return '—';
  if (typeof v === 'string') return v;
  if (typeof v === 'number' || typeof v === 'boolean') return String(v);
  return JSON.stringify(v);
}

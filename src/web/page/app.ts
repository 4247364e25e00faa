// The signed-in page: the section navigation (one link per section, the
// address's #hash names the open one, so it can be bookmarked and moved
// through with the keyboard), and the scope each open section runs in (its
// timers stop when another section opens).

import { h, replace } from './dom.ts';

export interface Scope {
  /** False once another section has opened. */
  alive(): boolean;
  /** setInterval that stops with the section. */
  every(ms: number, fn: () => void): void;
}

export interface Section {
  id: string;
  title: string;
  render(host: HTMLElement, scope: Scope): Promise<void> | void;
}

let sections: Section[] = [];
let current: { alive: boolean; timers: number[] } | null = null;

function closeCurrent(): void {
  if (!current) return;
  current.alive = false;
  for (const t of current.timers) clearInterval(t);
  current = null;
}

function byHash(): Section {
  const id = location.hash.slice(1);
  return sections.find((s) => s.id === id) ?? sections[0]!;
}

async function open(moveFocus: boolean): Promise<void> {
  const section = byHash();
  closeCurrent();
  const me = { alive: true, timers: [] as number[] };
  current = me;
  const nav = document.getElementById('nav')!;
  for (const a of Array.from(nav.querySelectorAll('a'))) {
    if (a.getAttribute('href') === `#${section.id}`) a.setAttribute('aria-current', 'page');
    else a.removeAttribute('aria-current');
  }
  const main = document.getElementById('main')!;
  const heading = h('h2', { tabindex: '-1', id: `${section.id}-title` }, section.title);
  const host = h('div', { 'data-section': section.id });
  replace(main, heading, host);
  document.title = `${section.title} · Desk assistant`;
  if (moveFocus) heading.focus();
  const scope: Scope = {
    alive: () => me.alive,
    every: (ms, fn) => {
      if (me.alive) me.timers.push(window.setInterval(() => me.alive && fn(), ms));
    },
  };
  try {
    await section.render(host, scope);
  } catch (e) {
    if (me.alive) host.append(h('p', { class: 'msg bad', role: 'alert' }, `This section failed to load: ${String(e)}`));
  }
  if (me.alive) host.setAttribute('data-ready', '1');
}

let listening = false;

export function showApp(list: Section[]): void {
  sections = list;
  const nav = document.getElementById('nav')!;
  replace(nav, ...list.map((s) => h('a', { href: `#${s.id}` }, s.title)));
  nav.hidden = false;
  if (!listening) {
    listening = true;
    window.addEventListener('hashchange', () => {
      if (!document.getElementById('nav')!.hidden) void open(true);
    });
  }
  void open(false);
}

export function hideApp(): void {
  closeCurrent();
  const nav = document.getElementById('nav')!;
  nav.hidden = true;
  replace(nav);
}

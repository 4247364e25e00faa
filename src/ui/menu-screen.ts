// The settings menu: its rows (src/ui/menu-items.ts) paged to fit the panel
// (Close in the title bar on every page, More... to turn pages), the row
// under a finger highlighted, a tap or a hold routed to the row under it,
// and where each row lies on the panel (MENU?). It goes back after
// MENU_IDLE_MS without a touch.

import { menuItems, type MenuItem, type MenuNeeds } from './menu-items.ts';
import { canvasToDisplay } from './raster.ts';
import type { Built, Press, Screen, ScreenHost } from './screen-kit.ts';
import { menuCapacity, menuScreen, type Frame, type MenuRow, type MenuView, type Target } from './screens.ts';
import { stringify } from '../util/json.ts';

export const MENU_IDLE_MS = 30_000;

export interface MenuState {
  open: boolean;
  page: number;
  pages: number;
  pressed: string | null;
  rows: Array<MenuRow & { display: { x: number; y: number; w: number; h: number } }>;
}

export class MenuScreen implements Screen {
  private page = 0;

  constructor(
    private readonly host: ScreenHost,
    private readonly needs: MenuNeeds,
    /** The target under a finger now (highlighted). */
    private readonly pressed: () => string | null,
  ) {}

  enter(): void {
    this.page = 0;
  }

  lapsed(idleMs: number, sinceChosenMs: number): boolean {
    return sinceChosenMs > MENU_IDLE_MS && idleMs > MENU_IDLE_MS;
  }

  build(): Built {
    const l = this.host.layout();
    const t = this.host.theme();
    const { rows, pages } = this.paged();
    const { hal } = this.host.dev;
    const footer = pages > 1 ? '' : `${hal.build.version} - ${hal.board.type}`;
    const v: MenuView = { title: 'Settings', rows: rows.map((r) => ({ id: r.id, label: r.label, ...(r.short ? { short: r.short } : {}), value: r.value })), pressed: this.pressed(), footer };
    return { key: `menu|${t.name}|${stringify(v)}`, make: () => menuScreen(l, t, v) };
  }

  act(target: Target, how: Press): void {
    const item = this.paged().rows.find((r) => r.id === target.id);
    if (!item) return;
    if (how === 'tap') item.tap();
    else item.hold?.();
    this.host.nav.renew();
  }

  /** The rows and where each lies on the panel: from the frame showing, or (menu closed) as it would be drawn. */
  state(open: boolean, shown: Frame | null): MenuState {
    const { rows, page, pages } = this.paged();
    const frame = open ? shown : menuScreen(this.host.layout(), this.host.theme(), { title: 'Settings', rows, pressed: null, footer: '' });
    const targets = frame?.targets ?? [];
    const { width, height } = this.host.dev.hal.display;
    return {
      open,
      page,
      pages,
      pressed: this.pressed(),
      rows: rows.map((r) => {
        const t = targets.find((x) => x.id === r.id) ?? { x: 0, y: 0, w: 0, h: 0 };
        return { ...r, display: canvasToDisplay(t, width, height, this.host.rotation()) };
      }),
    };
  }

  /** This page's rows: Close (the title bar's, on every page), then as many as fit, then More... when they do not all fit. */
  private paged(): { rows: MenuItem[]; page: number; pages: number } {
    const items = menuItems(this.host, this.needs);
    const [close, ...rest] = items;
    const cap = menuCapacity(this.host.layout());
    if (rest.length <= cap) return { rows: items, page: 0, pages: 1 };
    const per = cap - 1;
    const pages = Math.ceil(rest.length / per);
    const page = Math.min(this.page, pages - 1);
    const rows = [close!, ...rest.slice(page * per, page * per + per)];
    rows.push({ id: 'more', label: 'More...', short: 'More', value: `${page + 1}/${pages}`, tap: () => (this.page = (page + 1) % pages), hold: () => (this.page = (page - 1 + pages) % pages) });
    return { rows, page, pages };
  }
}

// The device's screens, registered by name as routes and tools are: adding a
// screen is its module (a class implementing Screen, screen-kit.ts) plus one
// line in SCREENS (docs/architecture.md, "Add a screen"). Screens are made in
// the table's order; one that works with another (the menu opens the sign-in
// and Wi-Fi screens) asks for it by name and class, so a missing or later
// peer fails at boot, naming both.

import { MenuScreen } from './menu-screen.ts';
import type { MenuNeeds } from './menu-items.ts';
import { NoticeScreen } from './notice-screen.ts';
import { ProbeScreen } from './probe-screen.ts';
import { SaverScreen } from './saver-screen.ts';
import type { Screen, ScreenHost, ScreenName } from './screen-kit.ts';
import { SigninScreen } from './signin-screen.ts';
import { StatusScreen } from './status-screen.ts';
import { UpdateScreen } from './update-screen.ts';
import { WifiScreen } from './wifi-screen.ts';

/** The Ui's own controls a screen may use (the menu's rows), beside the host every screen gets. */
export type UiControls = Omit<MenuNeeds, 'notices' | 'signin' | 'wifi'> & {
  /** The target under a finger now (the menu highlights it). */
  pressedId(): string | null;
};

/** A screen class, for the typed lookup of a peer. */
type ScreenClass<T extends Screen> = abstract new (...args: never[]) => T;

/** What a screen's maker receives. */
export interface ScreenWiring {
  host: ScreenHost;
  ui: UiControls;
  /** A screen made before this one, by name and class. */
  peer<T extends Screen>(name: ScreenName, cls: ScreenClass<T>): T;
}

/** Every screen, in the order they are made. */
export const SCREENS: ReadonlyArray<readonly [ScreenName, (w: ScreenWiring) => Screen]> = [
  ['notice', (w) => new NoticeScreen(w.host)],
  ['signin', (w) => new SigninScreen(w.host)],
  ['wifi', (w) => new WifiScreen(w.host)],
  ['probe', (w) => new ProbeScreen(w.host)],
  ['status', (w) => new StatusScreen(w.host, w.peer('signin', SigninScreen))],
  ['update', (w) => new UpdateScreen(w.host)],
  ['saver', (w) => new SaverScreen(w.host)],
  ['menu', (w) => new MenuScreen(w.host, { ...w.ui, notices: w.peer('notice', NoticeScreen), signin: w.peer('signin', SigninScreen), wifi: w.peer('wifi', WifiScreen) }, w.ui.pressedId)],
];

/** The screens made from a table, by name. */
export class ScreenSet {
  private readonly byName = new Map<ScreenName, Screen>();

  constructor(host: ScreenHost, ui: UiControls, table: typeof SCREENS = SCREENS) {
    for (const [name, make] of table) {
      if (this.byName.has(name)) throw new Error(`ui: two screens are named ${name}`);
      this.byName.set(name, make({ host, ui, peer: (n, cls) => this.typed(n, cls, name) }));
    }
  }

  has(name: ScreenName): boolean {
    return this.byName.has(name);
  }

  /** The screen of that name; an unknown name is a programming error. */
  screen(name: ScreenName): Screen {
    const s = this.byName.get(name);
    if (!s) throw new Error(`ui: no screen is named ${name}`);
    return s;
  }

  /** The screen of that name as its class (the Ui's own reads of the status, notice ... screens). */
  get<T extends Screen>(name: ScreenName, cls: ScreenClass<T>): T {
    return this.typed(name, cls, 'the Ui');
  }

  private typed<T extends Screen>(name: ScreenName, cls: ScreenClass<T>, asker: string): T {
    const s = this.byName.get(name);
    if (!s) throw new Error(`ui: ${asker} needs the ${name} screen, which is not made before it (src/ui/screen-list.ts)`);
    if (!(s instanceof cls)) throw new Error(`ui: ${asker} needs the ${name} screen as ${cls.name}`);
    return s;
  }
}

// The screen registry (src/ui/screen-list.ts): every screen the Ui shows is
// made from the table by name, a new screen is one more line, and a screen
// that asks for a peer the table has not made yet, or a name taken twice,
// fails at boot saying which.
import { describe, expect, it } from 'vitest';
import { SCREENS, ScreenSet, type UiControls } from '../../../src/ui/screen-list.ts';
import type { Built, Screen, ScreenHost } from '../../../src/ui/screen-kit.ts';
import { SigninScreen } from '../../../src/ui/signin-screen.ts';
import { StatusScreen } from '../../../src/ui/status-screen.ts';

// Screens keep their host and read it only when drawn or touched.
const host = {} as ScreenHost;
const controls = {} as UiControls;

class TimerScreen implements Screen {
  constructor(readonly signin: SigninScreen) {}
  build(): Built {
    return { key: 'timer', make: () => ({ list: [], targets: [] }) as unknown as ReturnType<Built['make']> };
  }
}

describe('the screen registry', () => {
  it('makes every screen of the table, the ones the Ui reads by their class', () => {
    const set = new ScreenSet(host, controls);
    expect(SCREENS.map(([n]) => n)).toEqual(['notice', 'signin', 'wifi', 'probe', 'status', 'update', 'saver', 'menu']);
    for (const [name] of SCREENS) expect(set.has(name)).toBe(true);
    expect(set.get('status', StatusScreen)).toBeInstanceOf(StatusScreen);
    expect(() => set.get('status', SigninScreen)).toThrow('ui: the Ui needs the status screen as SigninScreen');
    expect(() => set.screen('timer')).toThrow('ui: no screen is named timer');
  });

  it('a new screen is one line of the table, and it may use a screen made before it', () => {
    const set = new ScreenSet(host, controls, [...SCREENS, ['timer', (w) => new TimerScreen(w.peer('signin', SigninScreen))]]);
    const timer = set.screen('timer');
    expect(timer).toBeInstanceOf(TimerScreen);
    expect((timer as TimerScreen).signin).toBe(set.get('signin', SigninScreen));
    expect(timer.build().key).toBe('timer');
  });

  it('a peer made later, or a name taken twice, fails at boot naming both', () => {
    expect(() => new ScreenSet(host, controls, [['timer', (w) => new TimerScreen(w.peer('signin', SigninScreen))], ...SCREENS])).toThrow(
      'ui: timer needs the signin screen, which is not made before it (src/ui/screen-list.ts)',
    );
    expect(() => new ScreenSet(host, controls, [...SCREENS, ['status', (w) => new TimerScreen(w.peer('signin', SigninScreen))]])).toThrow('ui: two screens are named status');
  });
});

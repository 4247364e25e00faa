// The device screen subsystem: installs the Ui (screens, touch, menu) on the
// HAL display and touch panel, its console commands and its debug route;
// boot() starts it (ui.start()) once the mode's services run, in both modes (in Notifier mode the screen shows what the
// Notifier link sends through the Ui's API; see src/ui/ui.ts).

import type { Context } from '../core/context.ts';
import { installUiConsole } from './console.ts';
import { installUiRoutes } from './routes.ts';
import { Ui, type UiDeps } from './ui.ts';

export type { Notice, ScreenName } from './ui.ts';
export { Ui };

export function installUi(ctx: Context, deps: UiDeps = {}): Ui {
  const ui = new Ui(ctx, { round: ctx.hal.board.display.round, ...deps });
  installUiConsole(ctx, ui);
  installUiRoutes(ctx, ui);
  return ui;
}

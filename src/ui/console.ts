// The screen's console commands (test builds), as one table (mount()
// registers it): RENDER?, MENU?, RAWFRAME? (Status group, console-status.ts), the
// Display group (SCREEN, SCREEN?, SAVER, TFTHEALTH?, TFTHZ, TFTFILL?, TFTID?,
// TFTPWR?, TFTFLIP, TFTBREAK, PANELPROBE; console-display.ts) and the Touch
// group (TAP, TAPUP, TOUCH?, TCAL, TOUCHISO?; console-touch.ts). What each
// one means on this firmware is in docs/decisions.md ("Device UI: screens
// and touch"). No command prints the setup passphrase: frames leave redacted.

import type { Command } from '../core/console.ts';
import type { UiCommand, UiConsoleEnv } from './console-kit.ts';
import { DISPLAY_COMMANDS } from './console-display.ts';
import { STATUS_COMMANDS } from './console-status.ts';
import { TOUCH_COMMANDS } from './console-touch.ts';

const COMMANDS: UiCommand[] = [...STATUS_COMMANDS, ...DISPLAY_COMMANDS, ...TOUCH_COMMANDS];

/** The screen's commands, made from the Ui and what they read. */
export function uiCommands(env: UiConsoleEnv): Command[] {
  return COMMANDS.map((make) => make(env));
}

// What the screen's console commands are built from (console-status.ts,
// console-display.ts, console-touch.ts: one file per group of the spec's
// console table), and the argument reader they share.

import { CommandError, type Command } from '../core/console.ts';
import type { Sha256Api } from '../../modules/sha256/sha256.ts';
import type { ScreenDevice } from './screen-kit.ts';
import type { Ui } from './ui.ts';

export interface UiConsoleEnv {
  dev: Pick<ScreenDevice, 'hal' | 'actions'>;
  /** The frame's checksum (RENDER?, RAWFRAME?): the native hotspot or its fallback. */
  sha256: Sha256Api;
  ui: Ui;
}

/** One console command, made from the Ui and what it needs. */
export type UiCommand = (env: UiConsoleEnv) => Command;

// Regular expressions are module constants: XS compiles a literal each time it is evaluated.
const INTEGER = /^-?\d+$/;

/** A whole number in [min, max], or a usage error. */
export function int(text: string | undefined, min: number, max: number, usage: string): number {
  if (text === undefined || !INTEGER.test(text)) throw new CommandError(`usage: ${usage}`);
  const n = Number(text);
  if (n < min || n > max) throw new CommandError(`out of range: ${min}-${max}`);
  return n;
}

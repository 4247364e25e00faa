// Layout metrics per board: derived from the canvas size (the display's
// resolution turned by the mount orientation) and the panel's shape, so the
// same screens fit the 240x240 round TFT, the 320x240 and 480x320 panels and
// the 480x480 square panel, in any orientation.

import { charsIn, lineHeight, textHeight, textWidth } from './list.ts';

export interface Layout {
  width: number;
  height: number;
  round: boolean;
  /** Wider than tall (content side by side). */
  landscape: boolean;
  /** The area content may use (inset on the round panel). */
  safe: { x: number; y: number; w: number; h: number };
  pad: number;
  /** Body, title and small text scales. */
  text: number;
  title: number;
  small: number;
  /** The big clock's scale. */
  clock: number;
  /** Height of a tappable row. */
  row: number;
}

export function layoutFor(width: number, height: number, round: boolean): Layout {
  const base = Math.min(width, height);
  // A circle's inscribed square keeps corners visible; 0.7 of the diameter clears the edge.
  const inset = round ? Math.round((base * 0.3) / 2) : base >= 320 ? 10 : 6;
  const safe = { x: inset, y: inset, w: width - 2 * inset, h: height - 2 * inset };
  const text = 2;
  const title = base >= 320 ? 3 : 2;
  const small = base >= 320 ? 2 : 1;
  const landscape = width > height * 1.2;
  // The clock (5 characters) takes the safe width (beside a column of 14 characters when
  // landscape), and at most a third of the height.
  const clockRoom = landscape ? safe.w - 20 - textWidth(14, text) : safe.w;
  let clock = 2;
  while (textWidth(5, clock + 1) <= clockRoom && textHeight(clock + 1) <= height / 3) clock++;
  const row = lineHeight(text) + (base >= 320 ? 14 : 10);
  return { width, height, round, landscape, safe, pad: inset, text, title, small, clock, row };
}

/** Characters of body text across the safe area. */
export function bodyChars(l: Layout, scale = l.text, width = l.safe.w): number {
  return charsIn(width, scale);
}

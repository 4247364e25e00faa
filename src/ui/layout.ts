// Layout metrics per board: derived from the canvas size (the display's
// resolution turned by the mount orientation), the panel's shape and the
// fonts the image carries, so the same screens fit the 240x240 round TFT,
// the 320x240 and 480x320 panels and the 480x480 square panel, in any
// orientation. Sizes are font sizes in pixels (the em): the body text is 18
// on the small panels and 20 on the large ones (docs/device.md says how to
// add a size).

import type { Font, Fonts } from './fonts.ts';

export interface Layout {
  width: number;
  height: number;
  round: boolean;
  /** Wider than tall (content side by side). */
  landscape: boolean;
  /** The area content may use (inset on the round panel). */
  safe: { x: number; y: number; w: number; h: number };
  pad: number;
  /** Body, title and small text. */
  text: Font;
  title: Font;
  small: Font;
  /** The big clock's digits, the saver's and the update screen's figure. */
  clock: Font;
  saver: Font;
  big: Font;
  /** Height of a tappable row. */
  row: number;
}

/** Font sizes by panel: [body, title, small] for the small panels (under 320 px on the short side) and the large ones. */
export const TEXT_PX = { small: [18, 20, 14], large: [20, 28, 18] } as const;

/** A line of body text's pitch (the same as list.ts's lineHeight; here to keep this module below list.ts). */
function pitch(f: Font): number {
  return f.height + Math.max(2, Math.round(f.px / 8));
}

export function layoutFor(width: number, height: number, round: boolean, fonts: Fonts): Layout {
  const base = Math.min(width, height);
  // A circle's inscribed square keeps corners visible; 0.7 of the diameter clears the edge.
  const inset = round ? Math.round((base * 0.3) / 2) : base >= 320 ? 10 : 6;
  const safe = { x: inset, y: inset, w: width - 2 * inset, h: height - 2 * inset };
  const [body, head, note] = base >= 320 ? TEXT_PX.large : TEXT_PX.small;
  const text = fonts.textFont(body);
  const title = fonts.textFont(head);
  const small = fonts.textFont(note);
  const landscape = width > height * 1.2;
  // The clock ("00:00") takes the safe width (beside a column of 14 average
  // characters when landscape), and its digits at most a third of the height.
  const clockRoom = landscape ? safe.w - 20 - Math.round(14 * text.px * 0.55) : safe.w;
  let clock = fonts.digitFont(0);
  for (const px of fonts.digitSizes()) {
    const f = fonts.digitFont(px);
    if (f.width('00:00') <= clockRoom && f.ascent <= height / 3) {
      clock = f;
      break;
    }
  }
  const saver = fonts.digitFont(Math.round(clock.px * 0.6));
  const big = fonts.digitFont(Math.max(text.px + 8, Math.round(clock.px * 0.6)));
  const row = pitch(text) + (base >= 320 ? 14 : 10);
  return { width, height, round, landscape, safe, pad: inset, text, title, small, clock, saver, big, row };
}

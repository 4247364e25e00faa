// The screens, as pure functions of what they show (a view), the layout and
// the theme: each returns a display list and its tap targets (canvas
// rectangles named for the touch handler). Nothing here reads the device;
// the screen modules (src/ui/*-screen.ts) gather the views.

import type { Layout } from './layout.ts';
import { lineHeight, ListBuilder, textHeight, textWidth, wrapText, type DisplayList } from './list.ts';
import type { QrCode } from './qr.ts';
import { QR_DARK, QR_LIGHT, type Theme } from './theme.ts';

export interface Target {
  id: string;
  x: number;
  y: number;
  w: number;
  h: number;
}

export interface Frame {
  list: DisplayList;
  targets: Target[];
}

export type Tone = 'ok' | 'busy' | 'warn' | 'err' | 'dim';

/** The on-screen LED indicator (boards without a ring): up to 8 dots or one. */
export interface Indicator {
  /** RGB565 per dot; one dot for steady modes, eight for the spinner. */
  dots: number[];
}

export interface StatusView {
  name: string;
  /** 'HH:MM', or null while the clock is not set. */
  time: string | null;
  date: string | null;
  zone: string;
  net: string;
  battery: string | null;
  state: string;
  tone: Tone;
  /** The last reply, or a hint. */
  reply: string;
  replyDim: boolean;
  indicator: Indicator | null;
}

export interface UpdateView {
  title: string;
  version: string;
  pct: number;
  detail: string;
}

export interface QrView {
  title: string;
  qr: QrCode;
  /** What the symbol says, for descriptions (not for the Wi-Fi symbol). */
  label: string;
  secret: boolean;
  /** Lines under or beside the symbol; secret lines are drawn on the panel only. */
  lines: Array<{ text: string; tone?: Tone; secret?: boolean }>;
  /** The one line a small round screen shows under the symbol. */
  short?: { text: string; secret?: boolean };
}

export interface MenuRow {
  id: string;
  label: string;
  /** A shorter label for the small round panel. */
  short?: string;
  value: string | null;
}

export interface MenuView {
  title: string;
  rows: MenuRow[];
  /** The row under a finger (highlighted), or null. */
  pressed: string | null;
  footer: string;
}

export interface SaverView {
  time: string | null;
  date: string | null;
  /** 0-1: where the clock sits, so it drifts (burn-in). */
  driftX: number;
  driftY: number;
}

export interface NoticeView {
  title: string;
  body: string;
  footer: string;
}

export interface ProbeView {
  info: string[];
  touch: { x: number; y: number } | null;
}

function toneColor(t: Theme, tone: Tone | undefined): number {
  switch (tone) {
    case 'ok':
      return t.ok;
    case 'busy':
      return t.accent;
    case 'warn':
      return t.warn;
    case 'err':
      return t.err;
    case 'dim':
      return t.dim;
    default:
      return t.fg;
  }
}

function whole(l: Layout, id: string): Target {
  return { id, x: 0, y: 0, w: l.width, h: l.height };
}

function indicator(b: ListBuilder, ind: Indicator, cx: number, cy: number, r: number): void {
  if (ind.dots.length === 1) {
    b.disc(cx, cy, r, ind.dots[0]!);
    return;
  }
  const dot = Math.max(2, Math.round(r / 3));
  for (let i = 0; i < ind.dots.length; i++) {
    const a = (i / ind.dots.length) * Math.PI * 2 - Math.PI / 2;
    b.disc(cx + Math.cos(a) * (r - dot), cy + Math.sin(a) * (r - dot), dot, ind.dots[i]!);
  }
}

/** A box of wrapped text; returns nothing, fills what fits. */
export function textBox(b: ListBuilder, l: Layout, t: Theme, x: number, y: number, w: number, h: number, text: string, color: number): void {
  const inner = l.round ? 4 : 8;
  if (!l.round) b.rect(x, y, w, h, t.panel);
  const bg = l.round ? t.bg : t.panel;
  const lh = lineHeight(l.text);
  const lines = wrapText(text, l.text, replyWidth(l, w), Math.max(1, Math.floor((h - 2 * inner + lh - textHeight(l.text)) / lh)));
  lines.forEach((line, i) => {
    if (l.round) b.textCentered(x + w / 2, y + inner + i * lh, line, color, l.text, { bg });
    else b.text(x + inner, y + inner + i * lh, line, color, l.text, { bg });
  });
}

/** The width the reply's lines are wrapped to in a box of width w (the web page wraps to the same). */
export function replyWidth(l: Layout, w: number): number {
  return w - 2 * (l.round ? 4 : 8);
}

export function statusScreen(l: Layout, t: Theme, v: StatusView): Frame {
  const b = new ListBuilder(l.width, l.height, t.bg, 'status');
  const { safe } = l;
  const lh = lineHeight(l.text);
  const clockText = v.time ?? '--:--';
  const clockW = textWidth(l.clock, '00:00');
  const clockH = textHeight(l.clock);
  if (l.round) {
    const cx = l.width / 2;
    let y = safe.y - lh / 2;
    b.textCentered(cx, y, v.battery ? `${v.net} ${v.battery}` : v.net, t.dim, l.text, { maxWidth: safe.w });
    y += lh + 4;
    b.textCentered(cx, y, clockText, v.time ? t.fg : t.dim, l.clock);
    y += clockH + 6;
    b.textCentered(cx, y, v.date ?? v.zone, t.dim, l.text, { maxWidth: safe.w });
    y += lh + 2;
    b.textCentered(cx, y, v.state, toneColor(t, v.tone), l.text, { maxWidth: safe.w });
    y += lh + 4;
    textBox(b, l, t, safe.x, y, safe.w, l.height - y - l.pad / 2, v.reply, v.replyDim ? t.dim : t.fg);
    return { list: b.build(), targets: [whole(l, 'menu')] };
  }
  // Top bar: name on the left; network, battery and the LED indicator on the right.
  const barRight: string[] = [v.net];
  if (v.battery) barRight.push(v.battery);
  const right = barRight.join('  ');
  const indR = Math.round(textHeight(l.text) / 2) + 1;
  const indW = v.indicator ? 2 * indR + 10 : 0;
  const rightW = Math.min(textWidth(l.text, right), Math.round((safe.w - indW) * 0.6));
  b.text(safe.x + safe.w - indW - rightW, safe.y, right, t.dim, l.text, { maxWidth: rightW });
  b.text(safe.x, safe.y, v.name, t.dim, l.text, { maxWidth: Math.max(4 * l.text.px, safe.w - indW - rightW - 12) });
  if (v.indicator) indicator(b, v.indicator, safe.x + safe.w - indR, safe.y + textHeight(l.text) / 2, indR);
  let y = safe.y + lh + 10;
  const stateColor = toneColor(t, v.tone);
  const dotR = Math.round(textHeight(l.text) / 2) - 1;
  if (l.landscape) {
    b.text(safe.x, y, clockText, v.time ? t.fg : t.dim, l.clock);
    const cx = safe.x + clockW + 20;
    const cols = safe.x + safe.w - cx;
    let cy = y + Math.max(0, Math.round((clockH - 3 * lh - 4) / 2));
    b.text(cx, cy, v.date ?? 'clock not set', v.date ? t.fg : t.dim, l.text, { maxWidth: cols });
    cy += lh;
    b.text(cx, cy, v.zone, t.dim, l.text, { maxWidth: cols });
    cy += lh + 4;
    b.disc(cx + dotR, cy + textHeight(l.text) / 2, dotR, stateColor);
    b.text(cx + 2 * dotR + 8, cy, v.state, stateColor, l.text, { maxWidth: Math.max(1, cols - 2 * dotR - 8) });
    y += Math.max(clockH, 3 * lh + 4) + 14;
  } else {
    const cx = l.width / 2;
    b.textCentered(cx, y, clockText, v.time ? t.fg : t.dim, l.clock);
    y += clockH + 10;
    b.textCentered(cx, y, v.date ? `${v.date}  ${v.zone}` : 'clock not set', v.date ? t.fg : t.dim, l.text, { maxWidth: safe.w });
    y += lh + 4;
    const stateW = Math.min(textWidth(l.text, v.state), safe.w - 2 * dotR - 8);
    const sw = 2 * dotR + 8 + stateW;
    b.disc(cx - sw / 2 + dotR, y + textHeight(l.text) / 2, dotR, stateColor);
    b.text(cx - sw / 2 + 2 * dotR + 8, y, v.state, stateColor, l.text, { maxWidth: stateW });
    y += lh + 10;
  }
  textBox(b, l, t, safe.x, y, safe.w, safe.y + safe.h - y, v.reply, v.replyDim ? t.dim : t.fg);
  return { list: b.build(), targets: [whole(l, 'menu')] };
}

export function updateScreen(l: Layout, t: Theme, v: UpdateView): Frame {
  const b = new ListBuilder(l.width, l.height, t.bg, 'update');
  const { safe } = l;
  const cx = l.width / 2;
  const lh = lineHeight(l.text);
  const big = l.big;
  const total = textHeight(l.title) + 10 + lh + 16 + textHeight(big) + 14 + 16 + 14 + lh;
  let y = Math.max(safe.y, Math.round((l.height - total) / 2));
  b.textCentered(cx, y, v.title, t.fg, l.title, { maxWidth: safe.w });
  y += textHeight(l.title) + 10;
  b.textCentered(cx, y, v.version, t.dim, l.text, { maxWidth: safe.w });
  y += lh + 16;
  const pct = Math.max(0, Math.min(100, Math.round(v.pct)));
  b.textCentered(cx, y, `${pct}%`, t.accent, big);
  y += textHeight(big) + 14;
  const barW = Math.round(safe.w * (l.round ? 0.9 : 0.8));
  const barX = Math.round(cx - barW / 2);
  b.rect(barX, y, barW, 16, t.panel);
  b.rect(barX, y, Math.round((barW * pct) / 100), 16, t.accent);
  y += 16 + 14;
  b.textCentered(cx, y, v.detail, t.dim, l.text, { maxWidth: safe.w });
  return { list: b.build(), targets: [] };
}

function qrScale(qr: QrCode, side: number): { scale: number; quiet: number } {
  for (const quiet of [4, 3, 2]) {
    const scale = Math.floor(side / (qr.size + 2 * quiet));
    if (scale >= 3 || (scale >= 2 && quiet === 2)) return { scale, quiet };
  }
  return { scale: Math.max(1, Math.floor(side / (qr.size + 4))), quiet: 2 };
}

export function qrScreen(l: Layout, t: Theme, v: QrView, screen: string): Frame {
  const b = new ListBuilder(l.width, l.height, t.bg, screen);
  const { safe } = l;
  const lh = lineHeight(l.text);
  const drawLines = (x: number, y: number, w: number, centered: boolean, maxY: number): void => {
    for (const line of v.lines) {
      for (const part of wrapText(line.text, l.text, w, 3)) {
        if (y + textHeight(l.text) > maxY) return;
        const color = toneColor(t, line.tone);
        if (centered) b.textCentered(x + w / 2, y, part, color, l.text, { secret: line.secret === true });
        else b.text(x, y, part, color, l.text, { secret: line.secret === true });
        y += lh;
      }
      y += 4;
    }
  };
  if (l.landscape) {
    // The symbol takes half the width, or more while the text column keeps 18 characters.
    const side = Math.min(safe.h, Math.max(Math.round(safe.w / 2), safe.w - Math.round(18 * l.text.px * 0.55) - 16));
    const { scale, quiet } = qrScale(v.qr, side);
    const qside = (v.qr.size + 2 * quiet) * scale;
    b.qr(safe.x, safe.y + Math.round((side - qside) / 2), v.qr, scale, quiet, QR_DARK, QR_LIGHT, v.label, v.secret);
    const x = safe.x + qside + 16;
    const w = safe.x + safe.w - x;
    b.text(x, safe.y + 4, v.title, t.fg, l.title, { maxWidth: w });
    drawLines(x, safe.y + 4 + textHeight(l.title) + 14, w, false, safe.y + safe.h);
  } else if (l.round) {
    const { scale, quiet } = qrScale(v.qr, safe.w);
    const qside = (v.qr.size + 2 * quiet) * scale;
    b.qr(Math.round((l.width - qside) / 2), Math.round((l.height - qside) / 2), v.qr, scale, quiet, QR_DARK, QR_LIGHT, v.label, v.secret);
    b.textCentered(l.width / 2, Math.round((l.height - qside) / 2) - lh - 2, v.title, t.fg, l.text, { maxWidth: Math.round(qside * 0.8) });
    const below = Math.round((l.height + qside) / 2) + 4;
    if (v.short) b.textCentered(l.width / 2, below, v.short.text, t.fg, l.text, { maxWidth: safe.w, secret: v.short.secret === true });
  } else {
    let y = safe.y;
    b.textCentered(l.width / 2, y, v.title, t.fg, l.title, { maxWidth: safe.w });
    y += textHeight(l.title) + 10;
    const side = Math.min(safe.w, safe.y + safe.h - y - v.lines.length * (lh + 4) - 8);
    const { scale, quiet } = qrScale(v.qr, side);
    const qside = (v.qr.size + 2 * quiet) * scale;
    b.qr(Math.round((l.width - qside) / 2), y, v.qr, scale, quiet, QR_DARK, QR_LIGHT, v.label, v.secret);
    y += qside + 8;
    drawLines(safe.x, y, safe.w, true, safe.y + safe.h);
  }
  return { list: b.build(), targets: [whole(l, 'back')] };
}

/** Rows per menu page for this layout (the title bar, with Close, takes the first band). */
export function menuCapacity(l: Layout): number {
  if (l.round) return Math.max(2, Math.floor((l.safe.h - (lineHeight(l.text) + 10) / 2) / (lineHeight(l.text) + 14)));
  const top = l.safe.y + Math.max(textHeight(l.title), l.row - 6) + 8;
  return Math.max(2, Math.floor((l.safe.y + l.safe.h - top + 6) / l.row));
}

/** The round panel's menu: Close on top, then one centred line per row (short label and value). */
function roundMenu(l: Layout, t: Theme, v: MenuView): Frame {
  const b = new ListBuilder(l.width, l.height, t.bg, 'menu');
  const { safe } = l;
  const targets: Target[] = [];
  const lh = lineHeight(l.text);
  const cx = l.width / 2;
  const closeW = textWidth(l.text, 'Close') + 24;
  const rowH = lh + 10;
  const top = Math.round(safe.y - rowH / 2);
  const closeBg = v.pressed === 'close' ? t.sel : t.panel;
  b.rect(Math.round(cx - closeW / 2), top, closeW, rowH, closeBg);
  b.textCentered(cx, top + 5, 'Close', t.accent, l.text, { bg: closeBg });
  targets.push({ id: 'close', x: Math.round(cx - closeW / 2), y: top, w: closeW, h: rowH });
  let y = top + rowH + 6;
  for (const row of v.rows) {
    if (row.id === 'close') continue;
    const label = row.short ?? row.label;
    const rowBg = v.pressed === row.id ? t.sel : t.panel;
    b.rect(safe.x, y, safe.w, rowH, rowBg);
    b.textCentered(cx, y + 5, row.value === null ? label : `${label} ${row.value}`, row.value === null ? t.fg : t.accent, l.text, { maxWidth: safe.w - 8, bg: rowBg });
    targets.push({ id: row.id, x: safe.x, y, w: safe.w, h: rowH });
    y += rowH + 4;
  }
  return { list: b.build(), targets };
}

export function menuScreen(l: Layout, t: Theme, v: MenuView): Frame {
  if (l.round) return roundMenu(l, t, v);
  const b = new ListBuilder(l.width, l.height, t.bg, 'menu');
  const { safe } = l;
  const targets: Target[] = [];
  const rowH = l.row - 6;
  const barH = Math.max(textHeight(l.title), rowH);
  // The title bar: the title, and Close at the right (a row's height, easy to hit).
  const closeW = textWidth(l.text, 'Close') + 24;
  b.text(safe.x + 4, safe.y + Math.round((barH - textHeight(l.title)) / 2), v.title, t.fg, l.title, { maxWidth: safe.w - closeW - 8 });
  const closeBg = v.pressed === 'close' ? t.sel : t.panel;
  b.rect(safe.x + safe.w - closeW, safe.y, closeW, barH, closeBg);
  b.text(safe.x + safe.w - closeW + 12, safe.y + Math.round((barH - textHeight(l.text)) / 2), 'Close', t.accent, l.text, { bg: closeBg });
  targets.push({ id: 'close', x: safe.x + safe.w - closeW, y: safe.y, w: closeW, h: barH });
  let y = safe.y + barH + 8;
  const inner = Math.round((rowH - textHeight(l.text)) / 2);
  const room = safe.w - 24;
  for (const row of v.rows) {
    if (row.id === 'close') continue;
    const rowBg = v.pressed === row.id ? t.sel : t.panel;
    b.rect(safe.x, y, safe.w, rowH, rowBg);
    const valueW = row.value === null ? 0 : Math.min(textWidth(l.text, row.value), Math.round(room * 0.6));
    const labelW = Math.max(l.text.px, room - valueW - (valueW ? l.text.px / 2 : 0));
    b.text(safe.x + 12, y + inner, row.label, t.fg, l.text, { maxWidth: labelW, bg: rowBg });
    if (row.value !== null && valueW) {
      b.text(safe.x + safe.w - 12 - valueW, y + inner, row.value, t.accent, l.text, { maxWidth: valueW, bg: rowBg });
    }
    targets.push({ id: row.id, x: safe.x, y, w: safe.w, h: rowH });
    y += l.row;
  }
  if (v.footer && y + textHeight(l.text) <= safe.y + safe.h) b.text(safe.x + 4, y + 2, v.footer, t.dim, l.text, { maxWidth: safe.w - 4 });
  return { list: b.build(), targets };
}

export function saverScreen(l: Layout, t: Theme, v: SaverView): Frame {
  const b = new ListBuilder(l.width, l.height, 0x0000, 'saver');
  const scale = l.saver;
  const text = v.time ?? '--:--';
  const w = textWidth(scale, '00:00');
  const h = textHeight(scale) + 8 + lineHeight(l.text);
  const spanX = Math.max(0, l.safe.w - w);
  const spanY = Math.max(0, l.safe.h - h);
  const x = l.safe.x + Math.round(spanX * v.driftX);
  const y = l.safe.y + Math.round(spanY * v.driftY);
  b.text(x, y, text, t.saver, scale);
  if (v.date) b.textCentered(x + w / 2, y + textHeight(scale) + 8, v.date, t.saver, l.text, { maxWidth: l.safe.w });
  return { list: b.build(), targets: [whole(l, 'wake')] };
}

export function noticeScreen(l: Layout, t: Theme, v: NoticeView): Frame {
  const b = new ListBuilder(l.width, l.height, t.bg, 'notice');
  const { safe } = l;
  let y = safe.y;
  if (l.round) b.textCentered(l.width / 2, y, v.title, t.accent, l.text, { maxWidth: safe.w });
  else b.text(safe.x, y, v.title, t.accent, l.title, { maxWidth: safe.w });
  y += (l.round ? lineHeight(l.text) : textHeight(l.title)) + 12;
  const footerY = safe.y + safe.h - textHeight(l.text);
  textBox(b, l, t, safe.x, y, safe.w, footerY - y - 8, v.body, t.fg);
  if (l.round) b.textCentered(l.width / 2, footerY, 'Tap to close', t.dim, l.text, { maxWidth: safe.w });
  else b.text(safe.x, footerY, v.footer, t.dim, l.text, { maxWidth: safe.w });
  return { list: b.build(), targets: [whole(l, 'back')] };
}

/** The panel probe's test card: edges, corners, colour order, centre and the last touch. */
export function probeScreen(l: Layout, v: ProbeView): Frame {
  const white = 0xffff;
  const b = new ListBuilder(l.width, l.height, 0x0000, 'probe');
  const { width: w, height: h } = l;
  b.rect(0, 0, w, 1, white);
  b.rect(0, h - 1, w, 1, white);
  b.rect(0, 0, 1, h, white);
  b.rect(w - 1, 0, 1, h, white);
  const s = l.text;
  const m = l.round ? l.pad : 4;
  b.text(m, m, 'TL', white, s);
  b.text(w - m - textWidth(s, 'TR'), m, 'TR', white, s);
  b.text(m, h - m - textHeight(s), 'BL', white, s);
  b.text(w - m - textWidth(s, 'BR'), h - m - textHeight(s), 'BR', white, s);
  const bars: Array<[string, number]> = [
    ['R', 0xf800],
    ['G', 0x07e0],
    ['B', 0x001f],
    ['W', 0xffff],
    ['K', 0x0000],
  ];
  const barW = Math.floor((l.safe.w - 8) / bars.length);
  const barY = Math.round(h * (l.round ? 0.25 : 0.18));
  const barH = Math.round(h * (l.round ? 0.1 : 0.14));
  bars.forEach(([name, color], i) => {
    const x = l.safe.x + 4 + i * barW;
    b.rect(x, barY, barW - 2, barH, color);
    b.rect(x, barY + barH, barW - 2, 1, 0x8410);
    b.textCentered(x + (barW - 2) / 2, barY + barH + 4, name, white, s);
  });
  b.rect(Math.floor(w / 2) - 10, Math.floor(h / 2), 21, 1, white);
  b.rect(Math.floor(w / 2), Math.floor(h / 2) - 10, 1, 21, white);
  let y = Math.round(h * 0.62);
  for (const line of v.info) {
    const f = l.round ? l.small : s;
    b.textCentered(w / 2, y, line, white, f, { maxWidth: l.safe.w });
    y += lineHeight(f);
  }
  if (v.touch) {
    b.rect(v.touch.x - 8, v.touch.y, 17, 1, 0x07e0);
    b.rect(v.touch.x, v.touch.y - 8, 1, 17, 0x07e0);
  }
  return { list: b.build(), targets: [whole(l, 'probe')] };
}

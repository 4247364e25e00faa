// Screen themes (the config key theme): a few named palettes in RGB565.
// Unknown names show the default theme and MENU?/SCREEN? say so; the names
// are the ones the settings menu cycles through.

export interface Theme {
  name: string;
  bg: number;
  fg: number;
  dim: number;
  accent: number;
  ok: number;
  warn: number;
  err: number;
  /** Boxes (the reply, menu rows). */
  panel: number;
  /** A pressed or selected row. */
  sel: number;
  /** The screen saver's clock. */
  saver: number;
}

/** RGB565 of 8-bit components. */
export function rgb565(r: number, g: number, b: number): number {
  return ((r & 0xf8) << 8) | ((g & 0xfc) << 3) | (b >> 3);
}

const hex = (v: number): number => rgb565((v >> 16) & 0xff, (v >> 8) & 0xff, v & 0xff);

export const THEMES: Readonly<Record<string, Theme>> = {
  dark: {
    name: 'dark',
    bg: hex(0x0f1317),
    fg: hex(0xe8eaed),
    dim: hex(0x8a929b),
    accent: hex(0x3da5ff),
    ok: hex(0x4cc38a),
    warn: hex(0xf2b84b),
    err: hex(0xe5484d),
    panel: hex(0x1d242b),
    sel: hex(0x2f4458),
    saver: hex(0x5a636c),
  },
  light: {
    name: 'light',
    bg: hex(0xf4f4f1),
    fg: hex(0x1a1c1e),
    dim: hex(0x62676d),
    accent: hex(0x005fb8),
    ok: hex(0x1e7d4f),
    warn: hex(0x9a6200),
    err: hex(0xc0262d),
    panel: hex(0xe1e4e8),
    sel: hex(0xbcd3ea),
    saver: hex(0x9aa0a6),
  },
  contrast: {
    name: 'contrast',
    bg: hex(0x000000),
    fg: hex(0xffffff),
    dim: hex(0xd0d0d0),
    accent: hex(0xffd800),
    ok: hex(0x00ff66),
    warn: hex(0xffd800),
    err: hex(0xff3b30),
    panel: hex(0x1a1a1a),
    sel: hex(0x5c4e00),
    saver: hex(0x909090),
  },
};

export const THEME_NAMES = Object.keys(THEMES);
export const DEFAULT_THEME = 'dark';

/** The theme for a setting; known false when the name is not one of ours. */
export function themeFor(name: unknown): { theme: Theme; known: boolean } {
  const key = typeof name === 'string' ? name.toLowerCase() : '';
  const theme = THEMES[key];
  return theme ? { theme, known: true } : { theme: THEMES[DEFAULT_THEME]!, known: name === undefined || name === null };
}

/** QR symbols are always dark on light, whatever the theme (scanners expect it). */
export const QR_DARK = 0x0000;
export const QR_LIGHT = 0xffff;

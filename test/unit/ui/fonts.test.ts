// The screen's fonts (src/ui/fonts.ts, face.ts, wrap.ts) over the build's
// assets: what the rasterizer wrote reads back, text is composed before
// layout, kerning moves pairs the typeface kerns, a character no face has is
// a counted box, the CJK face comes from the fonts partition and its absence
// shows as counted boxes on the status screen, and lines break at words (and
// between CJK characters) to the pixel width.

import { describe, expect, it } from 'vitest';
import { decodeGlyph } from '../../../tools/font-raster.mjs';
import { M_HEIGHT, M_STRIDE, M_WIDTH } from '../../../src/ui/face.ts';
import { Fonts, MISSING } from '../../../src/ui/fonts.ts';
import { layoutFor } from '../../../src/ui/layout.ts';
import { statusScreen } from '../../../src/ui/screens.ts';
import { THEMES } from '../../../src/ui/theme.ts';
import { wrapText } from '../../../src/ui/wrap.ts';
import { NO_ASSETS } from '../../../src/util/asset-pack.ts';
import { buildAssets, imageAssetsOnly } from '../../support/memhal.ts';

const fonts = new Fonts(buildAssets());
const body = fonts.textFont(20);

describe('the image\'s fonts', () => {
  it('has Noto Sans text sizes, clock digits and the CJK face at one size', () => {
    expect(fonts.real).toBe(true);
    expect(fonts.sizes()).toEqual({ text: [14, 18, 20, 28], digits: [32, 40, 48, 56, 64, 80, 96, 112, 128, 160], cjk: 20 });
    expect(body.primary.id).toBe('sans-20');
    // every European letter the issue names, and the CJK sets
    for (const ch of 'ÀÿĀſΑωЀӿŞşȘțẞ€№'.replace('ẞ', '')) expect(body.primary.index(ch.codePointAt(0)!), ch).toBeGreaterThanOrEqual(0);
    for (const ch of '啊座亜腕가힝あゔアヶ。！') expect(fonts.cjk!.index(ch.codePointAt(0)!), ch).toBeGreaterThanOrEqual(0);
  });

  it('glyphs are 4-bit coverage with partial levels (anti-aliased), solid inside', () => {
    const face = fonts.cjk!;
    const g = face.index('會'.codePointAt(0)!) >= 0 ? face.index('會'.codePointAt(0)!) : face.index('会'.codePointAt(0)!);
    const w = face.metrics[g * M_STRIDE + M_WIDTH]!;
    const h = face.metrics[g * M_STRIDE + M_HEIGHT]!;
    const levels = decodeGlyph(face.bits.subarray(face.offsets[g]!), w, h);
    const seen = new Set(levels);
    expect(seen.has(15)).toBe(true);
    expect([...seen].filter((v) => v > 0 && v < 15).length).toBeGreaterThan(8);
  });

  it('composes before layout: a decomposed ü is the one glyph of the composed ü', () => {
    const a = body.shape('Gru\u0308ße');
    const b = body.shape('Grüße');
    expect(a.glyphs).toEqual(b.glyphs);
    expect(a.width).toBe(b.width);
  });

  it('kerns the pairs the typeface kerns (AV is narrower than A and V apart), proportional widths', () => {
    expect(body.width('AV')).toBeLessThan(body.width('A') + body.width('V'));
    expect(body.width('iiii')).toBeLessThan(body.width('MMMM') / 2);
  });

  it('a character no face has is a box, counted in the run and since boot', () => {
    const before = fonts.stats.missing;
    const run = body.shape('ok ✓ 😀');
    expect(run.missing).toBe(2);
    expect([...run.faces].filter((f) => f === MISSING)).toHaveLength(2);
    expect(fonts.stats.missing - before).toBe(2);
    expect(fonts.stats.lastMissing).toBe(0x1f600);
  });

  it('without the fonts partition the CJK characters of a reply show as counted boxes; Latin is unchanged', () => {
    const bare = new Fonts(imageAssetsOnly());
    expect(bare.cjk).toBeNull();
    const l = layoutFor(480, 320, false, bare);
    const frame = statusScreen(l, THEMES['dark']!, { name: 'Desk', time: '09:41', date: 'Sun 22 Nov', zone: 'UTC', net: 'ok', battery: null, state: 'Ready', tone: 'ok', reply: 'Grüße 明天见', replyDim: false, indicator: null });
    const missing = frame.list.items.reduce((n, i) => n + (i.kind === 'text' ? i.run.missing : 0), 0);
    expect(missing).toBe(3);
    expect(new Fonts(buildAssets()).textFont(20).shape('Grüße 明天见').missing).toBe(0);
  });

  it('without any font in the image the built-in bitmap font stands in', () => {
    const none = new Fonts(NO_ASSETS);
    expect(none.real).toBe(false);
    expect(none.textFont(20).primary.id).toBe('bitmap-2');
    expect(none.textFont(20).width('abc')).toBe(36);
  });
});

describe('line breaking', () => {
  it('breaks at words to the pixel width, hangs spaces, breaks a long word, cuts with an ellipsis', () => {
    const w = body.width('the quick brown');
    expect(wrapText('the quick brown fox jumps', body, w, 5)).toEqual(['the quick brown', 'fox jumps']);
    for (const line of wrapText('Grüße aus München! Es wird kälter, nimm die warme Jacke mit.', body, 150, 9)) expect(body.width(line)).toBeLessThanOrEqual(150);
    const long = wrapText('Donaudampfschifffahrtsgesellschaft', body, 100, 9);
    expect(long.length).toBeGreaterThan(2);
    expect(long.join('')).toBe('Donaudampfschifffahrtsgesellschaft');
    const cut = wrapText('one two three four five six seven eight nine ten', body, 100, 2);
    expect(cut).toHaveLength(2);
    expect(cut[1]!.endsWith('\u2026')).toBe(true);
    expect(wrapText('line one\nline two', body, 400, 5)).toEqual(['line one', 'line two']);
  });

  it('breaks between CJK characters, never before closing punctuation', () => {
    const cjkWidth = body.width('明天上午十');
    const lines = wrapText('明天上午十点开会。请带上笔记本电脑', body, cjkWidth, 9);
    expect(lines.join('')).toBe('明天上午十点开会。请带上笔记本电脑');
    for (const line of lines) {
      expect(body.width(line)).toBeLessThanOrEqual(cjkWidth);
      expect(line.startsWith('。')).toBe(false);
    }
    // Korean has spaces but breaks between syllables as browsers do
    expect(wrapText('안녕하세요 내일', body, body.width('안녕하'), 9)[0]).toBe('안녕하');
  });
});

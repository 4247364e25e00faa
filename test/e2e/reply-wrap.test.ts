// The owner's web page and the device's screen agree on what a reply looks
// like (issue 36): the same text (composed), in the same typeface (Noto Sans,
// Noto Sans CJK), wrapped at words, and between characters for Chinese,
// Japanese and Korean. Chromium lays each reply out with the page's own
// stylesheet (.reply in src/web/page/style.css) at the screen's body size and
// text width; src/ui/wrap.ts lays it out with the image's fonts; the lines
// must match. Where a word lands within a pixel or so of the edge the two
// measure differently (the browser shapes with HarfBuzz and places glyphs at
// fractions of a pixel, the screen at whole pixels): such a line may end one
// word earlier or later,
// and the test says where, but every break either side makes must be one
// the other would allow, and at most one line in a reply may differ.
import { readFileSync } from 'node:fs';
import { join } from 'node:path';
import type { BrowserContext, Page } from 'playwright-core';
import { afterAll, beforeAll, describe, expect, it } from 'vitest';
import { ROOT } from '../../tools/build.mjs';
import { Fonts } from '../../src/ui/fonts.ts';
import { TEXT_PX } from '../../src/ui/layout.ts';
import { breakBefore, wrapText } from '../../src/ui/wrap.ts';
import { buildAssets } from '../support/memhal.ts';
import { ensureChromium, launchBrowser } from './fixtures/browser.ts';

const REPLIES: Record<string, string> = {
  en: 'Your dentist appointment moved to Thursday at half past nine; bring the insurance card and the new referral.',
  de: 'Grüße aus München! Morgen wird es kälter, nimm die warme Jacke mit und vergiss den Schlüssel für die Garage nicht.',
  fr: 'Le train de Lyon part à 18 h 42, voie 7 ; il y a un café près du quai où nous pourrons nous retrouver.',
  pl: 'Zażółć gęślą jaźń: jutro rano odbierz paczkę z poczty przy ulicy Długiej, zanim zamkną okienko.',
  ru: 'Встреча перенесена на пятницу в десять утра; возьми с собой документы и не забудь зонтик.',
  el: 'Η συνάντηση μεταφέρθηκε την Παρασκευή στις δέκα το πρωί· πάρε μαζί σου τα έγγραφα και την ομπρέλα.',
  zh: '明天上午十点开会，请带上文件和雨伞。会议结束后我们一起去吃午饭，好吗？',
  ja: '明日の午前十時に会議があります。書類と傘を忘れずに持ってきてください。終わったら一緒にお昼を食べましょう。',
  ko: '내일 오전 열 시에 회의가 있습니다. 서류와 우산을 꼭 가져오세요. 회의가 끝나면 같이 점심을 먹어요.',
};

/** The screen's text area for a reply: panel-35's body size, and widths the boards' screens use. */
const PX = TEXT_PX.large[0];
const WIDTHS = [440, 300];

const fonts = new Fonts(buildAssets());
const font = fonts.textFont(PX);
const css = readFileSync(join(ROOT, 'src/web/page/style.css'), 'utf8');

let browser: BrowserContext;
let page: Page;

beforeAll(async () => {
  ensureChromium();
  browser = await launchBrowser();
  page = await browser.newPage();
}, 120_000);
afterAll(async () => {
  await browser?.close();
});

/**
 * Run in the page (the test's TypeScript has no DOM types): puts t in the
 * box and reads which line each character sits on; a character set lower
 * than the line's top starts the next line (spaces hang at the end of theirs).
 */
const LINES_IN_PAGE = `(t) => {
  const p = document.querySelector('p');
  p.textContent = t;
  const node = p.firstChild;
  const range = document.createRange();
  const lines = [];
  let top = -1e9;
  let i = 0;
  for (const ch of t) {
    range.setStart(node, i);
    range.setEnd(node, i + ch.length);
    const r = range.getClientRects()[0];
    if (ch !== ' ' && r && r.top > top + 2) {
      lines.push('');
      top = r.top;
    }
    if (lines.length) lines[lines.length - 1] += ch;
    i += ch.length;
  }
  return lines.map((l) => l.trimEnd());
}`;

/** The lines Chromium makes of text in a .reply box of width px, from where each character's box sits. */
async function browserLines(text: string, width: number): Promise<string[]> {
  await page.setContent(`<!doctype html><meta charset="utf-8"><style>${css}</style><p class="reply" style="margin:0;padding:0;width:${width}px;font-size:${PX}px"></p>`);
  return page.evaluate<string[]>(`(${LINES_IN_PAGE})(${JSON.stringify(text)})`);
}

/** Where each line after the first starts, in code points of the text (the spaces between lines skipped). */
function breaks(text: string, lines: string[]): number[] {
  const cps = [...text];
  const out: number[] = [];
  let at = 0;
  lines.forEach((line, i) => {
    while (at < cps.length && cps[at] === ' ') at++;
    if (i > 0) out.push(at);
    at += [...line].length;
  });
  return out;
}

describe('a reply on the web page and on the screen', () => {
  it('the page sets replies in Noto Sans (and Noto Sans CJK), as the screen draws them', async () => {
    await page.setContent(`<!doctype html><meta charset="utf-8"><style>${css}</style><p class="reply">x</p>`);
    const family = await page.evaluate<string>("getComputedStyle(document.querySelector('p')).fontFamily");
    expect(family).toMatch(/^"Noto Sans", "Noto Sans CJK SC"/);
    // and the browser finds that typeface (the build installs Debian's fonts-noto-core and fonts-noto-cjk for the
    // screen's fonts): a line measures within 2 % of the screen's width for it, in each script
    for (const sample of ['Grüße aus München, kälter morgen', 'Встреча перенесена на пятницу', '明日の午前十時に会議があります']) {
      const web = await page.evaluate<number>(`(() => { const c = document.createElement('canvas').getContext('2d'); c.font = getComputedStyle(document.querySelector('p')).fontFamily.replace(/^/, '${PX}px '); return c.measureText(${JSON.stringify(sample)}).width; })()`);
      expect(Math.abs(web - font.width(sample)) / font.width(sample), sample).toBeLessThan(0.02);
    }
    expect(fonts.real).toBe(true);
  });

  for (const width of WIDTHS) {
    it(`wraps every language at words (CJK between characters) as the screen does, ${width} px wide at ${PX} px`, async () => {
      const differing: string[] = [];
      for (const [lang, text] of Object.entries(REPLIES)) {
        const composed = text.normalize('NFC');
        const screen = wrapText(composed, font, width, 99);
        const web = await browserLines(composed, width);
        // the same text, whole, on both
        expect(web.join('').replace(/ /g, ''), lang).toBe(composed.replace(/ /g, ''));
        expect(screen.join('').replace(/ /g, ''), lang).toBe(composed.replace(/ /g, ''));
        const cps = [...composed].map((c) => c.codePointAt(0)!);
        const ours = breaks(composed, screen);
        const theirs = breaks(composed, web);
        // every break the browser made is one the screen's rules allow: words, or between CJK characters
        for (const b of theirs) expect(breakBefore(cps, b), `${lang}: the page breaks before "${[...composed].slice(b, b + 8).join('')}"`).toBe(true);
        // and the two agree line for line, give or take a word at the edge of one line
        expect(Math.abs(web.length - screen.length), `${lang}: ${JSON.stringify({ web, screen })}`).toBeLessThanOrEqual(1);
        const apart = ours.filter((b) => !theirs.includes(b)).length + theirs.filter((b) => !ours.includes(b)).length;
        if (apart) differing.push(`${lang}: ${JSON.stringify({ web, screen })}`);
        expect(apart, `${lang}: ${JSON.stringify({ web, screen })}`).toBeLessThanOrEqual(2);
      }
      if (differing.length) console.log(`reply-wrap ${width} px: lines that end a word apart:\n${differing.join('\n')}`);
      // most replies break identically
      expect(differing.length).toBeLessThanOrEqual(Math.floor(Object.keys(REPLIES).length / 3));
    }, 60_000);
  }
});

// The screen speaks the owner's language, judged by a reader we did not
// write: the real firmware on the simulator (panel-35) shows an owner's reply
// in German, French, Polish, Russian, Greek, Chinese, Japanese and Korean on
// its home screen, RENDER? saves the panel as a PNG, and Debian's tesseract
// OCR (with its language packs, installed by tools/font/sources.mjs when
// missing) reads the reply box back.
//
// Character error rate (CER): the Levenshtein distance (insertions,
// deletions, substitutions of code points) between what tesseract read and
// the reply, both NFKC-normalized (composed; compatibility forms folded, so
// the micro sign µ tesseract reports for the Greek μ it sees counts as μ)
// with all whitespace removed (tesseract puts spaces between CJK characters;
// a line break is not an error), divided by the reply's length in code
// points. Each language must come out at 5% or less. Before OCR the reply box
// is cut out of the frame (RENDER?'s own description gives its rectangle),
// turned to grey, inverted (dark text on light, as tesseract is trained),
// stretched to the full range of grey and scaled up 3 times by pixel
// replication; tesseract reads it as a column of lines (--psm 4).
// The negative control: the same reading scored against another language's
// reply is far above 5%, so the bound can fail.

import { execFileSync } from 'node:child_process';
import { mkdirSync, readFileSync, writeFileSync } from 'node:fs';
import { join } from 'node:path';
import { PNG } from 'pngjs';
import { afterAll, beforeAll, describe, expect, it } from 'vitest';
import { EMULATOR_NAMES, routeArgs, start, turnObject, type Emulator } from '../../tools/provider-emulator.mjs';
import { ensureTesseract, OCR_LANGS } from '../../tools/font/sources.mjs';
import { cleanup, startDevice, tempDir, type Device } from './harness.ts';

export const REPLIES: Record<keyof typeof OCR_LANGS, string> = {
  de: 'Grüße aus München! Morgen wird es kälter, nimm die warme Jacke mit.',
  fr: 'Le garçon mange des crêpes près de la forêt, à côté du théâtre.',
  pl: 'Żółw i gęś idą powoli przez łąkę, a źrebię śpi w cieniu.',
  ru: 'Привет! Завтра будет холодно, возьми тёплую куртку и шарф.',
  el: 'Καλημέρα! Αύριο θα βρέξει, πάρε μαζί σου την ομπρέλα.',
  zh: '明天上午十点开会，请带上笔记本电脑和会议资料。',
  ja: '東京は今日も晴れです。午後三時に駅で会いましょう。',
  ko: '안녕하세요. 내일 회의는 오전 열 시에 시작합니다.',
};

const WHITESPACE = /\s+/gu;

/** Levenshtein distance over code points, divided by the reference's length (see the header). */
export function cer(read: string, reference: string): number {
  const a = [...read.normalize('NFKC').replace(WHITESPACE, '')];
  const b = [...reference.normalize('NFKC').replace(WHITESPACE, '')];
  let prev = Array.from({ length: b.length + 1 }, (_, j) => j);
  for (let i = 1; i <= a.length; i++) {
    const cur = [i];
    for (let j = 1; j <= b.length; j++) cur[j] = Math.min(prev[j]! + 1, cur[j - 1]! + 1, prev[j - 1]! + (a[i - 1] === b[j - 1] ? 0 : 1));
    prev = cur;
  }
  return prev[b.length]! / b.length;
}

/** The box of the reply: the largest filled rectangle RENDER? describes. */
function replyBox(render: string): { x: number; y: number; w: number; h: number } {
  let best = { x: 0, y: 0, w: 0, h: 0 };
  for (const m of render.matchAll(/^rect (\d+),(\d+) (\d+)x(\d+) /gm)) {
    const r = { x: Number(m[1]), y: Number(m[2]), w: Number(m[3]), h: Number(m[4]) };
    if (r.w * r.h > best.w * best.h) best = r;
  }
  return best;
}

/** The reply box of a frame as tesseract reads best: grey, dark on light, full range, 3 times the size. */
function ocrImage(png: PNG, box: { x: number; y: number; w: number; h: number }, scale = 3): Buffer {
  const grey = new Uint8Array(box.w * box.h);
  for (let y = 0; y < box.h; y++) {
    for (let x = 0; x < box.w; x++) {
      const s = ((box.y + y) * png.width + box.x + x) * 4;
      grey[y * box.w + x] = 255 - Math.round(0.299 * png.data[s]! + 0.587 * png.data[s + 1]! + 0.114 * png.data[s + 2]!);
    }
  }
  const lo = Math.min(...grey);
  const hi = Math.max(...grey);
  const out = new PNG({ width: box.w * scale, height: box.h * scale });
  for (let y = 0; y < out.height; y++) {
    for (let x = 0; x < out.width; x++) {
      const v = Math.round(((grey[Math.floor(y / scale) * box.w + Math.floor(x / scale)]! - lo) * 255) / Math.max(1, hi - lo));
      const d = (y * out.width + x) * 4;
      out.data[d] = out.data[d + 1] = out.data[d + 2] = v;
      out.data[d + 3] = 255;
    }
  }
  return PNG.sync.write(out);
}

let emu: Emulator;
let device: Device;
// OCR_KEEP=<folder> keeps the images tesseract read
const work = process.env['OCR_KEEP'] ?? tempDir('desk-ocr-');
mkdirSync(work, { recursive: true });
const read: Record<string, string> = {};

beforeAll(async () => {
  ensureTesseract((line: string) => console.log(line));
  emu = await start();
  device = await startDevice({ board: 'panel-35', args: routeArgs(emu.port, EMULATOR_NAMES) });
  const token = (await device.command('WEBTOK?')).split('\n')[0]!;
  const res = await device.fetch('/api/orch', { method: 'POST', token, body: new URLSearchParams({ key_anthropic: 'sk-e2e-anthropic', priority: 'anthropic' }) });
  expect(res.status).toBe(200);
  // the status screen (not the first-run Wi-Fi QR): the simulated network is saved
  const saved = await device.fetch('/savewifi', { method: 'POST', body: 'ssid=SimNet&pass=simnet-pass', headers: { 'Content-Type': 'application/x-www-form-urlencoded' } });
  expect(saved.status).toBe(202);
  for (let i = 0; i < 150 && /^screen=(\w+)/.exec(await device.command('RENDER?'))?.[1] !== 'status'; i++) await new Promise((r) => setTimeout(r, 100));
}, 120_000);

afterAll(async () => {
  await cleanup();
  await emu?.close();
});

describe('tesseract reads the owner\'s reply off the simulated panel', () => {
  for (const [lang, text] of Object.entries(REPLIES) as Array<[keyof typeof OCR_LANGS, string]>) {
    it(`${lang}: character error rate at most 5%, no character drawn as a box`, async () => {
      emu.reset();
      emu.script([{ turn: turnObject(text) }]);
      expect(await device.command(`TURN say it in ${lang}`, 30_000)).toBe(`${text}\nOK`);
      let render = '';
      await expect
        .poll(async () => {
          render = await device.command('RENDER?');
          return render.includes(JSON.stringify(text.slice(0, 8)).slice(0, -1));
        }, { timeout: 10_000 })
        .toBe(true);
      expect(render).toMatch(/ fonts=noto cjk=20px missing=0 /);
      const frame = PNG.sync.read(readFileSync(/^png=(\S+)/m.exec(render)![1]!));
      const file = join(work, `${lang}.png`);
      writeFileSync(file, ocrImage(frame, replyBox(render)));
      read[lang] = execFileSync('tesseract', [file, 'stdout', '-l', OCR_LANGS[lang], '--psm', '4'], { encoding: 'utf8', stdio: ['ignore', 'pipe', 'ignore'] }).trim();
      const rate = cer(read[lang]!, text);
      console.log(`OCR ${lang}: CER ${(rate * 100).toFixed(1)}% read ${JSON.stringify(read[lang])}`);
      expect(rate, `tesseract read ${JSON.stringify(read[lang])} (${file})`).toBeLessThanOrEqual(0.05);
    }, 60_000);
  }

  it('the bound can fail: each reading scored against another language\'s reply is far over 5%', () => {
    const langs = Object.keys(read);
    expect(langs.length).toBe(8);
    langs.forEach((lang, i) => {
      const other = langs[(i + 1) % langs.length]!;
      expect(cer(read[lang]!, REPLIES[other as keyof typeof REPLIES]), `${lang} against ${other}`).toBeGreaterThan(0.5);
    });
    expect(cer('Grusse aus Munchen', 'Grüße aus München')).toBeGreaterThan(0.05);
  });
});

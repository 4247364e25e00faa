// The typefaces the screen's fonts are made from, and where each one's
// license is recorded (tools/assets.mjs names these in the fonts asset's
// license note). Both come from Debian packages that the project installs
// when they are missing (ensureDebianTools: apt-get as root, or a message
// saying how), never by hand.
//
//   Noto Sans (Regular):     fonts-noto-core, SIL Open Font License 1.1
//   Noto Sans CJK SC (Regular, from the collection that carries SC, TC, JP,
//   KR and HK in one file):  fonts-noto-cjk, SIL Open Font License 1.1
//
// The license texts ship with the packages (/usr/share/doc/<pkg>/copyright);
// tools/font/LICENSE-OFL.txt is the license as the image carries it.
import { ensureDebianTools } from '../check-device.mjs';

export const TYPEFACES = {
  sans: {
    family: 'Noto Sans',
    file: '/usr/share/fonts/truetype/noto/NotoSans-Regular.ttf',
    pkg: 'fonts-noto-core',
    license: 'OFL-1.1',
  },
  cjk: {
    family: 'Noto Sans CJK SC',
    file: '/usr/share/fonts/opentype/noto/NotoSansCJK-Regular.ttc',
    postscriptName: 'NotoSansCJKsc-Regular',
    pkg: 'fonts-noto-cjk',
    license: 'OFL-1.1',
  },
};

/** Installs the typefaces' packages when their files are missing. */
export function ensureTypefaces(log) {
  ensureDebianTools(
    Object.values(TYPEFACES).map((t) => ({ cmd: t.file, pkg: t.pkg, check: `test -f ${t.file}` })),
    log,
  );
}

/** The OCR judge of the screen's text (test/e2e/screen-ocr.test.ts). */
export const OCR_LANGS = { de: 'deu', fr: 'fra', pl: 'pol', ru: 'rus', el: 'ell', zh: 'chi_sim', ja: 'jpn', ko: 'kor' };

export function ensureTesseract(log) {
  ensureDebianTools(
    [
      { cmd: 'tesseract', pkg: 'tesseract-ocr' },
      ...Object.values(OCR_LANGS).map((l) => ({ cmd: l, pkg: `tesseract-ocr-${l.replace('_', '-')}`, check: `tesseract --list-langs 2>/dev/null | grep -qx ${l}` })),
    ],
    log,
  );
}

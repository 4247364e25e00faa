// The characters each of the screen's fonts carries (tools/font-raster.mjs):
// what a European reply needs in every text size, the clock's digits in the
// big sizes, and the CJK set at one size. Only code points the typeface has
// a glyph for are kept (the tool says how many it dropped).

const range = (a, b) => Array.from({ length: b - a + 1 }, (_, i) => a + i);

/** Latin (Basic, Latin-1, Extended-A, the Romanian and schwa letters of Extended-B), Greek, Cyrillic, punctuation and symbols. */
export function europeanSet() {
  return [
    ...range(0x20, 0x7e),
    ...range(0xa0, 0xff),
    ...range(0x100, 0x17f),
    ...range(0x218, 0x21b),
    0x259,
    // combining marks: drawn over the letter before them when text cannot be composed (src/ui/shape.ts)
    ...range(0x300, 0x36f),
    ...range(0x370, 0x3ff),
    ...range(0x400, 0x4ff),
    ...range(0x2010, 0x2027),
    ...range(0x2030, 0x203a),
    0x2044, 0x20a4, 0x20ac, 0x20b4, 0x20b8, 0x20b9, 0x20ba, 0x20bd, 0x2116, 0x2122,
    ...range(0x2190, 0x2193),
    0x2212, 0x2248, 0x2260, 0x2264, 0x2265, 0xfffd,
  ];
}

/** The clock and the progress figure. */
export const DIGITS = [...'0123456789:-%. '].map((c) => c.codePointAt(0));

/** Code points a legacy two-byte encoding maps a block of rows to (decoded by Node's ICU). */
function decodeRows(encoding, lead, trail) {
  const dec = new TextDecoder(encoding, { fatal: false });
  const out = [];
  for (const a of lead) {
    for (const b of trail) {
      const s = dec.decode(new Uint8Array([a, b]));
      const cp = s.codePointAt(0);
      if ([...s].length === 1 && cp !== 0xfffd && cp > 0x2e80) out.push(cp);
    }
  }
  return out;
}

/**
 * The CJK set: GB2312 level 1 (3,755 common Hanzi: rows 16-55), JIS X 0208
 * level 1 (2,965 common Kanji: Shift_JIS 0x889F-0x9872), the KS X 1001
 * Hangul syllables (2,350: EUC-KR rows 16-40), the kana, CJK punctuation and
 * the full-width forms.
 */
export function cjkSet() {
  const gb = decodeRows('gbk', range(0xb0, 0xd7), range(0xa1, 0xfe));
  const sjisTrail = [...range(0x40, 0x7e), ...range(0x80, 0xfc)];
  // level 1 ends at 0x9872 (level 2 starts at 0x989F)
  const jis = [...decodeRows('shift_jis', range(0x88, 0x97), sjisTrail), ...decodeRows('shift_jis', [0x98], range(0x40, 0x72))].filter((cp) => cp >= 0x4e00 && cp <= 0x9fff);
  const hangul = decodeRows('euc-kr', range(0xb0, 0xc8), range(0xa1, 0xfe)).filter((cp) => cp >= 0xac00 && cp <= 0xd7a3);
  const kana = [...range(0x3041, 0x3096), ...range(0x3099, 0x309f), ...range(0x30a0, 0x30ff)];
  const punct = [...range(0x3000, 0x303f), ...range(0xff01, 0xff60), 0xffe5];
  return { gb, jis, hangul, all: [...new Set([...punct, ...kana, ...gb, ...jis, ...hangul])].sort((a, b) => a - b) };
}

// The Porter stemmer (M. F. Porter, "An algorithm for suffix stripping",
// 1980, with the two departures of Porter's own reference implementations:
// step 2 maps -bli to -ble and -logi to -log), for the lexical index: "going",
// "goes" and "go" are one term. Written after the structure of Porter's C
// version over a code array (no regular expressions: XS runs this for every
// word of every memory); test/unit/memory/stem.test.ts checks it against the
// npm package `stemmer` on every word of a large text. Lowercase ASCII words
// only; anything else is returned as it is.

const A = 0x61;
const E = 0x65;
const I = 0x69;
const O = 0x6f;
const U = 0x75;
const Y = 0x79;

class Word {
  b: number[];
  /** Index of the last letter of the word as it stands. */
  k: number;
  /** End of the stem before the suffix last matched by ends(). */
  j = 0;

  constructor(w: string) {
    this.b = [];
    for (let i = 0; i < w.length; i++) this.b.push(w.charCodeAt(i));
    this.k = this.b.length - 1;
  }

  cons(i: number): boolean {
    const c = this.b[i]!;
    if (c === A || c === E || c === I || c === O || c === U) return false;
    if (c === Y) return i === 0 ? true : !this.cons(i - 1);
    return true;
  }

  /** The number of consonant sequences between 0 and j: [C](VC)^m[V] gives m. */
  m(): number {
    let n = 0;
    let i = 0;
    const j = this.j;
    for (;;) {
      if (i > j) return n;
      if (!this.cons(i)) break;
      i++;
    }
    i++;
    for (;;) {
      for (;;) {
        if (i > j) return n;
        if (this.cons(i)) break;
        i++;
      }
      i++;
      n++;
      for (;;) {
        if (i > j) return n;
        if (!this.cons(i)) break;
        i++;
      }
      i++;
    }
  }

  vowelInStem(): boolean {
    for (let i = 0; i <= this.j; i++) if (!this.cons(i)) return true;
    return false;
  }

  doublec(j: number): boolean {
    return j >= 1 && this.b[j] === this.b[j - 1] && this.cons(j);
  }

  /** consonant-vowel-consonant ending at i, the last not w, x or y: -e is then restored (hop(e), fil(e)). */
  cvc(i: number): boolean {
    if (i < 2 || !this.cons(i) || this.cons(i - 1) || !this.cons(i - 2)) return false;
    const c = this.b[i]!;
    return c !== 0x77 && c !== 0x78 && c !== Y;
  }

  /** Whether the word ends with s after at least one letter (as the stemmer package's rules read; Porter's C also lets the whole word match). */
  ends(s: string): boolean {
    const len = s.length;
    if (len > this.k) return false;
    const from = this.k - len + 1;
    for (let i = 0; i < len; i++) if (this.b[from + i] !== s.charCodeAt(i)) return false;
    this.j = this.k - len;
    return true;
  }

  setTo(s: string): void {
    this.b.length = this.j + 1;
    for (let i = 0; i < s.length; i++) this.b.push(s.charCodeAt(i));
    this.k = this.j + s.length;
  }

  r(s: string): void {
    if (this.m() > 0) this.setTo(s);
  }

  text(): string {
    return String.fromCharCode(...this.b.slice(0, this.k + 1));
  }
}

/** Plurals, -ed and -ing (step 1ab), and a final y after a vowel in the stem (1c). */
function step1(w: Word): void {
  if (w.b[w.k] === 0x73) {
    if (w.ends('sses')) w.k -= 2;
    else if (w.ends('ies')) w.setTo('i');
    else if (w.b[w.k - 1] !== 0x73) w.k--;
    w.b.length = w.k + 1;
  }
  if (w.ends('eed')) {
    if (w.m() > 0) w.k--;
  } else if ((w.ends('ed') || w.ends('ing')) && w.vowelInStem()) {
    w.k = w.j;
    w.b.length = w.k + 1;
    if (w.ends('at')) w.setTo('ate');
    else if (w.ends('bl')) w.setTo('ble');
    else if (w.ends('iz')) w.setTo('ize');
    else if (w.doublec(w.k)) {
      const c = w.b[w.k]!;
      if (c !== 0x6c && c !== 0x73 && c !== 0x7a) w.k--;
    } else {
      w.j = w.k;
      if (w.m() === 1 && w.cvc(w.k)) w.setTo('e');
    }
  }
  w.b.length = w.k + 1;
  if (w.ends('y') && w.vowelInStem()) w.b[w.k] = I;
}

/** Double suffixes to single ones, where the stem has m > 0 (indexed by the next-to-last letter, as Porter's C does). */
const STEP2: Record<string, Array<[string, string]>> = {
  a: [['ational', 'ate'], ['tional', 'tion']],
  c: [['enci', 'ence'], ['anci', 'ance']],
  e: [['izer', 'ize']],
  l: [['bli', 'ble'], ['alli', 'al'], ['entli', 'ent'], ['eli', 'e'], ['ousli', 'ous']],
  o: [['ization', 'ize'], ['ation', 'ate'], ['ator', 'ate']],
  s: [['alism', 'al'], ['iveness', 'ive'], ['fulness', 'ful'], ['ousness', 'ous']],
  t: [['aliti', 'al'], ['iviti', 'ive'], ['biliti', 'ble']],
  g: [['logi', 'log']],
};
const STEP3: Record<string, Array<[string, string]>> = {
  e: [['icate', 'ic'], ['ative', ''], ['alize', 'al']],
  i: [['iciti', 'ic']],
  l: [['ical', 'ic'], ['ful', '']],
  s: [['ness', '']],
};
const STEP4: Record<string, string[]> = {
  a: ['al'],
  c: ['ance', 'ence'],
  e: ['er'],
  i: ['ic'],
  l: ['able', 'ible'],
  n: ['ant', 'ement', 'ment', 'ent'],
  o: ['ion', 'ou'],
  s: ['ism'],
  t: ['ate', 'iti'],
  u: ['ous'],
  v: ['ive'],
  z: ['ize'],
};

function replaceTable(w: Word, table: Record<string, Array<[string, string]>>, at: number): void {
  if (w.k < 1) return;
  const list = table[String.fromCharCode(w.b[at]!)];
  if (!list) return;
  for (const [from, to] of list) {
    if (w.ends(from)) {
      w.r(to);
      return;
    }
  }
}

function step4(w: Word): void {
  if (w.k < 1) return;
  const list = STEP4[String.fromCharCode(w.b[w.k - 1]!)];
  if (!list) return;
  let hit = false;
  for (const s of list) {
    if (!w.ends(s)) continue;
    // -ion only after s or t
    if (s === 'ion' && !(w.j >= 0 && (w.b[w.j] === 0x73 || w.b[w.j] === 0x74))) continue;
    hit = true;
    break;
  }
  if (hit && w.m() > 1) {
    w.k = w.j;
    w.b.length = w.k + 1;
  }
}

/** A final -e where m > 1 (or m = 1 and not cvc), and -ll to -l where m > 1. */
function step5(w: Word): void {
  w.j = w.k;
  if (w.b[w.k] === E) {
    const a = w.m();
    if (a > 1 || (a === 1 && !w.cvc(w.k - 1))) w.k--;
  }
  w.b.length = w.k + 1;
  // m() still measures up to the word's end before -e went (j), as Porter's C does
  if (w.b[w.k] === 0x6c && w.doublec(w.k) && w.m() > 1) w.k--;
  w.b.length = w.k + 1;
}

function isLowerAscii(s: string): boolean {
  for (let i = 0; i < s.length; i++) {
    const c = s.charCodeAt(i);
    if (c < A || c > 0x7a) return false;
  }
  return true;
}

/** The Porter stem of a lowercase word (words under three letters, and words that are not a-z, unchanged). */
export function stem(word: string): string {
  if (word.length < 3 || !isLowerAscii(word)) return word;
  const w = new Word(word);
  step1(w);
  replaceTable(w, STEP2, w.k - 1);
  replaceTable(w, STEP3, w.k);
  step4(w);
  step5(w);
  return w.text();
}

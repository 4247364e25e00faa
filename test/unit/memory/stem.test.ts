// The Porter stemmer of the lexical index (src/memory/stem.ts) against the
// npm package `stemmer` (a maintained implementation of the same algorithm):
// every word of the repository's documents and random lowercase words.
import { readFileSync } from 'node:fs';
import fc from 'fast-check';
import { stemmer } from 'stemmer';
import { describe, expect, it } from 'vitest';
import { stem } from '../../../src/memory/stem.ts';
import { queryTerms, termCosine, termList, wordsMatcher } from '../../../src/memory/lexicon.ts';

describe('the Porter stemmer', () => {
  it('stems every word of the repository documents as the stemmer package does', () => {
    const files = ['README.md', 'docs/architecture.md', 'docs/decisions.md', 'docs/device.md', 'docs/http-routes.md'];
    const words = new Set<string>();
    for (const f of files) for (const w of readFileSync(new URL(`../../../${f}`, import.meta.url), 'utf8').toLowerCase().match(/[a-z]+/g) ?? []) words.add(w);
    expect(words.size).toBeGreaterThan(3000);
    expect([...words].filter((w) => stem(w) !== stemmer(w))).toEqual([]);
  });

  it('and on random lowercase words', () => {
    fc.assert(
      fc.property(fc.stringMatching(/^[a-z]{1,14}$/), (w) => {
        expect(stem(w)).toBe(stemmer(w));
      }),
      { numRuns: 3000, seed: 11 },
    );
  });
});

describe('the words of a memory', () => {
  it('counts stems, leaves function words out, and sees the same words in any case or order', () => {
    const a = termList('My sister Jana lives in Prague');
    expect(a.length).toBe(4); // sister, jana, live, prague ("my" and "in" are function words)
    expect(termCosine(a.terms, termList('prague: my SISTER jana lived in').terms)).toBeCloseTo(1, 6);
    expect(termCosine(a.terms, termList('My brother lives in Brno').terms)).toBeLessThan(0.5);
    expect(queryTerms('running runs ran').length).toBe(2); // run (twice), ran
    expect(termList('会议在星期一').length).toBe(6); // each CJK character a word
  });
});

describe('the episodic search by words', () => {
  it('finds rows holding every word of the query in any form and order, or the text as written', () => {
    const m = wordsMatcher('budget meetings');
    expect(m('We had the meeting about the Budget today')).toBe(true);
    expect(m('The budget is tight')).toBe(false);
    expect(wordsMatcher('C++ ')('I code in C++ daily')).toBe(true);
    expect(wordsMatcher('running shoes')('she runs in new shoes')).toBe(true);
    expect(wordsMatcher('the of')('anything at all')).toBe(false);
  });
});

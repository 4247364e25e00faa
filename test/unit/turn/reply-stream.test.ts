// The reply read out of a turn object while it streams (src/turn/reply-stream.ts):
// for any turn object (the reply with escapes, quotes, emoji and every
// width of character; other members before and after it, nested objects and
// arrays with "reply" keys of their own), serialized plainly or with every
// non-ASCII character \u-escaped, in a Markdown fence or not, and cut into
// pieces anywhere (a surrogate pair or an escape split across pieces), the
// pieces handed on join to exactly the reply JSON.parse reads, no piece holds
// half a character, and the scanner says when the reply is complete.
import fc from 'fast-check';
import { describe, expect, it } from 'vitest';
import { ReplyScanner } from '../../../src/turn/reply-stream.ts';

/** JSON.stringify with every non-ASCII UTF-16 unit written as \uXXXX (as some servers send). */
function asciiJson(v: unknown): string {
  return JSON.stringify(v).replace(/[\u007f-\uffff]/g, (c) => `\\u${c.charCodeAt(0).toString(16).padStart(4, '0')}`);
}

function scan(text: string, cuts: number[]): { pieces: string[]; done: boolean; doneAt: number } {
  const pieces: string[] = [];
  const s = new ReplyScanner((t) => pieces.push(t));
  let at = 0;
  let doneAt = -1;
  for (const c of [...new Set(cuts.filter((x) => x > 0 && x < text.length))].sort((a, b) => a - b).concat(text.length)) {
    s.push(text.slice(at, c));
    if (s.done && doneAt < 0) doneAt = c;
    at = c;
  }
  return { pieces, done: s.done, doneAt };
}

const reply = fc.string({ unit: fc.oneof(fc.constantFrom('a', ' ', '.', '"', '\\', '/', '\n', '\t', '\u0001', '{', '}', ',', ':', 'é', '€', '😀', '中', '\u2028'), fc.string({ unit: 'grapheme', maxLength: 1 })), maxLength: 60 });
const other = fc.oneof(fc.string({ maxLength: 10 }), fc.integer(), fc.constant(null), fc.array(fc.record({ reply: fc.string({ maxLength: 5 }) }), { maxLength: 2 }), fc.record({ reply: fc.string({ maxLength: 5 }), x: fc.boolean() }));

describe('the reply scanner', () => {
  it('hands on exactly the reply, a piece at a time, whatever the order of members, the escaping and the cuts', () => {
    fc.assert(
      fc.property(
        reply,
        fc.array(fc.tuple(fc.constantFrom('memory', 'ask', 'device', 'rep', 'replyx', 'mem_write'), other), { maxLength: 4 }),
        fc.nat(4),
        fc.tuple(fc.boolean(), fc.boolean()),
        (r, members, where, [ascii, fence]) => {
          const entries: Array<[string, unknown]> = [...members];
          entries.splice(Math.min(where, entries.length), 0, ['reply', r]);
          const obj = Object.fromEntries(entries);
          let text = ascii ? asciiJson(obj) : JSON.stringify(obj);
          if (fence) text = '```json\n' + text + '\n```';
          const parsed = JSON.parse(fence ? text.slice(8, -4) : text) as { reply: string };
          const one = scan(text, []);
          expect(one.pieces.join('')).toBe(parsed.reply);
          expect(one.done).toBe(true);
          // Every single cut point, and random ones.
          const each = scan(text, Array.from({ length: text.length }, (_, i) => i));
          expect(each.pieces.join('')).toBe(parsed.reply);
          for (const p of each.pieces) {
            expect(p.length).toBeGreaterThan(0);
            const lastUnit = p.charCodeAt(p.length - 1);
            expect(lastUnit >= 0xd800 && lastUnit <= 0xdbff).toBe(false);
          }
        },
      ),
      { numRuns: 400 },
    );
  });

  it('is complete as soon as the reply string closes, before the rest of the object arrives', () => {
    const text = JSON.stringify({ reply: 'Hello there. How are you?', memory: 'x'.repeat(200), ask: '' });
    const closing = text.indexOf('",');
    const r = scan(text, [10, closing, closing + 1]);
    expect(r.doneAt).toBe(closing + 1);
    expect(r.pieces.join('')).toBe('Hello there. How are you?');
  });

  it('gives nothing for an object without a top-level reply string (negative controls)', () => {
    for (const text of ['{"memory":"a","ask":"b"}', '{"reply":null}', '{"nested":{"reply":"no"}}', '["reply","x"]', '{"reply" : 5, "x": "reply"}']) {
      const r = scan(text, []);
      expect([text, r.pieces.join('')]).toEqual([text, '']);
    }
  });
});

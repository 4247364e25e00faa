// The memory console commands (test builds only): MEMFILL (bulk writes for
// tests and power-cut drills), EPIQ (episodic search with a cold-scan
// cursor) and DREAM (decay, prune and dedupe now). COMPACT (summarize a
// chat into memory) is the turn engine's: src/turn/compact.ts.

import { CommandError, type Command } from '../core/console.ts';
import type { Kernel } from '../core/kernel.ts';
import { randomId } from '../util/ids.ts';
import { stamp } from './time.ts';
import type { Memory } from './memory.ts';
import { MemoryError } from './vector-store.ts';

// Regular expressions are module constants: XS compiles a literal each time it is evaluated.
const CURSOR_ARGS = /^@(\S+)\s*(.*)$/;

// Made-up words of two to four syllables: filler reads as no real text, so a
// real query never finds it by meaning (a bag of real words would resemble
// every query about trees, food or weather a little).
const SYLLABLES = 'ka lo mi ne ru te sa vi do po gu fe zo ri ba nu'.split(' ');

function fillerWord(next: () => number): string {
  let w = '';
  for (let n = 2 + (next() % 3); n > 0; n--) w += SYLLABLES[next() % SYLLABLES.length]!;
  return w;
}

/** Deterministic filler text of about `bytes` bytes, distinct per (run, i) so dedup keeps them apart. */
export function fillerText(kind: string, run: string, i: number, bytes: number): string {
  let s = Math.imul(i + 1, 0x9e3779b1) >>> 0;
  for (const ch of run) s = (Math.imul(s ^ ch.codePointAt(0)!, 0x01000193) ^ (s >>> 15)) >>> 0;
  if (s === 0) s = 1;
  const words = [`${kind}fill ${run} item ${i}:`];
  let len = words[0]!.length;
  const next = (): number => {
    s ^= s << 13;
    s ^= s >>> 17;
    s ^= s << 5;
    s >>>= 0;
    return s;
  };
  while (len < bytes) {
    const w = fillerWord(next);
    words.push(w);
    len += w.length + 1;
  }
  return words.join(' ');
}

/** Lets the event loop run (watchdog, console, HTTP) during a long command. */
function yieldLoop(k: Kernel): Promise<void> {
  return new Promise((resolve) => void k.hal.clock.setTimeout(resolve, 0));
}

export function memoryCommands(memory: Memory, k: Kernel): Command[] {
  return [
    {
      verb: 'MEMFILL',
      usage: '<epi or vec> <n> [bytes]',
      help: 'write n filler memories (vec) or episodic rows (epi) of about bytes bytes; logs each 25 acknowledged',
      run: async (c) => {
        const [what, nRaw, bytesRaw] = c.argv;
        const n = Number(nRaw);
        const bytes = bytesRaw === undefined ? 120 : Number(bytesRaw);
        if ((what !== 'epi' && what !== 'vec') || !Number.isInteger(n) || n < 1 || n > 100000) throw new CommandError('usage: MEMFILL <epi or vec> <n 1-100000> [bytes]');
        if (!Number.isInteger(bytes) || bytes < 16 || bytes > (what === 'vec' ? 1200 : 4096)) throw new CommandError(`bytes must be 16-${what === 'vec' ? 1200 : 4096}`);
        // A random run tag: bursts after a reboot must not repeat (and so merge with) earlier ones.
        const run = randomId((b) => k.hal.system.random(b), '', 3);
        let added = 0;
        for (let i = 0; i < n; i++) {
          const text = fillerText(what, run, i, bytes);
          try {
            if (what === 'vec') {
              const o = await memory.store.write({ content: text, importance: 0.5, source: 'memfill', creator: true }, null);
              if (o.action === 'added') added++;
            } else {
              memory.episodic.append({ session: 'memfill', role: 'system', kind: 'log', text });
              added++;
            }
          } catch (e) {
            if (e instanceof MemoryError) throw new CommandError(`after ${i} written: ${e.message}`);
            throw e;
          }
          if ((i + 1) % 25 === 0) {
            k.log.info('mem', `memfill ${what} ${i + 1} acknowledged`);
            await yieldLoop(k);
          }
        }
        k.log.info('mem', `memfill ${what} ${n} acknowledged`);
        c.out(`${what} ${n} written (${added} new); vec=${memory.store.index.count}`);
      },
    },
    {
      verb: 'EPIQ',
      usage: '[@<cursor>] <text>',
      help: 'search the episodic log by words (any order and form) or the text as written: the hot window, or a cold scan from @cursor',
      run: (c) => {
        let args = c.args;
        let cursor: string | null = null;
        const m = CURSOR_ARGS.exec(args);
        if (m) {
          cursor = m[1]!;
          args = m[2]!;
        }
        const q = { limit: 20, ...(args ? { text: args } : {}) };
        try {
          const page = cursor ? memory.episodic.coldScan(q, cursor) : memory.episodic.query(q);
          for (const r of page.rows) c.out(`${stamp(r.ts)} ${r.session} ${r.role}/${r.kind}: ${r.text.length > 120 ? r.text.slice(0, 120) + '...' : r.text}`);
          c.out(`rows=${page.rows.length} searchedTo=${page.searchedTo === null ? '-' : stamp(page.searchedTo)} olderExists=${page.olderExists ? 1 : 0} next=${page.nextBefore ?? '-'}`);
        } catch (e) {
          if (e instanceof MemoryError) throw new CommandError(e.message);
          throw e;
        }
      },
    },
    {
      verb: 'DREAM',
      maxArgs: 0,
      help: 'run memory maintenance now: one decay step, prune, dedupe',
      run: (c) => {
        try {
          const r = memory.dreamNow();
          c.out(`decayed=${r.decayed} pruned=${r.pruned} merged=${r.merged} vec=${memory.store.index.count}`);
        } catch (e) {
          if (e instanceof MemoryError) throw new CommandError(e.message);
          throw e;
        }
      },
    },
    {
      verb: 'MEMSIDES',
      usage: '<both, meaning or words>',
      maxArgs: 1,
      help: 'which sides rank memory searches until the next restart (measurement only; default both)',
      run: (c) => {
        const sides = c.argv[0];
        if (sides !== 'both' && sides !== 'meaning' && sides !== 'words') throw new CommandError('usage: MEMSIDES <both, meaning or words>');
        memory.store.sides = sides;
        c.out(`memory search ranks by ${sides === 'both' ? 'meaning and words' : sides}`);
      },
    },
  ];
}

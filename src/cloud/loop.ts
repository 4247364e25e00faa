// The loopback self-test's reading of an answer (CLOUDLOOP through the tunnel
// path alone): its content type, its first bytes and whole length (a streamed
// answer read to its end), and an excerpt for the console.

import type { HttpResponse } from '../net/http/types.ts';
import { decode, encode } from '../util/utf8.ts';

export function headerOf(res: HttpResponse, name: string): string | undefined {
  return Object.entries(res.headers ?? {}).find(([k]) => k.toLowerCase() === name)?.[1];
}

/** The first `keep` bytes of an answer's body and its whole length. */
export function bodyOf(res: HttpResponse, keep: number): Promise<{ bytes: Uint8Array; total: number }> {
  if (!res.stream) {
    const b = res.body === undefined ? new Uint8Array(0) : typeof res.body === 'string' ? encode(res.body) : res.body;
    return Promise.resolve({ bytes: b.slice(0, keep), total: b.length });
  }
  const stream = res.stream;
  return new Promise((resolve) => {
    const kept: Uint8Array[] = [];
    let have = 0;
    let total = 0;
    const finish = (): void => {
      const out = new Uint8Array(have);
      let at = 0;
      for (const c of kept) {
        out.set(c, at);
        at += c.length;
      }
      resolve({ bytes: out, total });
    };
    stream.start({
      onDrain: null,
      write(chunk) {
        const b = typeof chunk === 'string' ? encode(chunk) : chunk;
        total += b.length;
        if (have < keep) {
          const part = b.slice(0, keep - have);
          kept.push(part);
          have += part.length;
        }
        return true;
      },
      end: finish,
      abort: finish,
    });
  });
}

/** Text of a loop excerpt for the console (one line). */
export function excerptText(bytes: Uint8Array, max = 160): string {
  const t = decode(bytes);
  const out: string[] = [];
  let n = 0;
  for (const ch of t) {
    if (n++ >= max) {
      out.push('...');
      break;
    }
    const c = ch.codePointAt(0)!;
    out.push(c < 32 ? ' ' : ch);
  }
  return out.join('');
}

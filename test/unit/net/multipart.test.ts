// The streaming multipart reader (src/net/http/multipart.ts): a body cut into
// chunks anywhere (inside the boundary, a part's headers, the CRLFs) reads
// exactly as the whole body does, and the whole body reads as undici's own
// multipart parser (Node's Response.formData(), which we did not write)
// reads it. Bodies are made by undici's encoder too (Response(FormData)), and
// by hand for the hostile shapes: file bytes that begin a boundary and stop
// short, CRLF runs, a part split after every byte.

import fc from 'fast-check';
import { describe, expect, it } from 'vitest';
import { parseMultipart } from '../../../src/net/http/body.ts';
import { MultipartReader, PART_HEAD_MAX, type PartHead } from '../../../src/net/http/multipart.ts';

type Event = ['begin', PartHead] | ['data', number[]] | ['end'];

/** Feeds body in the given pieces; returns the parts (head, bytes) and the reader's error, data merged per part. */
function read(body: Uint8Array, boundary: string, cuts: number[] = []): { parts: Array<{ head: PartHead; bytes: number[] }>; error: string | null; done: boolean; positions: number[] } {
  const parts: Array<{ head: PartHead; bytes: number[] }> = [];
  const positions: number[] = [];
  const reader: MultipartReader = new MultipartReader(boundary, {
    begin(head) {
      parts.push({ head, bytes: [] });
      positions.push(reader.position);
    },
    data(bytes) {
      parts[parts.length - 1]!.bytes.push(...bytes);
    },
    end() {},
  });
  let at = 0;
  for (const cut of [...cuts].sort((a, b) => a - b)) {
    reader.feed(body.subarray(at, cut));
    at = cut;
  }
  reader.feed(body.subarray(at));
  reader.finish();
  return { parts, error: reader.error, done: reader.done, positions };
}

const enc = new TextEncoder();
const bytes = (s: string): Uint8Array => enc.encode(s);

/** A body as a browser sends it, encoded by undici (Node's fetch). */
async function encoded(fields: Array<[string, string | { name: string; data: Uint8Array; type?: string }]>): Promise<{ body: Uint8Array; boundary: string; type: string }> {
  const fd = new FormData();
  for (const [k, v] of fields) {
    if (typeof v === 'string') fd.append(k, v);
    else fd.append(k, new Blob([v.data], { type: v.type ?? 'application/octet-stream' }), v.name);
  }
  const res = new Response(fd);
  const type = res.headers.get('content-type')!;
  return { body: new Uint8Array(await res.arrayBuffer()), boundary: /boundary=(.*)$/.exec(type)![1]!, type };
}

/** What undici's parser reads from the body: [name, text | {filename, bytes}] in order. */
async function undiciReads(body: Uint8Array, type: string): Promise<Array<[string, string | { filename: string; bytes: number[] }]>> {
  const fd = await new Response(body, { headers: { 'content-type': type } }).formData();
  const out: Array<[string, string | { filename: string; bytes: number[] }]> = [];
  for (const [k, v] of fd.entries()) out.push([k, typeof v === 'string' ? v : { filename: v.name, bytes: [...new Uint8Array(await v.arrayBuffer())] }]);
  return out;
}

function ours(r: ReturnType<typeof read>): Array<[string, string | { filename: string; bytes: number[] }]> {
  return r.parts.map((p) => [p.head.name, p.head.filename === null ? new TextDecoder().decode(new Uint8Array(p.bytes)) : { filename: p.head.filename, bytes: p.bytes }]);
}

const BOUNDARY = 'XyZ-b0undary';
/** A hand-made body whose file bytes imitate the delimiter and stop short of it, between a preamble and an epilogue. */
function tricky(): Uint8Array {
  return bytes(
    `preamble\r\n--${BOUNDARY}\r\nContent-Disposition: form-data; name="project"\r\n\r\nnotes\r\n` +
      `--${BOUNDARY}\r\nContent-Disposition: form-data; name="file"; filename="a.txt"\r\nContent-Type: text/plain\r\n\r\n` +
      `\r\n--${BOUNDARY.slice(0, 5)}\r\r\n\r\n-tail\r\n--${BOUNDARY}--\r\nepilogue`,
  );
}

describe('the streaming multipart reader', () => {
  it('reads what undici encodes as undici reads it: fields, files with any bytes, in order', async () => {
    const data = new Uint8Array(3000).map((_, i) => (i * 31 + 7) & 0xff);
    const { body, boundary, type } = await encoded([
      ['project', 'notes'],
      ['file', { name: 'song.mp3', data, type: 'audio/mpeg' }],
      ['name', 'über.md'],
    ]);
    const r = read(body, boundary);
    expect(r.error).toBeNull();
    expect(r.done).toBe(true);
    expect(ours(r)).toEqual(await undiciReads(body, type));
    expect(r.parts[1]!.head).toEqual({ name: 'file', filename: 'song.mp3', contentType: 'audio/mpeg' });
  });

  it('reads a body cut at every byte, in two pieces and byte by byte, exactly as the whole', () => {
    const body = tricky();
    const whole = read(body, BOUNDARY);
    expect(whole.error).toBeNull();
    expect(ours(whole)).toEqual([
      ['project', 'notes'],
      ['file', { filename: 'a.txt', bytes: [...bytes(`\r\n--${BOUNDARY.slice(0, 5)}\r\r\n\r\n-tail`)] }],
    ]);
    for (let cut = 0; cut <= body.length; cut++) expect(read(body, BOUNDARY, [cut]), `cut at ${cut}`).toEqual(whole);
    expect(read(body, BOUNDARY, Array.from({ length: body.length }, (_, i) => i))).toEqual(whole);
  });

  it('is a fast-check property: random parts, random bytes (delimiter look-alikes among them), random chunkings', async () => {
    const chunk = fc.oneof(
      fc.uint8Array({ maxLength: 64 }),
      fc.constantFrom(bytes('\r\n'), bytes('\r\n--'), bytes(`\r\n--${BOUNDARY.slice(0, 3)}`), bytes(`--${BOUNDARY}`), bytes('\r')),
    );
    const fileBytes = fc.array(chunk, { maxLength: 6 }).map((cs) => {
      const out = cs.flatMap((c) => [...c]);
      return new Uint8Array(out);
    });
    const part = fc.oneof(
      fc.record({ kind: fc.constant('field' as const), name: fc.stringMatching(/^[a-z]{1,8}$/), value: fc.string({ maxLength: 40 }) }),
      fc.record({ kind: fc.constant('file' as const), name: fc.stringMatching(/^[a-z]{1,8}$/), filename: fc.stringMatching(/^[a-z]{1,8}\.[a-z]{2,3}$/), data: fileBytes }),
    );
    await fc.assert(
      fc.asyncProperty(fc.array(part, { minLength: 1, maxLength: 4 }), fc.array(fc.nat(), { maxLength: 12 }), async (parts, rawCuts) => {
        const { body, boundary, type } = await encoded(parts.map((p) => [p.name, p.kind === 'field' ? p.value : { name: p.filename, data: p.data }]));
        const whole = read(body, boundary);
        expect(whole.error).toBeNull();
        expect(ours(whole)).toEqual(await undiciReads(body, type));
        const cuts = rawCuts.map((c) => c % (body.length + 1));
        expect(read(body, boundary, cuts)).toEqual(whole);
      }),
      { numRuns: 150 },
    );
  });

  it('gives each file part its position: where its bytes start in the body', async () => {
    const { body, boundary } = await encoded([['a', 'x'], ['file', { name: 'f.bin', data: new Uint8Array(100).fill(9) }]]);
    const r = read(body, boundary, [7, 150]);
    const at = r.positions[1]!;
    expect([...body.subarray(at, at + 100)]).toEqual(new Array(100).fill(9));
    // What is left after the file's bytes is the closing delimiter as browsers and curl send it.
    expect(body.length - at - 100).toBe(boundary.length + 8);
  });

  it('fails in the whole-body reader\'s words, whatever the chunking', () => {
    const cases: Array<[string, string, string]> = [
      ['', 'x', 'bad multipart boundary'],
      ['b'.repeat(71), 'x', 'bad multipart boundary'],
      ['bb', 'no delimiter here', 'multipart boundary not found'],
      ['bb', '--bbXY', 'malformed multipart body'],
      ['bb', '--bb', 'malformed multipart body'],
      ['bb', '--bb\r\nContent-Disposition: form-data; name="a"\r\n', 'malformed multipart part'],
      ['bb', '--bb\r\nContent-Disposition: form-data; name="a"\r\n\r\nvalue without an end', 'unterminated multipart body'],
      ['bb', '--bb\r\nContent-Disposition: form-data\r\n\r\nnameless\r\n--bb--', 'multipart part without a name'],
      ['bb', '--bb\r\nContent-Disposition: form-data\r\n\r\nnameless and unterminated', 'unterminated multipart body'],
      ['bb', `--bb\r\nX-Long: ${'h'.repeat(PART_HEAD_MAX)}\r\n\r\n\r\n--bb--`, 'malformed multipart part'],
    ];
    for (const [boundary, text, error] of cases) {
      const body = bytes(text);
      expect(parseMultipart(body, boundary), text.slice(0, 40)).toEqual({ ok: false, error });
      for (let cut = 0; cut <= Math.min(body.length, 80); cut++) expect(read(body, boundary, [cut]).error, `${text.slice(0, 30)} cut ${cut}`).toBe(error);
    }
  });

  it('hands on nothing after the closing delimiter, and holds back at most a delimiter\'s length', () => {
    const events: Event[] = [];
    const reader = new MultipartReader('bb', {
      begin: (h) => events.push(['begin', h]),
      data: (b) => events.push(['data', [...b]]),
      end: () => events.push(['end']),
    });
    reader.feed(bytes('--bb\r\nContent-Disposition: form-data; name="f"; filename="x"\r\n\r\n'));
    reader.feed(new Uint8Array(1000).fill(65));
    // All 1000 bytes are handed on at once: none could begin a delimiter.
    expect(events).toEqual([['begin', { name: 'f', filename: 'x', contentType: 'text/plain' }], ['data', new Array(1000).fill(65)]]);
    reader.feed(bytes('abc\r\n--b'));
    // "\r\n--b" may begin the delimiter: held back.
    expect(events.at(-1)).toEqual(['data', [97, 98, 99]]);
    reader.feed(bytes('x'));
    expect(events.at(-1)).toEqual(['data', [...bytes('\r\n--bx')]]);
    reader.feed(bytes('\r\n--bb--\r\n--bb\r\nContent-Disposition: form-data; name="late"\r\n\r\nz\r\n--bb--'));
    reader.finish();
    expect(events.at(-1)).toEqual(['end']);
    expect(events.filter((e) => e[0] === 'begin')).toHaveLength(1);
    expect(reader.error).toBeNull();
  });
});

// Uploads taken as they arrive (src/core/upload-route.ts over the HTTP
// server's body sink): the route sees the file's bytes before the body has
// ended, a cut-off, timed-out or oversized request is undone (abort, never
// end), a refusal of the part named "file" is answered at once while the
// rest of the body is read and dropped, a request whose token is in the form
// takes the whole-body path to the same answer, and chunked bodies stream
// too.

import { describe, expect, it } from 'vitest';
import { Router } from '../../../src/core/router.ts';
import { uploadRoute, type Upload } from '../../../src/core/upload-route.ts';
import { parseForm } from '../../../src/net/http/body.ts';
import { errorResponse, jsonResponse } from '../../../src/net/http/errors.ts';
import { DEFAULT_LIMITS, HttpServer } from '../../../src/net/http/server.ts';
import type { HttpRequest } from '../../../src/net/http/types.ts';
import { flushJobs, VirtualClock } from '../../support/clock.ts';
import { parseResponses } from '../../support/http.ts';
import { MemNet, type MemSocket } from '../../support/memnet.ts';

const gate = Object.assign(
  (req: HttpRequest): boolean => {
    const header = req.headers.get('x-device-token');
    if (header !== undefined) return header === 'secret';
    const form = parseForm(req);
    return form.ok && form.form.fields.get('token') === 'secret';
  },
  { presented: (headers: Map<string, string>) => headers.has('x-device-token') },
);

type Log = Array<string>;

/** An Upload that records what it is told, refusing files named refuse*, and data past `cap` bytes. */
function recorder(log: Log, cap = Infinity): () => Upload {
  return () => {
    let n = 0;
    return {
      file(part, expected) {
        log.push(`file ${part.name} ${part.filename} ${expected}`);
        n = 0;
        return part.filename.startsWith('refuse') ? errorResponse(409, 'refused', `${part.filename} refused`) : null;
      },
      data(bytes) {
        n += bytes.length;
        log.push(`data ${bytes.length}`);
        return n > cap ? errorResponse(409, 'card-full', `over ${cap}`) : null;
      },
      end(fields, file) {
        log.push('end');
        return jsonResponse({ fields: Object.fromEntries(fields), file });
      },
      abort() {
        log.push('abort');
      },
    };
  };
}

function setup(cap = Infinity) {
  const net = new MemNet();
  const clock = new VirtualClock();
  const log: Log = [];
  const router = new Router(gate);
  router.add(uploadRoute({ path: '/up', bodyLimit: 64 * 1024, field: 'file', anyFile: true, fieldsMax: 256, begin: recorder(log, cap) }));
  const server = new HttpServer(net, clock, router, DEFAULT_LIMITS);
  server.listen(80);
  return { net, clock, log, server };
}

const enc = new TextEncoder();
const B = 'bNd';
const part = (name: string, filename: string | null, data: string): string =>
  `--${B}\r\nContent-Disposition: form-data; name="${name}"${filename === null ? '' : `; filename="${filename}"`}\r\n\r\n${data}\r\n`;
const head = (length: number | null, extra = 'X-Device-Token: secret\r\n'): string =>
  `POST /up HTTP/1.1\r\nHost: d\r\n${extra}Content-Type: multipart/form-data; boundary=${B}\r\n${length === null ? 'Transfer-Encoding: chunked' : `Content-Length: ${length}`}\r\n\r\n`;

async function settle(): Promise<void> {
  for (let i = 0; i < 20; i++) await flushJobs();
}

function open(net: MemNet): MemSocket {
  return net.client(80);
}

describe('uploads taken as they arrive', () => {
  it('hands the file\'s bytes on before the body has ended, then answers with the fields and the file', async () => {
    const { net, log } = setup();
    const body = part('project', null, 'notes') + part('file', 'a.bin', 'x'.repeat(3000)) + `--${B}--\r\n`;
    const s = open(net);
    s.send(head(body.length) + body.slice(0, 2000));
    await settle();
    expect(log[0]).toBe(`file file a.bin 3000`); // its size judged from Content-Length, before any of its bytes
    expect(log.filter((l) => l.startsWith('data')).length).toBeGreaterThan(0);
    expect(log).not.toContain('end');
    s.send(body.slice(2000));
    await settle();
    expect(log.at(-1)).toBe('end');
    const [res] = parseResponses(s.text());
    expect(res!.status).toBe(200);
    expect(JSON.parse(res!.body)).toEqual({ fields: { project: 'notes' }, file: { field: 'file', filename: 'a.bin', contentType: 'text/plain', size: 3000 } });
  });

  it('undoes an upload cut off mid-body: abort, never end', async () => {
    const { net, log } = setup();
    const body = part('file', 'a.bin', 'y'.repeat(5000)) + `--${B}--\r\n`;
    const s = open(net);
    s.send(head(body.length) + body.slice(0, 1000));
    await settle();
    s.destroy();
    await settle();
    expect(log).toContain('abort');
    expect(log).not.toContain('end');
  });

  it('undoes an upload whose sender falls silent (408) and one past the body limit (413)', async () => {
    const { net, clock, log } = setup();
    const s = open(net);
    s.send(head(5000) + part('file', 'a.bin', 'z'.repeat(100)).slice(0, 150));
    await settle();
    await clock.advance(DEFAULT_LIMITS.bodyIdleTimeoutMs + 1);
    await settle();
    expect(parseResponses(s.text())[0]!.status).toBe(408);
    expect(log.at(-1)).toBe('abort');
    log.length = 0;
    // Over the limit by Content-Length: refused at the head, nothing begun.
    const t = open(net);
    t.send(head(64 * 1024 + 1));
    await settle();
    expect(parseResponses(t.text())[0]!.status).toBe(413);
    expect(log).toEqual([]);
    // Over the limit in a chunked body: undone.
    const u = open(net);
    u.send(head(null) + `${(1000).toString(16)}\r\n${part('file', 'big.bin', 'q'.repeat(2000)).slice(0, 1000)}\r\n`);
    for (let i = 0; i < 70; i++) u.send(`${(1000).toString(16)}\r\n${'q'.repeat(1000)}\r\n`);
    await settle();
    expect(parseResponses(u.text())[0]!.status).toBe(413);
    expect(log.at(-1)).toBe('abort');
    expect(log).not.toContain('end');
  });

  it('answers a refusal of the part named "file" at once, reads the rest and closes; a refusal of another part waits for the body', async () => {
    const { net, log } = setup(1500);
    const body = part('file', 'a.bin', 'w'.repeat(4000)) + `--${B}--\r\n`;
    const s = open(net);
    s.send(head(body.length) + body.slice(0, 2500));
    await settle();
    const [early] = parseResponses(s.text());
    expect(early).toMatchObject({ status: 409 });
    expect(early!.headers.get('connection')).toBe('close');
    expect(JSON.parse(early!.body)).toMatchObject({ error: 'card-full' });
    expect(log.at(-1)).toBe('abort');
    expect(s.closed).toBe(false); // still reading what the client sends
    s.send(body.slice(2500));
    await settle();
    expect(s.closed).toBe(true);
    expect(parseResponses(s.text())).toHaveLength(1);
    expect(log).not.toContain('end');

    // A first file part of another name is refused, then a part named "file" replaces it.
    log.length = 0;
    const body2 = part('other', 'refuse.bin', 'r') + part('file', 'b.bin', 'ok') + `--${B}--\r\n`;
    const t = open(net);
    t.send(head(body2.length) + body2);
    await settle();
    const [res] = parseResponses(t.text());
    expect(res!.status).toBe(200);
    expect(JSON.parse(res!.body).file).toMatchObject({ field: 'file', filename: 'b.bin', size: 2 });
    // The first part's size as if it were the last: the body less its head and the closing delimiter.
    const expected = body2.length - (body2.indexOf('\r\n\r\n') + 4) - (B.length + 8);
    expect(log).toEqual([`file other refuse.bin ${expected}`, 'abort', 'abort', 'file file b.bin 2', 'data 2', 'end']);

    // Refused and never replaced: that answer, once the body has ended.
    log.length = 0;
    const body3 = part('other', 'refuse.bin', 'r') + part('note', null, 'n') + `--${B}--\r\n`;
    const u = open(net);
    u.send(head(body3.length) + body3);
    await settle();
    expect(parseResponses(u.text())[0]).toMatchObject({ status: 409 });
    expect(log).not.toContain('end');
  });

  it('answers a body that is not multipart with no file, and an unreadable one with the reader\'s words', async () => {
    const { net } = setup();
    const s = open(net);
    s.send(`POST /up HTTP/1.1\r\nHost: d\r\nX-Device-Token: secret\r\nConnection: close\r\nContent-Type: application/x-www-form-urlencoded\r\nContent-Length: 9\r\n\r\nproject=x`);
    await settle();
    expect(JSON.parse(parseResponses(s.text())[0]!.body)).toEqual({ fields: {}, file: null });
    const t = open(net);
    const bad = `--${B}\r\nContent-Disposition: form-data; name="file"; filename="a"\r\n\r\nno end`;
    t.send(head(bad.length) + bad);
    await settle();
    expect(parseResponses(t.text())[0]).toMatchObject({ status: 400 });
    expect(JSON.parse(parseResponses(t.text())[0]!.body)).toMatchObject({ error: 'bad-request', message: 'unterminated multipart body' });
  });

  it('streams a chunked body, and gives a request whose token is in the form the same answer through the whole-body path', async () => {
    const { net, log } = setup();
    const body = part('file', 'c.bin', 'c'.repeat(1200)) + `--${B}--\r\n`;
    const s = open(net);
    s.send(head(null) + body.match(/[\s\S]{1,500}/g)!.map((c) => `${enc.encode(c).length.toString(16)}\r\n${c}\r\n`).join('') + '0\r\n\r\n');
    await settle();
    expect(JSON.parse(parseResponses(s.text())[0]!.body).file).toMatchObject({ filename: 'c.bin', size: 1200 });
    expect(log[0]).toBe('file file c.bin null');

    log.length = 0;
    const withToken = part('token', null, 'secret') + part('file', 'd.bin', 'dd') + `--${B}--\r\n`;
    const t = open(net);
    t.send(head(withToken.length, 'Connection: close\r\n') + withToken);
    await settle();
    expect(JSON.parse(parseResponses(t.text())[0]!.body)).toEqual({ fields: { token: 'secret' }, file: { field: 'file', filename: 'd.bin', contentType: 'text/plain', size: 2 } });
    expect(log).toEqual([`file file d.bin 2`, 'data 2', 'end']);
    // Without the token anywhere: refused at the head, nothing begun.
    log.length = 0;
    const v = open(net);
    v.send(`POST /up HTTP/1.1\r\nHost: d\r\nX-Device-Token: wrong\r\nContent-Type: multipart/form-data; boundary=${B}\r\nContent-Length: ${withToken.length}\r\n\r\n${withToken}`);
    await settle();
    expect(parseResponses(v.text())[0]!.status).toBe(401);
    expect(log).toEqual([]);
  });
});

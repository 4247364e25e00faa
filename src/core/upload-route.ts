// The one shape of a route that takes a file upload (multipart/form-data with
// one file part) and writes it as it arrives, holding no more of the body
// than the piece in hand: the HTTP server hands the body over as it reads it
// (Route.upload, a BodySink), the multipart reader cuts it into parts, and
// the route's Upload writes the file part where it belongs (a temporary file
// on the card) and decides at the end. A body read whole (a form that
// carries the token, the cloud tunnel) goes through the same code at once.
//
// The file part is the first file part named `field` (or, where the route
// says so, the first file part until one named `field` replaces it: what a
// whole-body reader would pick). The
// route may refuse the file at its head or during its bytes: the answer goes
// at once when that part is surely the file (named `field`), otherwise when
// the body has ended. An unreadable body answers 400 bad-request with the
// reader's words; a body of another type carries no file.

import { boundaryOf, mediaType } from '../net/http/body.ts';
import { errorResponse } from '../net/http/errors.ts';
import { MultipartReader, type PartHead, type PartSink } from '../net/http/multipart.ts';
import type { BodySink, HttpRequest, HttpResponse } from '../net/http/types.ts';
import { concatBytes } from '../util/bytes.ts';
import { decode } from '../util/utf8.ts';
import type { Access, Route } from './router.ts';

/** The head of a file part. */
export type FileHead = PartHead & { filename: string };

export interface UploadedFile {
  field: string;
  filename: string;
  contentType: string;
  /** Bytes of the file part. */
  size: number;
}

/** One upload under way: the route's side. Any response it returns refuses the upload. */
export interface Upload {
  /**
   * The file part begins. expected is its size if it is the body's last part
   * (judged from Content-Length), or null. Called again when a later part
   * replaces it (after abort()).
   */
  file(part: FileHead, expected: number | null): HttpResponse | null;
  /** The file's bytes, valid only during the call. */
  data(bytes: Uint8Array): HttpResponse | null;
  /** The body has ended: the other fields and the file (null: none came). */
  end(fields: Map<string, string>, file: UploadedFile | null): HttpResponse | Promise<HttpResponse>;
  /** Leaves nothing of the upload behind; may be called more than once, and file() may start afresh after it. */
  abort(): void;
}

export interface UploadRouteSpec {
  path: string;
  /** POST unless said. */
  method?: string;
  access?: Access;
  bodyLimit: number;
  /** The file's form field. */
  field: string;
  /** With no part named `field`, the first file part is the file (false: only one named `field` is). */
  anyFile: boolean;
  /** Bytes of the other fields kept, all together (0: they are not read); a field that would pass it is left out. */
  fieldsMax: number;
  begin(req: HttpRequest): Upload;
}

/** The bytes after a last part: CRLF "--" boundary "--" CRLF, as browsers and curl end a body. */
function closingLength(boundary: string): number {
  return boundary.length + 8;
}

class UploadSink implements BodySink {
  private readonly reader: MultipartReader | null;
  private readonly length: number | null;
  private readonly upload: Upload;
  private readonly fields = new Map<string, string>();
  private fieldBytes = 0;
  private file: { head: FileHead; final: boolean; size: number } | null = null;
  /** What the part being read is. */
  private role: 'file' | 'field' | 'skip' = 'skip';
  private field: { name: string; pieces: Uint8Array[]; size: number } | null = null;
  /** The route refused the file part: its answer, unless a later part replaces it. */
  private verdict: HttpResponse | null = null;
  /** An answer to give now. */
  private early: HttpResponse | null = null;
  private readonly boundary: string;

  constructor(
    private readonly spec: UploadRouteSpec,
    req: HttpRequest,
  ) {
    this.upload = spec.begin(req);
    this.boundary = boundaryOf(req);
    const parts: PartSink = { begin: (head) => this.partBegin(head), data: (bytes) => this.partData(bytes), end: () => this.partEnd() };
    this.reader = mediaType(req) === 'multipart/form-data' ? new MultipartReader(this.boundary, parts) : null;
    const cl = Number(req.headers.get('content-length') ?? NaN);
    this.length = Number.isInteger(cl) && cl >= 0 ? cl : null;
  }

  // The body, from the HTTP server (BodySink).

  write(bytes: Uint8Array): HttpResponse | null {
    const reader = this.reader;
    if (!reader || this.early) return this.early;
    reader.feed(bytes);
    if (reader.error) return this.unreadable(reader.error);
    return this.early;
  }

  end(): HttpResponse | Promise<HttpResponse> {
    if (this.early) return this.early;
    if (this.reader) {
      this.reader.finish();
      if (this.reader.error) return this.unreadable(this.reader.error);
    }
    if (this.verdict) return this.verdict;
    const f = this.file;
    return this.upload.end(this.fields, f ? { field: f.head.name, filename: f.head.filename, contentType: f.head.contentType, size: f.size } : null);
  }

  abort(): void {
    this.upload.abort();
  }

  private unreadable(error: string): HttpResponse {
    this.upload.abort();
    this.early = errorResponse(400, 'bad-request', error);
    return this.early;
  }

  private refuse(answer: HttpResponse): void {
    this.upload.abort();
    this.verdict = answer;
    if (this.file?.final) this.early = answer;
  }

  // The parts, from the multipart reader (PartSink).

  private partBegin(head: PartHead): void {
    const final = head.name === this.spec.field;
    const filename = head.filename;
    if (filename !== null && (final || this.spec.anyFile) && (this.file === null || (final && !this.file.final))) {
      if (this.file) this.upload.abort();
      this.file = { head: { ...head, filename }, final, size: 0 };
      this.role = 'file';
      this.verdict = null;
      const expected = this.length === null ? null : Math.max(0, this.length - this.reader!.position - closingLength(this.boundary));
      const answer = this.upload.file(this.file.head, expected);
      if (answer) this.refuse(answer);
      return;
    }
    this.role = head.filename === null && this.spec.fieldsMax > 0 ? 'field' : 'skip';
    this.field = this.role === 'field' ? { name: head.name, pieces: [], size: 0 } : null;
  }

  private partData(bytes: Uint8Array): void {
    if (this.role === 'file') {
      this.file!.size += bytes.length;
      if (this.verdict) return;
      const answer = this.upload.data(bytes);
      if (answer) this.refuse(answer);
    } else if (this.role === 'field') {
      const f = this.field!;
      f.size += bytes.length;
      if (this.fieldBytes + f.size <= this.spec.fieldsMax) f.pieces.push(bytes.slice());
    }
  }

  private partEnd(): void {
    const f = this.field;
    if (this.role === 'field' && f && this.fieldBytes + f.size <= this.spec.fieldsMax) {
      this.fieldBytes += f.size;
      this.fields.set(f.name, decode(concatBytes(f.pieces)));
    }
    this.field = null;
    this.role = 'skip';
  }
}

/** A route that takes one uploaded file as it arrives (see the header). */
export function uploadRoute(spec: UploadRouteSpec): Route {
  const sinkOf = (req: HttpRequest): UploadSink => new UploadSink(spec, req);
  const route: Route = {
    method: spec.method ?? 'POST',
    path: spec.path,
    bodyLimit: spec.bodyLimit,
    upload: sinkOf,
    handler: (req) => {
      const sink = sinkOf(req);
      const early = sink.write(req.body);
      if (early) {
        sink.abort();
        return early;
      }
      return sink.end();
    },
  };
  if (spec.access !== undefined) route.access = spec.access;
  return route;
}

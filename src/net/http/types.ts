// HTTP types shared by the server, the router and every subsystem's routes.

export interface HttpRequest {
  method: string;
  /** The path as sent, without the query (not decoded). */
  path: string;
  /** The raw query string without '?', or ''. */
  query: string;
  /** Header names lowercased; repeated headers joined with ', '. */
  headers: Map<string, string>;
  body: Uint8Array;
  /** For logs only: no decision may depend on it. */
  remote: string;
  /**
   * Set by the cloud tunnel on the requests it replays (src/cloud/dispatch.ts),
   * never by the HTTP server: a route that mints a credential in one of its
   * actions refuses it through the tunnel (src/auth/tunnel-guard.ts, viaTunnel).
   */
  via?: 'tunnel';
}

/** Writes a streamed response body; write() returns false when the caller should wait for onDrain. */
export interface BodyWriter {
  write(chunk: Uint8Array | string): boolean;
  onDrain: (() => void) | null;
  end(): void;
  /** Abandons the response (the connection is closed). */
  abort(reason: string): void;
}

export interface HttpResponse {
  status: number;
  headers?: Record<string, string>;
  body?: Uint8Array | string;
  /** A streamed body; length, when known, is sent as Content-Length instead of chunked. */
  stream?: { length?: number; start(writer: BodyWriter): void };
}

/**
 * Takes a request body as it arrives, for a route whose body is too large to
 * hold (an upload written to the card as it is read). The server calls
 * write() for each piece, then end() once the body is complete, or abort()
 * when it never will be (the connection closed or timed out, a malformed or
 * oversized body) and after an early answer: abort() undoes what write()
 * began and may be called more than once.
 */
export interface BodySink {
  /** Body bytes, valid only during the call. A response answers now: the rest of the body is read and dropped, then the connection closes. */
  write(bytes: Uint8Array): HttpResponse | null;
  /** The whole body has arrived: the answer. */
  end(): HttpResponse | Promise<HttpResponse>;
  abort(): void;
}

export type HttpHandler = (request: HttpRequest) => HttpResponse | Promise<HttpResponse>;

export const STATUS_TEXT: Record<number, string> = {
  100: 'Continue',
  200: 'OK',
  202: 'Accepted',
  204: 'No Content',
  302: 'Found',
  304: 'Not Modified',
  400: 'Bad Request',
  401: 'Unauthorized',
  403: 'Forbidden',
  404: 'Not Found',
  405: 'Method Not Allowed',
  408: 'Request Timeout',
  409: 'Conflict',
  411: 'Length Required',
  413: 'Content Too Large',
  415: 'Unsupported Media Type',
  429: 'Too Many Requests',
  431: 'Request Header Fields Too Large',
  500: 'Internal Server Error',
  501: 'Not Implemented',
  503: 'Service Unavailable',
};

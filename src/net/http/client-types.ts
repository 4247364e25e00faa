// The outbound HTTP client's request and result types (client.ts makes the
// requests, exchange.ts runs them), apart so both can name them.

/** Where TLS settings come from: tlsVerify (persisted) and the embedded CA bundle. */
export interface TlsPolicy {
  verify(): boolean;
  caBundle(): string;
}

export interface ClientRequest {
  method: string;
  url: string;
  headers?: Record<string, string>;
  body?: Uint8Array | string;
  /** A body pulled chunk by chunk instead of body (which must then be absent). */
  bodySource?: BodySource;
  /** Deadline for the whole exchange (default 30 s). */
  timeoutMs?: number;
  /**
   * Silence deadline: the request fails 'timeout' when no byte of the answer
   * arrives for this long (from the request's end, then from each byte). A
   * streamed answer that keeps flowing is bounded only by timeoutMs.
   */
  idleTimeoutMs?: number;
  /** Reuse a kept-alive connection and keep this one for the next request (default true). */
  keepAlive?: boolean;
  /**
   * A POST the server answers without changing anything (a provider round under
   * store false, speech, a transcription): sent again once on a fresh
   * connection when a kept-alive one turns out closed. GET, HEAD, OPTIONS, PUT
   * and DELETE are by their method.
   */
  idempotent?: boolean;
  /** Deadline for connecting and the TLS handshake (default min(timeoutMs, 10 s)). */
  connectTimeoutMs?: number;
  /** Largest buffered body (default 1 MB); streaming bodies are not capped here. */
  maxBodyBytes?: number;
  /** Validate the certificate whatever tlsVerify says (the cloud relay). */
  alwaysVerify?: boolean;
  /** Called once with the status and headers; return false to abort. */
  onHead?: (status: number, headers: Map<string, string>) => boolean | void;
  /** Streams the body instead of buffering it; return false to abort. */
  onBody?: (chunk: Uint8Array) => boolean | void;
  /** Lets the caller cancel: the request ends with error 'aborted'. */
  cancel?: { onCancel: (() => void) | null };
}

/** A request body of known length, read a chunk at a time as the socket takes it. */
export interface BodySource {
  readonly length: number;
  /** The next chunk (at most about 4 KB), or null at the end; a throw fails the request. */
  next(): Uint8Array | null;
  /** Starts again from the first byte (so the request can be sent again on a fresh connection). */
  rewind?(): void;
}

export interface ClientResponse {
  status: number;
  headers: Map<string, string>;
  /** The body (empty when streamed through onBody). */
  body: Uint8Array;
}

export type ClientErrorKind = 'bad-url' | 'connect' | 'tls' | 'timeout' | 'protocol' | 'too-large' | 'aborted';

export type ClientResult = { ok: true; response: ClientResponse } | { ok: false; error: ClientErrorKind; message: string };

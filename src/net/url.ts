// Parsing the absolute http(s) URLs the device calls out to. Deliberately
// small: scheme, host (name, IPv4 or [IPv6]), port, and the request target.

// Regular expressions are module constants: XS compiles a literal each time it is evaluated.
const ABSOLUTE_URL = /^(https?):\/\/([^/?#]*)([^#]*)/i;
const HOST_PORT = /^(.*):(\d{1,5})$/;
const BAD_TARGET_CHAR = /[\s\x00-\x1f]/;
const HAS_SCHEME = /^https?:\/\//i;
const TRAILING_SLASHES = /\/+$/;
const LEADING_SLASHES = /^\/+/;

export interface ParsedUrl {
  scheme: 'http' | 'https';
  host: string;
  port: number;
  /** Path and query, as sent in the request line ('/' when empty). */
  target: string;
  /** host, or host:port when the port is not the scheme's default (the Host header). */
  authority: string;
}

export type UrlResult = { ok: true; url: ParsedUrl } | { ok: false; error: string };

const HOST = /^(\[[0-9a-fA-F:.]+\]|[A-Za-z0-9.-]+)$/;

export function parseUrl(text: string): UrlResult {
  const m = ABSOLUTE_URL.exec(text.trim());
  if (!m) return { ok: false, error: 'not an http(s) URL' };
  const scheme = m[1]!.toLowerCase() as 'http' | 'https';
  let authority = m[2]!;
  if (authority.includes('@')) return { ok: false, error: 'credentials in URLs are not supported' };
  let port = scheme === 'https' ? 443 : 80;
  const pm = HOST_PORT.exec(authority);
  // host:port, or [v6]:port; a bare IPv6 literal's colons are not a port.
  if (pm && (pm[1]!.startsWith('[') ? pm[1]!.endsWith(']') : !pm[1]!.includes(':'))) {
    authority = pm[1]!;
    port = Number(pm[2]);
    if (port < 1 || port > 65535) return { ok: false, error: 'bad port' };
  }
  const host = authority.toLowerCase();
  if (!host || !HOST.test(host)) return { ok: false, error: 'bad host' };
  let target = m[3] || '/';
  if (!target.startsWith('/')) target = '/' + target;
  if (BAD_TARGET_CHAR.test(target)) return { ok: false, error: 'bad characters in the path' };
  const defaultPort = scheme === 'https' ? 443 : 80;
  return {
    ok: true,
    url: { scheme, host, port, target, authority: port === defaultPort ? host : `${host}:${port}` },
  };
}

/** Appends a path to a base URL (an absolute URL as path is returned as is). */
export function joinUrl(base: string, path: string): string {
  if (HAS_SCHEME.test(path)) return path;
  return `${base.replace(TRAILING_SLASHES, '')}/${path.replace(LEADING_SLASHES, '')}`;
}


/** scheme://host[:port] of a base URL, without path or trailing slash; null when it is not an http(s) URL. */
export function origin(base: string): string | null {
  const p = parseUrl(base);
  if (!p.ok) return null;
  return `${p.url.scheme}://${p.url.authority}`;
}

/** A base URL without its trailing slashes; null when it is not an http(s) URL. */
export function cleanBase(base: string): string | null {
  return parseUrl(base).ok ? base.trim().replace(TRAILING_SLASHES, '') : null;
}

/** The URL is plain http:// (no TLS). */
export function isPlainHttp(url: string): boolean {
  const p = parseUrl(url);
  return p.ok && p.url.scheme === 'http';
}

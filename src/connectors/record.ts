// The connector record (spec: "Connector record: fields not shown";
// decided in docs/decisions.md). A connector is an outside service the
// assistant's providers may reach on the owner's behalf: a remote MCP server
// (kind mcp, by URL) or a provider-hosted connector (kind provider, by the
// provider's connector id). Its credential is none, a static bearer secret,
// or OAuth 2 (authorization code with PKCE) signed in from the web page.
//
// What is stored (NVS namespace `conn`, one slot per connector):
//   the record   id, name, kind, url, connectorId, provider, auth, scope,
//                authorizeUrl, tokenUrl, clientId, redirectUri, created,
//                updated, approved
//   its secrets  bearer, clientSecret, access, refresh, expiresAt, signedInAt
// Secrets are write-only: registered with the log redactor, never in an
// answer, the prompt, the tunnel or the console.
// A connector is a tool server entry (spec, Approval-gated objects): it is
// inert (never handed to a provider) until the owner approves it, and a
// change of where it points (kind, URL, connector id, carrying provider)
// takes the approval away again.

import { parseUrl } from '../net/url.ts';
import { utf8Length } from '../util/utf8.ts';

// Regular expressions are module constants: XS compiles a literal each time it is evaluated.
const ID = /^[a-z0-9][a-z0-9_-]{0,22}$/;
const CONNECTOR_ID = /^[a-z0-9_]{1,40}$/;
const CONTROL = /[\x00-\x1f\x7f]/;
const WHITESPACE = /\s/;
const SCOPE = /^[\x21-\x7e]+( [\x21-\x7e]+)*$/;

export const MAX_CONNECTORS = 8;
export const KINDS = ['mcp', 'provider'] as const;
export const AUTHS = ['none', 'bearer', 'oauth'] as const;
export const CARRIERS = ['any', 'openai', 'anthropic'] as const;
export type Kind = (typeof KINDS)[number];
export type Auth = (typeof AUTHS)[number];
export type Carrier = (typeof CARRIERS)[number];

export interface ConnectorRecord {
  id: string;
  name: string;
  kind: Kind;
  /** The MCP server's URL (kind mcp). */
  url: string;
  /** The provider's connector id (kind provider), e.g. connector_googlecalendar. */
  connectorId: string;
  /** Which provider carries it into a turn ('any': whichever runs the turn). */
  provider: Carrier;
  auth: Auth;
  scope: string;
  authorizeUrl: string;
  tokenUrl: string;
  clientId: string;
  /** The OAuth redirect URI ('' = the device's own /oauth/callback on its LAN address). */
  redirectUri: string;
  created: number;
  updated: number;
  /** The owner approved it (/mcp approve, the web page); absent in older records: not approved. */
  approved?: boolean;
}

export interface ConnectorSecrets {
  bearer?: string;
  clientSecret?: string;
  access?: string;
  refresh?: string;
  /** Wall-clock ms when the access token expires (0: no expiry given). */
  expiresAt?: number;
  signedInAt?: number;
}

/** Upsert form fields and their record keys. */
const FIELDS: Record<string, keyof ConnectorRecord> = {
  name: 'name',
  kind: 'kind',
  url: 'url',
  connector_id: 'connectorId',
  provider: 'provider',
  auth: 'auth',
  scope: 'scope',
  authorize_url: 'authorizeUrl',
  token_url: 'tokenUrl',
  client_id: 'clientId',
  redirect_uri: 'redirectUri',
};
const SECRET_FIELDS: Record<string, 'bearer' | 'clientSecret'> = { bearer: 'bearer', client_secret: 'clientSecret' };
/** Changing one of these voids a sign-in (the tokens belong to the old settings). */
const SIGN_IN_KEYS: Array<keyof ConnectorRecord> = ['kind', 'url', 'connectorId', 'auth', 'authorizeUrl', 'tokenUrl', 'clientId', 'scope'];
/** Changing one of these voids the owner's approval (it now points somewhere the owner did not approve). */
const APPROVAL_KEYS: Array<keyof ConnectorRecord> = ['kind', 'url', 'connectorId', 'provider'];

export function isConnectorId(s: unknown): s is string {
  return typeof s === 'string' && ID.test(s);
}

function httpsUrl(v: string, name: string, allowHttp = false): string | null {
  if (utf8Length(v) > 256) return `${name} is longer than 256 bytes`;
  const p = parseUrl(v);
  if (!p.ok || v.trim() !== v) return `${name} must be an absolute URL`;
  if (p.url.scheme !== 'https' && !allowHttp) return `${name} must be an https URL`;
  return null;
}

export type UpsertResult =
  | { ok: true; record: ConnectorRecord; secrets: ConnectorSecrets; changed: boolean; created: boolean; signInVoided: boolean; approvalVoided: boolean }
  | { ok: false; error: string };

/**
 * Merges upsert fields into an existing record (or a new one). Absent
 * fields keep their value; an empty secret field clears that secret.
 * Validates the whole result; nothing is decided on partial input.
 */
export function mergeUpsert(fields: Map<string, string>, existing: { record: ConnectorRecord; secrets: ConnectorSecrets } | null, now: number): UpsertResult {
  const id = fields.get('id') ?? '';
  if (!isConnectorId(id)) return { ok: false, error: 'id is 1-23 characters: a-z 0-9 - _, starting with a letter or digit' };
  const base: ConnectorRecord = existing
    ? { ...existing.record }
    : { id, name: id, kind: 'mcp', url: '', connectorId: '', provider: 'any', auth: 'none', scope: '', authorizeUrl: '', tokenUrl: '', clientId: '', redirectUri: '', created: now, updated: now, approved: false };
  const secrets: ConnectorSecrets = existing ? { ...existing.secrets } : {};
  const unknown = applyFields(fields, base, secrets);
  if (unknown) return { ok: false, error: unknown };
  const r = base;
  const bad = checkRecord(r, secrets);
  if (bad) return { ok: false, error: bad };
  if (r.auth !== 'bearer') delete secrets.bearer;
  if (r.auth !== 'oauth') {
    delete secrets.clientSecret;
    delete secrets.access;
    delete secrets.refresh;
    delete secrets.expiresAt;
    delete secrets.signedInAt;
  }
  let signInVoided = false;
  if (existing && SIGN_IN_KEYS.some((k) => existing.record[k] !== r[k]) && existing.secrets.access) {
    delete secrets.access;
    delete secrets.refresh;
    delete secrets.expiresAt;
    delete secrets.signedInAt;
    signInVoided = true;
  }
  let approvalVoided = false;
  if (existing && existing.record.approved === true && APPROVAL_KEYS.some((k) => existing.record[k] !== r[k])) {
    r.approved = false;
    approvalVoided = true;
  }
  r.approved = r.approved === true;
  const changed = !existing || !sameRecord(existing.record, r) || !sameSecrets(existing.secrets, secrets);
  if (changed) r.updated = now;
  return { ok: true, record: r, secrets, changed, created: !existing, signInVoided, approvalVoided };
}

/** The form's fields into the record and its secrets (an empty secret clears it); the error of an unknown or malformed one. */
function applyFields(fields: Map<string, string>, base: ConnectorRecord, secrets: ConnectorSecrets): string | null {
  for (const [name, raw] of fields) {
    if (name === 'id' || name === 'action' || name === 'token') continue;
    const key = FIELDS[name];
    const secret = SECRET_FIELDS[name];
    if (!key && !secret) return `unknown field ${name}`;
    const v = raw.trim();
    if (secret) {
      if (utf8Length(v) > 512 || WHITESPACE.test(v) || CONTROL.test(v)) return `${name} is malformed`;
      if (v === '') delete secrets[secret];
      else secrets[secret] = v;
      continue;
    }
    (base as unknown as Record<string, string>)[key!] = v;
  }
  return null;
}

/** What is wrong with a merged record (its kind's, its sign-in's and its addresses' rules), or null. */
function checkRecord(r: ConnectorRecord, secrets: ConnectorSecrets): string | null {
  if (!r.name || utf8Length(r.name) > 31 || CONTROL.test(r.name)) return 'name is 1-31 bytes without control characters';
  if (!(KINDS as readonly string[]).includes(r.kind)) return `kind is ${KINDS.join(' or ')}`;
  if (!(AUTHS as readonly string[]).includes(r.auth)) return `auth is ${AUTHS.join(', ')}`;
  if (!(CARRIERS as readonly string[]).includes(r.provider)) return `provider is ${CARRIERS.join(', ')}`;
  if (r.kind === 'mcp') {
    if (!r.url) return 'an mcp connector needs url (its server address)';
    const bad = httpsUrl(r.url, 'url');
    if (bad) return bad;
  } else {
    if (!CONNECTOR_ID.test(r.connectorId)) return 'a provider connector needs connector_id (a-z 0-9 _, at most 40)';
    if (r.provider === 'any') return 'a provider connector names its provider (openai or anthropic)';
    if (r.url) {
      const bad = httpsUrl(r.url, 'url');
      if (bad) return bad;
    }
  }
  if (r.scope && (utf8Length(r.scope) > 256 || !SCOPE.test(r.scope))) return 'scope is space-separated printable words, at most 256 bytes';
  if (r.auth === 'bearer' && !secrets.bearer) return 'auth bearer needs the bearer secret';
  if (r.auth === 'oauth') {
    for (const [k, name] of [
      ['authorizeUrl', 'authorize_url'],
      ['tokenUrl', 'token_url'],
    ] as const) {
      if (!r[k]) return `auth oauth needs ${name}`;
      const bad = httpsUrl(r[k], name);
      if (bad) return bad;
    }
    if (!r.clientId || utf8Length(r.clientId) > 128 || CONTROL.test(r.clientId) || WHITESPACE.test(r.clientId)) return 'auth oauth needs client_id (at most 128 bytes, no spaces)';
  }
  if (r.redirectUri) {
    const bad = httpsUrl(r.redirectUri, 'redirect_uri', true);
    if (bad) return bad;
  }
  return null;
}

function sameRecord(a: ConnectorRecord, b: ConnectorRecord): boolean {
  return (Object.keys(FIELDS) as string[]).every((f) => a[FIELDS[f]!] === b[FIELDS[f]!]);
}

function sameSecrets(a: ConnectorSecrets, b: ConnectorSecrets): boolean {
  const keys = new Set([...Object.keys(a), ...Object.keys(b)]);
  for (const k of keys) if ((a as Record<string, unknown>)[k] !== (b as Record<string, unknown>)[k]) return false;
  return true;
}

export type Status = 'ready' | 'needs-secret' | 'needs-sign-in' | 'signing-in' | 'signed-in' | 'expired';

/** The providers whose rounds can carry a tool server (C, Z.ai, the router and the custom endpoint have no MCP support). */
export const REACHABLE = ['openai', 'anthropic'] as const;
export type Reachable = (typeof REACHABLE)[number];

/** Statuses whose credential can be presented now (auth none needs none). */
export function usableStatus(s: Status): boolean {
  return s === 'ready' || s === 'signed-in';
}

/**
 * Whether a connector can travel in a round or job of this provider: its
 * carrier allows the provider; a provider-hosted connector is provider A's
 * by connector id, or provider B's by URL (the Messages API takes remote
 * servers by URL only).
 */
export function carriedBy(r: ConnectorRecord, provider: Reachable): boolean {
  if (r.provider !== 'any' && r.provider !== provider) return false;
  if (r.kind === 'provider' && provider === 'anthropic') return r.url !== '';
  return true;
}

export function statusOf(r: ConnectorRecord, s: ConnectorSecrets, nowWall: number, signingIn: boolean): Status {
  if (r.auth === 'none') return 'ready';
  if (r.auth === 'bearer') return s.bearer ? 'ready' : 'needs-secret';
  if (s.access) {
    if (s.expiresAt && s.expiresAt <= nowWall && !s.refresh) return signingIn ? 'signing-in' : 'expired';
    return 'signed-in';
  }
  return signingIn ? 'signing-in' : 'needs-sign-in';
}

/** What the owner's page (and the tunnel) may see of a connector: never a secret. */
export function viewOf(r: ConnectorRecord, s: ConnectorSecrets, status: Status): Record<string, unknown> {
  return {
    id: r.id,
    name: r.name,
    kind: r.kind,
    ...(r.kind === 'mcp' || r.url ? { url: r.url } : {}),
    ...(r.kind === 'provider' ? { connectorId: r.connectorId } : {}),
    provider: r.provider,
    auth: r.auth,
    status,
    approved: r.approved === true,
    reaches: REACHABLE.filter((p) => carriedBy(r, p)),
    ...(r.auth === 'oauth'
      ? { authorizeUrl: r.authorizeUrl, tokenUrl: r.tokenUrl, clientId: r.clientId, scope: r.scope, redirectUri: r.redirectUri || null, clientSecretSet: !!s.clientSecret, signedInAt: s.signedInAt ?? null, expiresAt: s.expiresAt || null }
      : {}),
    ...(r.auth === 'bearer' ? { bearerSet: !!s.bearer } : {}),
    created: r.created,
    updated: r.updated,
  };
}

// Connectors' state: the records (record.ts) kept in NVS `conn`, one slot
// per connector; the OAuth sign-in flows (flows.ts); the token exchange and
// refresh against the connector's token endpoint (under the device's TLS
// policy); the owner's approval of each connector as a tool server entry; the
// approved, ready servers a provider round or job may carry (serversFor);
// and a line for the prompt's [PROVIDERS & CONNECTORS] block. Its routes are
// src/connectors/routes.ts, its face src/connectors/index.ts.

import type { Store } from '../core/store.ts';
import type { Clock } from '../hal/index.ts';
import type { HttpClient } from '../net/http/client.ts';
import { parseUrlEncoded } from '../net/http/parse.ts';
import type { RandomFill } from '../util/ids.ts';
import { errorMessage, isPlainObject, parseJson, stringify } from '../util/json.ts';
import { decode } from '../util/utf8.ts';
import { CONSENT_WINDOW_MAX_MS, FlowTable, pkceChallenge, q, type Flow } from './flows.ts';
import type { ToolServer, ToolServerProvider, ToolServerSource } from '../contracts/index.ts';
import { carriedBy, isConnectorId, MAX_CONNECTORS, mergeUpsert, REACHABLE, statusOf, usableStatus, viewOf, type ConnectorRecord, type ConnectorSecrets } from './record.ts';
import { unchanged } from '../util/sentence.ts';

// Regular expressions are module constants: XS compiles a literal each time it is evaluated.

export const CONN_NS = 'conn';
const TOKEN_MS = 15_000;
/** An access token this close to its expiry is refreshed before use. */
const REFRESH_AHEAD_MS = 60_000;

export interface ConnectorsDeps {
  store: Store;
  client: Pick<HttpClient, 'request'>;
  clock: Clock;
  random: RandomFill;
  sha256: (bytes: Uint8Array) => Uint8Array;
  log: { info(tag: string, m: string): void; warn(tag: string, m: string): void };
  secret(value: string): void;
}

interface Slot {
  n: number;
  record: ConnectorRecord;
  secrets: ConnectorSecrets;
}

export type SignInStart = { ok: true; flow: Flow; path: string } | { ok: false; status: number; error: string; message: string };

/** A name the owner typed (/mcp approve <name>): the connector it means, or why none. */
export type Resolved = { ok: true; id: string; name: string } | { ok: false; code: 'unknown' | 'ambiguous'; message: string };

export type ApprovalResult = { ok: true; changed: boolean; view: Record<string, unknown> } | { ok: false; status: number; error: string; message: string };

export class Connectors implements ToolServerSource {
  readonly flows: FlowTable;
  /** The device's LAN addresses (set by the boot once provisioning exists). */
  addresses: () => Array<{ label: string; base: string }> = () => [];

  constructor(private readonly deps: ConnectorsDeps) {
    this.flows = new FlowTable(() => deps.clock.monoMs());
    for (const s of this.slots()) this.registerSecrets(s.secrets);
  }

  private registerSecrets(s: ConnectorSecrets): void {
    for (const v of [s.bearer, s.clientSecret, s.access, s.refresh]) if (v) this.deps.secret(v);
  }

  private slots(): Slot[] {
    const out: Slot[] = [];
    for (let n = 0; n < MAX_CONNECTORS; n++) {
      const rec = parseJson(this.deps.store.str(`c${n}`, ''));
      if (!rec.ok || !isPlainObject(rec.value) || !isConnectorId(rec.value['id'])) continue;
      const sec = parseJson(this.deps.store.str(`s${n}`, '{}'));
      out.push({ n, record: rec.value as unknown as ConnectorRecord, secrets: sec.ok && isPlainObject(sec.value) ? (sec.value as ConnectorSecrets) : {} });
    }
    return out;
  }

  private slot(id: string): Slot | null {
    return this.slots().find((s) => s.record.id === id) ?? null;
  }

  private save(n: number, record: ConnectorRecord, secrets: ConnectorSecrets): void {
    this.deps.store.setMany([
      [`c${n}`, stringify(record)],
      [`s${n}`, stringify(secrets)],
    ]);
    this.registerSecrets(secrets);
  }

  list(): Array<Record<string, unknown>> {
    const now = this.deps.clock.wallMs();
    return this.slots().map((s) => viewOf(s.record, s.secrets, statusOf(s.record, s.secrets, now, this.flows.has(s.record.id))));
  }

  view(id: string): Record<string, unknown> | null {
    const s = this.slot(id);
    return s ? viewOf(s.record, s.secrets, statusOf(s.record, s.secrets, this.deps.clock.wallMs(), this.flows.has(id))) : null;
  }

  /** The idempotent upsert: the same fields twice change nothing the second time. */
  upsert(fields: Map<string, string>): { status: number; body: Record<string, unknown> } {
    const id = fields.get('id') ?? '';
    const all = this.slots();
    const existing = all.find((s) => s.record.id === id) ?? null;
    if (!existing && all.length >= MAX_CONNECTORS) return { status: 409, body: { error: 'full', message: `At most ${MAX_CONNECTORS} connectors; delete one first. Nothing was changed.` } };
    const merged = mergeUpsert(fields, existing, this.deps.clock.wallMs());
    if (!merged.ok) return { status: 400, body: { error: 'bad-connector', message: unchanged(merged.error) } };
    if (merged.changed) {
      let n = existing?.n ?? -1;
      if (n < 0) for (let i = 0; i < MAX_CONNECTORS && n < 0; i++) if (!all.some((s) => s.n === i)) n = i;
      try {
        this.save(n, merged.record, merged.secrets);
      } catch (e) {
        return { status: 507, body: { error: 'not-saved', message: `The connector could not be saved (${errorMessage(e)}). Nothing was changed.` } };
      }
      if (merged.signInVoided || merged.record.auth !== 'oauth') this.flows.drop(id);
      this.deps.log.info('connectors', `connector ${id} ${merged.created ? 'added (not approved)' : 'updated'}${merged.approvalVoided ? ': it points elsewhere now, so its approval was removed' : ''}`);
    }
    return { status: merged.created ? 201 : 200, body: { connector: this.view(id), created: merged.created, changed: merged.changed } };
  }

  remove(id: string): boolean {
    const s = this.slot(id);
    if (!s) return false;
    this.deps.store.setMany([
      [`c${s.n}`, undefined],
      [`s${s.n}`, undefined],
    ]);
    this.flows.drop(id);
    this.deps.log.info('connectors', `connector ${id} removed`);
    return true;
  }

  signOut(id: string): boolean {
    const s = this.slot(id);
    if (!s) return false;
    const { access: _a, refresh: _r, expiresAt: _e, signedInAt: _s, ...rest } = s.secrets;
    this.save(s.n, s.record, rest);
    this.flows.drop(id);
    return true;
  }

  /**
   * The connector a typed name means: its id exactly, else its display name
   * (ignoring case and surrounding space) when exactly one connector has it.
   */
  resolve(typed: string): Resolved {
    const want = typed.trim();
    const all = this.slots();
    const byId = all.find((s) => s.record.id === want);
    if (byId) return { ok: true, id: byId.record.id, name: byId.record.name };
    const lower = want.toLowerCase();
    const byName = all.filter((s) => s.record.name.trim().toLowerCase() === lower);
    if (byName.length === 1) return { ok: true, id: byName[0]!.record.id, name: byName[0]!.record.name };
    if (byName.length > 1) return { ok: false, code: 'ambiguous', message: `"${want}" is the name of ${byName.length} tool servers (${byName.map((s) => s.record.id).join(', ')}): use the id.` };
    return { ok: false, code: 'unknown', message: `No tool server is called "${want}".` };
  }

  /** Sets the owner's approval (idempotent; written with the record, so it survives a power cut whole). */
  setApproval(id: string, approved: boolean): ApprovalResult {
    const s = this.slot(id);
    if (!s) return { ok: false, status: 404, error: 'not-found', message: `No connector ${id}.` };
    const changed = (s.record.approved === true) !== approved;
    if (changed) {
      try {
        this.save(s.n, { ...s.record, approved }, s.secrets);
      } catch (e) {
        return { ok: false, status: 507, error: 'not-saved', message: `The approval could not be saved (${errorMessage(e)}). Nothing was changed.` };
      }
      this.deps.log.info('connectors', `connector ${id} ${approved ? 'approved' : 'approval removed'}`);
    }
    return { ok: true, changed, view: this.view(id)! };
  }

  /**
   * The tool servers a round or job of this provider may carry: approved,
   * carried by that provider, and ready (auth none, a bearer secret, or a
   * live OAuth sign-in, refreshed when about to expire). Never throws.
   */
  async serversFor(provider: ToolServerProvider): Promise<ToolServer[]> {
    const out: ToolServer[] = [];
    const now = this.deps.clock.wallMs();
    for (const s of this.slots()) {
      const r = s.record;
      if (r.approved !== true || !carriedBy(r, provider) || !usableStatus(statusOf(r, s.secrets, now, false))) continue;
      let credential: string | null = null;
      if (r.auth !== 'none') {
        try {
          credential = await this.credential(r.id);
        } catch (e) {
          this.deps.log.warn('connectors', `connector ${r.id}: no credential (${errorMessage(e)})`);
        }
        if (!credential) continue;
      }
      const byId = r.kind === 'provider' && provider === 'openai';
      out.push({ label: r.id, name: r.name, url: byId ? '' : r.url, connectorId: byId ? r.connectorId : '', credential });
    }
    return out;
  }

  private redirectUri(r: ConnectorRecord): string {
    if (r.redirectUri) return r.redirectUri;
    const base = this.addresses()[0]?.base ?? 'http://192.168.4.1';
    return `${base}/oauth/callback`;
  }

  /** Starts a sign-in (the caller is authenticated): a fresh launch key and state. */
  startSignIn(id: string, windowMs = CONSENT_WINDOW_MAX_MS): SignInStart {
    const s = this.slot(id);
    if (!s) return { ok: false, status: 404, error: 'not-found', message: `No connector ${id}.` };
    if (s.record.auth !== 'oauth') return { ok: false, status: 409, error: 'not-oauth', message: `Connector ${id} does not sign in with OAuth (auth ${s.record.auth}).` };
    const flow = this.flows.start(id, this.redirectUri(s.record), this.deps.random, windowMs);
    this.deps.log.info('connectors', `sign-in for ${id} started (${Math.round((flow.deadline - this.deps.clock.monoMs()) / 1000)} s)`);
    return { ok: true, flow, path: `/oauth/go?k=${flow.key}` };
  }

  /** The provider's authorize URL for a flow. */
  authorizeUrl(flow: Flow): string | null {
    const s = this.slot(flow.connector);
    if (!s || s.record.auth !== 'oauth') return null;
    const r = s.record;
    const params = [
      ['response_type', 'code'],
      ['client_id', r.clientId],
      ['redirect_uri', flow.redirectUri],
      ['state', flow.state],
      ['code_challenge', pkceChallenge(flow.verifier, this.deps.sha256)],
      ['code_challenge_method', 'S256'],
      ...(r.scope ? [['scope', r.scope]] : []),
    ];
    return `${r.authorizeUrl}${r.authorizeUrl.includes('?') ? '&' : '?'}${params.map(([k, v]) => `${k}=${q(v!)}`).join('&')}`;
  }

  /** The callback: the state picks the flow (used once); the code is exchanged for tokens. */
  async callback(state: string | undefined, code: string | undefined, error: string | undefined): Promise<{ ok: true; id: string } | { ok: false; status: number; message: string }> {
    const flow = this.flows.takeByState(state);
    if (!flow) return { ok: false, status: 400, message: 'This sign-in is not one the device started, or it has expired. Start it again from the web page.' };
    const s = this.slot(flow.connector);
    if (!s || s.record.auth !== 'oauth') return { ok: false, status: 409, message: 'The connector changed while signing in. Start again from the web page.' };
    if (error) return { ok: false, status: 400, message: `The service did not grant access (${error.slice(0, 60)}).` };
    if (!code) return { ok: false, status: 400, message: 'The service sent no authorization code.' };
    const got = await this.tokenRequest(s, [
      ['grant_type', 'authorization_code'],
      ['code', code],
      ['redirect_uri', flow.redirectUri],
      ['client_id', s.record.clientId],
      ['code_verifier', flow.verifier],
    ]);
    if (!got.ok) return { ok: false, status: 502, message: `The service refused the sign-in: ${got.message}.` };
    this.deps.log.info('connectors', `connector ${flow.connector} signed in`);
    return { ok: true, id: flow.connector };
  }

  private async tokenRequest(s: Slot, form: string[][]): Promise<{ ok: true } | { ok: false; message: string; grant?: boolean }> {
    const fields = s.secrets.clientSecret ? [...form, ['client_secret', s.secrets.clientSecret]] : form;
    const res = await this.deps.client.request({
      method: 'POST',
      url: s.record.tokenUrl,
      headers: { 'Content-Type': 'application/x-www-form-urlencoded', Accept: 'application/json' },
      body: fields.map(([k, v]) => `${k}=${q(v!)}`).join('&'),
      timeoutMs: TOKEN_MS,
      maxBodyBytes: 16 * 1024,
    });
    if (!res.ok) return { ok: false, message: `the token endpoint could not be reached (${res.error})` };
    const text = decode(res.response.body);
    const type = res.response.headers.get('content-type') ?? '';
    const doc = parseJson(text);
    const obj = doc.ok && isPlainObject(doc.value) ? doc.value : type.includes('x-www-form-urlencoded') ? Object.fromEntries(parseUrlEncoded(text)) : {};
    if (res.response.status < 200 || res.response.status > 299 || typeof obj['access_token'] !== 'string' || !obj['access_token']) {
      const err = typeof obj['error'] === 'string' ? (obj['error'] as string).slice(0, 40) : `HTTP ${res.response.status}`;
      return { ok: false, message: err, grant: err === 'invalid_grant' };
    }
    const now = this.deps.clock.wallMs();
    const expiresIn = Number(obj['expires_in']);
    const secrets: ConnectorSecrets = {
      ...s.secrets,
      access: obj['access_token'] as string,
      refresh: typeof obj['refresh_token'] === 'string' && obj['refresh_token'] ? (obj['refresh_token'] as string) : s.secrets.refresh,
      expiresAt: Number.isFinite(expiresIn) && expiresIn > 0 ? now + expiresIn * 1000 : 0,
      signedInAt: s.secrets.signedInAt && form[0]![1] === 'refresh_token' ? s.secrets.signedInAt : now,
    };
    if (!secrets.refresh) delete secrets.refresh;
    this.save(s.n, s.record, secrets);
    return { ok: true };
  }

  /**
   * The credential to present for a connector now (bearer secret or OAuth
   * access token, refreshed when about to expire); null when it has none.
   */
  async credential(id: string): Promise<string | null> {
    const s = this.slot(id);
    if (!s) return null;
    if (s.record.auth === 'bearer') return s.secrets.bearer ?? null;
    if (s.record.auth !== 'oauth' || !s.secrets.access) return null;
    const exp = s.secrets.expiresAt ?? 0;
    if (!exp || exp - this.deps.clock.wallMs() > REFRESH_AHEAD_MS) return s.secrets.access;
    if (!s.secrets.refresh) return exp > this.deps.clock.wallMs() ? s.secrets.access : null;
    const got = await this.tokenRequest(s, [
      ['grant_type', 'refresh_token'],
      ['refresh_token', s.secrets.refresh],
      ['client_id', s.record.clientId],
    ]);
    if (!got.ok) {
      this.deps.log.warn('connectors', `connector ${id}: refresh failed (${got.message})`);
      if (got.grant) this.signOut(id);
      return null;
    }
    return this.slot(id)?.secrets.access ?? null;
  }

  /**
   * For [PROVIDERS & CONNECTORS]: each connector's name, kind, status and
   * approval, and which providers can carry it (never a secret or an address).
   */
  promptLine(): string {
    const now = this.deps.clock.wallMs();
    const slots = this.slots();
    if (!slots.length) return '';
    const lines = slots.map((s) => {
      const r = s.record;
      const reaches = REACHABLE.filter((p) => carriedBy(r, p));
      const use = r.approved !== true ? 'not approved' : reaches.length === REACHABLE.length ? 'approved' : reaches.length ? `approved, ${reaches[0]} only` : 'approved, no provider here carries it';
      return `${r.name} (${r.kind === 'mcp' ? 'MCP server' : `${r.provider} connector`}, ${statusOf(r, s.secrets, now, false).replace('-', ' ')}, ${use})`;
    });
    return `${lines.join('; ')}. Unapproved connectors are inert until the owner approves them (/mcp approve <name>); approved, ready ones reach provider A and B rounds as remote tool servers the provider calls itself; provider C, Z.ai, the router and the custom endpoint get none`;
  }
}

// Provider B's sub-agent backend: managed agent sessions.
//   once    POST /v1/environments (a cloud sandbox) and POST /v1/agents (one
//           per model: the agent fixes the model), their ids cached in NVS
//           (agents/bEnv, agents/bAgents) and reused by every later job; a
//           cached id the provider no longer knows (404) is dropped and made
//           again, once.
//   create  POST /v1/sessions {agent, environment_id}, then the brief as a
//           user.message event: POST /v1/sessions/<sid>/events.
//   poll    GET /v1/sessions/<sid>/events with types[] (agent.message,
//           session.status_idle, session.error, session.status_terminated,
//           span.model_request_end: the SDK's EventListParams.types) and
//           limit=100, following next_page; each poll starts after the last
//           event the previous one read (created_at[gte] with the ids seen at
//           that instant skipped), so a long session is read once, not from
//           page 1 each time. The agent.message texts make the result;
//           session.status_idle ends the job by its stop reason (the SDK's:
//           end_turn done; budget_reached done, partial, or failed without
//           text; refusal, retries_exhausted and requires_action, which would
//           need a person's approval, fail it); session.error fails it unless
//           the provider says it is retrying; span.model_request_end's
//           model_usage is counted (usage.ts).
//   cancel  a user.interrupt event.
// Every request carries the managed-agents beta header.
// Tool servers (a job an admin spawned carries the owner's approved, ready
// ones; docs "Managed Agents > MCP connector", "Authenticate with vaults",
// "Permission policies"): the agent definition declares them (mcp_servers
// {type: url, name, url}, one mcp_toolset each with permission_policy
// always_allow, since nobody can confirm a call while a job runs), so the
// cached agent is per model and per set of servers (a changed set makes a
// new agent; the cache key carries a hash of the servers' names and URLs,
// never a credential). Credentials never go in the agent: each job gets a
// fresh vault (POST /v1/vaults, then one static_bearer credential per
// server: POST /v1/vaults/<id>/credentials), named in the session's
// vault_ids; the vault is archived (POST /v1/vaults/<id>/archive) when the
// job ends or is cancelled, so the provider holds the owner's tokens no
// longer than the job. Open vaults are remembered in NVS (agents/bVaults)
// so a job resumed after a restart still archives its own.

import { isPlainObject, parseJson, stringify } from '../../util/json.ts';
import { CATALOG } from '../../providers/index.ts';
import { ANTHROPIC_VERSION } from '../../providers/index.ts';
import { contentText } from '../../providers/index.ts';
import { CALL_MS, POLL_BODY_MAX } from '../limits.ts';
import { exchange, reason, transient, type Exchange, type ExchangeRequest } from './http.ts';
import { hash9 } from '../../providers/index.ts';
import type { ToolServer } from '../../contracts/index.ts';
import { serversOf } from './background.ts';
import type { AgentBackend, BackendEnv, PollOutcome, StartOutcome, StartRequest } from './types.ts';
import type { Usage } from '../../contracts/index.ts';
import { addUsage, usageOf } from '../../providers/index.ts';

// Regular expressions are module constants: XS compiles a literal each time it is evaluated.
const PROVIDER_ID = /^[A-Za-z0-9_-]{1,128}$/;

export const MANAGED_AGENTS_BETA = 'managed-agents-2026-04-01';
export const AGENT_TOOLSET = 'agent_toolset_20260401';
const ENV_KEY = 'bEnv';
const AGENTS_KEY = 'bAgents';
const VAULTS_KEY = 'bVaults';
/** Open vaults remembered (one per running job; jobs are far fewer). */
const VAULTS_KEPT = 8;
/** Agents cached (one per model); the oldest is forgotten beyond this. */
const AGENTS_CACHED = 4;
/** Pages of events read per poll (the rest is read at the next poll, from where this one stopped). */
const PAGES_MAX = 10;
/** Events per page asked for. */
export const EVENTS_LIMIT = 100;
/** The event types a poll reads (the rest of a session's events are the agent's own business). */
export const EVENT_TYPES = ['agent.message', 'session.status_idle', 'session.error', 'session.status_terminated', 'span.model_request_end'];
/** Jobs whose read position is kept (running jobs are at most IN_FLIGHT; ended ones are dropped). */
const CURSORS_KEPT = 16;

export const AGENT_SYSTEM =
  'You are a background sub-agent of a personal desk assistant. Work on the task in the message by yourself, using your tools as needed; ' +
  'nobody can answer questions while you work. End with your findings as plain text: the assistant reads them and reports to its owner.';

/** The agent cache key: the model, and a hash of the tool servers' names and URLs when it declares any. */
export function agentKey(model: string, servers: readonly ToolServer[]): string {
  if (!servers.length) return model;
  const list = servers.map((s) => `${s.label}=${s.url}`).sort();
  return `${model}#${hash9(list.join('\n'), 0)}`;
}

/** The agent definition's tool servers: declared by name and URL (no credential), auto-approved. */
export function agentServers(servers: readonly ToolServer[]): { mcp_servers: Array<Record<string, unknown>>; toolsets: Array<Record<string, unknown>> } {
  return {
    mcp_servers: servers.map((s) => ({ type: 'url', name: s.label, url: s.url })),
    toolsets: servers.map((s) => ({ type: 'mcp_toolset', mcp_server_name: s.label, default_config: { permission_policy: { type: 'always_allow' } } })),
  };
}

function headers(): Record<string, string> {
  return { 'anthropic-version': ANTHROPIC_VERSION, 'anthropic-beta': MANAGED_AGENTS_BETA };
}

/** What a job's polls have read so far. */
export interface EventCursor {
  /** processed_at of the last event read, and the ids read at that instant (null: nothing read yet). */
  after: string | null;
  seenAtAfter: string[];
  texts: string[];
  error: string | null;
  usage: Usage;
}

export function newCursor(): EventCursor {
  return { after: null, seenAtAfter: [], texts: [], error: null, usage: { input: 0, output: 0, reasoning: 0, cached: 0 } };
}

/** The query of one page: the types, the limit, and where to start (a page cursor, or after the last event read). */
export function eventsQuery(cursor: EventCursor, page: string | null): string {
  const parts = EVENT_TYPES.map((t) => `types%5B%5D=${t}`);
  parts.push(`limit=${EVENTS_LIMIT}`);
  if (page) parts.push(`page=${encodeURIComponent(page)}`);
  else if (cursor.after !== null) parts.push(`created_at%5Bgte%5D=${encodeURIComponent(cursor.after)}`);
  return `?${parts.join('&')}`;
}

/**
 * Reads new events into the cursor; the outcome once the session went idle,
 * else running. Events read before (by processed_at and id) are skipped.
 */
export function readEvents(cursor: EventCursor, events: unknown[]): PollOutcome {
  for (const e of events) {
    if (!isPlainObject(e)) continue;
    const at = typeof e['processed_at'] === 'string' ? e['processed_at'] : null;
    const id = typeof e['id'] === 'string' ? e['id'] : '';
    if (at !== null) {
      if (cursor.after !== null && at < cursor.after) continue;
      if (at === cursor.after) {
        if (id && cursor.seenAtAfter.includes(id)) continue;
        if (id) cursor.seenAtAfter.push(id);
      } else {
        cursor.after = at;
        cursor.seenAtAfter = id ? [id] : [];
      }
    }
    switch (e['type']) {
      case 'agent.message': {
        const t = contentText(e['content']).trim();
        if (t) cursor.texts.push(t);
        cursor.error = null;
        break;
      }
      case 'span.model_request_end': {
        const u = usageOf(e);
        if (u) cursor.usage = addUsage(cursor.usage, u);
        break;
      }
      case 'session.error': {
        const err = e['error'];
        const retrying = isPlainObject(err) && isPlainObject(err['retry_status']) && err['retry_status']['type'] === 'retrying';
        if (!retrying) cursor.error = isPlainObject(err) && typeof err['message'] === 'string' ? err['message'] : 'the session reported an error';
        break;
      }
      case 'session.status_terminated':
        return { kind: 'failed', error: cursor.error ?? 'the session was terminated' };
      case 'session.status_idle': {
        const stop = e['stop_reason'];
        const why = isPlainObject(stop) && typeof stop['type'] === 'string' ? stop['type'] : 'end_turn';
        const texts = cursor.texts;
        switch (why) {
          case 'requires_action':
            return { kind: 'failed', error: 'the agent stopped to wait for an approval nobody can give' };
          case 'refusal':
            return { kind: 'failed', error: 'the model declined the task (refusal)' };
          case 'retries_exhausted':
            return { kind: 'failed', error: cursor.error ?? 'the agent gave up after repeated errors' };
          case 'budget_reached':
            return texts.length ? { kind: 'done', text: texts.join('\n\n'), partial: true } : { kind: 'failed', error: "the session's budget was reached before the agent wrote anything" };
          default:
            if (cursor.error) return { kind: 'failed', error: cursor.error };
            // end_turn; a stop reason this firmware does not know ends the job too, as partial.
            return texts.length ? { kind: 'done', text: texts.join('\n\n'), partial: why !== 'end_turn' } : { kind: 'failed', error: 'the agent ended without a message' };
        }
      }
      default:
        break;
    }
  }
  return { kind: 'running' };
}

/** The provider as one backend calls it: the managed-agents beta header, the call deadline, the key as x-api-key. */
interface SessionsApi {
  env: BackendEnv;
  base: string;
  call(r: Omit<ExchangeRequest, 'provider' | 'auth' | 'timeoutMs' | 'headers'> & { timeoutMs?: number }): Promise<Exchange>;
}

function sessionsApi(env: BackendEnv): SessionsApi {
  return {
    env,
    base: CATALOG.anthropic.base,
    call: (r) => exchange(env, { provider: 'anthropic', auth: 'x-api-key', headers: headers(), timeoutMs: CALL_MS, ...r }),
  };
}

/** A map of ids kept in NVS as JSON (the cached agents, the open vaults); {} when unreadable. */
function storedIds(env: BackendEnv, key: string): Record<string, string> {
  const p = parseJson(env.store.str(key, '{}'));
  if (!p.ok || !isPlainObject(p.value)) return {};
  return Object.fromEntries(Object.entries(p.value).filter((e): e is [string, string] => typeof e[1] === 'string'));
}

/** The id a creation answered with, when it is one. */
function idOf(x: Exchange): string | null {
  const id = x.ok && x.status <= 299 ? x.json?.['id'] : null;
  return typeof id === 'string' && PROVIDER_ID.test(id) ? id : null;
}

/** Why a creation gave no id. */
function noId(what: string, x: Exchange): string {
  return `creating the ${what} failed: ${x.ok && x.status <= 299 ? 'no id in the answer' : reason(x)}`;
}

async function environment(api: SessionsApi): Promise<{ id: string } | { error: string }> {
  const { env } = api;
  const cached = env.store.strOrNull(ENV_KEY);
  if (cached) return { id: cached };
  const x = await api.call({ method: 'POST', url: `${api.base}/v1/environments`, body: { name: 'desk-assistant', config: { type: 'cloud', networking: { type: 'unrestricted' } } } });
  const id = idOf(x);
  if (!id) return { error: noId('environment', x) };
  env.store.set(ENV_KEY, id);
  return { id };
}

async function agent(api: SessionsApi, model: string, servers: readonly ToolServer[]): Promise<{ id: string } | { error: string }> {
  const agents = storedIds(api.env, AGENTS_KEY);
  const key = agentKey(model, servers);
  if (agents[key]) return { id: agents[key] };
  const declared = agentServers(servers);
  const x = await api.call({
    method: 'POST',
    url: `${api.base}/v1/agents`,
    body: {
      name: `desk-assistant ${model}`,
      model,
      system: AGENT_SYSTEM,
      ...(servers.length ? { mcp_servers: declared.mcp_servers } : {}),
      tools: [{ type: AGENT_TOOLSET }, ...declared.toolsets],
    },
  });
  const id = idOf(x);
  if (!id) return { error: noId('agent', x) };
  const next = Object.entries({ ...agents, [key]: id }).slice(-AGENTS_CACHED);
  api.env.store.set(AGENTS_KEY, stringify(Object.fromEntries(next)));
  return { id };
}

function forget(env: BackendEnv, key: string): void {
  env.store.delete(ENV_KEY);
  const agents = storedIds(env, AGENTS_KEY);
  delete agents[key];
  env.store.set(AGENTS_KEY, stringify(agents));
}

function rememberVault(api: SessionsApi, session: string, vault: string): void {
  const all = Object.entries({ ...storedIds(api.env, VAULTS_KEY), [session]: vault });
  api.env.store.set(VAULTS_KEY, stringify(Object.fromEntries(all.slice(-VAULTS_KEPT))));
  // A job the device lost contact with never polls to its end: its vault is archived when it ages out.
  for (const [, old] of all.slice(0, -VAULTS_KEPT)) void archive(api, old);
}

async function archive(api: SessionsApi, vault: string): Promise<void> {
  // No body, as the SDK's beta.vaults.archive(id) sends none (VaultArchiveParams holds header params only).
  const x = await api.call({ method: 'POST', url: `${api.base}/v1/vaults/${vault}/archive` });
  if (!x.ok || x.status > 299) api.env.warn?.(`archiving credential vault ${vault} failed (${x.ok ? `HTTP ${x.status}` : x.kind})`);
}

/** Archives the job's vault, if it has one (the job ended or was cancelled). */
async function closeVault(api: SessionsApi, session: string): Promise<void> {
  const vaults = storedIds(api.env, VAULTS_KEY);
  const vault = vaults[session];
  if (!vault) return;
  delete vaults[session];
  api.env.store.set(VAULTS_KEY, stringify(vaults));
  await archive(api, vault);
}

/** A fresh vault holding the servers' credentials (null when none has one). */
async function vault(api: SessionsApi, tag: string, servers: readonly ToolServer[]): Promise<{ id: string | null } | { error: string }> {
  const keyed = servers.filter((s) => s.credential);
  if (!keyed.length) return { id: null };
  const x = await api.call({ method: 'POST', url: `${api.base}/v1/vaults`, body: { display_name: `desk-assistant ${tag}` } });
  const id = idOf(x);
  if (!id) return { error: noId('credential vault', x) };
  for (const s of keyed) {
    const c = await api.call({
      method: 'POST',
      url: `${api.base}/v1/vaults/${id}/credentials`,
      body: { display_name: s.label, auth: { type: 'static_bearer', mcp_server_url: s.url, token: s.credential } },
    });
    // The provider's own words are left out: an answer about a credential could quote it.
    if (!c.ok || c.status > 299) {
      await archive(api, id);
      return { error: `storing the credential of tool server ${s.label} failed (${c.ok ? `HTTP ${c.status}` : c.kind})` };
    }
  }
  return { id };
}

async function session(api: SessionsApi, model: string, servers: readonly ToolServer[], vaultId: string | null, retried: boolean): Promise<{ id: string } | { error: string }> {
  const e = await environment(api);
  if ('error' in e) return e;
  const a = await agent(api, model, servers);
  if ('error' in a) return a;
  const x = await api.call({ method: 'POST', url: `${api.base}/v1/sessions`, body: { agent: a.id, environment_id: e.id, ...(vaultId ? { vault_ids: [vaultId] } : {}) } });
  const id = idOf(x);
  if (id) return { id };
  // A cached environment or agent the provider no longer knows: make them again, once.
  if (x.ok && x.status === 404 && !retried) {
    forget(api.env, agentKey(model, servers));
    return session(api, model, servers, vaultId, true);
  }
  return { error: noId('session', x) };
}

/** A job: its vault, its session, then the brief as the first user message. */
async function startJob(api: SessionsApi, req: StartRequest): Promise<StartOutcome> {
  const servers = (await serversOf(api.env, 'anthropic', req.admin === true)).filter((t) => t.url !== '');
  const v = await vault(api, req.tag, servers);
  if ('error' in v) return { kind: 'failed', error: v.error, timeout: false };
  const s = await session(api, req.model, servers, v.id, false);
  if ('error' in s) {
    if (v.id) await archive(api, v.id);
    return { kind: 'failed', error: s.error, timeout: false };
  }
  if (v.id) rememberVault(api, s.id, v.id);
  const x = await api.call({ method: 'POST', url: `${api.base}/v1/sessions/${s.id}/events`, body: { events: [{ type: 'user.message', content: [{ type: 'text', text: req.brief }] }] } });
  if (!x.ok || x.status > 299) {
    await closeVault(api, s.id);
    return { kind: 'failed', error: `sending the brief failed: ${reason(x)}`, timeout: false };
  }
  return { kind: 'running', jobId: s.id };
}

/** A job's read position, made on its first poll (the oldest forgotten beyond CURSORS_KEPT). */
function cursorOf(cursors: Map<string, EventCursor>, jobId: string): EventCursor {
  let cursor = cursors.get(jobId);
  if (!cursor) {
    cursor = newCursor();
    cursors.set(jobId, cursor);
    for (const old of [...cursors.keys()].slice(0, -CURSORS_KEPT)) cursors.delete(old);
  }
  return cursor;
}

/** Reads the session's new events, up to PAGES_MAX pages; an ended job's cursor and vault go. */
async function pollJob(api: SessionsApi, cursors: Map<string, EventCursor>, jobId: string): Promise<PollOutcome> {
  const cursor = cursorOf(cursors, jobId);
  let page: string | null = null;
  let out: PollOutcome = { kind: 'running' };
  for (let i = 0; i < PAGES_MAX && out.kind === 'running'; i++) {
    const x = await api.call({ method: 'GET', url: `${api.base}/v1/sessions/${jobId}/events${eventsQuery(cursor, page)}`, maxBodyBytes: POLL_BODY_MAX });
    if (!x.ok || x.status > 299) return transient(x) ? { kind: 'retry', error: reason(x) } : { kind: 'failed', error: reason(x) };
    const data = x.json?.['data'];
    if (!Array.isArray(data)) return { kind: 'retry', error: 'unreadable event list' };
    const before = cursor.usage;
    out = readEvents(cursor, data);
    if (cursor.usage !== before) api.env.usage?.('anthropic', { input: cursor.usage.input - before.input, output: cursor.usage.output - before.output, reasoning: 0, cached: cursor.usage.cached - before.cached });
    const next = x.json?.['next_page'];
    if (typeof next !== 'string' || !next) break;
    page = next;
  }
  if (out.kind === 'done' || out.kind === 'failed') {
    cursors.delete(jobId);
    await closeVault(api, jobId);
  }
  return out;
}

export function sessionsBackend(env: BackendEnv): AgentBackend {
  const api = sessionsApi(env);
  /** Each running job's read position (lost on a restart: the first poll then reads the session from its start). */
  const cursors = new Map<string, EventCursor>();
  return {
    provider: 'anthropic',
    resumable: true,
    start: (req) => startJob(api, req),
    poll: (jobId) => pollJob(api, cursors, jobId),
    async cancel(jobId): Promise<void> {
      await api.call({ method: 'POST', url: `${api.base}/v1/sessions/${jobId}/events`, body: { events: [{ type: 'user.interrupt' }] } });
      await closeVault(api, jobId);
    },
  };
}

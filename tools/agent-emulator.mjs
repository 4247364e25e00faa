// Sub-agent jobs for the provider emulator (tools/provider-emulator.mjs): the
// backends of the spec's "Sub-agent backends" table, as the firmware's
// src/agents/backends speak them.
//
//   provider B  POST /v1/environments, POST /v1/agents (each answered with a
//               fresh id, counted so tests can see they are made once),
//               POST /v1/sessions, POST /v1/sessions/<sid>/events
//               (user.message starts the job, user.interrupt cancels it),
//               GET /v1/sessions/<sid>/events (the session's events so far)
//               POST /v1/vaults, POST /v1/vaults/<id>/credentials,
//               POST /v1/vaults/<id>/archive (credential vaults for the tool
//               servers an agent declares; kept in `vaults` for tests; a
//               session naming an unknown or archived vault is refused)
//   provider A  POST /v1/responses with background: true, GET /v1/responses/<id>,
//               POST /v1/responses/<id>/cancel
//   synchronous POST /v1/conversations (provider C), and chat completions or
//               messages (custom endpoint, Z.ai-style, router) carrying one
//               user message and no tools, schema or system prompt: the answer
//               is the result
//
// A job is scripted by a behaviour with a `job` field in the emulator's queue,
// taken by the first request that starts a job (the B user.message, the A
// background create, the synchronous call) and matches its `match`:
//   { job: { polls: 2, result: 'text' } }   running for 2 polls, then done
//   { job: { error: 'boom' } }              the job fails (at its first poll;
//                                           synchronous: an HTTP 500)
//   { job: { partial: true, result } }      A incomplete, B idle with budget_reached after its text
//   { job: { requiresAction: true } }       B stops for an approval
//   { job: { stop: 'refusal' } }            B idle with that stop reason (the SDK's:
//                                           end_turn, requires_action, retries_exhausted,
//                                           budget_reached, refusal)
//   { job: { events: 240, ... } }           B: that many working events (agent.thinking,
//                                           agent.tool_use, span.model_request_start/end with
//                                           model_usage) before the result, a long session
//                                           that pages
//   { job: { status: 401 } }                the start request answers this status
//   { job: { hold: true } }                 the start request never answers
//   { job: { delayMs: 5000, result } }      it answers late (synchronous)
//   { job: { pollStatus: 503, pollErrors: 2, ... } }  the first polls fail
// B's event list pages as the API does (SDK EventListParams, PageCursorParams):
// types[] filters by event type, limit sets the page size (default 20, at
// most 100; more is a 400), next_page is a cursor for the rest, and
// created_at[gt|gte] starts after a time (processed_at). Every sub-agent
// request passes the same header rules as the rounds (tools/provider-rules.mjs:
// x-api-key, anthropic-version and the managed-agents beta for B; Bearer for A)
// and the body rules of its kind (checkManaged: the SDK's body params for
// agents, sessions, vaults, credentials, archives and events, the MCP server
// and toolset pairing; a background create passes the Responses round rules).
// Without a scripted job a start gets the offline demo: done at the first
// poll with '(offline demo) Sub-agent result for: <task>'. Behaviours with a
// `job` field are never taken by other requests.

import { randomBytes } from 'node:crypto';
import { checkHeaders, checkManaged, checkRound, SESSION_STOP_REASONS, VAULT_CREDENTIALS_MAX } from './provider-rules.mjs';

const SESSION_EVENTS = /^\/v1\/sessions\/([^/]+)\/events$/;
const RESPONSE_ONE = /^\/v1\/responses\/([^/]+)$/;
const VAULT_CREDENTIALS = /^\/v1\/vaults\/([^/]+)\/credentials$/;
const VAULT_ARCHIVE = /^\/v1\/vaults\/([^/]+)\/archive$/;
const RESPONSE_CANCEL = /^\/v1\/responses\/([^/]+)\/cancel$/;
const CHAT_PATH = /^(\/v1\/chat\/completions|\/api\/paas\/v4\/chat\/completions|\/router\/[^/]+\/v1\/chat\/completions)$/;

function newId(prefix) {
  const alphabet = 'abcdefghijklmnopqrstuvwxyz0123456789';
  return prefix + Array.from(randomBytes(16), (b) => alphabet[b % 36]).join('');
}

function matches(rule, value) {
  if (rule === undefined) return true;
  return rule instanceof RegExp ? rule.test(value) : rule === value;
}

/** The task of a brief: the text after the separator line, up to the next blank line. */
export function taskOf(brief) {
  const text = String(brief ?? '');
  const at = text.indexOf('-----\n');
  const rest = at >= 0 ? text.slice(at + 6) : text;
  return rest.split('\n\n')[0].trim();
}

function textOf(content) {
  if (typeof content === 'string') return content;
  if (Array.isArray(content)) return content.map((c) => (typeof c === 'string' ? c : typeof c?.text === 'string' ? c.text : '')).join('');
  return '';
}

/** Whether a request is one the sub-agent backends send; the kind names which. */
export function agentKind(method, path, body) {
  const b = body && typeof body === 'object' ? body : {};
  if (method === 'POST' && path === '/v1/environments') return 'environment';
  if (method === 'POST' && path === '/v1/agents') return 'agent';
  if (method === 'POST' && path === '/v1/sessions') return 'session';
  if (method === 'POST' && path === '/v1/vaults') return 'vault';
  if (method === 'POST' && VAULT_CREDENTIALS.test(path)) return 'vault-credential';
  if (method === 'POST' && VAULT_ARCHIVE.test(path)) return 'vault-archive';
  if (SESSION_EVENTS.test(path)) return method === 'POST' ? 'session-send' : 'session-events';
  if (method === 'GET' && RESPONSE_ONE.test(path)) return 'response-get';
  if (method === 'POST' && RESPONSE_CANCEL.test(path)) return 'response-cancel';
  if (method !== 'POST') return null;
  if (path === '/v1/responses') return b.background === true ? 'response-create' : null;
  if (path === '/v1/conversations') return b.instructions === undefined && b.completion_args === undefined ? 'sync-conversations' : null;
  const plain = !b.tools && !b.response_format && !b.tool_choice && b.system === undefined;
  if (!plain || !Array.isArray(b.messages) || !b.messages.every((m) => m?.role === 'user')) return null;
  if (path === '/v1/messages') return 'sync-messages';
  if (CHAT_PATH.test(path)) return 'sync-chat';
  return null;
}

function errorShape(status, message) {
  return { error: { type: status === 401 ? 'authentication_error' : status >= 500 ? 'server_error' : 'invalid_request_error', message } };
}

export function createAgentJobs() {
  /** id (response id, session id, or sync-N) -> job */
  const jobs = new Map();
  /** agent id -> model, session id -> agent id (so a B job knows its model) */
  const agentModels = new Map();
  const sessionAgents = new Map();
  const created = { environments: 0, agents: 0, sessions: 0 };
  /** vault id -> { id, name, archived, credentials: [{ mcp_server_url, type, token }] } (tests read the tokens here) */
  const vaults = new Map();
  let syncCount = 0;

  const take = (queue, rec) => {
    const i = queue.findIndex((b) => b.job && matches(b.match?.host, rec.host) && matches(b.match?.path, rec.path));
    return i >= 0 ? queue.splice(i, 1)[0].job : {};
  };

  const begin = (id, kind, rec, brief, script) => {
    const job = {
      id,
      kind,
      host: rec.host,
      model: rec.body?.model ?? (typeof rec.body?.agent === 'string' ? rec.body.agent : null),
      brief,
      task: taskOf(brief),
      script,
      polls: 0,
      pollErrors: 0,
      cancelled: false,
      at: Date.now(),
    };
    jobs.set(id, job);
    return job;
  };

  const resultOf = (job) => job.script.result ?? `(offline demo) Sub-agent result for: ${job.task.slice(0, 200)}`;

  /** Whether the job has run its polls (a poll is counted by the caller). */
  const finished = (job) => job.polls >= (job.script.polls ?? 1);

  /** A session's events so far, each with an id and a processed_at a millisecond after the one before. */
  const sessionEvents = (job) => {
    if (!job) return [];
    const events = [];
    const t0 = job.at;
    const add = (e) => events.push({ id: `sevt_${String(events.length + 1).padStart(5, '0')}`, processed_at: new Date(t0 + events.length).toISOString(), ...e });
    add({ type: 'user.message', content: [{ type: 'text', text: job.brief }] });
    add({ type: 'session.status_running' });
    const s = job.script;
    // A long session's work: the events are there from the start, the result only when the polls ran.
    for (let i = 0; i < (s.events ?? 0); i++) {
      if (i % 4 === 0) add({ type: 'agent.thinking' });
      else if (i % 4 === 1) add({ type: 'agent.tool_use', name: 'web_search', input: { query: `step ${i}` } });
      else if (i % 4 === 2) add({ type: 'span.model_request_start' });
      else add({ type: 'span.model_request_end', is_error: false, model_request_start_id: 'x', model_usage: { input_tokens: 1000, output_tokens: 100, cache_creation_input_tokens: 0, cache_read_input_tokens: 500 } });
    }
    if (job.cancelled) {
      // After a user.interrupt the session goes idle; the SDK has no 'interrupted' stop reason.
      add({ type: 'session.status_idle', stop_reason: { type: 'end_turn' }, stop_details: null });
      return events;
    }
    if (!finished(job)) return events;
    const idle = (type) => {
      if (!SESSION_STOP_REASONS.includes(type)) throw new Error(`emulator: ${type} is not a session stop reason`);
      add({ type: 'session.status_idle', stop_reason: type === 'requires_action' ? { type, event_ids: ['sevt_00002'] } : { type }, stop_details: null });
    };
    if (s.error) {
      add({ type: 'session.error', error: { type: 'unknown_error', message: s.error, retry_status: { type: 'terminal' } } });
      idle('end_turn');
    } else if (s.requiresAction) idle('requires_action');
    else if (s.stop && s.stop !== 'end_turn' && s.stop !== 'budget_reached') idle(s.stop);
    else {
      add({ type: 'agent.message', content: [{ type: 'text', text: resultOf(job) }] });
      idle(s.partial ? 'budget_reached' : (s.stop ?? 'end_turn'));
    }
    return events;
  };

  /** One page of a session's events under the list parameters (types[], limit, page, created_at[gt|gte]). */
  const eventsPage = (events, query) => {
    const q = new URLSearchParams(query ?? '');
    const limit = q.has('limit') ? Number(q.get('limit')) : 20;
    if (!Number.isInteger(limit) || limit < 1 || limit > 100) return { status: 400, body: errorShape(400, 'limit: must be an integer from 1 to 100') };
    const types = q.getAll('types[]');
    let list = types.length ? events.filter((e) => types.includes(e.type)) : events;
    if (q.has('created_at[gt]')) list = list.filter((e) => e.processed_at > q.get('created_at[gt]'));
    if (q.has('created_at[gte]')) list = list.filter((e) => e.processed_at >= q.get('created_at[gte]'));
    const from = q.has('page') ? Number(/^p(\d+)$/.exec(q.get('page') ?? '')?.[1] ?? NaN) : 0;
    if (!Number.isInteger(from)) return { status: 400, body: errorShape(400, 'page: invalid cursor') };
    const data = list.slice(from, from + limit);
    return { status: 200, body: { data, next_page: from + limit < list.length ? `p${from + limit}` : null } };
  };

  const responseObject = (job) => {
    const base = { id: job.id, object: 'response', background: true, model: job.model, output: [], error: null };
    if (job.cancelled) return { ...base, status: 'cancelled' };
    if (!finished(job)) return { ...base, status: job.polls === 0 ? 'queued' : 'in_progress' };
    const s = job.script;
    if (s.error) return { ...base, status: 'failed', error: { code: 'server_error', message: s.error } };
    const output = [{ type: 'message', id: newId('msg_'), status: 'completed', role: 'assistant', content: [{ type: 'output_text', text: resultOf(job), annotations: [] }] }];
    return s.partial ? { ...base, status: 'incomplete', incomplete_details: { reason: 'max_output_tokens' }, output } : { ...base, status: 'completed', output };
  };

  const syncAnswer = (kind, job) => {
    const text = resultOf(job);
    if (kind === 'sync-conversations') {
      const now = new Date().toISOString();
      return { object: 'conversation.response', conversation_id: newId('conv_'), outputs: [{ object: 'entry', type: 'message.output', created_at: now, completed_at: now, id: newId('msg_'), model: job.model, role: 'assistant', content: text }], usage: { prompt_tokens: 100, completion_tokens: 20, total_tokens: 120 } };
    }
    if (kind === 'sync-messages') return { id: newId('msg_'), type: 'message', role: 'assistant', model: job.model, content: [{ type: 'text', text }], stop_reason: 'end_turn', stop_sequence: null, usage: { input_tokens: 100, output_tokens: 20 } };
    return { id: newId('chatcmpl-'), object: 'chat.completion', created: Math.floor(Date.now() / 1000), model: job.model, choices: [{ index: 0, message: { role: 'assistant', content: text }, finish_reason: 'stop' }], usage: { prompt_tokens: 100, completion_tokens: 20, total_tokens: 120 } };
  };

  /** A failing poll while the script asks for some: {status, body} or null. */
  const pollFault = (job) => {
    if (!job.script.pollStatus || job.pollErrors >= (job.script.pollErrors ?? 1)) return null;
    job.pollErrors++;
    return { status: job.script.pollStatus, body: errorShape(job.script.pollStatus, `emulated HTTP ${job.script.pollStatus}`) };
  };

  /**
   * The answer to a sub-agent request: {status, body}, {hold: true}, or with
   * delayMs; null when the request is not a sub-agent one. queue is the
   * emulator's behaviour queue (job behaviours are taken from it).
   */
  function handle(rec, queue) {
    const kind = agentKind(rec.method, rec.path, rec.body);
    if (!kind) return null;
    const managed = ['environment', 'agent', 'session', 'vault', 'vault-credential', 'vault-archive', 'session-send', 'session-events'].includes(kind);
    const sync = { 'sync-messages': 'messages', 'sync-chat': 'chat', 'sync-conversations': 'conversations' }[kind];
    const family = rec.host === 'api.mistral.ai' ? 'mistral' : rec.host === 'api.anthropic.com' ? 'anthropic' : 'openai';
    const withHeaders = { ...rec, headers: rec.headers ?? {} };
    const round = sync ?? (kind === 'response-create' ? 'responses' : null);
    const refused = checkHeaders(withHeaders, { managed }) ?? (round ? checkRound(round, withHeaders, { family }) : checkManaged(kind, withHeaders));
    if (refused) {
      rec.refused = refused;
      return { status: refused.status, body: errorShape(refused.status, refused.message) };
    }
    const ok = (body) => ({ status: 200, body });
    switch (kind) {
      case 'environment':
        created.environments++;
        return ok({ id: newId('env_'), type: 'environment', name: rec.body?.name ?? '', config: rec.body?.config ?? null });
      case 'agent':
        created.agents++;
        const agentId = newId('agent_');
        agentModels.set(agentId, rec.body?.model ?? null);
        return ok({ id: agentId, type: 'agent', version: 1, name: rec.body?.name ?? '', model: rec.body?.model ?? null });
      case 'vault': {
        const vid = newId('vlt_');
        vaults.set(vid, { id: vid, name: rec.body?.display_name ?? '', archived: false, credentials: [] });
        return ok({ id: vid, type: 'vault', display_name: rec.body?.display_name ?? '', metadata: {}, archived_at: null });
      }
      case 'vault-credential': {
        const v = vaults.get(VAULT_CREDENTIALS.exec(rec.path)[1]);
        if (!v || v.archived) return { status: 404, body: errorShape(404, 'no such vault') };
        const auth = rec.body?.auth ?? {};
        if (v.credentials.some((c) => c.mcp_server_url === auth.mcp_server_url)) return { status: 409, body: errorShape(409, 'a credential for this mcp_server_url exists') };
        if (v.credentials.length >= VAULT_CREDENTIALS_MAX) return { status: 400, body: errorShape(400, `a vault holds at most ${VAULT_CREDENTIALS_MAX} credentials`) };
        const cid = newId('vcred_');
        v.credentials.push({ id: cid, type: auth.type, mcp_server_url: auth.mcp_server_url, token: auth.token ?? auth.access_token ?? null });
        // Secrets are write-only: never in an answer.
        return ok({ id: cid, type: 'vault_credential', vault_id: v.id, display_name: rec.body?.display_name ?? '', auth: { type: auth.type, mcp_server_url: auth.mcp_server_url } });
      }
      case 'vault-archive': {
        const v = vaults.get(VAULT_ARCHIVE.exec(rec.path)[1]);
        if (!v) return { status: 404, body: errorShape(404, 'no such vault') };
        v.archived = true;
        return ok({ id: v.id, type: 'vault', archived_at: new Date().toISOString() });
      }
      case 'session': {
        // An agent this provider does not know (a device's stale cache): 404, as the API answers.
        if (!agentModels.has(rec.body?.agent)) return { status: 404, body: errorShape(404, `agent ${String(rec.body?.agent)} not found`) };
        for (const vid of Array.isArray(rec.body?.vault_ids) ? rec.body.vault_ids : []) {
          if (!vaults.get(vid) || vaults.get(vid).archived) return { status: 400, body: errorShape(400, `vault ${String(vid)} is not usable`) };
        }
        created.sessions++;
        const id = newId('sesn_');
        jobs.set(id, null);
        sessionAgents.set(id, rec.body?.agent ?? null);
        return ok({ id, type: 'session', status: 'idle', agent: rec.body?.agent ?? null, environment_id: rec.body?.environment_id ?? null });
      }
      case 'session-send': {
        const sid = SESSION_EVENTS.exec(rec.path)[1];
        if (!jobs.has(sid)) return { status: 404, body: errorShape(404, `no session ${sid}`) };
        const events = Array.isArray(rec.body?.events) ? rec.body.events : [];
        for (const e of events) {
          if (e?.type === 'user.message') {
            const script = take(queue, rec);
            if (script.hold) return { hold: true };
            if (script.status) return { status: script.status, body: errorShape(script.status, `emulated HTTP ${script.status}`) };
            const job = begin(sid, 'session', rec, textOf(e.content), script);
            job.model = agentModels.get(sessionAgents.get(sid)) ?? null;
          } else if (e?.type === 'user.interrupt') {
            const job = jobs.get(sid);
            if (job) job.cancelled = true;
          }
        }
        return ok({ data: events.map((e) => ({ ...e, id: newId('sevt_receipt_'), processed_at: null })) });
      }
      case 'session-events': {
        const sid = SESSION_EVENTS.exec(rec.path)[1];
        if (!jobs.has(sid)) return { status: 404, body: errorShape(404, `no session ${sid}`) };
        const job = jobs.get(sid);
        if (job) {
          const fault = pollFault(job);
          if (fault) return fault;
          job.polls++;
        }
        const page = eventsPage(sessionEvents(job), rec.query);
        if (job) job.pagesServed = (job.pagesServed ?? 0) + 1;
        return page;
      }
      case 'response-create': {
        const script = take(queue, rec);
        if (script.hold) return { hold: true };
        if (script.status) return { status: script.status, body: errorShape(script.status, `emulated HTTP ${script.status}`) };
        const job = begin(newId('resp_'), 'response', rec, typeof rec.body?.input === 'string' ? rec.body.input : textOf(rec.body?.input), script);
        return ok({ ...responseObject(job), status: 'queued' });
      }
      case 'response-get': {
        const job = jobs.get(RESPONSE_ONE.exec(rec.path)[1]);
        if (!job) return { status: 404, body: errorShape(404, 'no such response') };
        const fault = pollFault(job);
        if (fault) return fault;
        job.polls++;
        return ok(responseObject(job));
      }
      case 'response-cancel': {
        const job = jobs.get(RESPONSE_CANCEL.exec(rec.path)[1]);
        if (!job) return { status: 404, body: errorShape(404, 'no such response') };
        job.cancelled = true;
        return ok(responseObject(job));
      }
      default: {
        // Synchronous: the answer is the result.
        const script = take(queue, rec);
        const brief = kind === 'sync-conversations' ? (typeof rec.body?.inputs === 'string' ? rec.body.inputs : textOf(rec.body?.inputs?.[0]?.content)) : textOf(rec.body?.messages?.[0]?.content);
        const job = begin(`sync-${++syncCount}`, kind, rec, brief, script);
        job.polls = 1;
        if (script.hold) return { hold: true };
        if (script.status) return { status: script.status, body: errorShape(script.status, `emulated HTTP ${script.status}`), delayMs: script.delayMs };
        if (script.error) return { status: 500, body: errorShape(500, script.error), delayMs: script.delayMs };
        return { status: 200, body: syncAnswer(kind, job), delayMs: script.delayMs };
      }
    }
  }

  return {
    handle,
    /** Jobs started so far (null entries: sessions without a brief yet). */
    list: () => [...jobs.values()].filter(Boolean),
    created,
    vaults,
    reset() {
      jobs.clear();
      vaults.clear();
      agentModels.clear();
      sessionAgents.clear();
      created.environments = 0;
      created.agents = 0;
      created.sessions = 0;
    },
  };
}

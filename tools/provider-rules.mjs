// What the real provider services refuse, for the provider emulator
// (tools/provider-emulator.mjs) and its sub-agent jobs (tools/agent-emulator.mjs):
// the emulator must be at least as strict as the services, or it hides the
// bugs owners hit. Each rule names where it comes from: the official SDK
// (openai 6.49, @anthropic-ai/sdk 1.14, @mistralai/mistralai 2.7, pinned in
// package.json) or the provider's documented error. check(rec, ctx) answers
// null (accepted) or { status, message, code? } in the service's words.

/** Provider B's managed-agents beta (SDK: EventListParams.betas "requests must send managed-agents-2026-04-01"). */
export const MANAGED_AGENTS_BETA = 'managed-agents-2026-04-01';
/** Provider B's MCP connector beta (SDK: BetaMessageCreateParams.mcp_servers, AnthropicBeta 'mcp-client-2025-11-20'). */
export const MCP_CLIENT_BETA = 'mcp-client-2025-11-20';
/** anthropic-version the SDK sends on every request (@anthropic-ai/sdk client.js defaultHeaders: 'anthropic-version': '2023-06-01'). */
export const ANTHROPIC_VERSION = '2023-06-01';

/** Hosts that take a key, and how (Authorization: Bearer for A, C, Z.ai and the router; x-api-key for B). */
const BEARER_HOSTS = ['api.openai.com', 'api.mistral.ai', 'api.z.ai', 'open.bigmodel.cn', 'router.desk-assistant.invalid'];
const X_API_KEY_HOSTS = ['api.anthropic.com'];

/**
 * Models that reason, as the emulator plays them: they return reasoning
 * items, and only they take include reasoning.encrypted_content (the API
 * answers 400 "Encrypted content is not supported with this model." to
 * others). codex-* models are reasoning models (the models list).
 */
export const REASONING_MODEL = /^(o\d|gpt-5(?!-chat)|codex-)/;

/** Mistral tool-call ids (API error: "Tool call id was ... but must be a-z, A-Z, 0-9, with a length of 9."). */
export const MISTRAL_TOOL_ID = /^[a-zA-Z0-9]{9}$/;

/**
 * How Mistral's chat completions refuse a tool-call id that is not nine
 * letters and digits: 400, type invalid_function_call, code "3280" (a string),
 * as client projects' trackers report the body verbatim, e.g.
 * editor-code-assistant/eca#233 (2025-12-13):
 *   {"object":"error","message":"Tool call id was 2968-LWy3uasib but must be a-z, A-Z, 0-9, with a length of 9.",
 *    "type":"invalid_function_call","param":null,"code":"3280"}
 * and mistralai/mistral-vibe#1075 the same for a UUID id. (In mid-2024 the
 * same words came as 400 invalid_request_error, code null:
 * langchain-ai/langchain#24668; never 422.)
 */
export function mistralToolIdRefusal(id) {
  return { status: 400, message: `Tool call id was ${id} but must be a-z, A-Z, 0-9, with a length of 9.`, type: 'invalid_function_call', code: '3280' };
}

/**
 * Keywords structured outputs take in strict mode (OpenAI guide "Structured
 * Outputs > Supported schemas": string pattern/format, number
 * minimum, maximum, exclusive bounds, multipleOf, array minItems/maxItems, anyOf,
 * $defs/$ref, enum, const; every object additionalProperties false and every
 * property required; at most 10 levels of nesting and 5000 properties).
 * Mistral applies the same rules to strict json_schema and strict functions.
 */
const STRICT_KEYWORDS = new Set([
  'type', 'properties', 'required', 'additionalProperties', 'items', 'enum', 'const', 'anyOf', '$ref', '$defs', 'definitions',
  'description', 'title', 'pattern', 'format', 'minimum', 'maximum', 'exclusiveMinimum', 'exclusiveMaximum', 'multipleOf', 'minItems', 'maxItems',
]);
const STRICT_DEPTH = 10;
const STRICT_PROPERTIES = 5000;

/** The first way a schema breaks strict mode's rules, or null. */
export function strictSchemaProblem(schema) {
  if (!schema || typeof schema !== 'object') return 'the schema is not an object';
  if (schema.type !== 'object' || schema.anyOf) return "the root schema must be an object, not anyOf (strict mode)";
  let props = 0;
  const walk = (s, path, depth) => {
    if (!s || typeof s !== 'object') return null;
    if (depth > STRICT_DEPTH) return `${path}: more than ${STRICT_DEPTH} levels of nesting`;
    for (const k of Object.keys(s)) if (!STRICT_KEYWORDS.has(k)) return `${path}: '${k}' is not supported in strict mode`;
    const types = Array.isArray(s.type) ? s.type : [s.type];
    if (types.includes('object') || s.properties) {
      if (s.additionalProperties !== false) return `${path}: 'additionalProperties' is required to be supplied and to be false`;
      const names = Object.keys(s.properties ?? {});
      props += names.length;
      const required = Array.isArray(s.required) ? s.required : [];
      const missing = names.find((n) => !required.includes(n));
      if (missing) return `${path}: 'required' is required to be supplied and to be an array including every key in properties. Missing '${missing}'`;
      for (const n of names) {
        const p = walk(s.properties[n], `${path}.${n}`, depth + 1);
        if (p) return p;
      }
    }
    if (s.items) {
      const p = walk(s.items, `${path}[]`, depth + 1);
      if (p) return p;
    }
    for (const [i, sub] of (s.anyOf ?? []).entries()) {
      const p = walk(sub, `${path}.anyOf[${i}]`, depth + 1);
      if (p) return p;
    }
    for (const [n, sub] of Object.entries(s.$defs ?? s.definitions ?? {})) {
      const p = walk(sub, `${path}.$defs.${n}`, depth + 1);
      if (p) return p;
    }
    return null;
  };
  const p = walk(schema, 'schema', 1);
  if (p) return `Invalid schema for strict mode: ${p}`;
  if (props > STRICT_PROPERTIES) return `Invalid schema: more than ${STRICT_PROPERTIES} properties`;
  return null;
}

/** The strict schemas a request carries, with where they sit. */
function strictSchemas(dialect, body) {
  const out = [];
  if (dialect === 'responses') {
    if (body?.text?.format?.type === 'json_schema' && body.text.format.strict === true) out.push(['text.format', body.text.format.schema]);
    for (const t of Array.isArray(body?.tools) ? body.tools : []) if (t?.type === 'function' && t.strict === true) out.push([`tools.${t.name}`, t.parameters]);
  } else if (dialect === 'chat') {
    const rf = body?.response_format;
    if (rf?.type === 'json_schema' && rf.json_schema?.strict === true) out.push(['response_format', rf.json_schema.schema]);
    for (const t of Array.isArray(body?.tools) ? body.tools : []) if (t?.function?.strict === true) out.push([`tools.${t.function.name}`, t.function.parameters]);
  } else if (dialect === 'conversations') {
    const rf = body?.completion_args?.response_format;
    if (rf?.type === 'json_schema' && rf.json_schema?.strict === true) out.push(['completion_args.response_format', rf.json_schema.schema]);
  }
  return out;
}

function header(rec, name) {
  const v = rec.headers[name];
  return typeof v === 'string' ? v : Array.isArray(v) ? v.join(',') : '';
}

/** The beta names a request sent (anthropic-beta is a comma-separated list; SDK: betas joined with ','). */
export function betasOf(rec) {
  return header(rec, 'anthropic-beta').split(',').map((b) => b.trim()).filter(Boolean);
}

/**
 * Auth and version headers (all dialects and sub-agent endpoints): null or a refusal.
 * keyless hosts (the demo, a custom endpoint) take any.
 */
export function checkHeaders(rec, { managed = false } = {}) {
  const auth = header(rec, 'authorization');
  const xKey = header(rec, 'x-api-key');
  if (BEARER_HOSTS.includes(rec.host)) {
    // openai client.js authHeaders: Authorization: Bearer <apiKey>; Mistral SDK security: bearer (HTTP Authorization).
    if (!/^Bearer \S+$/.test(auth)) return { status: 401, message: 'You didn\'t provide an API key. You need to provide your API key in an Authorization header using Bearer auth (i.e. Authorization: Bearer YOUR_KEY).', code: 'missing_api_key' };
  }
  if (X_API_KEY_HOSTS.includes(rec.host)) {
    // @anthropic-ai/sdk client.js apiKeyAuth: X-Api-Key; a Bearer header alone is an OAuth token, not an API key.
    if (!xKey) return { status: 401, message: 'x-api-key header is required', type: 'authentication_error' };
    // Every request carries anthropic-version (SDK defaultHeaders); the API refuses a request without it.
    if (header(rec, 'anthropic-version') !== ANTHROPIC_VERSION) return { status: 400, message: 'anthropic-version: header is required', type: 'invalid_request_error' };
    if (managed && !betasOf(rec).includes(MANAGED_AGENTS_BETA)) return { status: 400, message: `This endpoint is in beta: requests must send ${MANAGED_AGENTS_BETA} in the anthropic-beta header`, type: 'invalid_request_error' };
  }
  return null;
}

const REASONING_FOLLOWER = 'Item \'%s\' of type \'reasoning\' was provided without its required following item.';

/**
 * The body rules of a round (after the headers).
 * ctx.followers: reasoning id -> the id of the item the emulator answered after it (pairing).
 * ctx.family: 'openai' | 'anthropic' | 'mistral' | 'zai'.
 */
export function checkRound(dialect, rec, ctx) {
  const b = rec.body;
  if (!b || typeof b !== 'object') return { status: 400, message: 'We could not parse the JSON body of your request.' };
  for (const [where, schema] of strictSchemas(dialect, b)) {
    const p = strictSchemaProblem(schema);
    if (p) return { status: 400, message: `${where}: ${p}`, code: 'invalid_function_parameters' };
  }
  if (dialect === 'responses') {
    const include = Array.isArray(b.include) ? b.include : [];
    // Under store false nothing is kept: an item referenced by id alone is not found (404).
    if (include.includes('reasoning.encrypted_content') && !REASONING_MODEL.test(String(b.model))) return { status: 400, message: 'Encrypted content is not supported with this model.', code: 'unsupported_parameter' };
    const input = Array.isArray(b.input) ? b.input : [];
    for (let i = 0; i < input.length; i++) {
      const item = input[i];
      if (item?.type !== 'reasoning') continue;
      // SDK ResponseReasoningItem: encrypted_content is what a stateless (store false) replay carries.
      if (b.store === false && typeof item.encrypted_content !== 'string') return { status: 404, message: `Item with id '${item.id}' not found. Items are not persisted when \`store\` is set to false. Try again with \`store\` set to true, or remove this item from your input.` };
      const want = ctx.followers?.get(item.id);
      const next = input[i + 1];
      if (!next || (want !== undefined && next.id !== want) || (want === undefined && typeof next.id !== 'string')) return { status: 400, message: REASONING_FOLLOWER.replace('%s', item.id) };
    }
  }
  // OpenAI: stream_options only beside stream: true (API 400 "The 'stream_options' parameter is only allowed when
  // 'stream' is enabled."; SDK ChatCompletionCreateParamsNonStreaming and ResponseCreateParamsNonStreaming document it as such).
  if ((dialect === 'chat' || dialect === 'responses') && b.stream_options != null && b.stream !== true && ctx.family !== 'mistral') {
    return { status: 400, message: "The 'stream_options' parameter is only allowed when 'stream' is enabled.", code: 'invalid_value' };
  }
  // stream is a boolean in every dialect (SDK params: stream?: boolean / true / false | null).
  if (b.stream !== undefined && b.stream !== null && typeof b.stream !== 'boolean') return { status: 400, message: `stream: Input should be a valid boolean` };
  if (dialect === 'responses') {
    const p = responsesMcpProblem(b.tools);
    if (p) return { status: 400, message: p, code: 'invalid_value' };
  }
  if (dialect === 'messages') {
    // SDK BetaMessageCreateParams.mcp_servers needs the MCP connector beta.
    if (Array.isArray(b.mcp_servers) && b.mcp_servers.length && !betasOf(rec).includes(MCP_CLIENT_BETA)) return { status: 400, message: `mcp_servers: requires the anthropic-beta ${MCP_CLIENT_BETA}`, type: 'invalid_request_error' };
    const p = mcpServersProblem(b.mcp_servers, b.tools, { exactlyOne: true });
    if (p) return { status: 400, message: p, type: 'invalid_request_error' };
    // Prompt caching (docs "Prompt caching": at most 4 cache breakpoints; SDK CacheControlEphemeral: type 'ephemeral',
    // ttl '5m' or '1h'); the API answers 400 "A maximum of 4 blocks with cache_control may be provided. Found N.".
    const marks = cacheMarks(b);
    if (marks.some((m) => m?.type !== 'ephemeral' || (m.ttl !== undefined && m.ttl !== '5m' && m.ttl !== '1h'))) return { status: 400, message: 'cache_control: Input tag does not match the expected tag ephemeral', type: 'invalid_request_error' };
    if (marks.length > 4) return { status: 400, message: `A maximum of 4 blocks with cache_control may be provided. Found ${marks.length}.`, type: 'invalid_request_error' };
    // SDK MessageCreateParamsBase.max_tokens is required.
    if (typeof b.max_tokens !== 'number') return { status: 400, message: 'max_tokens: Field required', type: 'invalid_request_error' };
  }
  // Mistral's chat completions take no stream_options (SDK ChatCompletionStreamRequest has no such field; the API
  // refuses fields it does not know with 422 "Extra inputs are not permitted").
  if (dialect === 'chat' && ctx.family === 'mistral' && b.stream_options !== undefined) return { status: 422, message: 'stream_options: Extra inputs are not permitted' };
  if (dialect === 'chat' && ctx.family === 'mistral') {
    const messages = Array.isArray(b.messages) ? b.messages : [];
    for (const m of messages) {
      for (const tc of Array.isArray(m?.tool_calls) ? m.tool_calls : []) if (!MISTRAL_TOOL_ID.test(String(tc?.id))) return mistralToolIdRefusal(tc?.id);
      if (m?.role === 'tool' && !MISTRAL_TOOL_ID.test(String(m.tool_call_id))) return mistralToolIdRefusal(m.tool_call_id);
    }
    // SDK AssistantMessage.prefix: only an assistant message with prefix true may end the list.
    const last = messages[messages.length - 1];
    if (!last || !(last.role === 'user' || last.role === 'tool' || (last.role === 'assistant' && last.prefix === true))) {
      return { status: 400, message: `Expected last role User or Tool (or Assistant with prefix True) for serving but got ${last?.role ?? 'nothing'}` };
    }
  }
  if (dialect === 'conversations' && ctx.family === 'mistral') {
    for (const e of Array.isArray(b.inputs) ? b.inputs : []) {
      if ((e?.type === 'function.call' || e?.type === 'function.result') && !MISTRAL_TOOL_ID.test(String(e.tool_call_id))) return { status: 422, message: `Tool call id was ${e.tool_call_id} but must be a-z, A-Z, 0-9, with a length of 9.` };
    }
  }
  return null;
}

/** Every cache_control a Messages request carries: on tools, system blocks and message content blocks. */
function cacheMarks(b) {
  const out = [];
  const blocks = [...(Array.isArray(b.tools) ? b.tools : []), ...(Array.isArray(b.system) ? b.system : [])];
  for (const m of Array.isArray(b.messages) ? b.messages : []) if (Array.isArray(m?.content)) blocks.push(...m.content);
  for (const x of blocks) if (x && typeof x === 'object' && x.cache_control != null) out.push(x.cache_control);
  return out;
}

/**
 * Remote MCP servers declared beside their toolsets (the Messages API's
 * mcp_servers and the managed agents' agent definition): null or the first
 * problem. Sources: docs "MCP connector" (platform.claude.com/docs/en/agents-and-tools/mcp-connector:
 * type "url" only, url must start with https://, name unique and referenced
 * by exactly one MCPToolset, a toolset's mcp_server_name must match a
 * server), SDK BetaRequestMCPServerURLDefinition {type, url, name,
 * authorization_token?, tool_configuration?}; for agents SDK
 * AgentCreateParams.mcp_servers ("Maximum 20. Names must be unique within the
 * array. Every server must be referenced by an mcp_toolset in tools;
 * unreferenced servers are rejected"), BetaManagedAgentsURLMCPServerParams
 * {type, name, url} and BetaManagedAgentsMCPToolsetParams (name 1-255
 * characters, "Must match a server name from the mcp_servers array").
 */
export function mcpServersProblem(servers, tools, { exactlyOne = false, max = Infinity, fields = ['type', 'url', 'name', 'authorization_token', 'tool_configuration'] } = {}) {
  const list = servers === undefined ? [] : servers;
  if (!Array.isArray(list)) return 'mcp_servers: Input should be a valid list';
  if (list.length > max) return `mcp_servers: at most ${max} servers`;
  const toolsets = (Array.isArray(tools) ? tools : []).filter((t) => t?.type === 'mcp_toolset');
  const names = new Set();
  for (const [i, s] of list.entries()) {
    if (!s || typeof s !== 'object') return `mcp_servers.${i}: Input should be an object`;
    const extra = Object.keys(s).find((k) => !fields.includes(k));
    if (extra) return `mcp_servers.${i}.${extra}: Extra inputs are not permitted`;
    if (s.type !== 'url') return `mcp_servers.${i}.type: Input should be 'url'`;
    if (typeof s.url !== 'string' || !s.url.startsWith('https://')) return `mcp_servers.${i}.url: must start with https://`;
    if (typeof s.name !== 'string' || s.name.length < 1 || s.name.length > 255) return `mcp_servers.${i}.name: must be 1-255 characters`;
    if (names.has(s.name)) return `mcp_servers.${i}.name: MCP server name '${s.name}' is not unique`;
    names.add(s.name);
    const refs = toolsets.filter((t) => t.mcp_server_name === s.name).length;
    if (refs === 0) return `mcp_servers.${i}: MCP server '${s.name}' is not referenced by any mcp_toolset in tools`;
    if (exactlyOne && refs > 1) return `mcp_servers.${i}: MCP server '${s.name}' is referenced by more than one mcp_toolset`;
  }
  for (const t of toolsets) if (!names.has(t.mcp_server_name)) return `tools: mcp_toolset references MCP server '${String(t.mcp_server_name)}', which is not in mcp_servers`;
  return null;
}

/**
 * Provider A's remote MCP tools entries (SDK Tool.Mcp: server_label required;
 * "One of server_url, connector_id, or tunnel_id must be provided";
 * require_approval 'always' | 'never' | a filter object).
 */
export function responsesMcpProblem(tools) {
  for (const [i, t] of (Array.isArray(tools) ? tools : []).entries()) {
    if (t?.type !== 'mcp') continue;
    if (typeof t.server_label !== 'string' || !t.server_label) return `tools[${i}].server_label: Missing required parameter`;
    const where = ['server_url', 'connector_id', 'tunnel_id'].filter((k) => t[k] !== undefined);
    if (where.length !== 1) return `tools[${i}]: exactly one of server_url, connector_id or tunnel_id must be provided`;
    if (t.server_url !== undefined && !/^https:\/\//.test(String(t.server_url))) return `tools[${i}].server_url: must be an https URL`;
    if (t.require_approval !== undefined && t.require_approval !== null && !['always', 'never'].includes(t.require_approval) && typeof t.require_approval !== 'object') return `tools[${i}].require_approval: Invalid value: '${String(t.require_approval)}'`;
  }
  return null;
}

/** The fields a body may carry and those it must (the SDK's body params); null or the first problem, in the API's words. */
function fieldsProblem(body, allowed, required, where = '') {
  if (!body || typeof body !== 'object' || Array.isArray(body)) return `${where || 'body'}: Input should be a valid dictionary`;
  const extra = Object.keys(body).find((k) => !allowed.includes(k));
  if (extra) return `${where}${extra}: Extra inputs are not permitted`;
  const missing = required.find((k) => body[k] === undefined);
  if (missing) return `${where}${missing}: Field required`;
  return null;
}

/** SDK metadata on vaults, credentials and agents: "Maximum 16 pairs, keys up to 64 chars, values up to 512 chars." */
function metadataProblem(m, where) {
  if (m === undefined) return null;
  if (!m || typeof m !== 'object' || Array.isArray(m)) return `${where}: Input should be a valid dictionary`;
  const entries = Object.entries(m);
  if (entries.length > 16) return `${where}: at most 16 pairs`;
  for (const [k, v] of entries) if (k.length > 64 || typeof v !== 'string' || v.length > 512) return `${where}.${k}: keys up to 64 characters, string values up to 512`;
  return null;
}

/**
 * The body rules of provider B's managed-agents requests (after the
 * headers), by the agent emulator's request kind: null or a refusal.
 *   agent            SDK AgentCreateParams (name and model required) with its
 *                    mcp_servers rules above (mcpServersProblem, at most 20)
 *   session          SDK SessionCreateParams (agent and environment_id required;
 *                    vault_ids a list of ids)
 *   vault            SDK VaultCreateParams: display_name required, 1-255
 *                    characters; metadata
 *   vault-credential SDK CredentialCreateParams: auth required, one of
 *                    mcp_oauth, static_bearer {type, token, mcp_server_url}
 *                    (all required), environment_variable; display_name up to
 *                    255 characters; docs "Authenticate with vaults"
 *                    (platform.claude.com/docs/en/managed-agents/vaults): a
 *                    credential binds to one mcp_server_url (a second active
 *                    one for the same URL is a 409, the emulator's state),
 *                    at most 20 credentials per vault
 *   vault-archive    SDK VaultArchiveParams has header params only (betas,
 *                    workspace_id): the SDK posts no body, so a body (the
 *                    firmware sends none) may carry no field
 *   response-cancel  the same: the SDK's responses.cancel(id) posts no body
 *   session-send     SDK EventSendParams: events required, a list of
 *                    user.message {content}, user.interrupt, ... events
 */
export function checkManaged(kind, rec) {
  const b = rec.body ?? {};
  const bad = (message) => ({ status: 400, message, type: 'invalid_request_error' });
  let p = null;
  switch (kind) {
    case 'agent':
      p = fieldsProblem(b, ['model', 'name', 'description', 'execution_identity', 'mcp_servers', 'metadata', 'multiagent', 'skills', 'system', 'tools'], ['model', 'name']) ?? metadataProblem(b.metadata, 'metadata') ?? mcpServersProblem(b.mcp_servers, b.tools, { max: 20, fields: ['type', 'name', 'url'] });
      if (!p && Array.isArray(b.tools) && b.tools.length > 256) p = 'tools: at most 256 tools';
      break;
    case 'session':
      p = fieldsProblem(b, ['agent', 'environment_id', 'budget', 'initial_events', 'metadata', 'resources', 'title', 'vault_ids'], ['agent', 'environment_id']) ?? metadataProblem(b.metadata, 'metadata');
      if (!p && b.vault_ids !== undefined && !(Array.isArray(b.vault_ids) && b.vault_ids.every((v) => typeof v === 'string'))) p = 'vault_ids: Input should be a valid list of strings';
      break;
    case 'vault':
      p = fieldsProblem(b, ['display_name', 'metadata'], ['display_name']) ?? metadataProblem(b.metadata, 'metadata');
      if (!p && (typeof b.display_name !== 'string' || b.display_name.length < 1 || b.display_name.length > 255)) p = 'display_name: must be 1-255 characters';
      break;
    case 'vault-credential': {
      p = fieldsProblem(b, ['auth', 'display_name', 'metadata'], ['auth']) ?? metadataProblem(b.metadata, 'metadata');
      if (!p && b.display_name !== undefined && b.display_name !== null && (typeof b.display_name !== 'string' || b.display_name.length > 255)) p = 'display_name: up to 255 characters';
      const a = b.auth;
      if (!p && a?.type === 'static_bearer') {
        p = fieldsProblem(a, ['type', 'token', 'mcp_server_url'], ['type', 'token', 'mcp_server_url'], 'auth.');
        if (!p && (typeof a.token !== 'string' || !a.token)) p = 'auth.token: must be a non-empty string';
        if (!p && (typeof a.mcp_server_url !== 'string' || !a.mcp_server_url.startsWith('https://'))) p = 'auth.mcp_server_url: must be an https URL';
      } else if (!p && !['mcp_oauth', 'environment_variable'].includes(a?.type)) p = "auth.type: Input should be 'mcp_oauth', 'static_bearer' or 'environment_variable'";
      break;
    }
    case 'vault-archive':
    case 'response-cancel':
      // SDK VaultArchiveParams and responses.cancel(id) send no body params (an empty JSON object at most).
      if (rec.body !== null && rec.body !== undefined) p = fieldsProblem(b, [], []);
      break;
    case 'session-send': {
      p = fieldsProblem(b, ['events'], ['events']);
      if (!p && !Array.isArray(b.events)) p = 'events: Input should be a valid list';
      for (const [i, e] of (p ? [] : b.events.entries())) {
        if (e?.type === 'user.message') p = fieldsProblem(e, ['type', 'content'], ['type', 'content'], `events.${i}.`);
        else if (e?.type === 'user.interrupt') p = fieldsProblem(e, ['type', 'session_thread_id'], ['type'], `events.${i}.`);
        if (p) break;
      }
      break;
    }
    default:
      break;
  }
  return p ? bad(p) : null;
}

/**
 * The rules of the requests beside the rounds (after the headers): null or a refusal.
 *   moderations  A: SDK ModerationCreateParams (input required; model optional);
 *                C: SDK ClassificationRequest (model and input required)
 *   speech       SDK SpeechCreateParams: input, model and voice required;
 *                response_format one of mp3, opus, aac, flac, wav, pcm
 *   models       B: SDK ModelListParams (PageParams limit; the API reference's
 *                List Models: "Defaults to 20. Ranges from 1 to 1000")
 */
export function checkOther(dialect, rec, family) {
  const b = rec.body;
  const bad = (message, status = 400) => ({ status, message, ...(rec.host === 'api.anthropic.com' ? { type: 'invalid_request_error' } : {}) });
  if (dialect === 'moderations') {
    if (!b || typeof b !== 'object') return bad('We could not parse the JSON body of your request.');
    if (b.input === undefined) return bad("Missing required parameter: 'input'.", family === 'mistral' ? 422 : 400);
    if (family === 'mistral' && typeof b.model !== 'string') return bad('model: Field required', 422);
    if (family === 'mistral' && !(typeof b.input === 'string' || (Array.isArray(b.input) && b.input.every((x) => typeof x === 'string')))) return bad('input: Input should be a valid string or list of strings', 422);
  }
  if (dialect === 'speech') {
    if (!b || typeof b !== 'object') return bad('We could not parse the JSON body of your request.');
    for (const k of ['model', 'input', 'voice']) if (typeof b[k] !== 'string' || !b[k]) return bad(`Missing required parameter: '${k}'.`);
    if (b.response_format !== undefined && !['mp3', 'opus', 'aac', 'flac', 'wav', 'pcm'].includes(b.response_format)) return bad(`Invalid value: '${b.response_format}'. Supported values are: 'mp3', 'opus', 'aac', 'flac', 'wav', and 'pcm'.`);
  }
  if (dialect === 'models' && rec.host === 'api.anthropic.com') {
    const limit = new URLSearchParams(rec.query ?? '').get('limit');
    if (limit !== null && !(/^\d+$/.test(limit) && Number(limit) >= 1 && Number(limit) <= 1000)) return bad('limit: Input should be less than or equal to 1000');
  }
  return null;
}

/** The most credentials one vault holds (docs "Authenticate with vaults"). */
export const VAULT_CREDENTIALS_MAX = 20;

/**
 * Provider B's stop reasons (SDK StopReason) and managed-session stop reasons
 * (SDK BetaManagedAgentsSessionStatusIdleEvent.stop_reason): the emulator
 * sends no other.
 */
export const MESSAGE_STOP_REASONS = ['end_turn', 'max_tokens', 'stop_sequence', 'tool_use', 'pause_turn', 'refusal', 'model_context_window_exceeded'];
export const SESSION_STOP_REASONS = ['end_turn', 'requires_action', 'retries_exhausted', 'budget_reached', 'refusal'];

// ---------------------------------------------------------------------------
// Speech to text: POST /v1/audio/transcriptions (OpenAI's, Mistral's, and a
// custom endpoint's OpenAI-compatible route), multipart/form-data.

/**
 * The form fields each service's SDK may send. OpenAI: TranscriptionCreateParams
 * (openai 6.49 resources/audio/transcriptions.d.ts); its API answers an unknown
 * field "Unrecognized request argument supplied". Mistral:
 * AudioTranscriptionRequest$Outbound (@mistralai/mistralai 2.7
 * models/components/audiotranscriptionrequest.ts, appended in that order by
 * funcs/audioTranscriptionsComplete.ts).
 */
export const TRANSCRIPTION_FIELDS = {
  openai: ['file', 'model', 'chunking_strategy', 'include', 'include[]', 'known_speaker_names', 'known_speaker_names[]', 'known_speaker_references', 'known_speaker_references[]', 'language', 'prompt', 'response_format', 'stream', 'temperature', 'timestamp_granularities', 'timestamp_granularities[]'],
  mistral: ['model', 'file', 'file_url', 'file_id', 'language', 'temperature', 'stream', 'diarize', 'context_bias', 'timestamp_granularities'],
};
/** OpenAI's speech-to-text guide: "File uploads are currently limited to 25 MB, and the following input file types are supported: mp3, mp4, mpeg, mpga, m4a, wav, and webm" (ogg and flac accepted by the API: its error lists them). */
export const TRANSCRIPTION_FORMATS = ['flac', 'm4a', 'mp3', 'mp4', 'mpeg', 'mpga', 'oga', 'ogg', 'wav', 'webm'];
export const TRANSCRIPTION_MAX_BYTES = 25 * 1024 * 1024;
/** OpenAI's response formats; the gpt-4o transcribe models take json and text only (API reference, response_format). */
const OPENAI_RESPONSE_FORMATS = ['json', 'text', 'srt', 'verbose_json', 'vtt', 'diarized_json'];

/** A WAV file's shape: RIFF/WAVE, a PCM fmt chunk, a data chunk that fits the file. Null or what is wrong. */
export function wavProblem(bytes) {
  const b = Buffer.from(bytes);
  if (b.length < 44 || b.toString('latin1', 0, 4) !== 'RIFF' || b.toString('latin1', 8, 12) !== 'WAVE') return 'not a RIFF/WAVE file';
  if (b.readUInt32LE(4) !== b.length - 8) return `the RIFF size ${b.readUInt32LE(4)} does not match the file (${b.length - 8})`;
  let at = 12;
  let fmt = null;
  while (at + 8 <= b.length) {
    const id = b.toString('latin1', at, at + 4);
    const size = b.readUInt32LE(at + 4);
    if (id === 'fmt ') fmt = { format: b.readUInt16LE(at + 8), channels: b.readUInt16LE(at + 10), rate: b.readUInt32LE(at + 12), bits: b.readUInt16LE(at + 22) };
    if (id === 'data') {
      if (!fmt) return 'the data chunk comes before fmt';
      if (at + 8 + size !== b.length) return `the data chunk says ${size} bytes, the file holds ${b.length - at - 8}`;
      if (fmt.format !== 1 || fmt.bits !== 16) return 'not 16-bit PCM';
      return null;
    }
    at += 8 + size + (size & 1);
  }
  return 'no data chunk';
}

/**
 * Parses and judges a transcription request. rec: the recorded request
 * (headers); raw: its body bytes. Resolves with { refused } or { form:
 * { fields: {name: value}, file: { name, type, size, bytes } } }. The body
 * is parsed by undici's multipart parser (Node's Response.formData), which
 * refuses a malformed body as the services' parsers do.
 */
export async function checkTranscription(rec, raw, family) {
  const mistral = family === 'mistral';
  const bad = (message, status = mistral ? 422 : 400) => ({ refused: { status, message } });
  const type = String(rec.headers['content-type'] ?? '');
  if (!/^multipart\/form-data;\s*boundary=/i.test(type)) return bad("Invalid Content-Type header (expected multipart/form-data with a boundary)", 400);
  if (raw.length > TRANSCRIPTION_MAX_BYTES) return bad(`Maximum content size limit (${TRANSCRIPTION_MAX_BYTES}) exceeded`, 413);
  let form;
  try {
    form = await new Response(raw, { headers: { 'content-type': type } }).formData();
  } catch (e) {
    return bad(`Could not parse multipart form (${e instanceof Error ? e.message : String(e)})`, 400);
  }
  const fields = {};
  let file = null;
  const allowed = TRANSCRIPTION_FIELDS[mistral ? 'mistral' : 'openai'];
  for (const [name, value] of form.entries()) {
    if (!allowed.includes(name)) return bad(mistral ? `${name}: Extra inputs are not permitted` : `Unrecognized request argument supplied: ${name}`);
    if (name === 'file') {
      if (typeof value === 'string') return bad(mistral ? 'file: Expected UploadFile, received: <class \'str\'>' : "Invalid file: expected a file upload, got a text field");
      if (file) return bad('file: more than one file');
      file = value;
      continue;
    }
    if (typeof value !== 'string') return bad(`${name}: expected a text field, got a file`);
    if (name in fields) return bad(`${name}: sent twice`);
    fields[name] = value;
  }
  if (!fields.model) return bad(mistral ? 'model: Field required' : "Missing required parameter: 'model'.");
  if (!file && !(mistral && (fields.file_url || fields.file_id))) return bad(mistral ? 'file: Field required' : "Missing required parameter: 'file'.");
  if (mistral && fields.stream !== undefined && fields.stream !== 'false') return bad('stream: this endpoint answers stream=false only (true is /v1/audio/transcriptions#stream)');
  if (!mistral && fields.response_format !== undefined) {
    if (!OPENAI_RESPONSE_FORMATS.includes(fields.response_format)) return bad(`Invalid value: '${fields.response_format}'. Supported values are: ${OPENAI_RESPONSE_FORMATS.map((f) => `'${f}'`).join(', ')}.`);
    if (/^gpt-4o/.test(fields.model) && !['json', 'text'].includes(fields.response_format)) return bad(`response_format '${fields.response_format}' is not compatible with ${fields.model}; use 'json' or 'text'.`);
  }
  const name = file?.name ?? '';
  const ext = name.includes('.') ? name.slice(name.lastIndexOf('.') + 1).toLowerCase() : '';
  if (file && !TRANSCRIPTION_FORMATS.includes(ext)) return bad(`Invalid file format. Supported formats: ${JSON.stringify(TRANSCRIPTION_FORMATS)}`);
  const bytes = file ? new Uint8Array(await file.arrayBuffer()) : new Uint8Array(0);
  if (file && bytes.length === 0) return bad('Audio file is empty.');
  if (ext === 'wav') {
    const p = wavProblem(bytes);
    if (p) return bad(`Audio file might be corrupted or unsupported (${p}).`);
  }
  if ((ext === 'ogg' || ext === 'oga') && Buffer.from(bytes.subarray(0, 4)).toString('latin1') !== 'OggS') return bad('Audio file might be corrupted or unsupported (no Ogg page).');
  return { form: { fields, file: file ? { name, type: file.type, size: bytes.length, bytes } : null } };
}

// ---------------------------------------------------------------------------
// Embeddings: POST /v1/embeddings (OpenAI's, Mistral's, and a custom endpoint's
// OpenAI-compatible route), JSON. Models and widths: tools/embedding-fake.mjs.

/** Fields each service takes: openai 6.49 EmbeddingCreateParams; Mistral's EmbeddingRequest$Outbound (@mistralai/mistralai 2.7). */
export const EMBEDDING_FIELDS = {
  openai: ['model', 'input', 'dimensions', 'encoding_format', 'user'],
  mistral: ['model', 'input', 'metadata', 'output_dimension', 'output_dtype', 'encoding_format'],
};
/**
 * Per-request limits. OpenAI (EmbeddingCreateParams.input): 8192 tokens a
 * text, arrays of at most 2048, 300,000 tokens summed over a request. Mistral
 * publishes none; its API answers "Too many tokens in batch. Max is 16384"
 * (aurelio-labs/semantic-router#297, dust-tt/dust#10654), "Too many tokens
 * overall, split into more batches." code 3210 (chroma-core/chroma#5597), and
 * "Too many inputs in request, split into more batches." past 256 texts
 * (observed by 0xPlaygrounds/rig: 256 succeeds, 257 is refused); mistral-embed
 * reads 8192 tokens (langchain-ai/langchain#20523). A custom server: OpenAI's.
 */
export const EMBEDDING_LIMITS = {
  openai: { inputs: 2048, perInput: 8192, tokens: 300_000 },
  mistral: { inputs: 256, perInput: 8192, tokens: 16_384 },
  custom: { inputs: 2048, perInput: 8192, tokens: 300_000 },
};
/** Mistral's output_dtype values (SDK EmbeddingDtype). */
const MISTRAL_DTYPES = ['float', 'int8', 'uint8', 'binary', 'ubinary'];
/** OpenAI's answer to an input it cannot take, whatever the reason (openai/openai-python#576: an empty string in a list). */
const OPENAI_BAD_INPUT = "'$.input' is invalid. Please check the API reference: https://platform.openai.com/docs/api-reference.";

/**
 * A Mistral validation failure (422): the API validates with pydantic and
 * answers {object, detail: [{type, loc, msg, input}], message, type, code}
 * (partITech/php-mistral#76; before 2025 the detail sat in message:
 * Gage-Technologies/mistral-go#2), which the SDK reads as HTTPValidationError.
 */
function mistral422(type, loc, msg, input) {
  return { status: 422, message: msg, detail: [{ type, loc: ['body', ...loc], msg, input }] };
}

/**
 * The rules of an embeddings request (after the headers): null or a refusal
 * { status, message, code?, type?, detail? }. family: 'openai' | 'mistral' |
 * 'custom'; models: embeddingModel(family, name) of tools/embedding-fake.mjs.
 *   openai   a JSON object; only the SDK's fields ("Unrecognized request
 *            argument supplied"); model required, an unknown one 404
 *            model_not_found; input a string, a list of strings or token
 *            arrays, never empty nor holding an empty string (400 "'$.input'
 *            is invalid"); the limits above (context length: "This model's
 *            maximum context length is 8192 tokens ..."; "Requested N tokens,
 *            max 300000 tokens per request", CrackSQL#27); dimensions only for
 *            text-embedding-3 ("This model does not support specifying
 *            dimensions.", SciPhi-AI/R2R#768), an integer from 1 to the
 *            model's width; encoding_format float or base64
 *   mistral  extra fields, a missing or mistyped model or input, an
 *            output_dtype or encoding_format outside its enum: 422 as above;
 *            an unknown model 400 "Invalid model" (invalid_model, code 1500);
 *            output_dimension and output_dtype are Codestral Embed's options
 *            (code embeddings guide): for another model the emulator refuses
 *            them (stricter than known); encoding_format float only (the
 *            public API schema's enum); the limits above; an empty text
 *            refused as OpenAI does (stricter than known)
 *   custom   OpenAI's rules on the input, any model, dimensions only for a
 *            text-embedding-3 model (OpenAI's words; vLLM and LM Studio
 *            refuse or ignore it for others)
 */
export function checkEmbeddings(rec, family, embeddingModel) {
  const b = rec.body;
  const mistral = family === 'mistral';
  const bad = (message, extra = {}) => ({ status: 400, message, ...extra });
  if (!b || typeof b !== 'object' || Array.isArray(b)) return mistral ? mistral422('model_attributes_type', [], 'Input should be a valid dictionary or object to extract fields from', b) : bad('We could not parse the JSON body of your request.');
  if (family !== 'custom') {
    const extra = Object.keys(b).find((k) => !EMBEDDING_FIELDS[family].includes(k));
    if (extra) return mistral ? mistral422('extra_forbidden', [extra], 'Extra inputs are not permitted', b[extra]) : bad(`Unrecognized request argument supplied: ${extra}`);
  }
  if (typeof b.model !== 'string' || !b.model) return mistral ? mistral422(b.model === undefined ? 'missing' : 'string_type', ['model'], b.model === undefined ? 'Field required' : 'Input should be a valid string', b.model) : bad('you must provide a model parameter');
  if (mistral) {
    if (b.input === undefined) return mistral422('missing', ['input'], 'Field required', undefined);
    if (!(typeof b.input === 'string' || (Array.isArray(b.input) && b.input.every((x) => typeof x === 'string')))) return mistral422('string_type', ['input'], 'Input should be a valid string or a list of strings', b.input);
    if (b.output_dtype !== undefined && !MISTRAL_DTYPES.includes(b.output_dtype)) return mistral422('enum', ['output_dtype'], `Input should be ${MISTRAL_DTYPES.map((d) => `'${d}'`).join(', ')}`, b.output_dtype);
    if (b.encoding_format !== undefined && b.encoding_format !== 'float') return mistral422('enum', ['encoding_format'], "Input should be 'float'", b.encoding_format);
    if (b.output_dimension !== undefined && b.output_dimension !== null && !Number.isInteger(b.output_dimension)) return mistral422('int_type', ['output_dimension'], 'Input should be a valid integer', b.output_dimension);
  }
  const model = embeddingModel(family, b.model);
  if (!model) return mistral ? bad(`Invalid model: ${b.model}`, { type: 'invalid_model', code: '1500' }) : { status: 404, message: `The model \`${b.model}\` does not exist or you do not have access to it.`, code: 'model_not_found' };
  // The input: a string, a list of strings, a token array or a list of token arrays (SDK EmbeddingCreateParams.input).
  const inputs = typeof b.input === 'string' ? [b.input] : Array.isArray(b.input) && b.input.length && b.input.every((x) => typeof x === 'number') ? [b.input] : b.input;
  if (!Array.isArray(inputs) || inputs.length === 0) return bad(mistral ? 'Input cannot be empty' : OPENAI_BAD_INPUT);
  for (const x of inputs) {
    const ok = typeof x === 'string' ? x !== '' : Array.isArray(x) && x.length > 0 && x.every((t) => Number.isInteger(t) && t >= 0);
    if (!ok) return bad(mistral ? 'Input cannot be empty' : OPENAI_BAD_INPUT);
  }
  const lim = EMBEDDING_LIMITS[family];
  if (inputs.length > lim.inputs) return mistral ? bad('Too many inputs in request, split into more batches.', { type: 'invalid_request_prompt', code: '3210' }) : bad(OPENAI_BAD_INPUT);
  let total = 0;
  for (const x of inputs) {
    const n = typeof x === 'string' ? Buffer.byteLength(x) + 2 : x.length;
    if (n > lim.perInput) {
      return mistral
        ? bad(`Prompt contains ${n} tokens, too large for model with ${lim.perInput} maximum context length`, { type: 'invalid_request_prompt' })
        : bad(`This model's maximum context length is ${lim.perInput} tokens, however you requested ${n} tokens (${n} in your prompt; 0 for the completion). Please reduce your prompt; or completion length.`);
    }
    total += n;
  }
  if (total > lim.tokens) return mistral ? bad('Too many tokens overall, split into more batches.', { type: 'invalid_request_prompt', code: '3210' }) : bad(`Requested ${total} tokens, max ${lim.tokens} tokens per request`, { type: 'max_tokens_per_request', code: 'max_tokens_per_request' });
  if (mistral) {
    const hasDim = b.output_dimension !== undefined && b.output_dimension !== null;
    if ((hasDim || b.output_dtype !== undefined) && !model.askMax) return bad(`output_dimension and output_dtype are not supported by ${b.model}`, { type: 'invalid_request_error' });
    if (hasDim && (b.output_dimension < 1 || b.output_dimension > model.askMax)) return bad(`output_dimension must be between 1 and ${model.askMax} for ${b.model}`, { type: 'invalid_request_error' });
    if (b.output_dtype !== undefined && b.output_dtype !== 'float') return bad(`output_dtype ${b.output_dtype} is not served by this emulator (float only)`, { type: 'invalid_request_error' });
    return null;
  }
  if (b.dimensions !== undefined) {
    if (!model.askMax) return bad('This model does not support specifying dimensions.');
    if (!Number.isInteger(b.dimensions) || b.dimensions < 1 || b.dimensions > model.askMax) return bad(`Invalid value for 'dimensions' = ${JSON.stringify(b.dimensions)}. Must be an integer from 1 to ${model.askMax} for ${b.model}.`, { code: 'invalid_value' });
  }
  if (b.encoding_format !== undefined && b.encoding_format !== 'float' && b.encoding_format !== 'base64') return bad(`Invalid value: '${b.encoding_format}'. Supported values are: 'float' and 'base64'.`);
  return null;
}

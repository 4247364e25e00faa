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
  if (dialect === 'messages') {
    // SDK BetaMessageCreateParams.mcp_servers needs the MCP connector beta.
    if (Array.isArray(b.mcp_servers) && b.mcp_servers.length && !betasOf(rec).includes(MCP_CLIENT_BETA)) return { status: 400, message: `mcp_servers: requires the anthropic-beta ${MCP_CLIENT_BETA}`, type: 'invalid_request_error' };
    // SDK MessageCreateParamsBase.max_tokens is required.
    if (typeof b.max_tokens !== 'number') return { status: 400, message: 'max_tokens: Field required', type: 'invalid_request_error' };
  }
  if (dialect === 'chat' && ctx.family === 'mistral') {
    const messages = Array.isArray(b.messages) ? b.messages : [];
    for (const m of messages) {
      for (const tc of Array.isArray(m?.tool_calls) ? m.tool_calls : []) if (!MISTRAL_TOOL_ID.test(String(tc?.id))) return { status: 422, message: `Tool call id was ${tc?.id} but must be a-z, A-Z, 0-9, with a length of 9.` };
      if (m?.role === 'tool' && !MISTRAL_TOOL_ID.test(String(m.tool_call_id))) return { status: 422, message: `Tool call id was ${m.tool_call_id} but must be a-z, A-Z, 0-9, with a length of 9.` };
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

/**
 * Provider B's stop reasons (SDK StopReason) and managed-session stop reasons
 * (SDK BetaManagedAgentsSessionStatusIdleEvent.stop_reason): the emulator
 * sends no other.
 */
export const MESSAGE_STOP_REASONS = ['end_turn', 'max_tokens', 'stop_sequence', 'tool_use', 'pause_turn', 'refusal', 'model_context_window_exceeded'];
export const SESSION_STOP_REASONS = ['end_turn', 'requires_action', 'retries_exhausted', 'budget_reached', 'refusal'];

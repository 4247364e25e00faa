// Provider A: the Responses API (POST {base}/v1/responses).
//   single-shot  structured output: text.format json_schema, strict, with the
//                turn schema (the one call with provider-side enforcement);
//   loop round   the orch_turn function tool (strict) plus the registry's
//                tools, tool_choice "required" (a tool every round);
//   forced final only orch_turn, pinned: tool_choice {type: function, name}.
// Stateless: store false, the whole input re-sent every round. Reasoning
// items come back with encrypted_content (include
// reasoning.encrypted_content, what stateless replay needs) and are kept in
// the transcript as opaque items, replayed in place on later rounds. A
// reasoning item must be followed by the item it produced, under that
// item's own id (the API answers 400 "Item 'rs_...' of type 'reasoning' was
// provided without its required following item" otherwise), so the
// function_call and message items keep their fc_/msg_ ids (TranscriptItem
// ref) and are replayed as output items. A reasoning item without
// encrypted_content cannot be replayed under store false (the API looks the
// id up and answers 404), so it is not kept.
// Remote tool servers (the owner's approved connectors, tool-servers.ts)
// ride along in loop rounds, forced final included, as mcp tools entries
// after the function tools; tool_choice is unchanged ("required" in a loop
// round, where an MCP call counts as a tool; pinned to orch_turn in the
// forced final, so nothing else can be called there). The server's calls
// come back as mcp_call items, kept as opaque items and replayed with the
// rest; mcp_list_tools items are dropped (the provider lists the tools again
// rather than the device carrying every server's catalogue).

import { isPlainObject } from '../util/json.ts';
import { CATALOG, RESPONSES_OUTPUT_TOKENS } from './catalog.ts';
import {
  argsText,
  configError,
  contentText,
  jsonHeaders,
  parseRound,
  splitSystem,
  toolsResult,
  turnResult,
  turnText,
  TURN_SCHEMA_DESCRIPTION,
  TURN_TOOL_DESCRIPTION,
  usableKey,
  type BuildResult,
  type WireRound,
} from './common.ts';
import { cleanBase } from '../net/url.ts';
import { jsonBody } from '../util/json.ts';
import { fail, isOverflow, malformed } from './errors.ts';
import { responsesMcpTools } from './tool-servers.ts';
import type { Backend, RoundRequest, RoundResult, TranscriptItem } from '../contracts/index.ts';

// Regular expressions are module constants: XS compiles a literal each time it is evaluated.
/**
 * Reasoning models (gpt-5 family but its chat variants, o-series, codex-*):
 * the only ones that take include reasoning.encrypted_content. A model this
 * misses still works: its reasoning items come back without encrypted
 * content and are not replayed.
 */
const REASONING_MODEL = /^(o\d|gpt-5(?!-chat)|codex-)/;
/** Sent as prompt_cache_key: every turn round's prefix is alike, whoever asks. */
export const PROMPT_CACHE_KEY = 'desk-assistant-turn';
/** Provider A's own item ids: replayed with their items (reasoning pairing). */
const ITEM_ID = /^(fc|msg)_[A-Za-z0-9_-]{1,200}$/;

/** The input items; a remote tool server's call is replayed only while its server is still offered (declared). */
function inputItems(transcript: readonly TranscriptItem[], docs: string, declared: ReadonlySet<string>): unknown[] {
  const { system, rest } = splitSystem(transcript);
  // The turn's field documentation, the prompt's stable part, its changing part, then the conversation: the
  // unchanging text first, so the provider's prefix cache holds as much of it as can be.
  const input: unknown[] = [docs, ...system].map((text) => ({ type: 'message', role: 'developer', content: text }));
  for (const item of rest) {
    switch (item.kind) {
      case 'system':
        // Developer messages may sit anywhere in the input, so order is kept.
        input.push({ type: 'message', role: 'developer', content: item.text });
        break;
      case 'user':
        input.push({ type: 'message', role: 'user', content: item.text });
        break;
      case 'assistant':
        // An output message of this provider goes back as it came (ResponseOutputMessage), id and all.
        if (item.ref !== undefined && ITEM_ID.test(item.ref)) {
          input.push({ type: 'message', id: item.ref, role: 'assistant', status: 'completed', content: [{ type: 'output_text', text: item.text, annotations: [] }] });
        } else input.push({ type: 'message', role: 'assistant', content: item.text });
        break;
      case 'tool_call':
        if (item.ref !== undefined && ITEM_ID.test(item.ref)) input.push({ type: 'function_call', id: item.ref, call_id: item.id, name: item.name, arguments: item.args });
        else input.push({ type: 'function_call', call_id: item.id, name: item.name, arguments: item.args });
        break;
      case 'tool_result':
        input.push({ type: 'function_call_output', call_id: item.id, output: item.output });
        break;
      case 'opaque':
        if (item.provider !== 'openai' || !isPlainObject(item.raw)) break;
        if (item.raw['type'] === 'mcp_call' && !declared.has(String(item.raw['server_label']))) break;
        input.push(item.raw);
        break;
    }
  }
  return input;
}

export function buildResponses(req: WireRound, base: string, key: string | null): BuildResult {
  const root = cleanBase(base);
  if (root === null) return configError(`bad openai base URL ${base}`);
  const url = `${root}/v1/responses`;
  const k = usableKey(url, key, 'openai', false);
  if (!('ok' in k)) return k;
  const servers = req.mode === 'loop' && req.servers?.length ? req.servers : [];
  const body: Record<string, unknown> = { model: req.model, input: inputItems(req.transcript, req.schemaDoc, new Set(servers.map((t) => t.label))), store: false };
  // Rounds share their long prefix (tools, the field docs, the stable prompt): one cache key routes them to the same cache.
  body['prompt_cache_key'] = PROMPT_CACHE_KEY;
  // The round's deadline is sized to this (catalog.ts roundReadMs).
  body['max_output_tokens'] = RESPONSES_OUTPUT_TOKENS;
  if (req.stream) body['stream'] = true;
  if (REASONING_MODEL.test(req.model)) body['include'] = ['reasoning.encrypted_content'];
  if (req.mode === 'single') {
    body['text'] = { format: { type: 'json_schema', name: req.schemaName, description: TURN_SCHEMA_DESCRIPTION, schema: req.schema, strict: true } };
  } else {
    const turnTool = { type: 'function', name: req.schemaName, description: TURN_TOOL_DESCRIPTION, parameters: req.schema, strict: true };
    const mcp = responsesMcpTools(servers);
    if (req.forceFinal) {
      // The servers stay offered so the mcp_call items replayed in the input keep their tool; the choice pins orch_turn.
      body['tools'] = [turnTool, ...mcp];
      body['tool_choice'] = { type: 'function', name: req.schemaName };
    } else {
      // Registry schemas are not written to strict mode's rules, so they are offered non-strict.
      body['tools'] = [turnTool, ...req.tools.map((t) => ({ type: 'function', name: t.name, description: t.description, parameters: t.parameters, strict: false })), ...mcp];
      body['tool_choice'] = 'required';
    }
  }
  const headers = jsonHeaders(req.stream);
  if (k.key !== null) headers['Authorization'] = `Bearer ${k.key}`;
  return { url, headers, body: jsonBody(body), dialect: 'responses' };
}

export function parseResponses(status: number, bytes: Uint8Array, req: RoundRequest): RoundResult {
  return parseRound('openai', status, bytes, (obj) => readOutput(obj, req));
}

export function readOutput(obj: Record<string, unknown>, req: RoundRequest): RoundResult {
  if (obj['status'] === 'failed') {
    const err = isPlainObject(obj['error']) ? obj['error'] : {};
    const text = [err['code'], err['message']].filter((v) => typeof v === 'string').join(': ');
    if (isOverflow('openai', text)) return fail('context-overflow', text);
    return fail(err['code'] === 'rate_limit_exceeded' ? 'rate-limit' : 'http', `response failed: ${text || 'no reason given'}`);
  }
  const output = obj['output'];
  if (!Array.isArray(output)) return malformed('openai', 'no output list');
  const items: TranscriptItem[] = [];
  const calls: Array<{ id: string; name: string; args: string }> = [];
  const texts: string[] = [];
  let turn: string | null = null;
  let refusal: string | null = null;
  for (const o of output) {
    if (!isPlainObject(o)) continue;
    // Reasoning and the remote tool servers' calls are replayed as they came.
    const ref = typeof o['id'] === 'string' && ITEM_ID.test(o['id']) ? { ref: o['id'] } : {};
    if (o['type'] === 'reasoning') {
      // Without its encrypted content a reasoning item cannot be replayed statelessly.
      if (typeof o['encrypted_content'] === 'string' && o['encrypted_content'] !== '') items.push({ kind: 'opaque', provider: 'openai', raw: o });
    } else if (o['type'] === 'mcp_call') items.push({ kind: 'opaque', provider: 'openai', raw: o });
    else if (o['type'] === 'function_call' && typeof o['name'] === 'string') {
      const args = argsText(o['arguments']);
      if (o['name'] === req.schemaName) turn ??= args;
      else {
        const id = typeof o['call_id'] === 'string' && o['call_id'] !== '' ? o['call_id'] : `call${req.transcript.length}x${calls.length}`;
        calls.push({ id, name: o['name'], args });
        items.push({ kind: 'tool_call', id, name: o['name'], args, ...ref });
      }
    } else if (o['type'] === 'message' && Array.isArray(o['content'])) {
      const text = contentText(o['content']);
      if (text !== '') {
        texts.push(text);
        items.push({ kind: 'assistant', text, ...ref });
      }
      for (const c of o['content']) if (isPlainObject(c) && c['type'] === 'refusal' && typeof c['refusal'] === 'string') refusal = c['refusal'];
    }
  }
  // orch_turn ends the turn even beside other calls: the turn object carries its own effects.
  if (turn !== null) return turnResult(turn);
  if (calls.length) return toolsResult(calls, items);
  if (texts.length) return turnResult(turnText(texts.join('')));
  if (refusal !== null) return fail('refused', `openai: the model declined to answer: ${refusal}`);
  const why = isPlainObject(obj['incomplete_details']) ? obj['incomplete_details']['reason'] : null;
  return malformed('openai', typeof why === 'string' ? `incomplete answer (${why})` : 'no message and no tool call');
}

export function openaiBackend(base: string = CATALOG.openai.base): Backend {
  return {
    id: 'openai',
    defaultModel: CATALOG.openai.defaultModel,
    loops: true,
    build: (req, key) => buildResponses(req, base, key),
    parse: parseResponses,
  };
}

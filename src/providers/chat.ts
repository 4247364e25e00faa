// The chat-completions dialect (OpenAI-compatible messages, function tools
// and choices[0].message), shared by provider C's tool loop, the Z.ai-style
// backend, the model router, the custom endpoint's chat style and the
// offline demo. What differs per backend is a ChatFlavor:
//   loopChoice   tool_choice of a loop round: "required" (OpenAI style),
//                "any" (Mistral's word for it), or "auto" (Z.ai accepts no other);
//   pin          how the forced final round pins orch_turn: a named function
//                choice, or (Z.ai) only orch_turn offered with "auto";
//   single       response_format of a single-shot round: json_schema strict,
//                or json_object;
//   ids          a pattern every tool-call id must match (Mistral's nine
//                alphanumerics), ids mapped for the request (tool-ids.ts);
//   lateSystem   "user" where the API refuses a system message after the
//                conversation started (Mistral), else "system".
// The turn's field docs and the leading system items (the prompt's stable
// part, then its changing part) become one system message.

import { isPlainObject } from '../util/json.ts';
import { NO_MESSAGE } from './anthropic.ts';
import {
  argsText,
  contentText,
  jsonHeaders,
  parseRound,
  splitSystem,
  toolsResult,
  turnResult,
  turnText,
  TURN_SCHEMA_DESCRIPTION,
  TURN_TOOL_DESCRIPTION,
  type BuildResult,
  type WireRound,
} from './common.ts';
import { jsonBody } from '../util/json.ts';
import { fail, malformed } from './errors.ts';
import type { ProviderId } from './settings.ts';
import { mapIds } from './tool-ids.ts';
import type { RoundRequest, RoundResult, TranscriptItem } from '../contracts/index.ts';

export interface ChatFlavor {
  provider: ProviderId;
  loopChoice: 'required' | 'any' | 'auto';
  pin: 'function' | 'offer-only';
  single: 'json_schema' | 'json_object';
  ids?: RegExp;
  lateSystem: 'system' | 'user';
  /** Send strict: true on orch_turn's function (APIs that know the flag). */
  strictTool: boolean;
  /** Name the tool in a tool message (Mistral's ToolMessage has name; OpenAI's takes only tool_call_id). */
  toolMessageName: boolean;
  /**
   * max_tokens of a round, where the API takes that field on every model
   * (Mistral). OpenAI-compatible servers are left to their default: reasoning
   * models there refuse max_tokens (max_completion_tokens instead).
   */
  maxTokens?: number;
  /**
   * A streamed round asks for the usage in its last chunk (stream_options
   * include_usage: OpenAI's way; the API answers without usage otherwise).
   * Mistral's and Z.ai's streams carry it by themselves, and Mistral's API
   * takes no stream_options.
   */
  streamUsage?: boolean;
}

type Msg = Record<string, unknown>;

function chatMessages(req: RoundRequest, flavor: ChatFlavor, docs: string): Msg[] {
  const { system, rest } = splitSystem(req.transcript);
  // The field docs first: the unchanging text leads, for the providers' prefix caches.
  system.unshift(docs);
  const ids = flavor.ids
    ? mapIds(
        rest.flatMap((i) => (i.kind === 'tool_call' || i.kind === 'tool_result' ? [i.id] : [])),
        flavor.ids,
      )
    : null;
  const id = (raw: string): string => (ids ? ids.get(raw)! : raw);
  const out: Msg[] = [];
  if (system.length) out.push({ role: 'system', content: system.join('\n\n') });
  for (const item of rest) {
    switch (item.kind) {
      case 'system':
        out.push({ role: flavor.lateSystem, content: item.text });
        break;
      case 'user':
      case 'assistant':
        out.push({ role: item.kind, content: item.text });
        break;
      case 'tool_call': {
        const call = { id: id(item.id), type: 'function', function: { name: item.name, arguments: item.args } };
        const last = out[out.length - 1];
        // Calls of one round, and the text said with them, are one assistant message.
        if (last && last['role'] === 'assistant') {
          const list = Array.isArray(last['tool_calls']) ? (last['tool_calls'] as unknown[]) : [];
          list.push(call);
          last['tool_calls'] = list;
        } else out.push({ role: 'assistant', content: null, tool_calls: [call] });
        break;
      }
      case 'tool_result':
        out.push(
          flavor.toolMessageName
            ? { role: 'tool', tool_call_id: id(item.id), name: item.name, content: item.output }
            : { role: 'tool', tool_call_id: id(item.id), content: item.output },
        );
        break;
      case 'opaque':
        break; // chat completions have nothing to replay
    }
  }
  if (!out.some((m) => m['role'] !== 'system')) out.push({ role: 'user', content: NO_MESSAGE });
  return out;
}

function fn(name: string, description: string, parameters: unknown, strict: boolean | null): Msg {
  const f: Msg = { name, description, parameters };
  if (strict !== null) f['strict'] = strict;
  return { type: 'function', function: f };
}

/** The body of one chat-completions round. schemaless: a single-shot round with no response_format. */
export function chatBody(req: WireRound, flavor: ChatFlavor, model: string, schemaless = false): Record<string, unknown> {
  const body = roundBody(req, flavor, model, schemaless);
  if (req.stream) {
    body['stream'] = true;
    if (flavor.streamUsage) body['stream_options'] = { include_usage: true };
  }
  return body;
}

function roundBody(req: RoundRequest, flavor: ChatFlavor, model: string, schemaless: boolean): Record<string, unknown> {
  if (req.mode === 'single') {
    const body: Record<string, unknown> = { model, messages: chatMessages(req, flavor, req.schemaDoc) };
    if (!schemaless) {
      body['response_format'] =
        flavor.single === 'json_schema'
          ? { type: 'json_schema', json_schema: { name: req.schemaName, description: TURN_SCHEMA_DESCRIPTION, schema: req.schema, strict: true } }
          : { type: 'json_object' };
    }
    return body;
  }
  const turnTool = fn(req.schemaName, TURN_TOOL_DESCRIPTION, req.schema, flavor.strictTool ? true : null);
  const body: Record<string, unknown> = { model, messages: chatMessages(req, flavor, req.schemaDoc) };
  if (flavor.maxTokens !== undefined) body['max_tokens'] = flavor.maxTokens;
  if (req.forceFinal) {
    body['tools'] = [turnTool];
    body['tool_choice'] = flavor.pin === 'function' ? { type: 'function', function: { name: req.schemaName } } : 'auto';
  } else {
    body['tools'] = [turnTool, ...req.tools.map((t) => fn(t.name, t.description, t.parameters, flavor.strictTool ? false : null))];
    body['tool_choice'] = flavor.loopChoice;
  }
  return body;
}

export function buildChat(req: WireRound, flavor: ChatFlavor, url: string, key: string | null, model = req.model, schemaless = false): BuildResult {
  const headers = jsonHeaders(req.stream);
  if (key !== null) headers['Authorization'] = `Bearer ${key}`;
  return { url, headers, body: jsonBody(chatBody(req, flavor, model, schemaless)), dialect: 'chat' };
}

export function parseChat(provider: ProviderId, status: number, bytes: Uint8Array, req: RoundRequest): RoundResult {
  return parseRound(provider, status, bytes, (obj) => readChoice(provider, obj, req));
}

/** choices[0] by its finish_reason (OpenAI's stop, length, tool_calls, content_filter, function_call; Mistral's also model_length, error). */
export function readChoice(provider: ProviderId, obj: Record<string, unknown>, req: RoundRequest): RoundResult {
  const choices = obj['choices'];
  const choice = Array.isArray(choices) ? choices[0] : undefined;
  const message = isPlainObject(choice) ? choice['message'] : undefined;
  if (!isPlainObject(message)) return malformed(provider, 'no choices[0].message');
  const text = contentText(message['content']);
  if (typeof message['refusal'] === 'string' && message['refusal'] !== '' && text === '') return fail('refused', `${provider}: the model declined to answer: ${message['refusal']}`);
  const items: TranscriptItem[] = [];
  const calls: Array<{ id: string; name: string; args: string }> = [];
  let turn: string | null = null;
  if (text !== '') items.push({ kind: 'assistant', text });
  const toolCalls = Array.isArray(message['tool_calls']) ? message['tool_calls'] : [];
  for (const tc of toolCalls as unknown[]) {
    if (!isPlainObject(tc)) continue;
    const f = tc['function'];
    if (!isPlainObject(f) || typeof f['name'] !== 'string') continue;
    const args = argsText(f['arguments']);
    if (f['name'] === req.schemaName) {
      turn ??= args;
      continue;
    }
    const id = typeof tc['id'] === 'string' && tc['id'] !== '' ? tc['id'] : `call${req.transcript.length}x${calls.length}`;
    calls.push({ id, name: f['name'], args });
    items.push({ kind: 'tool_call', id, name: f['name'], args });
  }
  if (turn !== null) return turnResult(turn);
  if (calls.length) return toolsResult(calls, items);
  if (text.trim() !== '') return turnResult(turnText(text));
  const finish = isPlainObject(choice) ? choice['finish_reason'] : null;
  if (finish === 'content_filter') return fail('refused', `${provider}: the answer was withheld by the provider's content filter`);
  return malformed(provider, finish === 'length' || finish === 'model_length' ? 'the answer was cut at the length limit' : 'no content and no tool call');
}

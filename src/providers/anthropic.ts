// Provider B: the Messages API (POST {base}/v1/messages, headers x-api-key
// and anthropic-version), also spoken by a custom endpoint in the messages
// conversation style.
//   single-shot  forced tool use: only orch_turn, tool_choice {type: tool};
//   loop round   orch_turn offered with the registry's tools, tool_choice
//                auto: the schema is advisory, a plain-text answer is read
//                as the turn and the device parser judges it;
//   forced final only orch_turn, tool_choice pinned to it.
// The turn's field docs and the leading system items become the system
// parameter (the API has no system role in messages), the stable part marked
// for the prompt cache (systemParam); later system items travel as user text.
// Thinking blocks, when returned, are kept as opaque items and replayed in
// the assistant message ahead of its tool_use blocks, as the API requires.
// Remote tool servers (the owner's approved connectors, tool-servers.ts) go
// in loop rounds of provider B only, forced final included: the
// mcp_servers parameter, one mcp_toolset each in tools (after orch_turn and
// the registry's tools), and the MCP connector's beta header. tool_choice is
// unchanged (auto in a loop round; pinned to orch_turn in the forced final,
// where the servers stay declared so the mcp_tool_use and mcp_tool_result
// blocks replayed from earlier rounds still name a known server). Those
// blocks are kept as opaque items, replayed in the assistant message. The
// single-shot round (only orch_turn, pinned) carries none: nothing else
// could be called in it. A custom endpoint in messages style never gets any.

import { isPlainObject } from '../util/json.ts';
import { CATALOG, ROUND_OUTPUT_TOKENS } from './catalog.ts';
import {
  argsObject,
  argsText,
  configError,
  jsonHeaders,
  parseRound,
  splitSystem,
  toolsResult,
  turnResult,
  turnText,
  TURN_TOOL_DESCRIPTION,
  usableKey,
  type BuildResult,
  type WireRound,
} from './common.ts';
import { cleanBase } from '../net/url.ts';
import { jsonBody } from '../util/json.ts';
import { fail, malformed } from './errors.ts';
import type { ProviderId } from './settings.ts';
import { ANTHROPIC_ID, mapIds } from './tool-ids.ts';
import { MCP_CLIENT_BETA, messagesMcp } from './tool-servers.ts';
import type { Backend, RoundRequest, RoundResult, TranscriptItem } from '../contracts/index.ts';

export const ANTHROPIC_VERSION = '2023-06-01';
/** Output budget of one round: room for a long reply inside the turn object (the round's deadline is sized to it). */
export const MAX_TOKENS = ROUND_OUTPUT_TOKENS;
/** Sent when a round has no message of its own (an automatic turn): the API needs one. */
export const NO_MESSAGE = '(automatic turn: no new message)';

type Block = Record<string, unknown>;

/** Blocks only this dialect reads, replayed as they came: thinking, and the remote tool servers' calls and results. */
const OPAQUE_BLOCKS = ['thinking', 'redacted_thinking', 'mcp_tool_use', 'mcp_tool_result'];
interface Message {
  role: 'user' | 'assistant';
  content: Block[];
}

export interface MessagesOptions {
  provider: ProviderId;
  /** The endpoint, e.g. https://api.anthropic.com/v1/messages. */
  url: string;
  key: string | null;
  /** The custom endpoint runs keyless over plain http; a hosted provider refuses. */
  keyOptional: boolean;
  /** No tools at all: the turn is asked for as JSON text (the custom endpoint's retry). */
  schemaless?: boolean;
}

/**
 * The conversation as messages. declared names the tool servers this request
 * declares: a remote tool server's block from an earlier round is replayed
 * only while its server is still declared (the API refuses a block naming an
 * unknown server; the owner may have removed the approval mid-turn).
 */
function messages(req: RoundRequest, provider: ProviderId, declared: ReadonlySet<string>): { system: string[]; messages: Message[] } {
  const { system, rest } = splitSystem(req.transcript);
  const mcpUses = new Set<string>();
  const ids = mapIds(
    rest.flatMap((i) => (i.kind === 'tool_call' || i.kind === 'tool_result' ? [i.id] : [])),
    ANTHROPIC_ID,
  );
  const out: Message[] = [];
  const push = (role: Message['role'], block: Block): void => {
    const last = out[out.length - 1];
    if (last && last.role === role) last.content.push(block);
    else out.push({ role, content: [block] });
  };
  for (const item of rest) {
    switch (item.kind) {
      case 'system':
      case 'user':
        // The API refuses empty text blocks.
        if (item.text !== '') push('user', { type: 'text', text: item.text });
        break;
      case 'assistant':
        if (item.text !== '') push('assistant', { type: 'text', text: item.text });
        break;
      case 'tool_call':
        push('assistant', { type: 'tool_use', id: ids.get(item.id)!, name: item.name, input: argsObject(item.args) });
        break;
      case 'tool_result':
        push('user', { type: 'tool_result', tool_use_id: ids.get(item.id)!, content: item.output });
        break;
      case 'opaque': {
        if (item.provider !== provider || !isPlainObject(item.raw)) break;
        const raw = item.raw;
        if (raw['type'] === 'mcp_tool_use') {
          if (!declared.has(String(raw['server_name']))) break;
          mcpUses.add(String(raw['id']));
        } else if (raw['type'] === 'mcp_tool_result' && !mcpUses.has(String(raw['tool_use_id']))) break;
        push('assistant', raw);
        break;
      }
    }
  }
  if (!out.some((m) => m.role === 'user')) out.unshift({ role: 'user', content: [{ type: 'text', text: NO_MESSAGE }] });
  return { system, messages: out };
}

/**
 * The system parameter: the turn's field docs, the prompt's stable part, its
 * changing part. For provider B the first two are one text block marked
 * cache_control ephemeral: the cached prefix is then the tools, the docs and
 * the stable prompt (the API caches tools, system and messages in that order,
 * up to the marked block), read from the cache on the next turn within its
 * lifetime. A custom server in messages style gets one plain string (not
 * every one takes blocks or cache_control).
 */
function systemParam(docs: string, system: string[], cache: boolean): string | Block[] {
  const [stable, ...rest] = system;
  const head = stable === undefined ? docs : `${docs}\n\n${stable}`;
  const tail = rest.join('\n\n');
  if (!cache) return tail ? `${head}\n\n${tail}` : head;
  const blocks: Block[] = [{ type: 'text', text: head, cache_control: { type: 'ephemeral' } }];
  if (tail) blocks.push({ type: 'text', text: tail });
  return blocks;
}

export function buildMessages(req: WireRound, o: MessagesOptions): BuildResult {
  const k = usableKey(o.url, o.key, o.provider, o.keyOptional);
  if (!('ok' in k)) return k;
  const mcp = !o.schemaless && o.provider === 'anthropic' && req.mode === 'loop' && req.servers?.length ? messagesMcp(req.servers) : null;
  const { system, messages: msgs } = messages(req, o.provider, new Set(mcp?.servers.map((m) => String(m['name'])) ?? []));
  const body: Record<string, unknown> = { model: req.model, max_tokens: MAX_TOKENS };
  if (req.stream) body['stream'] = true;
  body['system'] = systemParam(req.schemaDoc, system, o.provider === 'anthropic');
  body['messages'] = msgs;
  if (!o.schemaless) {
    const turnTool = { name: req.schemaName, description: TURN_TOOL_DESCRIPTION, input_schema: req.schema };
    const pinned = { type: 'tool', name: req.schemaName };
    const toolsets = mcp?.toolsets ?? [];
    if (req.mode === 'single' || req.forceFinal) {
      body['tools'] = [turnTool, ...toolsets];
      body['tool_choice'] = pinned;
    } else {
      body['tools'] = [turnTool, ...req.tools.map((t) => ({ name: t.name, description: t.description, input_schema: t.parameters })), ...toolsets];
      body['tool_choice'] = { type: 'auto' };
    }
    if (mcp?.servers.length) body['mcp_servers'] = mcp.servers;
  }
  const headers: Record<string, string> = { ...jsonHeaders(req.stream), 'anthropic-version': ANTHROPIC_VERSION };
  if (mcp?.servers.length) headers['anthropic-beta'] = MCP_CLIENT_BETA;
  if (k.key !== null) headers['x-api-key'] = k.key;
  return { url: o.url, headers, body: jsonBody(body), dialect: 'messages' };
}

export function parseMessages(provider: ProviderId, status: number, bytes: Uint8Array, req: RoundRequest): RoundResult {
  return parseRound(provider, status, bytes, (obj) => readContent(provider, obj, req));
}

/**
 * The answer's content by its stop_reason (the SDK's StopReason: end_turn,
 * max_tokens, stop_sequence, tool_use, pause_turn, refusal,
 * model_context_window_exceeded).
 */
export function readContent(provider: ProviderId, obj: Record<string, unknown>, req: RoundRequest): RoundResult {
  const content = obj['content'];
  const stop = obj['stop_reason'];
  if (stop === 'refusal') return fail('refused', `${provider}: the model declined to answer (refusal)`);
  if (stop === 'model_context_window_exceeded') return fail('context-overflow', `${provider}: the answer reached the model's context window`);
  if (stop === 'pause_turn' && Array.isArray(content)) {
    // The provider paused a long turn of its own tools: the content goes back
    // as the assistant's message, and the next round lets it continue.
    const items: TranscriptItem[] = [];
    for (const b of content) if (isPlainObject(b)) items.push({ kind: 'opaque', provider, raw: b });
    return { kind: 'continue', items };
  }
  if (!Array.isArray(content)) return malformed(provider, 'no content list');
  const items: TranscriptItem[] = [];
  const calls: Array<{ id: string; name: string; args: string }> = [];
  const texts: string[] = [];
  let turn: string | null = null;
  for (const b of content) {
    if (!isPlainObject(b)) continue;
    if (b['type'] === 'text' && typeof b['text'] === 'string') {
      texts.push(b['text']);
      if (b['text'] !== '') items.push({ kind: 'assistant', text: b['text'] });
    } else if (b['type'] === 'tool_use' && typeof b['name'] === 'string') {
      const args = argsText(b['input']);
      if (b['name'] === req.schemaName) turn ??= args;
      else {
        const id = typeof b['id'] === 'string' && b['id'] !== '' ? b['id'] : `call${req.transcript.length}x${calls.length}`;
        calls.push({ id, name: b['name'], args });
        items.push({ kind: 'tool_call', id, name: b['name'], args });
      }
    } else if (OPAQUE_BLOCKS.includes(String(b['type']))) items.push({ kind: 'opaque', provider, raw: b });
  }
  if (turn !== null) return turnResult(turn);
  if (calls.length) return toolsResult(calls, items);
  const text = turnText(texts.join(''));
  if (text !== '') return turnResult(text);
  return malformed(provider, obj['stop_reason'] === 'max_tokens' ? 'the answer was cut at max_tokens' : 'no text and no tool call');
}

export function anthropicBackend(base: string = CATALOG.anthropic.base): Backend {
  return {
    id: 'anthropic',
    defaultModel: CATALOG.anthropic.defaultModel,
    loops: true,
    build: (req, key) => {
      const root = cleanBase(base);
      if (root === null) return configError(`bad anthropic base URL ${base}`);
      return buildMessages(req, { provider: 'anthropic', url: `${root}/v1/messages`, key, keyOptional: false });
    },
    parse: (status, body, req) => parseMessages('anthropic', status, body, req),
  };
}

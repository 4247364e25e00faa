#!/usr/bin/env node
// The provider emulator: one local HTTP(S) server that speaks every provider
// dialect and backend the firmware's wire does, under the host names it
// impersonates (certificates from the local test CA, which the firmware's
// test builds trust; the board's --route sends those names here):
//
//   POST /v1/responses                        provider A (Responses API)
//   POST /v1/messages                         provider B, and a custom endpoint in messages style
//   POST /v1/conversations                    provider C single-shot (conversations API)
//   POST /v1/chat/completions                 provider C loop rounds, custom chat style, the demo
//   POST /api/paas/v4/chat/completions        Z.ai-style
//   POST /router/<upstream>/v1/chat/completions  the model router
//   GET  /v1/models, /api/paas/v4/models, /router/<upstream>/v1/models   key checks and the
//                                             model catalog (each provider's list shape: tools/model-lists.mjs)
//   POST /v1/moderations                      content moderation (OpenAI's and Mistral's shapes)
//   POST /v1/audio/speech                     text-to-speech (OpenAI's): a short synthesized voice-like
//                                             sound as WAV (default), raw PCM, or Ogg Opus (silence frames)
//   POST /v1/audio/transcriptions             speech to text (OpenAI's, Mistral's, a custom endpoint's):
//                                             multipart/form-data judged by checkTranscription (provider-rules.mjs);
//                                             the text is the behaviour's transcript (default DEMO_TRANSCRIPT)
//   POST /v1/images/generations               image generation (tools/image-fake.mjs)
//   POST /v1/embeddings                       embeddings in OpenAI's, Mistral's and a custom
//                                             server's shapes, judged by checkEmbeddings
//                                             (provider-rules.mjs); vectors hashed from the
//                                             words (tools/embedding-fake.mjs). Only a behaviour
//                                             whose match.path names the path answers one
//   GET  api.search.brave.com/res/v1/web/search  web search (tools/search-fake.mjs)
//   sub-agent backends (provider B sessions, provider A background responses,
//   synchronous C and custom)                  see tools/agent-emulator.mjs
//
// It is at least as strict as the services on everything we know of
// (tools/provider-rules.mjs, each rule citing the SDK type or documented
// error it comes from): the auth header each host takes, anthropic-version
// and the beta headers, reasoning items paired with their following item and
// carrying encrypted content under store false, strict-schema rules, Mistral's
// nine-character tool-call ids and last-role rule; a refused request gets the
// service's status and words and is recorded with `refused`. Its answers
// report usage with reasoning and cached tokens, and a behaviour can ask for
// every answer kind the SDKs define: pause (B pause_turn), refusal, stop (a B
// stop_reason, or a chat finish_reason), chunks (Mistral content chunks).
//
// Tests drive it with a script: a queue of behaviours, each consumed by the
// first request it matches (respond with a turn, with tool calls, with an
// error status, with the dialect's context-overflow wording, with broken
// JSON, never, late, or slowly; a behaviour without match.method answers a
// POST only; `mcp` adds remote tool server calls the provider made
// itself), and read back every request it got (method, host, path, headers,
// parsed JSON body: the tool servers a round carried are there, mcp tools
// entries for A, mcp_servers for B; only function tools count as the
// round's tools). With nothing queued it answers as
// the offline demo: a friendly scripted assistant that calls device_status
// when asked about the device, so `npm start` works without any key.
//
// CLI: node tools/provider-emulator.mjs [--port N] [--http] [--name HOST]...

import { execFileSync } from 'node:child_process';
import { randomBytes } from 'node:crypto';
import { mkdtempSync, readFileSync, rmSync } from 'node:fs';
import { createServer as createHttpServer } from 'node:http';
import { createServer as createHttpsServer } from 'node:https';
import { tmpdir } from 'node:os';
import { join, resolve } from 'node:path';
import { fileURLToPath } from 'node:url';
import { parseArgs } from 'node:util';
import { issueTestCert } from './test-ca.mjs';
import { agentKind, createAgentJobs } from './agent-emulator.mjs';
import { modelListBody } from './model-lists.mjs';
import { BRAVE_HOST, createSearchApi } from './search-fake.mjs';
import { createImageApi, IMAGE_PATH } from './image-fake.mjs';
import { checkEmbeddings, checkHeaders, checkOther, checkRound, checkTranscription, MESSAGE_STOP_REASONS, REASONING_MODEL } from './provider-rules.mjs';
import { embeddingAnswer, embeddingModel } from './embedding-fake.mjs';
import { sendStream, streamEvents, tokenCount } from './provider-stream.mjs';

export const DEMO_HOST = 'demo.emulator.test';
export const ROUTER_HOST = 'router.desk-assistant.invalid';
export const ZAI_HOSTS = ['api.z.ai', 'open.bigmodel.cn'];
/** Every name the emulator answers for by default. */
export const EMULATOR_NAMES = ['api.openai.com', 'api.anthropic.com', 'api.mistral.ai', ...ZAI_HOSTS, ROUTER_HOST, DEMO_HOST, 'custom.emulator.test', BRAVE_HOST];

const MAX_BODY = 8 * 1024 * 1024;
const STATUS_WORDS = /\b(status|battery|heap|memory|how are you|health|uptime|device)\b/i;

/** Every wire field of the turn object, the optional ones null. */
export function turnObject(reply, extra = {}) {
  return { reply, memory: '', ask: '', device: null, mem_write: null, mem_query: null, session_ops: null, scratchpad: null, ...extra };
}

function id(prefix, n = 12) {
  const alphabet = 'ABCDEFGHIJKLMNOPQRSTUVWXYZabcdefghijklmnopqrstuvwxyz0123456789';
  const bytes = randomBytes(n);
  return prefix + Array.from(bytes, (b) => alphabet[b % 62]).join('');
}

function dialectOf(method, path) {
  if (method === 'GET' && (/^\/v1\/models\/?$/.test(path) || path === '/api/paas/v4/models' || /^\/router\/[^/]+\/v1\/models$/.test(path))) return 'models';
  if (method !== 'POST') return null;
  if (path === '/v1/responses') return 'responses';
  if (path === '/v1/moderations') return 'moderations';
  if (path === '/v1/embeddings') return 'embeddings';
  if (path === '/v1/audio/speech') return 'speech';
  if (path === '/v1/audio/transcriptions') return 'transcription';
  if (path === '/v1/messages') return 'messages';
  if (path === '/v1/conversations') return 'conversations';
  if (path === '/v1/chat/completions' || path === '/api/paas/v4/chat/completions' || /^\/router\/[^/]+\/v1\/chat\/completions$/.test(path)) return 'chat';
  return null;
}

/** What the emulator hears when nothing is scripted. */
export const DEMO_TRANSCRIPT = 'How is the device doing?';

/**
 * A transcription's answer: OpenAI's Transcription (text, usage of type
 * duration) or Mistral's TranscriptionResponse (model, text, language,
 * segments, usage). seconds: the audio's length when known.
 */
export function transcriptionBody(family, model, text, seconds) {
  if (family === 'mistral') return { model, text, language: null, segments: [], usage: { prompt_audio_seconds: Math.ceil(seconds), prompt_tokens: 4, completion_tokens: text.split(' ').length, total_tokens: 4 + text.split(' ').length } };
  return { text, usage: { type: 'duration', seconds: Math.ceil(seconds) } };
}

/** The seconds of audio in a WAV's bytes (16-bit PCM), or 1 for other formats. */
function audioSeconds(file) {
  if (!file || !file.name.toLowerCase().endsWith('.wav')) return 1;
  const b = Buffer.from(file.bytes);
  return (b.length - 44) / (b.readUInt32LE(28) || 1);
}

/** A moderation verdict: categories flagged (none: clean), in OpenAI's or Mistral's answer shape. */
export function moderationBody(family, { categories = [] } = {}) {
  const all = ['harassment', 'hate', 'self-harm', 'sexual', 'violence'];
  const flags = Object.fromEntries([...new Set([...all, ...categories])].map((c) => [c, categories.includes(c)]));
  const scores = Object.fromEntries(Object.keys(flags).map((c) => [c, flags[c] ? 0.97 : 0.01]));
  if (family === 'mistral') return { id: id('mod-'), model: 'mistral-moderation-latest', results: [{ categories: flags, category_scores: scores }] };
  return { id: id('modr-'), model: 'omni-moderation-latest', results: [{ flagged: categories.length > 0, categories: flags, category_scores: scores }] };
}

/** Whose embeddings a host serves: OpenAI's, Mistral's, or (any other name) a custom OpenAI-compatible server's. */
function embeddingFamily(host) {
  return host === 'api.openai.com' ? 'openai' : host === 'api.mistral.ai' ? 'mistral' : 'custom';
}

/** Numbers per vector of an accepted embeddings request: the dimensions asked for, or the model's width. */
function embeddingWidth(family, body) {
  const asked = family === 'mistral' ? body.output_dimension : body.dimensions;
  return Number.isInteger(asked) ? asked : embeddingModel(family, body.model).width;
}

/** A refused embeddings request's body: Mistral's 422 carries pydantic's detail; the rest is each service's error shape. */
function embeddingErrorBody(family, r) {
  if (family === 'mistral') {
    if (r.detail) return { object: 'Error', detail: r.detail, message: r.detail, type: 'invalid_request_error', code: 3001 };
    return { object: 'error', message: r.message, type: r.type ?? 'invalid_request_error', param: null, code: r.code ?? null };
  }
  return { error: { message: r.message, type: r.type ?? (r.status >= 500 ? 'server_error' : 'invalid_request_error'), param: null, code: r.code ?? null } };
}

/** Which provider family's wording and id style a host gets. */
function familyOf(host, dialect) {
  if (host === 'api.mistral.ai') return 'mistral';
  if (ZAI_HOSTS.includes(host)) return 'zai';
  if (dialect === 'messages') return 'anthropic';
  return 'openai';
}

function presentedKey(headers) {
  const auth = headers['authorization'];
  if (typeof auth === 'string' && auth.startsWith('Bearer ')) return auth.slice(7);
  const x = headers['x-api-key'];
  return typeof x === 'string' ? x : null;
}

function matches(rule, value) {
  if (rule === undefined) return true;
  return rule instanceof RegExp ? rule.test(value) : rule === value;
}

// ---------------------------------------------------------------------------
// What a request says, whatever its dialect (for the demo and for choosing
// between a structured answer and a tool call).

function textOf(content) {
  if (typeof content === 'string') return content;
  if (Array.isArray(content)) return content.map((c) => (typeof c === 'string' ? c : typeof c?.text === 'string' ? c.text : typeof c?.content === 'string' ? c.content : '')).join('');
  return '';
}

/** { mode: 'single' | 'loop', schemaName, tools: string[], lastUser, lastTool: {name, output} | null } */
export function summarize(dialect, body) {
  const b = body && typeof body === 'object' ? body : {};
  const out = { mode: 'single', schemaName: 'orch_turn', tools: [], lastUser: '', lastTool: null };
  const turns = []; // {role: 'user' | 'assistant' | 'tool', text, name}
  // Remote tool servers (mcp entries, mcp_toolsets) are the provider's own business: only function tools count here.
  const functions = Array.isArray(b.tools) ? b.tools.filter((t) => t && t.type !== 'mcp' && t.type !== 'mcp_toolset') : [];
  if (dialect === 'responses') {
    if (functions.length) {
      out.mode = 'loop';
      out.tools = functions.map((t) => t.name);
      out.schemaName = functions[0].name;
    } else if (b.text?.format?.name) out.schemaName = b.text.format.name;
    const calls = new Map();
    for (const i of Array.isArray(b.input) ? b.input : []) {
      if (i.type === 'function_call') calls.set(i.call_id, i.name);
      else if (i.type === 'function_call_output') turns.push({ role: 'tool', text: String(i.output), name: calls.get(i.call_id) ?? '' });
      else if (i.role === 'user' || i.role === 'assistant') turns.push({ role: i.role, text: textOf(i.content) });
    }
  } else if (dialect === 'messages') {
    if (functions.length) {
      out.schemaName = functions[0].name;
      const pinned = b.tool_choice?.type === 'tool';
      out.mode = pinned && functions.length === 1 ? 'single' : 'loop';
      out.tools = functions.map((t) => t.name);
      if (pinned && functions.length === 1) out.pinned = true;
    }
    const calls = new Map();
    for (const m of Array.isArray(b.messages) ? b.messages : []) {
      const blocks = typeof m.content === 'string' ? [{ type: 'text', text: m.content }] : Array.isArray(m.content) ? m.content : [];
      for (const c of blocks) {
        if (c.type === 'tool_use') calls.set(c.id, c.name);
        else if (c.type === 'tool_result') turns.push({ role: 'tool', text: textOf(c.content), name: calls.get(c.tool_use_id) ?? '' });
        else if (c.type === 'text') turns.push({ role: m.role, text: c.text });
      }
    }
  } else if (dialect === 'conversations') {
    if (b.completion_args?.response_format?.json_schema?.name) out.schemaName = b.completion_args.response_format.json_schema.name;
    const inputs = typeof b.inputs === 'string' ? [{ role: 'user', content: b.inputs }] : Array.isArray(b.inputs) ? b.inputs : [];
    for (const e of inputs) if (e.role === 'user' || e.role === 'assistant') turns.push({ role: e.role, text: textOf(e.content) });
  } else if (dialect === 'chat') {
    if (Array.isArray(b.tools) && b.tools.length) {
      out.mode = 'loop';
      out.tools = b.tools.map((t) => t.function?.name);
      out.schemaName = out.tools[0];
    } else if (b.response_format?.json_schema?.name) out.schemaName = b.response_format.json_schema.name;
    const calls = new Map();
    for (const m of Array.isArray(b.messages) ? b.messages : []) {
      for (const tc of Array.isArray(m.tool_calls) ? m.tool_calls : []) calls.set(tc.id, tc.function?.name);
      if (m.role === 'tool') turns.push({ role: 'tool', text: textOf(m.content), name: m.name ?? calls.get(m.tool_call_id) ?? '' });
      else if (m.role === 'user' || m.role === 'assistant') turns.push({ role: m.role, text: textOf(m.content) });
    }
  }
  const last = turns[turns.length - 1];
  if (last?.role === 'tool') out.lastTool = { name: last.name, output: last.text };
  out.lastUser = [...turns].reverse().find((t) => t.role === 'user')?.text ?? '';
  return out;
}

/** The offline demo's decision: a turn, or a device tool call. */
export function demoDecide(s) {
  if (s.lastTool) {
    let said = s.lastTool.output;
    try {
      const r = JSON.parse(said);
      if (r && typeof r === 'object' && typeof r.output === 'string') said = r.success === false ? `it failed: ${r.error ?? r.output}` : r.output;
    } catch {
      // not JSON: show it as is
    }
    if (said.length > 400) said = `${said.slice(0, 400)}...`;
    const tool = s.lastTool.name.replace(/_/g, '.');
    return { turn: turnObject(`(offline demo) I asked the device (${tool}). It says: ${said}`) };
  }
  const statusTool = s.tools.find((t) => t === 'device_status');
  if (s.mode === 'loop' && statusTool && STATUS_WORDS.test(s.lastUser)) return { tools: [{ name: statusTool, args: {} }] };
  const echo = s.lastUser.trim() ? ` You said: "${s.lastUser.trim().slice(0, 200)}".` : '';
  return {
    turn: turnObject(
      `This is the offline demo: no provider key is set, so I answer from a small script.${echo} Ask me about the device status to see a tool call, ` +
        'or add a provider key on the web page to talk to a real model.',
    ),
  };
}

// ---------------------------------------------------------------------------
// Answers in each dialect's shape.

function turnJson(turn) {
  return typeof turn === 'string' ? turn : JSON.stringify(turn);
}

function turnInput(turn) {
  if (typeof turn !== 'string') return turn;
  try {
    const v = JSON.parse(turn);
    return v && typeof v === 'object' && !Array.isArray(v) ? v : null;
  } catch {
    return null;
  }
}

function success(dialect, family, s, b, model, ctx = {}) {
  const calls = (b.tools ?? []).map((c) => ({ id: c.id, name: c.name, args: typeof c.args === 'string' ? c.args : JSON.stringify(c.args ?? {}) }));
  const turn = b.turn !== undefined ? turnJson(b.turn) : null;
  const text = typeof b.text === 'string' ? b.text : null;
  if (dialect === 'responses') {
    const output = [];
    // Reasoning models return a reasoning item; its encrypted content only when the request included it.
    const reasons = b.reasoning && REASONING_MODEL.test(String(model));
    if (reasons) output.push({ type: 'reasoning', id: id('rs_'), summary: [], ...(ctx.include?.includes('reasoning.encrypted_content') ? { encrypted_content: id('enc', 40) } : {}) });
    for (const m of b.mcp ?? []) output.push({ type: 'mcp_call', id: id('mcp_'), server_label: m.server, name: m.name, arguments: JSON.stringify(m.args ?? {}), output: m.output ?? '', error: null, status: 'completed' });
    if (text !== null || (turn !== null && s.mode === 'single')) {
      output.push({ type: 'message', id: id('msg_'), status: 'completed', role: 'assistant', content: [{ type: 'output_text', text: text ?? turn, annotations: [] }] });
    } else if (turn !== null) output.push({ type: 'function_call', id: id('fc_'), call_id: id('call_'), name: s.schemaName, arguments: turn, status: 'completed' });
    for (const c of calls) output.push({ type: 'function_call', id: id('fc_'), call_id: c.id ?? id('call_'), name: c.name, arguments: c.args, status: 'completed' });
    if (b.refusal) output.push({ type: 'message', id: id('msg_'), status: 'completed', role: 'assistant', content: [{ type: 'refusal', refusal: typeof b.refusal === 'string' ? b.refusal : 'I cannot help with that.' }] });
    // Pairing: a reasoning item's following item, which a later request must replay right after it.
    if (reasons && output[1]?.id) ctx.followers?.set(output[0].id, output[1].id);
    const usage = { input_tokens: 100, input_tokens_details: { cached_tokens: 40 }, output_tokens: 20 + (reasons ? 12 : 0), output_tokens_details: { reasoning_tokens: reasons ? 12 : 0 }, total_tokens: 120 + (reasons ? 12 : 0) };
    return { id: id('resp_'), object: 'response', created_at: Math.floor(Date.now() / 1000), status: 'completed', model, output, usage };
  }
  if (dialect === 'messages') {
    const content = [];
    if (b.reasoning) content.push({ type: 'thinking', thinking: 'Let me think about the device.', signature: id('sig', 40) });
    for (const m of b.mcp ?? []) {
      const useId = id('mcptoolu_');
      content.push({ type: 'mcp_tool_use', id: useId, name: m.name, server_name: m.server, input: m.args ?? {} });
      content.push({ type: 'mcp_tool_result', tool_use_id: useId, is_error: false, content: [{ type: 'text', text: m.output ?? '' }] });
    }
    if (text !== null) content.push({ type: 'text', text });
    if (turn !== null) {
      const input = turnInput(b.turn);
      if (s.tools.length && input) content.push({ type: 'tool_use', id: id('toolu_'), name: s.schemaName, input });
      else content.push({ type: 'text', text: turn });
    }
    for (const c of calls) content.push({ type: 'tool_use', id: c.id ?? id('toolu_'), name: c.name, input: JSON.parse(c.args) });
    const usedTool = content.some((c) => c.type === 'tool_use');
    let stop = usedTool ? 'tool_use' : 'end_turn';
    if (b.pause) {
      // pause_turn: a long server-tool turn paused; the content so far is a server tool call (and its result).
      const useId = id('srvtoolu_');
      content.unshift({ type: 'server_tool_use', id: useId, name: 'web_search', input: { query: 'desk assistant' } }, { type: 'web_search_tool_result', tool_use_id: useId, content: [] });
      stop = 'pause_turn';
    }
    if (b.refusal) stop = 'refusal';
    if (typeof b.stop === 'string') stop = b.stop;
    if (!MESSAGE_STOP_REASONS.includes(stop)) throw new Error(`emulator: ${stop} is not a stop_reason of the Messages API`);
    const usage = { input_tokens: 100, output_tokens: 20, cache_creation_input_tokens: 0, cache_read_input_tokens: 30, server_tool_use: null, service_tier: 'standard' };
    return { id: id('msg_'), type: 'message', role: 'assistant', model, content: b.refusal ? [] : content, stop_reason: stop, stop_sequence: null, usage };
  }
  if (dialect === 'conversations') {
    const now = new Date().toISOString();
    return {
      object: 'conversation.response',
      conversation_id: id('conv_'),
      outputs: [{ object: 'entry', type: 'message.output', created_at: now, completed_at: now, id: id('msg_'), model, role: 'assistant', content: b.chunks ? [{ type: 'text', text: text ?? turn ?? '' }] : (text ?? turn ?? '') }],
      usage: { prompt_tokens: 100, completion_tokens: 20, total_tokens: 120 },
    };
  }
  // chat completions
  const callId = () => (family === 'mistral' ? id('', 9) : id('call_'));
  const message = { role: 'assistant', content: text };
  const toolCalls = [];
  if (turn !== null) {
    if (s.mode === 'single') message.content = turn;
    else toolCalls.push({ id: callId(), type: 'function', function: { name: s.schemaName, arguments: turn } });
  }
  for (const c of calls) toolCalls.push({ id: c.id ?? callId(), type: 'function', function: { name: c.name, arguments: c.args } });
  if (toolCalls.length) message.tool_calls = toolCalls;
  // Mistral's content chunks (SDK AssistantMessage content: string | ContentChunk[]), a thinking chunk first.
  if (b.chunks && typeof message.content === 'string') message.content = [{ type: 'thinking', thinking: [{ type: 'text', text: 'Let me see.' }] }, { type: 'text', text: message.content }];
  if (b.refusal) {
    message.content = null;
    if (family !== 'mistral') message.refusal = typeof b.refusal === 'string' ? b.refusal : 'I cannot help with that.';
  }
  const finish = typeof b.stop === 'string' ? b.stop : b.refusal && family !== 'mistral' ? 'stop' : toolCalls.length ? 'tool_calls' : 'stop';
  const usage = family === 'mistral' ? { prompt_tokens: 100, completion_tokens: 20, total_tokens: 120 } : { prompt_tokens: 100, completion_tokens: 20, total_tokens: 120, prompt_tokens_details: { cached_tokens: 50 }, completion_tokens_details: { reasoning_tokens: 5 } };
  return {
    id: id('chatcmpl-'),
    object: 'chat.completion',
    created: Math.floor(Date.now() / 1000),
    model,
    choices: [{ index: 0, message, finish_reason: finish, ...(family === 'mistral' ? {} : { logprobs: null }) }],
    usage,
  };
}

const OVERFLOW = {
  openai: { message: "This model's maximum context length is 128000 tokens. However, your messages resulted in 210417 tokens. Please reduce the length of the messages.", code: 'context_length_exceeded' },
  responses: { message: 'Your input exceeds the context window of this model. Please adjust your input and try again.', code: 'context_length_exceeded' },
  anthropic: { message: 'prompt is too long: 215000 tokens > 200000 maximum' },
  mistral: { message: 'Prompt contains 40000 tokens and 0 draft tokens, too large for model with 32768 maximum context length' },
  zai: { message: 'Prompt exceeds max length', code: '1261' },
};

/** An error answer in the dialect's shape; type: the family's own error type where a rule names one (Mistral's invalid_function_call). */
function errorBody(dialect, family, status, message, code, type) {
  if (dialect === 'messages') {
    const type = status === 401 ? 'authentication_error' : status === 429 ? 'rate_limit_error' : status >= 500 ? 'api_error' : 'invalid_request_error';
    return { type: 'error', error: { type, message } };
  }
  if (family === 'mistral') return { object: 'error', message, type: type ?? (status === 401 ? 'unauthorized' : 'invalid_request_error'), param: null, code: code ?? null };
  if (family === 'zai') return { error: { code: code ?? String(status), message } };
  return { error: { message, type: status >= 500 ? 'server_error' : 'invalid_request_error', param: null, code: code ?? null } };
}

function overflowBody(dialect, family) {
  const w = dialect === 'messages' ? OVERFLOW.anthropic : family === 'mistral' ? OVERFLOW.mistral : family === 'zai' ? OVERFLOW.zai : dialect === 'responses' ? OVERFLOW.responses : OVERFLOW.openai;
  return errorBody(dialect, family, 400, w.message, w.code);
}

// ---------------------------------------------------------------------------
// Text-to-speech answers (POST /v1/audio/speech)

/** Speech length for a text: 60 ms a character, between 0.3 and 4 s. */
export function speechMs(text) {
  return Math.max(300, Math.min(4000, 60 * String(text ?? '').length));
}

/** A voice-like sound: a 180 Hz buzz with harmonics, its loudness rising and falling four times a second (16-bit PCM, interleaved). */
export function speechPcm(ms, sampleRate = 24000, channels = 1) {
  const n = Math.round((sampleRate * ms) / 1000);
  const pcm = new Int16Array(n * channels);
  for (let i = 0; i < n; i++) {
    const t = i / sampleRate;
    const syllable = 0.5 - 0.5 * Math.cos(2 * Math.PI * 4 * t);
    const tone = 0.6 * Math.sin(2 * Math.PI * 180 * t) + 0.3 * Math.sin(2 * Math.PI * 360 * t) + 0.1 * Math.sin(2 * Math.PI * 540 * t);
    const v = Math.round(20000 * syllable * tone);
    for (let c = 0; c < channels; c++) pcm[i * channels + c] = v;
  }
  return pcm;
}

/** A WAV file of 16-bit PCM; streamSizes writes 0xFFFFFFFF sizes, as a streamed answer does. */
export function wavBytes(pcm, sampleRate, channels, streamSizes = false) {
  const data = Buffer.from(pcm.buffer, pcm.byteOffset, pcm.byteLength);
  const h = Buffer.alloc(44);
  h.write('RIFF', 0, 'latin1');
  h.writeUInt32LE(streamSizes ? 0xffffffff : 36 + data.length, 4);
  h.write('WAVEfmt ', 8, 'latin1');
  h.writeUInt32LE(16, 16);
  h.writeUInt16LE(1, 20);
  h.writeUInt16LE(channels, 22);
  h.writeUInt32LE(sampleRate, 24);
  h.writeUInt32LE(sampleRate * channels * 2, 28);
  h.writeUInt16LE(channels * 2, 32);
  h.writeUInt16LE(16, 34);
  h.write('data', 36, 'latin1');
  h.writeUInt32LE(streamSizes ? 0xffffffff : data.length, 40);
  return Buffer.concat([h, data]);
}

const OGG_CRC = (() => {
  const t = new Uint32Array(256);
  for (let i = 0; i < 256; i++) {
    let r = i << 24;
    for (let k = 0; k < 8; k++) r = r & 0x80000000 ? (r << 1) ^ 0x04c11db7 : r << 1;
    t[i] = r >>> 0;
  }
  return t;
})();

function oggPage(type, granule, serial, seq, packets) {
  const lacing = [];
  for (const p of packets) {
    let left = p.length;
    while (left >= 255) {
      lacing.push(255);
      left -= 255;
    }
    lacing.push(left);
  }
  const head = Buffer.alloc(27 + lacing.length);
  head.write('OggS', 0, 'latin1');
  head[4] = 0;
  head[5] = type;
  head.writeBigUInt64LE(BigInt(granule), 6);
  head.writeUInt32LE(serial, 14);
  head.writeUInt32LE(seq, 18);
  head[26] = lacing.length;
  Buffer.from(lacing).copy(head, 27);
  const page = Buffer.concat([head, ...packets]);
  let crc = 0;
  for (const b of page) crc = ((crc << 8) ^ OGG_CRC[((crc >>> 24) ^ b) & 0xff]) >>> 0;
  page.writeUInt32LE(crc, 22);
  return page;
}

/** An Ogg Opus file of ms of silence (20 ms CELT silence frames), as a voice message carries. */
export function oggOpusBytes(ms) {
  const serial = 0x5eec4;
  const opusHead = Buffer.alloc(19);
  opusHead.write('OpusHead', 0, 'latin1');
  opusHead[8] = 1;
  opusHead[9] = 1;
  opusHead.writeUInt16LE(312, 10);
  opusHead.writeUInt32LE(24000, 12);
  const vendor = Buffer.from('provider-emulator');
  const tags = Buffer.alloc(8 + 4 + vendor.length + 4);
  tags.write('OpusTags', 0, 'latin1');
  tags.writeUInt32LE(vendor.length, 8);
  vendor.copy(tags, 12);
  const pages = [oggPage(2, 0, serial, 0, [opusHead]), oggPage(0, 0, serial, 1, [tags])];
  const frames = Math.max(1, Math.round(ms / 20));
  let seq = 2;
  for (let at = 0; at < frames; at += 50) {
    const n = Math.min(50, frames - at);
    const packets = Array.from({ length: n }, () => Buffer.from([0xf8, 0xff, 0xfe]));
    pages.push(oggPage(at + n >= frames ? 4 : 0, 312 + (at + n) * 960, serial, seq++, packets));
  }
  return Buffer.concat(pages);
}

/** The answer to POST /v1/audio/speech: {contentType, bytes}, or null for a format it does not make. */
export function speechAnswer(body, options = {}) {
  const format = body?.response_format ?? 'mp3';
  const ms = options.ms ?? speechMs(body?.input);
  const rate = options.sampleRate ?? 24000;
  const channels = options.channels ?? 1;
  if (format === 'wav') return { contentType: 'audio/wav', bytes: wavBytes(speechPcm(ms, rate, channels), rate, channels, options.streamSizes ?? false) };
  if (format === 'pcm') return { contentType: 'audio/pcm', bytes: Buffer.from(speechPcm(ms, 24000, 1).buffer) };
  if (format === 'opus') return { contentType: 'audio/ogg', bytes: oggOpusBytes(ms) };
  return null;
}

// ---------------------------------------------------------------------------

/**
 * A barrier for one behaviour's answer ({ match, turn, barrier }): the request
 * is held until open(); arrived resolves with its record when it comes in, and
 * hungUp when the client closes the connection first (a cancelled turn), so a
 * test steps on events instead of the wall clock.
 */
export function barrier() {
  let arrive, hangUp, open;
  const arrived = new Promise((r) => (arrive = r));
  const hungUp = new Promise((r) => (hangUp = r));
  const opened = new Promise((r) => (open = r));
  return { arrived, hungUp, open: () => open(), opened, arrive, hangUp };
}

/**
 * Starts the emulator on 127.0.0.1. Options: port (0 = any free), tls
 * (default true), names (certificate names), untrusted (a self-signed
 * certificate the firmware does not trust), log. Returns { url, port,
 * script(behaviours), requests, pending(), reset(), keys, close() }.
 */
export function start({ port = 0, tls = true, names = EMULATOR_NAMES, untrusted = false, log = () => {} } = {}) {
  const queue = [];
  const requests = [];
  const sockets = new Set();
  const timers = new Set();
  /** host -> the key that host accepts (others get 401); hosts not listed accept any key. */
  const keys = new Map();
  /** Reasoning item id -> the id of the item answered right after it (provider A's pairing rule). */
  const followers = new Map();
  /** Sub-agent jobs (tools/agent-emulator.mjs). */
  const agentJobs = createAgentJobs();
  /** The latency profile (setLatency): transcriptionMs, model { firstMs, tokensPerS }, speechFirstByteMs. */
  let latency = {};
  /** Connections accepted (each a TCP and TLS handshake for the client). */
  let connections = 0;
  /** The web search and image APIs (their own fakes). */
  const search = createSearchApi();
  const images = createImageApi();

  const later = (fn, ms) => {
    const t = setTimeout(() => {
      timers.delete(t);
      fn();
    }, ms);
    timers.add(t);
  };

  const send = (res, status, body, b) => {
    const text = typeof body === 'string' ? body : JSON.stringify(body);
    const bytes = Buffer.from(text);
    res.writeHead(status, { 'Content-Type': 'application/json', 'Content-Length': bytes.length });
    if (!b?.slow) return void res.end(bytes);
    const size = Math.max(1, b.slow.chunkBytes ?? 16);
    let at = 0;
    const step = () => {
      if (res.destroyed) return;
      res.write(bytes.subarray(at, at + size));
      at += size;
      if (at >= bytes.length) res.end();
      else later(step, b.slow.intervalMs ?? 50);
    };
    step();
  };

  const sendBytes = (res, bytes, contentType, b) => {
    res.writeHead(200, { 'Content-Type': contentType, 'Content-Length': bytes.length });
    if (!b?.slow) return void res.end(bytes);
    const size = Math.max(1, b.slow.chunkBytes ?? 16);
    let at = 0;
    const step = () => {
      if (res.destroyed) return;
      res.write(bytes.subarray(at, at + size));
      at += size;
      if (at >= bytes.length) res.end();
      else later(step, b.slow.intervalMs ?? 50);
    };
    step();
  };

  const perform = (res, rec, dialect, b) => {
    if (b.timeout) return; // hold the connection: the client's deadline must fire
    if (b.barrier) {
      const { barrier: gate, ...rest } = b;
      rec.held = true;
      res.on('close', () => {
        if (res.writableFinished) return;
        rec.hungUp = true;
        gate.hangUp(rec);
      });
      gate.arrive(rec);
      return void gate.opened.then(() => {
        if (!res.destroyed) perform(res, rec, dialect, rest);
      });
    }
    if (b.delayMs) {
      const { delayMs: _d, ...rest } = b;
      return later(() => perform(res, rec, dialect, rest), b.delayMs);
    }
    const family = familyOf(rec.host, dialect);
    if (b.raw) {
      res.writeHead(b.raw.status ?? 200, { 'Content-Type': 'application/json', ...(b.raw.headers ?? {}) });
      return void res.end(b.raw.body ?? '');
    }
    if (b.broken) return send(res, 200, '{"id": "broken", "output": [', b);
    if (b.overflow) return send(res, 400, overflowBody(dialect, family), b);
    if (b.status && b.status !== 200) return send(res, b.status, errorBody(dialect, family, b.status, b.message ?? `emulated HTTP ${b.status}`, b.code), b);
    if (dialect === 'models') return send(res, 200, modelListBody(rec.host, rec.path), b);
    // The latency profile's waits (the bench's stated profile): once per request, before the answer.
    if (!b.profiled && (dialect === 'transcription' || dialect === 'speech')) {
      const wait = dialect === 'transcription' ? latency.transcriptionMs : latency.speechFirstByteMs;
      if (wait) return later(() => perform(res, rec, dialect, { ...b, profiled: true }), wait);
    }
    if (dialect === 'transcription') return send(res, 200, transcriptionBody(family, rec.form.fields.model, b.transcript ?? DEMO_TRANSCRIPT, audioSeconds(rec.form.file)), b);
    if (dialect === 'moderations') return send(res, 200, moderationBody(family, b.moderation ?? { categories: [] }), b);
    if (dialect === 'embeddings') {
      const ef = embeddingFamily(rec.host);
      return send(res, 200, embeddingAnswer(ef, rec.body, b.embedding?.width ?? embeddingWidth(ef, rec.body), { vectors: b.embedding?.vectors }), b);
    }
    if (dialect === 'speech') {
      const input = rec.body?.input;
      if (typeof input !== 'string' || !input || typeof rec.body?.voice !== 'string') return send(res, 400, errorBody('chat', family, 400, 'input and voice are required'));
      const a = speechAnswer(rec.body, b.speech ?? {});
      if (!a) return send(res, 400, errorBody('chat', family, 400, `response_format ${rec.body?.response_format} is not supported here (wav, pcm, opus)`));
      return sendBytes(res, a.bytes, a.contentType, b);
    }
    const s = summarize(dialect, rec.body);
    const scripted = b.turn !== undefined || b.tools !== undefined || b.text !== undefined || b.refusal !== undefined || b.pause !== undefined;
    const decided = b.demo || !scripted ? { ...demoDecide(s), reasoning: b.reasoning, mcp: b.mcp, chunks: b.chunks } : b;
    const answer = success(dialect, family, s, decided, rec.body?.model ?? 'emulated', { include: rec.body?.include, followers });
    // A model's pace (the behaviour's, else the profile's): the stream token by token, a whole answer after all its tokens.
    const pace = b.pace ?? latency.model ?? null;
    const events = rec.body?.stream === true || pace ? streamEvents(dialect, family, answer, rec.body ?? {}) : null;
    rec.tokens = events ? tokenCount(events) : undefined;
    if (rec.body?.stream === true) {
      rec.streamed = true;
      // The client closing the stream before its end (a stop): recorded as a hang-up.
      res.on('close', () => {
        if (!res.writableFinished) rec.hungUp = true;
      });
      return sendStream(res, events, later, { pace, midError: b.midError, cut: b.cut, dialect, family, answer });
    }
    if (pace) return later(() => send(res, 200, answer, b), (pace.firstMs ?? 0) + (rec.tokens * 1000) / (pace.tokensPerS || Infinity));
    return send(res, 200, answer, b);
  };

  const handler = (req, res) => {
    const chunks = [];
    let size = 0;
    req.on('data', (c) => {
      size += c.length;
      if (size <= MAX_BODY) chunks.push(c);
    });
    req.on('end', () => void received());
    const received = async () => {
      const raw = Buffer.concat(chunks);
      const text = raw.toString('utf8');
      let body = null;
      try {
        body = text ? JSON.parse(text) : null;
      } catch {
        body = null;
      }
      const url = new URL(req.url ?? '/', 'http://x');
      const host = String(req.headers.host ?? '').replace(/:\d+$/, '').toLowerCase();
      const rec = { method: req.method ?? 'GET', host, path: url.pathname, query: url.search, headers: { ...req.headers }, body, text, at: Date.now() };
      requests.push(rec);
      log(`${rec.method} ${host}${rec.path}`);
      if (host === BRAVE_HOST || (rec.method === 'POST' && rec.path === IMAGE_PATH)) {
        const a = host === BRAVE_HOST ? search.answer(rec.method, req.url ?? '/', req.headers) : images.answer(rec.method, req.url ?? '/', req.headers, Buffer.concat(chunks));
        res.writeHead(a.status, { ...a.headers, 'Content-Length': a.body.length });
        return void res.end(a.body);
      }
      // Sub-agent backends: their own state machine (tools/agent-emulator.mjs).
      if (agentKind(rec.method, rec.path, body)) {
        const wantedKey = keys.get(host);
        if (wantedKey !== undefined && presentedKey(req.headers) !== wantedKey) return send(res, 401, { error: { type: 'authentication_error', message: 'Incorrect API key provided' } });
        const a = agentJobs.handle(rec, queue);
        rec.agent = true;
        if (a.hold) return;
        if (a.delayMs) return later(() => send(res, a.status, a.body), a.delayMs);
        return send(res, a.status, a.body);
      }
      const dialect = dialectOf(rec.method, rec.path);
      if (!dialect) return send(res, 404, { error: { message: `no such endpoint ${rec.method} ${rec.path}`, type: 'not_found' } });
      const family = familyOf(host, dialect);
      if (dialect === 'transcription') {
        rec.body = null;
        rec.text = '';
        const judged = checkHeaders(rec) ? null : await checkTranscription(rec, raw, family);
        if (judged?.form) rec.form = { fields: judged.form.fields, file: judged.form.file && { name: judged.form.file.name, type: judged.form.file.type, size: judged.form.file.size, bytes: judged.form.file.bytes } };
        else if (judged?.refused) {
          rec.refused = judged.refused;
          log(`refused ${rec.method} ${host}${rec.path}: ${judged.refused.status} ${judged.refused.message}`);
          return send(res, judged.refused.status, errorBody('chat', family, judged.refused.status, judged.refused.message));
        }
      }
      const shape = dialect === 'models' || dialect === 'moderations' || dialect === 'speech' || dialect === 'embeddings' ? (family === 'anthropic' ? 'messages' : 'chat') : dialect;
      const judge = () => {
        if (['responses', 'messages', 'chat', 'conversations'].includes(dialect)) return checkRound(dialect, rec, { family, followers });
        if (dialect === 'embeddings') return checkEmbeddings(rec, embeddingFamily(host), embeddingModel);
        return checkOther(dialect, rec, family);
      };
      const refused = checkHeaders(rec) ?? judge();
      if (refused) {
        rec.refused = refused;
        log(`refused ${rec.method} ${host}${rec.path}: ${refused.status} ${refused.message}`);
        if (dialect === 'embeddings') return send(res, refused.status, embeddingErrorBody(embeddingFamily(host), refused));
        return send(res, refused.status, errorBody(shape, family, refused.status, refused.message, refused.code, refused.type));
      }
      const wanted = keys.get(host);
      if (wanted !== undefined && presentedKey(req.headers) !== wanted) {
        return send(res, 401, errorBody(shape, family, 401, 'Incorrect API key provided'));
      }
      // A behaviour without a method answers rounds (POST) only, so key-check probes pass by; an embedding
      // request takes only a behaviour that names its path, so none meant for a turn is spent on it.
      const i = queue.findIndex((b) => !b.job && matches(b.match?.host, host) && matches(b.match?.path, rec.path) && matches(b.match?.method ?? 'POST', rec.method) && (dialect !== 'embeddings' || b.match?.path !== undefined));
      const b = i >= 0 ? queue.splice(i, 1)[0] : dialect === 'models' || dialect === 'embeddings' ? {} : { demo: true };
      rec.behaviour = b;
      perform(res, rec, dialect, b);
    };
  };

  let creds = null;
  let tmp = null;
  if (tls && untrusted) {
    tmp = mkdtempSync(join(tmpdir(), 'emu-untrusted-'));
    const san = [...names.map((n) => `DNS:${n}`), 'IP:127.0.0.1'].join(',');
    execFileSync('openssl', ['req', '-x509', '-newkey', 'ec', '-pkeyopt', 'ec_paramgen_curve:prime256v1', '-nodes', '-keyout', join(tmp, 'k.pem'), '-out', join(tmp, 'c.pem'), '-days', '30', '-subj', `/CN=${names[0]}`, '-addext', `subjectAltName=${san}`], { stdio: ['ignore', 'ignore', 'pipe'] });
    creds = { cert: readFileSync(join(tmp, 'c.pem'), 'utf8'), key: readFileSync(join(tmp, 'k.pem'), 'utf8') };
  } else if (tls) creds = issueTestCert(names);
  const server = tls ? createHttpsServer(creds, handler) : createHttpServer(handler);
  // The services keep an idle connection open far longer than Node's default 5 s.
  server.keepAliveTimeout = 60_000;
  server.on('connection', (s) => {
    connections++;
    sockets.add(s);
    s.on('close', () => sockets.delete(s));
  });
  server.on('tlsClientError', () => {}); // an untrusting client hangs up mid-handshake: expected
  return new Promise((resolvePort, reject) => {
    server.once('error', reject);
    server.listen(port, '127.0.0.1', () => {
      const actual = server.address().port;
      resolvePort({
        port: actual,
        url: `${tls ? 'https' : 'http'}://127.0.0.1:${actual}`,
        requests,
        keys,
        jobs: agentJobs,
        search,
        images,
        server,
        script(behaviours) {
          queue.push(...(Array.isArray(behaviours) ? behaviours : [behaviours]));
        },
        pending: () => queue.length,
        /** Connections accepted so far (a client's handshakes). */
        connections: () => connections,
        /** A latency profile for every answer: transcriptionMs, model { firstMs, tokensPerS }, speechFirstByteMs ({} for none). */
        setLatency(profile) {
          latency = profile ?? {};
        },
        reset() {
          queue.length = 0;
          requests.length = 0;
          keys.clear();
          agentJobs.reset();
          latency = {};
        },
        close: () =>
          new Promise((r) => {
            for (const t of timers) clearTimeout(t);
            for (const s of sockets) s.destroy();
            if (tmp) rmSync(tmp, { recursive: true, force: true });
            server.close(() => r());
          }),
      });
    });
  });
}

export const startProviderEmulator = start;

/** The board arguments that send each name's port 443 (or 80) to the emulator. */
export function routeArgs(port, names = EMULATOR_NAMES, targetPort = 443) {
  return names.flatMap((n) => ['--route', `${n}:${targetPort}=127.0.0.1:${port}`]);
}

if (process.argv[1] && resolve(process.argv[1]) === fileURLToPath(import.meta.url)) {
  const { values } = parseArgs({ options: { port: { type: 'string', default: '8443' }, http: { type: 'boolean', default: false }, name: { type: 'string', multiple: true, default: [] } } });
  const names = values.name.length ? values.name : EMULATOR_NAMES;
  const emu = await start({ port: Number(values.port), tls: !values.http, names, log: (l) => console.log(l) });
  console.log(`provider emulator on ${emu.url} for ${names.join(', ')}`);
  console.log(`simulator: ${routeArgs(emu.port, names, values.http ? 80 : 443).join(' ')}`);
}

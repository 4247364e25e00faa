// The official SDKs judge the wire (openai 6.49, @anthropic-ai/sdk 1.14,
// @mistralai/mistralai 2.7, devDependencies). The real firmware on XS in the
// simulator runs every dialect, backend and sub-agent backend against the
// provider emulator (which itself refuses what the services refuse): first
// and later rounds of a tool loop (reasoning and thinking replayed, a paused
// B turn continued), single-shot and forced-final rounds, the custom
// endpoint's both styles and its schema-less retry, the offline demo, and
// the sub-agent jobs (B sessions with their event polls, A background
// responses, C conversations, the synchronous chat and messages ones). Then,
// with a tool server approved from the chat (/mcp approve), the requests
// that carry it: B rounds with mcp_servers under the MCP beta (an MCP call
// replayed), A rounds with mcp tools, the managed agent declaring it, the
// credential vault (vault, static_bearer credential, the session naming it,
// its archive), A's background job with it, both backends' cancels; and
// the rest of what the firmware sends to a provider host: image generation
// and its description, speech, guest moderation (A's and C's), the model
// lists. Every request to a provider host must be judged (one that is not
// fails the test, so a new endpoint cannot slip by).
// Every request body the emulator received is written into a TypeScript file
// as a literal typed with the SDK's own request type (excess properties and
// wrong literals fail) and type-checked with tsc; a deliberately wrong body
// must fail the same check (the negative control). Mistral's bodies are
// parsed with the SDK's zod schemas (ChatCompletionRequest$outboundSchema,
// ConversationRequest$outboundSchema, ClassificationRequest$outboundSchema,
// ListModelsV1ModelsGetRequest$outboundSchema) and must come out as sent (its
// TS types are the schemas' output, with defaults filled in, so tsc would ask
// for fields the wire may omit). A GET is judged by its query, read as the
// SDK's list or retrieve params. Two POSTs have no SDK body type: the SDK
// sends responses.cancel(id) and beta.vaults.archive(id) without a body
// (VaultArchiveParams holds header params only); the firmware sends none
// either, checked as NoBody (undefined: even {} fails), and the emulator
// refuses a field in either (tools/provider-rules.mjs checkManaged).
import { mkdirSync, writeFileSync } from 'node:fs';
import { dirname, join } from 'node:path';
import { fileURLToPath } from 'node:url';
import {
  ChatCompletionRequest$outboundSchema,
  ChatCompletionStreamRequest$outboundSchema,
  ClassificationRequest$outboundSchema,
  ConversationRequest$outboundSchema,
  ConversationStreamRequest$outboundSchema,
} from '@mistralai/mistralai/models/components';
import { ListModelsV1ModelsGetRequest$outboundSchema } from '@mistralai/mistralai/models/operations';
import ts from 'typescript';
import { afterAll, beforeAll, describe, expect, it } from 'vitest';
import { turnObject, type Emulator, type RecordedRequest } from '../../tools/provider-emulator.mjs';
import type { Device } from './harness.ts';
import { startProviderRig, type ProviderRig } from './fixtures/provider-rig.ts';

const ROOT = join(dirname(fileURLToPath(import.meta.url)), '../..');
const OUT = join(ROOT, 'build/sdk-wire');

let rig: ProviderRig;
let emu: Emulator;
let plain: Emulator;
let device: Device;
const TURN = turnObject('Battery is at 80%.');
const spawn = (task: string, provider: string) => ({ op: 'spawn', task, name: provider.slice(0, 8), provider, id: null, model: null, skill: null, project: null, attach: null });
const warp = (ms: number) => device.board.request('clock.warp', { ms });

const orch = (fields: Record<string, string>): Promise<void> => rig.orch(fields);

const OWNER = '7001';
const GUEST = '7003';
const TOOL_SERVER = { id: 'notes', name: 'Notes', url: 'https://mcp.notes.test/', bearer: 'e2e-notes-bearer-0123456789' };
/** The hosts the firmware reaches providers on (the emulator answers for them all). */
const PROVIDER_HOSTS = new Set(['api.openai.com', 'api.anthropic.com', 'api.mistral.ai', 'api.z.ai', 'open.bigmodel.cn', 'router.desk-assistant.invalid', 'demo.emulator.test', 'custom.emulator.test']);

/** How a captured request is judged: a TS type its body (or query) must have, or one of Mistral's zod schemas. */
type MistralKind = 'MistralChat' | 'MistralChatStream' | 'MistralConversation' | 'MistralConversationStream' | 'MistralModeration' | 'MistralModelList';
type Judgement = { ts: string; value: unknown } | { zod: MistralKind; value: unknown };

/** The judgement of a captured request; null when nothing judges it (which fails the test). */
function judge(r: RecordedRequest): Judgement | null {
  const p = r.path;
  const mistral = r.host === 'api.mistral.ai';
  if (r.method === 'GET') {
    const q = queryParams(r.query);
    if (/^\/v1\/sessions\/[^/]+\/events$/.test(p)) return { ts: 'AnthropicEventList', value: q };
    if (/^\/v1\/responses\/[^/]+$/.test(p)) return { ts: 'OpenAIResponseRetrieve', value: q };
    if (/\/models$/.test(p)) {
      if (r.host === 'api.anthropic.com') return { ts: 'AnthropicModelList', value: q };
      if (mistral) return { zod: 'MistralModelList', value: q };
      // OpenAI's models.list(options) takes no params; Z.ai, the router and a custom server are OpenAI-compatible.
      return { ts: 'NoParams', value: q };
    }
    return null;
  }
  if (r.method !== 'POST') return null;
  const b = r.body;
  // A streamed round (TURN's, the stream setting on) is judged by the SDK's streaming request type; WIRE's rounds are not streamed.
  const stream = b?.stream === true ? 'Stream' : '';
  if (p === '/v1/responses') return { ts: `OpenAIResponses${stream}`, value: b };
  if (/^\/v1\/responses\/[^/]+\/cancel$/.test(p)) return { ts: 'NoBody', value: r.text === '' ? undefined : b };
  if (p === '/v1/messages') return { ts: `${b?.mcp_servers ? 'AnthropicBetaMessages' : 'AnthropicMessages'}${stream}`, value: b };
  if (p === '/v1/conversations') return { zod: stream ? 'MistralConversationStream' : 'MistralConversation', value: b };
  if (/chat\/completions$/.test(p)) return mistral ? { zod: stream ? 'MistralChatStream' : 'MistralChat', value: b } : { ts: `OpenAIChat${stream}`, value: b };
  if (p === '/v1/moderations') return mistral ? { zod: 'MistralModeration', value: b } : { ts: 'OpenAIModeration', value: b };
  if (p === '/v1/audio/speech') return { ts: 'OpenAISpeech', value: b };
  if (p === '/v1/images/generations') return { ts: 'OpenAIImage', value: b };
  if (p === '/v1/environments') return { ts: 'AnthropicEnvironment', value: b };
  if (p === '/v1/agents') return { ts: 'AnthropicAgent', value: b };
  if (p === '/v1/sessions') return { ts: 'AnthropicSession', value: b };
  if (/^\/v1\/sessions\/[^/]+\/events$/.test(p)) return { ts: 'AnthropicEventSend', value: b };
  if (p === '/v1/vaults') return { ts: 'AnthropicVault', value: b };
  if (/^\/v1\/vaults\/[^/]+\/credentials$/.test(p)) return { ts: 'AnthropicCredential', value: b };
  if (/^\/v1\/vaults\/[^/]+\/archive$/.test(p)) return { ts: 'NoBody', value: r.text === '' ? undefined : b };
  return null;
}

const HEADER = `// Generated by test/e2e/provider-sdk.test.ts: request bodies the firmware built on XS, typed with the official SDKs' request types.
import type { ResponseCreateParamsNonStreaming as OpenAIResponses, ResponseCreateParamsStreaming as OpenAIResponsesStream, ResponseRetrieveParamsNonStreaming as OpenAIResponseRetrieve } from 'openai/resources/responses/responses';
import type { ChatCompletionCreateParamsNonStreaming as OpenAIChat, ChatCompletionCreateParamsStreaming as OpenAIChatStream } from 'openai/resources/chat/completions';
import type { ModerationCreateParams as OpenAIModeration } from 'openai/resources/moderations';
import type { SpeechCreateParams as OpenAISpeech } from 'openai/resources/audio/speech';
import type { ImageGenerateParamsNonStreaming as OpenAIImage } from 'openai/resources/images';
import type { MessageCreateParamsNonStreaming as AnthropicMessages, MessageCreateParamsStreaming as AnthropicMessagesStream } from '@anthropic-ai/sdk/resources/messages';
import type { ModelListParams as AnthropicModelList } from '@anthropic-ai/sdk/resources/models';
import type { MessageCreateParamsNonStreaming as AnthropicBetaMessages, MessageCreateParamsStreaming as AnthropicBetaMessagesStream } from '@anthropic-ai/sdk/resources/beta/messages/messages';
import type { EnvironmentCreateParams as AnthropicEnvironment } from '@anthropic-ai/sdk/resources/beta/environments/environments';
import type { AgentCreateParams as AnthropicAgent } from '@anthropic-ai/sdk/resources/beta/agents/agents';
import type { SessionCreateParams as AnthropicSession } from '@anthropic-ai/sdk/resources/beta/sessions/sessions';
import type { EventSendParams as AnthropicEventSend, EventListParams as AnthropicEventList } from '@anthropic-ai/sdk/resources/beta/sessions/events';
import type { VaultCreateParams as AnthropicVault } from '@anthropic-ai/sdk/resources/beta/vaults/vaults';
import type { CredentialCreateParams as AnthropicCredential } from '@anthropic-ai/sdk/resources/beta/vaults/credentials';
// No SDK body type: responses.cancel(id) and beta.vaults.archive(id) post no body (VaultArchiveParams: header params only),
// and models.list(options) takes no params: the firmware must send no body and no query there either.
type NoBody = undefined;
type NoParams = Record<string, never>;
`;

/** A GET's query as the SDK's params (types[] is the SDK's brackets array format; limit a number). */
function queryParams(query: string): Record<string, unknown> {
  const q = new URLSearchParams(query);
  const out: Record<string, unknown> = {};
  for (const [k, v] of q) {
    if (k.endsWith('[]')) ((out[k.slice(0, -2)] as string[] | undefined) ?? (out[k.slice(0, -2)] = [])).push(v);
    else if (k === 'limit') out['limit'] = Number(v);
    else out[k] = v;
  }
  return out;
}

/** Every kind judged by a TS type: each must be captured, and each has a wrong request in the negative control. */
const KINDS = [
  'OpenAIResponses', 'OpenAIResponsesStream', 'OpenAIResponseRetrieve', 'OpenAIChat', 'OpenAIChatStream', 'OpenAIModeration', 'OpenAISpeech', 'OpenAIImage',
  'AnthropicMessages', 'AnthropicMessagesStream', 'AnthropicBetaMessages', 'AnthropicBetaMessagesStream', 'AnthropicModelList', 'AnthropicEnvironment', 'AnthropicAgent', 'AnthropicSession',
  'AnthropicEventSend', 'AnthropicEventList', 'AnthropicVault', 'AnthropicCredential', 'NoBody', 'NoParams',
];

/** A request of each kind the SDK types refuse. */
const NEGATIVE: Array<[string, string]> = [
  ['OpenAIResponses', "{ model: 'gpt-5-mini', input: [], tool_choice: 'any' }"],
  ['OpenAIResponsesStream', "{ model: 'gpt-5-mini', input: [], stream: false }"],
  ['OpenAIResponseRetrieve', "{ include: ['reasoning.secrets'] }"],
  ['OpenAIChatStream', "{ model: 'gpt-5-mini', messages: [{ role: 'user', content: 'x' }], stream: true, stream_options: { include_usage: 'yes' } }"],
  ['AnthropicMessagesStream', "{ model: 'claude-sonnet-4-5', max_tokens: 10, messages: [{ role: 'user', content: 'hi' }] }"],
  ['AnthropicBetaMessagesStream', "{ model: 'claude-sonnet-4-5', max_tokens: 10, stream: true, messages: [{ role: 'user', content: 'hi' }], mcp_servers: [{ type: 'url', name: 'notes', url: 'https://mcp.notes.test/', token: 'secret' }] }"],
  ['OpenAIChat', "{ model: 'gpt-5-mini', messages: [{ role: 'tool', content: 'x' }] }"],
  ['OpenAIModeration', "{ model: 'omni-moderation-latest' }"],
  ['OpenAISpeech', "{ model: 'gpt-4o-mini-tts', input: 'hi', voice: 'alloy', response_format: 'ogg' }"],
  ['OpenAIImage', "{ model: 'gpt-image-1-mini', prompt: 'a lamp', output_format: 'gif' }"],
  ['AnthropicMessages', "{ model: 'claude-sonnet-4-5', messages: [{ role: 'user', content: 'hi' }] }"],
  ['AnthropicBetaMessages', "{ model: 'claude-sonnet-4-5', max_tokens: 10, messages: [{ role: 'user', content: 'hi' }], mcp_servers: [{ type: 'url', name: 'notes', url: 'https://mcp.notes.test/', authorization: 'secret' }], tools: [{ type: 'mcp_toolset', mcp_server_name: 'notes' }] }"],
  ['AnthropicModelList', "{ limit: '1000' }"],
  ['AnthropicEnvironment', "{ name: 'desk-assistant', config: { type: 'local' } }"],
  ['AnthropicAgent', "{ name: 'a', model: 'claude-sonnet-4-5', mcp_servers: [{ type: 'url', name: 'notes', url: 'https://mcp.notes.test/', authorization_token: 'secret' }] }"],
  ['AnthropicSession', "{ agent: 'agent_x', environment_id: 'env_x', vault_ids: 'vlt_x' }"],
  ['AnthropicEventSend', "{ events: [{ type: 'user.interrupt', reason: 'stop' }] }"],
  ['AnthropicEventList', "{ types: ['agent.says'] }"],
  ['AnthropicVault', "{ name: 'desk-assistant' }"],
  ['AnthropicCredential', "{ display_name: 'notes', auth: { type: 'static_bearer', mcp_server_url: 'https://mcp.notes.test/' } }"],
  ['NoBody', '{}'],
  ['NoParams', '{ limit: 5 }'],
];

/** Type-checks a generated file; the diagnostics as text. */
function typecheck(file: string, source: string): string[] {
  mkdirSync(OUT, { recursive: true });
  const path = join(OUT, file);
  writeFileSync(path, source);
  const program = ts.createProgram([path], { strict: true, noEmit: true, target: ts.ScriptTarget.ES2022, module: ts.ModuleKind.ESNext, moduleResolution: ts.ModuleResolutionKind.Bundler, skipLibCheck: true, types: [] });
  return ts.getPreEmitDiagnostics(program).map((d) => `${d.file ? `${d.file.fileName.replace(ROOT, '')}:${d.file.getLineAndCharacterOfPosition(d.start ?? 0).line + 1}: ` : ''}${ts.flattenDiagnosticMessageText(d.messageText, '\n')}`);
}

const FREE_FORM = new Set(['parameters', 'metadata', 'arguments']);
/** Wire JSON (snake_case) as the Mistral SDK's input (camelCase), for its outbound zod schema. */
function camel(v: unknown, parent = ''): unknown {
  if (Array.isArray(v)) return v.map((x) => camel(x, parent));
  if (!v || typeof v !== 'object') return v;
  const out: Record<string, unknown> = {};
  for (const [k, x] of Object.entries(v)) {
    const key = parent === 'json_schema' && k === 'schema' ? 'schemaDefinition' : k.replace(/_([a-z])/g, (_m, c: string) => c.toUpperCase());
    out[key] = FREE_FORM.has(k) || (parent === 'json_schema' && k === 'schema') ? x : camel(x, k);
  }
  return out;
}

beforeAll(async () => {
  rig = await startProviderRig({ chat: [OWNER, GUEST] });
  ({ emu, plain, device } = rig);
});

afterAll(async () => {
  await rig?.close();
});

const sleep = (ms: number): Promise<void> => new Promise((r) => setTimeout(r, ms));

/** Warps the device clock a second at a time (each step given real time to answer in) until the condition holds. */
async function settle(until: () => boolean | Promise<boolean>, what: string): Promise<void> {
  for (let i = 0; i < 120 && !(await until()); i++) {
    await warp(1_000);
    await sleep(100);
  }
  expect(await until(), what).toBe(true);
}

describe('the wire against the official SDKs', () => {
  const captured: RecordedRequest[] = [];
  it('runs every dialect, backend and sub-agent backend on XS, first and later rounds, and the emulator refuses none of it', async () => {
    emu.reset();
    for (const p of ['openai', 'anthropic', 'mistral', 'zai', 'router']) {
      await orch({ priority: [p, ...['openai', 'anthropic', 'mistral', 'zai', 'router'].filter((x) => x !== p)].join(',') });
      // A tool round (with reasoning or thinking where the dialect has it), then the later round that replays it.
      emu.script([{ tools: [{ name: 'device_status', args: {} }], reasoning: true }, { turn: TURN }]);
      expect(await device.command(`TURN status please (${p})`, 30_000)).toContain('Battery is at 80%.');
      emu.script([{ turn: TURN }, { turn: TURN }]);
      expect(await device.command(`WIRE ${p} single hello`, 20_000)).toContain('reply=Battery is at 80%.');
      expect(await device.command(`WIRE ${p} final hello`, 20_000)).toContain('reply=Battery is at 80%.');
      // A streamed single-shot round (Mistral's conversations API with stream: true among them).
      emu.script([{ turn: TURN }]);
      expect(await device.command(`WIRE ${p} single stream hello`, 20_000)).toMatch(/pieces=[1-9]\d*\nkind=turn\nreply=Battery is at 80%\./);
    }
    // Provider B pauses its own turn; the next round continues it.
    await orch({ priority: 'anthropic,openai,mistral,zai,router' });
    emu.script([{ pause: true }, { turn: TURN }]);
    expect(await device.command('TURN search the web', 30_000)).toContain('Battery is at 80%.');
    // The offline demo, and the custom endpoint in both styles (keyless over plain http), with the schema-less retry.
    expect(await device.command('WIRE demo what is the device status?', 20_000)).toContain('call=device_status');
    await orch({ custom_base: 'http://custom.emulator.test:8080', custom_style: 'chat', custom_model: 'local-llm' });
    plain.script([{ status: 400, message: 'json_schema is not supported' }, { turn: TURN }]);
    expect(await device.command('WIRE custom hello', 20_000)).toContain('reply=Battery is at 80%.');
    await orch({ custom_style: 'messages' });
    plain.script([{ turn: TURN }]);
    expect(await device.command('WIRE custom hello', 20_000)).toContain('reply=Battery is at 80%.');
    // Sub-agents on every backend: B sessions, A background, C conversations, the synchronous chat ones.
    emu.script([
      { turn: turnObject('On it.', { session_ops: ['anthropic', 'openai', 'mistral', 'zai', 'router'].map((p) => spawn(`Find the ${p} answer`, p)) }) },
      ...['api.anthropic.com', 'api.openai.com', 'api.mistral.ai', 'api.z.ai', 'router.desk-assistant.invalid'].map((host) => ({ job: { polls: 1, result: `${host} found it` }, match: { host } })),
    ]);
    await orch({ priority: 'anthropic,openai,mistral,zai,router' });
    expect(await device.command('TURN ask five agents', 30_000)).toContain('On it.');
    // The pump dispatches one job per 1.5 s and polls every 15 s: small warps, each given real time to
    // answer in, so no exchange in flight is overtaken by its own deadline.
    const polled = (): boolean => emu.requests.some((r) => r.method === 'GET' && /\/events$/.test(r.path)) && emu.requests.some((r) => r.method === 'GET' && /^\/v1\/responses\//.test(r.path));
    for (let i = 0; i < 60 && !polled(); i++) {
      await warp(1_000);
      await new Promise((r) => setTimeout(r, 100));
    }
    const seen = emu.requests.map((r) => `${r.method} ${r.host}${r.path}`);
    for (const want of ['POST api.openai.com/v1/responses', 'POST api.anthropic.com/v1/messages', 'POST api.mistral.ai/v1/conversations', 'POST api.mistral.ai/v1/chat/completions', 'POST api.z.ai/api/paas/v4/chat/completions', 'POST api.anthropic.com/v1/sessions', 'POST api.anthropic.com/v1/agents', 'POST api.anthropic.com/v1/environments']) expect(seen).toContain(want);
    expect(seen.some((s) => /^GET api\.anthropic\.com\/v1\/sessions\/.+\/events$/.test(s))).toBe(true);
    expect(seen.some((s) => /^POST router\.desk-assistant\.invalid\/router\/openai\/v1\/chat\/completions$/.test(s))).toBe(true);
    // Later rounds replayed what the provider said: A's reasoning right before its paired item, B's pause content.
    expect(emu.requests.some((r) => r.path === '/v1/responses' && r.body?.input?.some((i: { type: string }) => i.type === 'reasoning'))).toBe(true);
    expect(emu.requests.some((r) => r.path === '/v1/messages' && r.body?.messages?.at(-1)?.content?.[0]?.type === 'server_tool_use')).toBe(true);
    const refused = [...emu.requests, ...plain.requests].filter((r) => r.refused && r.behaviour === undefined);
    expect(refused.map((r) => `${r.path}: ${r.refused!.message}`)).toEqual([]);
    captured.push(...emu.requests, ...plain.requests.filter((r) => r.behaviour?.status === undefined));
  }, 240_000);

  it('carries an approved tool server (B rounds under the MCP beta, A rounds, the managed agent and its credential vault, A background jobs, both cancels), then makes images, speech, guest moderation and model lists, and the emulator refuses none of it', async () => {
    const from = emu.requests.length;
    const after = (): RecordedRequest[] => emu.requests.slice(from);
    const seen = (method: string, path: RegExp): RecordedRequest[] => after().filter((r) => r.method === method && path.test(r.path));
    const post = (path: string, fields: Record<string, string>): Promise<Response> => device.fetch(path, { method: 'POST', token: rig.token, body: new URLSearchParams(fields) });
    type Jobs = { pending: unknown[]; running: Array<{ tag: string; providerJobId: string | null }>; synthesis: { turns: number; due: string[] } };
    const jobs = async (): Promise<Jobs> => (await (await device.fetch('/api/sessions', { token: rig.token })).json()) as Jobs;
    // Sub-agent results start an automatic turn in the owner's chat (the emulator answers it as its offline demo): let every
    // job end and every such turn be answered before a scripted turn, so none of them takes a behaviour scripted for another.
    const drained = async (): Promise<boolean> => {
      const j = await jobs();
      const answered = rig.bot!.bot.to(OWNER).filter((m) => m.text.startsWith('This is the offline demo')).length;
      return j.pending.length === 0 && j.running.length === 0 && j.synthesis.due.length === 0 && answered >= j.synthesis.turns;
    };
    await settle(drained, 'the first test\'s jobs ended and their results were told');
    // The owner adds a tool server with a bearer secret on the web page and approves it in the chat.
    expect((await post('/api/connectors', { id: TOOL_SERVER.id, name: TOOL_SERVER.name, url: TOOL_SERVER.url, auth: 'bearer', bearer: TOOL_SERVER.bearer })).status).toBe(201);
    expect(await rig.ask(OWNER, '/mcp approve notes', /^Approved /)).toMatch(/^Approved notes "Notes"\. It goes to openai and anthropic turns from now on\./);

    // B's and A's loop rounds carry it (first, later and forced-final rounds); the provider's own MCP call goes back in the later round.
    const mcp = [{ server: TOOL_SERVER.id, name: 'search_notes', args: { query: 'milk' }, output: 'buy milk' }];
    for (const p of ['anthropic', 'openai']) {
      await orch({ priority: `${p},${p === 'anthropic' ? 'openai' : 'anthropic'},mistral,zai,router` });
      emu.script([{ tools: [{ name: 'device_status', args: {} }], reasoning: true, mcp }, { turn: TURN }]);
      expect(await device.command(`TURN what do my notes say? (${p})`, 30_000)).toContain('Battery is at 80%.');
      emu.script([{ turn: TURN }]);
      expect(await device.command(`WIRE ${p} final hello`, 20_000)).toContain('reply=Battery is at 80%.');
    }
    const bRounds = seen('POST', /^\/v1\/messages$/).filter((r) => r.body?.mcp_servers);
    expect(bRounds.length).toBeGreaterThanOrEqual(3);
    for (const r of bRounds) {
      expect(r.headers['anthropic-beta']).toBe('mcp-client-2025-11-20');
      expect(r.body.mcp_servers).toEqual([{ type: 'url', url: TOOL_SERVER.url, name: TOOL_SERVER.id, authorization_token: TOOL_SERVER.bearer }]);
    }
    expect(bRounds.some((r) => JSON.stringify(r.body.messages).includes('"mcp_tool_use"'))).toBe(true);
    const aRounds = seen('POST', /^\/v1\/responses$/).filter((r) => r.body?.tools?.some((t: { type: string }) => t.type === 'mcp'));
    expect(aRounds.length).toBeGreaterThanOrEqual(3);
    expect(aRounds.some((r) => r.body.input.some((i: { type: string }) => i.type === 'mcp_call'))).toBe(true);

    // Sub-agent jobs the owner spawns on the web page (an admin's): B declares the server on an agent of its own and puts
    // the secret in a fresh vault, which the session names and which is archived when the job ends; A's background job carries it.
    const spawnWeb = async (task: string, provider: string): Promise<string> => {
      const res = await post('/api/sessions', { action: 'spawn', task, provider });
      expect(res.status, await res.clone().text()).toBe(202);
      return ((await res.json()) as { queued: string }).queued;
    };
    emu.script([
      { job: { polls: 1, result: 'B read the notes' }, match: { host: 'api.anthropic.com' } },
      { job: { polls: 1, result: 'A read the notes' }, match: { host: 'api.openai.com' } },
    ]);
    await spawnWeb('Summarize my notes', 'anthropic');
    await spawnWeb('List my notes', 'openai');
    await settle(async () => (await drained()) && seen('POST', /^\/v1\/vaults\/[^/]+\/archive$/).length === 1, 'the two jobs ended, their vault was archived and their results were told');
    expect(seen('POST', /^\/v1\/agents$/).some((r) => r.body.mcp_servers?.[0]?.url === TOOL_SERVER.url && JSON.stringify(r.body).includes('mcp_toolset') && !JSON.stringify(r.body).includes(TOOL_SERVER.bearer))).toBe(true);
    expect(seen('POST', /^\/v1\/vaults$/)).toHaveLength(1);
    expect(seen('POST', /^\/v1\/vaults\/[^/]+\/credentials$/).map((r) => r.body.auth)).toEqual([{ type: 'static_bearer', mcp_server_url: TOOL_SERVER.url, token: TOOL_SERVER.bearer }]);
    expect(seen('POST', /^\/v1\/sessions$/).filter((r) => r.body.vault_ids?.length === 1)).toHaveLength(1);
    expect([...emu.jobs.vaults.values()]).toEqual([expect.objectContaining({ archived: true, credentials: [expect.objectContaining({ mcp_server_url: TOOL_SERVER.url, token: TOOL_SERVER.bearer })] })]);
    expect(seen('POST', /^\/v1\/responses$/).some((r) => r.body.background === true && r.body.tools.some((t: { type: string }) => t.type === 'mcp'))).toBe(true);
    // Two long jobs the owner stops: B interrupts its session and archives its vault, A cancels its response.
    emu.script([
      { job: { polls: 10_000 }, match: { host: 'api.anthropic.com' } },
      { job: { polls: 10_000 }, match: { host: 'api.openai.com' } },
    ]);
    const long = [await spawnWeb('Watch my notes', 'anthropic'), await spawnWeb('Watch my notes too', 'openai')];
    await settle(async () => (await jobs()).running.filter((j) => long.includes(j.tag) && j.providerJobId).length === 2, 'both long jobs run at their providers');
    for (const id of long) expect((await post('/api/sessions', { action: 'terminate', id })).status).toBe(200);
    await expect.poll(() => seen('POST', /^\/v1\/responses\/[^/]+\/cancel$/).length, { timeout: 20_000 }).toBe(1);
    await expect.poll(() => seen('POST', /^\/v1\/sessions\/[^/]+\/events$/).filter((r) => r.body.events?.[0]?.type === 'user.interrupt').length, { timeout: 20_000 }).toBe(1);
    await expect.poll(() => seen('POST', /^\/v1\/vaults\/[^/]+\/archive$/).length, { timeout: 20_000 }).toBe(2);
    await settle(drained, 'the stopped jobs were told');

    // An image a turn asks for, with its description (A's Responses API with the image as input).
    await orch({ priority: 'anthropic,openai,mistral,zai,router' });
    emu.script([
      { tools: [{ name: 'image_generate', args: { prompt: 'a red desk lamp', name: 'lamp', describe: true } }] },
      { match: { path: '/v1/responses' }, text: 'A red desk lamp on a white desk.' },
      { match: { path: '/v1/messages' }, turn: TURN },
    ]);
    expect(await device.command('TURN draw a red desk lamp', 60_000)).toContain('Battery is at 80%.');
    expect(seen('POST', /^\/v1\/images\/generations$/)).toHaveLength(1);
    expect(seen('POST', /^\/v1\/responses$/).some((r) => JSON.stringify(r.body.input).includes('input_image'))).toBe(true);
    // Speech: for the speaker (WAV), and a voice message to the owner's chat (Ogg Opus) once voice replies are on.
    expect(await device.command('SPKSAY Hello from the wire test.', 30_000)).toMatch(/spoken/);
    emu.script([{ match: { path: '/v1/messages' }, turn: turnObject('Voice replies are on.', { device: [{ config: { ttsOn: true } }] }) }]);
    expect(await device.command('TURN turn voice replies on', 30_000)).toContain('Voice replies are on.');
    emu.script([{ match: { path: '/v1/messages' }, tools: [{ name: 'reply_telegram', args: { text: 'Your notes say: buy milk.', voice: true } }] }, { match: { path: '/v1/messages' }, turn: TURN }]);
    expect(await device.command('TURN tell me in the chat', 30_000)).toContain('Battery is at 80%.');
    await rig.bot!.bot.waitSent(() => rig.bot!.bot.to(OWNER).some((m) => m.method === 'sendVoice'), 30_000);
    expect(seen('POST', /^\/v1\/audio\/speech$/).map((r) => r.body.response_format)).toEqual(['wav', 'opus']);
    // A guest's message screened by A's moderation, then (without an A key) by C's.
    expect((await device.tool(rig.token, 'tenant.set_role', { chat: GUEST, role: 'guest' })).isError).toBe(false);
    expect((await post('/api/chat', { moderate_in: '1' })).status).toBe(200);
    for (const key of ['sk-e2e-openai', '']) {
      await orch({ key_openai: key });
      emu.script([{ match: { path: '/v1/moderations' }, moderation: { categories: [] } }, { match: { path: '/v1/messages' }, turn: TURN }]);
      expect(await rig.ask(GUEST, `hello (${key ? 'A' : 'C'} screens)`)).toBe('Battery is at 80%.');
    }
    await orch({ key_openai: 'sk-e2e-openai' });
    expect((await post('/api/chat', { moderate_in: '0' })).status).toBe(200);
    expect(seen('POST', /^\/v1\/moderations$/).map((r) => r.host)).toEqual(['api.openai.com', 'api.mistral.ai']);
    // The model lists of every keyed provider (B's longest page: limit=1000).
    expect((await device.fetch('/api/models?refresh=1', { token: rig.token })).status).toBe(200);
    const lists = seen('GET', /\/models$/);
    expect(lists.map((r) => r.host)).toEqual(expect.arrayContaining(['api.openai.com', 'api.anthropic.com', 'api.mistral.ai']));
    expect(lists.find((r) => r.host === 'api.anthropic.com')!.query).toBe('?limit=1000');

    const refused = after().filter((r) => r.refused && r.behaviour === undefined);
    expect(refused.map((r) => `${r.method} ${r.path}: ${r.refused!.message}`)).toEqual([]);
    captured.push(...after());
  }, 300_000);

  it('every request to a provider host is judged, and type-checks against the SDK request types; a wrong one of each kind fails the same check', () => {
    const unjudged = captured.filter((r) => !PROVIDER_HOSTS.has(r.host) || judge(r) === null).map((r) => `${r.method} ${r.host}${r.path}`);
    expect(unjudged, 'requests nothing judges: add their SDK type to judge()').toEqual([]);
    const lines: string[] = [HEADER];
    const counts: Record<string, number> = {};
    captured.forEach((r, i) => {
      const j = judge(r)!;
      // Mistral's TypeScript types are the zod schemas' output (defaults filled in: stream, index, prefix), so its bodies are judged by the schemas themselves below.
      if (!('ts' in j)) return;
      counts[j.ts] = (counts[j.ts] ?? 0) + 1;
      lines.push(`// ${r.method} ${r.host}${r.path}${r.method === 'GET' ? r.query : ''}\nexport const b${i}: ${j.ts} = ${JSON.stringify(j.value, null, 1)};\n`);
    });
    for (const t of KINDS) expect(counts[t] ?? 0, `no ${t} request was captured`).toBeGreaterThan(0);
    expect(typecheck('captured.ts', lines.join('\n'))).toEqual([]);
    // The negative control: one wrong request of each kind, each on its own line, and each line must fail the same check.
    const first = HEADER.split('\n').length;
    const wrong = typecheck('negative-control.ts', HEADER + NEGATIVE.map(([type, value], i) => `export const n${i}: ${type} = ${value};`).join('\n') + '\n');
    const failing = new Set(wrong.map((d) => Number(/negative-control\.ts:(\d+): /.exec(d)?.[1])));
    expect(NEGATIVE.filter((_n, i) => !failing.has(first + i)).map(([type, value]) => `${type} ${value}`), 'wrong requests the SDK types accepted').toEqual([]);
    expect(new Set(NEGATIVE.map(([t]) => t))).toEqual(new Set(KINDS));
  }, 120_000);

  it("Mistral's bodies and queries pass the SDK's zod schemas unchanged", () => {
    const mistral = captured.filter((r) => r.host === 'api.mistral.ai');
    const kinds = new Set<string>();
    for (const r of mistral) {
      const j = judge(r);
      if (!j || !('zod' in j)) throw new Error(`${r.method} ${r.path} is not judged by a Mistral schema`);
      kinds.add(j.zod);
      // The schema fills its defaults (stream, a tool call's index, an entry's prefix); everything the device sent must come out as sent.
      const value = j.value as Record<string, unknown>;
      let out: unknown;
      if (j.zod === 'MistralModelList') out = ListModelsV1ModelsGetRequest$outboundSchema.parse(value);
      else if (j.zod === 'MistralModeration') {
        // The SDK's ClassificationRequest calls the wire's input 'inputs'.
        const { input, ...rest } = camel(value) as Record<string, unknown>;
        out = ClassificationRequest$outboundSchema.parse({ ...rest, inputs: input });
      } else {
        const schema = { MistralConversation: ConversationRequest$outboundSchema, MistralConversationStream: ConversationStreamRequest$outboundSchema, MistralChat: ChatCompletionRequest$outboundSchema, MistralChatStream: ChatCompletionStreamRequest$outboundSchema }[j.zod];
        out = schema.parse(camel(value));
      }
      expect(JSON.parse(JSON.stringify(out)), `${r.method} ${r.path}`).toMatchObject(value);
    }
    expect([...kinds].sort()).toEqual(['MistralChat', 'MistralChatStream', 'MistralConversation', 'MistralConversationStream', 'MistralModelList', 'MistralModeration']);
    // Negative controls: a field the schema does not know is dropped (the comparison above would catch it), a wrong type throws.
    const out = ChatCompletionRequest$outboundSchema.parse(camel({ model: 'm', messages: [{ role: 'user', content: 'x' }], store: false })) as Record<string, unknown>;
    expect(out['store']).toBeUndefined();
    expect(() => ChatCompletionRequest$outboundSchema.parse(camel({ model: 'm', messages: 'hi' }))).toThrow();
    expect(() => ConversationRequest$outboundSchema.parse(camel({ model: 'm', inputs: [{ type: 'function.result', tool_call_id: 'abcdefghi' }] }))).toThrow();
    expect(() => ClassificationRequest$outboundSchema.parse({ model: 'm' })).toThrow();
    expect(() => ClassificationRequest$outboundSchema.parse({ model: 'm', inputs: [{ text: 'x' }] })).toThrow();
    expect(() => ListModelsV1ModelsGetRequest$outboundSchema.parse({ provider: 5 })).toThrow();
  });
});

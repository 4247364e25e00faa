// The parsers fed answers typed with the official SDKs' response types (this
// file is type-checked with the rest of the tests by test/unit/repo-checks):
// every Messages stop reason (Record<StopReason, ...>: a reason the SDK adds
// fails the type-check until it is handled here), every Messages content
// block kind, every Responses status and output item kind, every
// chat-completions finish_reason,
// and Mistral's answers parsed by the SDK's zod schemas. No answer throws,
// and each is read as what it is.
import type { ContentBlock, Message, StopReason } from '@anthropic-ai/sdk/resources/messages';
import type { Response, ResponseOutputItem } from 'openai/resources/responses/responses';
import type { ChatCompletion } from 'openai/resources/chat/completions';
import { ChatCompletionResponse$inboundSchema, ConversationResponse$inboundSchema } from '@mistralai/mistralai/models/components';
import { describe, expect, it } from 'vitest';
import { anthropicBackend } from '../../../src/providers/anthropic.ts';
import { mistralBackend } from '../../../src/providers/mistral.ts';
import { openaiBackend } from '../../../src/providers/openai.ts';
import { routerBackend } from '../../../src/providers/router.ts';
import type { RoundResult } from '../../../src/contracts/index.ts';
import { roundRequest } from '../../support/provider-fake.ts';

const enc = (v: unknown): Uint8Array => new TextEncoder().encode(JSON.stringify(v));
const TURN = { reply: 'ok', memory: '', ask: '', device: null, mem_write: null, mem_query: null, session_ops: null, scratchpad: null };

const usage: Message['usage'] = {
  input_tokens: 10,
  output_tokens: 5,
  cache_creation_input_tokens: 0,
  cache_read_input_tokens: 0,
  cache_creation: null,
  inference_geo: null,
  server_tool_use: null,
  service_tier: 'standard',
} as Message['usage'];

function message(stop_reason: StopReason, content: ContentBlock[]): Message {
  return { id: 'msg_1', type: 'message', role: 'assistant', model: 'claude-sonnet-4-5', content, stop_reason, stop_sequence: null, usage } as Message;
}

const toolUse = { type: 'tool_use', id: 'toolu_1', name: 'device_status', input: {}, caller: { type: 'direct' } } as unknown as ContentBlock;
const text = (t: string): ContentBlock => ({ type: 'text', text: t, citations: null }) as ContentBlock;

/** What each stop reason reads as (with the content it comes with). */
const STOPS: Record<StopReason, { content: ContentBlock[]; kind: RoundResult['kind']; error?: string }> = {
  end_turn: { content: [text(JSON.stringify(TURN))], kind: 'turn' },
  max_tokens: { content: [], kind: 'error', error: 'malformed' },
  stop_sequence: { content: [text(JSON.stringify(TURN))], kind: 'turn' },
  tool_use: { content: [toolUse], kind: 'tools' },
  pause_turn: { content: [{ type: 'server_tool_use', id: 'srvtoolu_1', name: 'web_search', input: {} } as unknown as ContentBlock], kind: 'continue' },
  refusal: { content: [], kind: 'error', error: 'refused' },
  model_context_window_exceeded: { content: [], kind: 'error', error: 'context-overflow' },
};

/** One block of every kind the SDK's ContentBlock union has. */
const BLOCKS: Record<ContentBlock['type'], Record<string, unknown>> = {
  text: { type: 'text', text: 'hello', citations: null },
  thinking: { type: 'thinking', thinking: 'hm', signature: 'sig' },
  redacted_thinking: { type: 'redacted_thinking', data: 'xyz' },
  tool_use: { type: 'tool_use', id: 'toolu_2', name: 'device_status', input: {} },
  server_tool_use: { type: 'server_tool_use', id: 'srvtoolu_2', name: 'web_search', input: {} },
  web_search_tool_result: { type: 'web_search_tool_result', tool_use_id: 'srvtoolu_2', content: [] },
  web_fetch_tool_result: { type: 'web_fetch_tool_result', tool_use_id: 'srvtoolu_3', content: { type: 'web_fetch_tool_result_error', error_code: 'url_not_accessible' } },
  code_execution_tool_result: { type: 'code_execution_tool_result', tool_use_id: 'srvtoolu_4', content: { type: 'code_execution_tool_result_error', error_code: 'unavailable' } },
  bash_code_execution_tool_result: { type: 'bash_code_execution_tool_result', tool_use_id: 'srvtoolu_5', content: { type: 'bash_code_execution_tool_result_error', error_code: 'unavailable' } },
  text_editor_code_execution_tool_result: { type: 'text_editor_code_execution_tool_result', tool_use_id: 'srvtoolu_6', content: { type: 'text_editor_code_execution_tool_result_error', error_code: 'unavailable', error_message: null } },
  tool_search_tool_result: { type: 'tool_search_tool_result', tool_use_id: 'srvtoolu_7', content: { type: 'tool_search_tool_result_error', error_code: 'unavailable' } },
  container_upload: { type: 'container_upload', file_id: 'file_1' },
};

const RESPONSE_STATUSES: Record<NonNullable<Response['status']>, RoundResult['kind'] | 'error'> = {
  completed: 'tools',
  failed: 'error',
  in_progress: 'tools',
  cancelled: 'tools',
  queued: 'tools',
  incomplete: 'tools',
};

/**
 * What a Responses answer made of one output item of each kind reads as: a
 * message is the turn, a function_call a tool call, reasoning and the
 * provider's own tool items (kept or dropped) alone are no answer.
 */
const OUTPUT_ITEMS: Record<ResponseOutputItem['type'], RoundResult['kind']> = {
  message: 'turn',
  function_call: 'tools',
  file_search_call: 'error',
  function_call_output: 'error',
  web_search_call: 'error',
  computer_call: 'error',
  computer_call_output: 'error',
  reasoning: 'error',
  program: 'error',
  program_output: 'error',
  tool_search_call: 'error',
  tool_search_output: 'error',
  additional_tools: 'error',
  compaction: 'error',
  image_generation_call: 'error',
  code_interpreter_call: 'error',
  local_shell_call: 'error',
  local_shell_call_output: 'error',
  shell_call: 'error',
  shell_call_output: 'error',
  apply_patch_call: 'error',
  apply_patch_call_output: 'error',
  mcp_call: 'error',
  mcp_list_tools: 'error',
  mcp_approval_request: 'error',
  mcp_approval_response: 'error',
  custom_tool_call: 'error',
  custom_tool_call_output: 'error',
};

const FINISH: Record<ChatCompletion.Choice['finish_reason'], { kind: RoundResult['kind']; error?: string }> = {
  stop: { kind: 'turn' },
  length: { kind: 'error', error: 'malformed' },
  tool_calls: { kind: 'tools' },
  content_filter: { kind: 'error', error: 'refused' },
  function_call: { kind: 'error', error: 'malformed' },
};

describe('answers typed with the SDKs', () => {
  const b = anthropicBackend();
  it.each(Object.entries(STOPS))('Messages stop_reason %s', (stop, want) => {
    const r = b.parse(200, enc(message(stop as StopReason, want.content)), roundRequest('anthropic'));
    expect(r.kind).toBe(want.kind);
    if (want.error) expect(r).toMatchObject({ error: want.error });
    expect(r.usage).toEqual({ input: 10, output: 5, reasoning: 0, cached: 0 });
  });

  it.each(Object.keys(BLOCKS))('Messages content block %s never breaks the parser', (kind) => {
    const r = b.parse(200, enc(message('end_turn', [BLOCKS[kind as ContentBlock['type']] as unknown as ContentBlock])), roundRequest('anthropic'));
    if (kind === 'text') expect(r).toMatchObject({ kind: 'turn', json: 'hello' });
    else if (kind === 'tool_use') expect(r).toMatchObject({ kind: 'tools', calls: [{ name: 'device_status' }] });
    else expect(r).toMatchObject({ kind: 'error', error: 'malformed' });
  });

  const a = openaiBackend();
  it.each(Object.keys(RESPONSE_STATUSES))('Responses status %s', (status) => {
    const answer: Pick<Response, 'id' | 'object' | 'status' | 'output' | 'model' | 'error'> = {
      id: 'resp_1',
      object: 'response',
      model: 'gpt-5-mini',
      status: status as Response['status'],
      error: status === 'failed' ? { code: 'server_error', message: 'boom' } : null,
      output: [{ type: 'function_call', id: 'fc_1', call_id: 'call_1', name: 'device_status', arguments: '{}', status: 'completed' }],
    };
    const r = a.parse(200, enc(answer), roundRequest('openai'));
    expect(r.kind).toBe(RESPONSE_STATUSES[status as NonNullable<Response['status']>]);
  });

  it.each(Object.entries(OUTPUT_ITEMS))('Responses output item %s never breaks the parser', (type, kind) => {
    const item =
      type === 'message'
        ? { type, id: 'msg_1', role: 'assistant', status: 'completed', content: [{ type: 'output_text', text: JSON.stringify(TURN), annotations: [] }] }
        : type === 'function_call'
          ? { type, id: 'fc_1', call_id: 'call_1', name: 'device_status', arguments: '{}', status: 'completed' }
          : { type, id: `${type}_1`, status: 'completed' };
    const r = a.parse(200, enc({ id: 'resp_1', object: 'response', status: 'completed', output: [item] }), roundRequest('openai'));
    expect(r.kind).toBe(kind);
  });

  const router = routerBackend();
  it.each(Object.entries(FINISH))('chat finish_reason %s', (finish, want) => {
    const choice: ChatCompletion.Choice = {
      index: 0,
      finish_reason: finish as ChatCompletion.Choice['finish_reason'],
      logprobs: null,
      message: finish === 'tool_calls' ? { role: 'assistant', content: null, refusal: null, tool_calls: [{ id: 'call_1', type: 'function', function: { name: 'device_status', arguments: '{}' } }] } : { role: 'assistant', content: finish === 'stop' ? JSON.stringify(TURN) : null, refusal: null },
    };
    const answer: ChatCompletion = { id: 'c1', object: 'chat.completion', created: 1, model: 'gpt-5-mini', choices: [choice], usage: { prompt_tokens: 3, completion_tokens: 2, total_tokens: 5 } };
    const r = router.parse(200, enc(answer), roundRequest('router', { model: 'openai/gpt-5-mini' }));
    expect(r.kind).toBe(want.kind);
    if (want.error) expect(r).toMatchObject({ error: want.error });
  });

  it("Mistral's answers, as its zod schemas read them, are read alike by the device (content chunks included)", () => {
    const c = mistralBackend();
    const chat = { id: 'x', object: 'chat.completion', model: 'mistral-medium-latest', created: 1, usage: { prompt_tokens: 3, completion_tokens: 2, total_tokens: 5 }, choices: [{ index: 0, finish_reason: 'stop', message: { role: 'assistant', content: [{ type: 'thinking', thinking: [{ type: 'text', text: 'hm' }] }, { type: 'text', text: JSON.stringify(TURN) }] } }] };
    expect(() => ChatCompletionResponse$inboundSchema.parse(chat)).not.toThrow();
    expect(c.parse(200, enc(chat), roundRequest('mistral'))).toMatchObject({ kind: 'turn', usage: { input: 3, output: 2 } });
    const now = '2026-11-26T00:00:00Z';
    const conv = { object: 'conversation.response', conversation_id: 'conv_1', usage: { prompt_tokens: 3, completion_tokens: 2, total_tokens: 5 }, outputs: [{ object: 'entry', type: 'message.output', created_at: now, completed_at: now, id: 'msg_1', model: 'mistral-medium-latest', role: 'assistant', content: [{ type: 'text', text: JSON.stringify(TURN) }] }] };
    expect(() => ConversationResponse$inboundSchema.parse(conv)).not.toThrow();
    expect(c.parse(200, enc(conv), roundRequest('mistral', { mode: 'single' }))).toMatchObject({ kind: 'turn' });
  });
});

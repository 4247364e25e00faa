// The provider emulator's streamed answers (a request with stream: true):
// the whole answer the emulator would give (provider-emulator.mjs success())
// spelled as the service's Server-Sent Events, paced like a hosted model, and
// the failures a stream can carry. Each dialect as its service streams it (the
// official SDKs' streaming clients consume these in
// test/unit/providers/stream-sdk.test.ts):
//
//   responses      openai ResponseStreamEvent: response.created, in_progress,
//                  per item output_item.added, content_part.added,
//                  output_text.delta / function_call_arguments.delta /
//                  refusal.delta, their .done, output_item.done, then
//                  response.completed (or .incomplete) carrying the whole response
//   messages       @anthropic-ai/sdk RawMessageStreamEvent: message_start,
//                  content_block_start / ping / content_block_delta (text_delta,
//                  input_json_delta, thinking_delta, signature_delta) /
//                  content_block_stop, message_delta (stop_reason, usage), message_stop
//   chat           chat.completion.chunk: the role, content or tool-call argument
//                  pieces (Mistral sends each tool call whole, as its API does), the
//                  finish_reason, the usage (OpenAI only with
//                  stream_options.include_usage; Mistral and Z.ai always), [DONE]
//   conversations  Mistral ConversationEvents: conversation.response.started,
//                  message.output.delta, conversation.response.done (usage)
//
// Pacing (a behaviour's pace: { firstMs, tokensPerS }): nothing for firstMs,
// then one token (4 characters of text or JSON, never a split character) every
// 1000/tokensPerS ms. The same pace delays a whole answer by firstMs plus its
// tokens' time, so both paths wait for the same model. Failures: midError
// ({ afterTokens }) sends the dialect's error event after that many tokens;
// cut ({ afterTokens }) drops the connection there.

const TOKEN_CHARS = 4;

/** Text in model-sized pieces (4 characters; code points are never split). */
export function tokensOf(text) {
  const chars = Array.from(String(text ?? ''));
  const out = [];
  for (let i = 0; i < chars.length; i += TOKEN_CHARS) out.push(chars.slice(i, i + TOKEN_CHARS).join(''));
  return out;
}

/** Events of one streamed answer: [{ event?, data, token? }] (data an object, or a string such as [DONE]). */
export function streamEvents(dialect, family, answer, request = {}) {
  if (dialect === 'responses') return responsesEvents(answer);
  if (dialect === 'messages') return messagesEvents(answer);
  if (dialect === 'conversations') return conversationEvents(answer);
  return chatEvents(family, answer, request);
}

function responsesEvents(resp) {
  const out = [];
  let seq = 0;
  const ev = (type, fields, token = false) => out.push({ event: type, data: { type, sequence_number: seq++, ...fields }, token });
  const shell = { ...resp, status: 'in_progress', output: [], usage: null };
  ev('response.created', { response: shell });
  ev('response.in_progress', { response: shell });
  resp.output.forEach((item, output_index) => {
    const item_id = item.id;
    if (item.type === 'function_call') {
      ev('response.output_item.added', { output_index, item: { ...item, arguments: '', status: 'in_progress' } });
      for (const delta of tokensOf(item.arguments)) ev('response.function_call_arguments.delta', { item_id, output_index, delta }, true);
      ev('response.function_call_arguments.done', { item_id, output_index, name: item.name, arguments: item.arguments });
    } else if (item.type === 'message') {
      ev('response.output_item.added', { output_index, item: { ...item, content: [], status: 'in_progress' } });
      item.content.forEach((part, content_index) => {
        if (part.type === 'refusal') {
          ev('response.content_part.added', { item_id, output_index, content_index, part: { type: 'refusal', refusal: '' } });
          for (const delta of tokensOf(part.refusal)) ev('response.refusal.delta', { item_id, output_index, content_index, delta }, true);
          ev('response.refusal.done', { item_id, output_index, content_index, refusal: part.refusal });
        } else {
          ev('response.content_part.added', { item_id, output_index, content_index, part: { type: 'output_text', text: '', annotations: [], logprobs: [] } });
          for (const delta of tokensOf(part.text)) ev('response.output_text.delta', { item_id, output_index, content_index, delta, logprobs: [] }, true);
          ev('response.output_text.done', { item_id, output_index, content_index, text: part.text, logprobs: [] });
        }
        ev('response.content_part.done', { item_id, output_index, content_index, part });
      });
    } else ev('response.output_item.added', { output_index, item });
    ev('response.output_item.done', { output_index, item });
  });
  ev(resp.status === 'incomplete' ? 'response.incomplete' : 'response.completed', { response: resp });
  return out;
}

function messagesEvents(msg) {
  const out = [];
  const ev = (type, fields, token = false) => out.push({ event: type, data: { type, ...fields }, token });
  const { content, stop_reason, stop_sequence, usage } = msg;
  ev('message_start', { message: { ...msg, content: [], stop_reason: null, stop_sequence: null, usage: { ...usage, output_tokens: 1 } } });
  content.forEach((block, index) => {
    if (block.type === 'text') {
      ev('content_block_start', { index, content_block: { type: 'text', text: '', citations: null } });
      if (index === 0) ev('ping', {});
      for (const text of tokensOf(block.text)) ev('content_block_delta', { index, delta: { type: 'text_delta', text } }, true);
    } else if (block.type === 'tool_use') {
      ev('content_block_start', { index, content_block: { ...block, input: {} } });
      if (index === 0) ev('ping', {});
      const json = JSON.stringify(block.input);
      for (const partial_json of tokensOf(json)) ev('content_block_delta', { index, delta: { type: 'input_json_delta', partial_json } }, true);
    } else if (block.type === 'thinking') {
      ev('content_block_start', { index, content_block: { type: 'thinking', thinking: '', signature: '' } });
      for (const thinking of tokensOf(block.thinking)) ev('content_block_delta', { index, delta: { type: 'thinking_delta', thinking } }, true);
      ev('content_block_delta', { index, delta: { type: 'signature_delta', signature: block.signature } });
    } else ev('content_block_start', { index, content_block: block });
    ev('content_block_stop', { index });
  });
  ev('message_delta', { delta: { stop_reason, stop_sequence: stop_sequence ?? null }, usage: { output_tokens: usage.output_tokens, input_tokens: usage.input_tokens, cache_creation_input_tokens: usage.cache_creation_input_tokens ?? null, cache_read_input_tokens: usage.cache_read_input_tokens ?? null, server_tool_use: null } });
  ev('message_stop', {});
  return out;
}

function chatEvents(family, completion, request) {
  const out = [];
  const { id, created, model } = completion;
  const choice = completion.choices[0];
  const m = choice.message;
  const mistral = family === 'mistral';
  const chunk = (delta, finish_reason = null, token = false, extra = {}) =>
    out.push({ data: { id, object: 'chat.completion.chunk', created, model, choices: [{ index: 0, delta, finish_reason, ...(mistral ? {} : { logprobs: null }) }], ...extra }, token });
  chunk({ role: 'assistant', content: '' });
  const text = typeof m.content === 'string' ? m.content : Array.isArray(m.content) ? m.content.filter((c) => c.type === 'text').map((c) => c.text).join('') : '';
  for (const piece of tokensOf(text)) chunk({ content: piece }, null, true);
  if (typeof m.refusal === 'string') for (const piece of tokensOf(m.refusal)) chunk({ refusal: piece }, null, true);
  (m.tool_calls ?? []).forEach((tc, index) => {
    if (mistral) return chunk({ tool_calls: [{ id: tc.id, function: tc.function, index }] }, null, true);
    chunk({ tool_calls: [{ index, id: tc.id, type: 'function', function: { name: tc.function.name, arguments: '' } }] });
    for (const piece of tokensOf(tc.function.arguments)) chunk({ tool_calls: [{ index, function: { arguments: piece } }] }, null, true);
  });
  // Usage: in the last chunk for Mistral and Z.ai; OpenAI-style servers only when asked, in a chunk of its own with no choices.
  const usageAlways = mistral || family === 'zai';
  chunk({}, choice.finish_reason, false, usageAlways ? { usage: completion.usage } : {});
  if (!usageAlways && request.stream_options?.include_usage) out.push({ data: { id, object: 'chat.completion.chunk', created, model, choices: [], usage: completion.usage } });
  out.push({ data: '[DONE]' });
  return out;
}

function conversationEvents(conv) {
  const out = [];
  const now = new Date().toISOString();
  const ev = (type, fields, token = false) => out.push({ event: type, data: { type, created_at: now, ...fields }, token });
  ev('conversation.response.started', { conversation_id: conv.conversation_id });
  conv.outputs.forEach((o, output_index) => {
    const text = typeof o.content === 'string' ? o.content : o.content.filter((c) => c.type === 'text').map((c) => c.text).join('');
    for (const content of tokensOf(text)) ev('message.output.delta', { output_index, id: o.id, content_index: 0, model: o.model, agent_id: null, role: 'assistant', content }, true);
  });
  ev('conversation.response.done', { usage: conv.usage });
  return out;
}

/**
 * The dialect's error in mid-stream (what each service sends when a generation fails after it began): Responses an
 * error event (ResponseErrorEvent) then response.failed with the error; Messages an error event (overloaded_error);
 * chat completions a chunk holding an error object; Mistral's conversations conversation.response.error.
 */
export function errorEvents(dialect, family, response = null) {
  if (dialect === 'responses') {
    const error = { code: 'server_error', message: 'The server had an error while processing your request.' };
    return [
      { event: 'error', data: { type: 'error', sequence_number: 0, ...error, param: null } },
      { event: 'response.failed', data: { type: 'response.failed', sequence_number: 0, response: { ...(response ?? {}), status: 'failed', error, output: [], usage: null } } },
    ];
  }
  if (dialect === 'messages') return [{ event: 'error', data: { type: 'error', error: { type: 'overloaded_error', message: 'Overloaded' } } }];
  if (dialect === 'conversations') return [{ event: 'conversation.response.error', data: { type: 'conversation.response.error', created_at: new Date().toISOString(), message: 'Service unavailable', code: 3000 } }];
  return [{ data: family === 'mistral' ? { object: 'error', message: 'Service unavailable', type: 'internal_error', code: 3000 } : { error: { message: 'The server had an error while processing your request.', type: 'server_error', param: null, code: null } } }];
}

/** Tokens an answer's stream carries (the whole answer's pace counts the same tokens). */
export function tokenCount(events) {
  return events.filter((e) => e.token).length;
}

function frame(e) {
  const data = typeof e.data === 'string' ? e.data : JSON.stringify(e.data);
  return `${e.event ? `event: ${e.event}\n` : ''}data: ${data}\n\n`;
}

/**
 * Writes the events as an event stream, paced. later(fn, ms) schedules (the emulator's timers).
 * options: pace {firstMs, tokensPerS}, midError {afterTokens}, cut {afterTokens}, dialect, family.
 */
export function sendStream(res, events, later, { pace = null, midError = null, cut = null, dialect, family, answer = null } = {}) {
  res.writeHead(200, { 'Content-Type': 'text/event-stream; charset=utf-8', 'Cache-Control': 'no-cache' });
  const gap = pace?.tokensPerS ? 1000 / pace.tokensPerS : 0;
  let i = 0;
  let tokens = 0;
  /** Writes up to and including the next token (all of the rest when unpaced); false when the stream ended. */
  const step = () => {
    if (res.destroyed) return false;
    let text = '';
    while (i < events.length) {
      const e = events[i++];
      if (e.token) {
        if (midError && tokens >= midError.afterTokens) {
          res.write(text + errorEvents(dialect, family, answer).map(frame).join(''));
          res.end();
          return false;
        }
        if (cut && tokens >= cut.afterTokens) {
          res.write(text);
          res.destroy();
          return false;
        }
        tokens++;
        text += frame(e);
        if (gap) break;
        continue;
      }
      text += frame(e);
    }
    if (text) res.write(text);
    if (i >= events.length) {
      res.end();
      return false;
    }
    return true;
  };
  const paced = () => {
    if (step()) later(paced, gap);
  };
  if (pace?.firstMs) later(paced, pace.firstMs);
  else paced();
}

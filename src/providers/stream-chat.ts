// Streamed chat-completions rounds (stream: true: provider C's tool loop,
// Z.ai, the router, the custom endpoint's chat style, the offline demo):
// chat.completion.chunk events, each choices[0].delta with a piece of content
// (a string, or Mistral's content chunks), of a refusal, or of tool calls (by
// index: the id and name in the first piece, the arguments in pieces), and
// finish_reason; the usage in the last chunk (OpenAI's with
// stream_options.include_usage, Mistral's and Z.ai's always); `data: [DONE]`
// closes it. An error object in a chunk, or Mistral's finish_reason "error",
// ends the round. The pieces are assembled into the chat completion the
// whole-answer parser reads. Handed on as it grows: orch_turn's arguments and,
// in a single-shot round, the content.
//
// And provider C's streamed single-shot round (the conversations API with
// stream: true; the SDK's ConversationEvents): message.output.delta pieces of
// the answer's text (handed on), function.call.delta, conversation.response.done
// with the usage, conversation.response.error.

import { isPlainObject, stringify } from '../util/json.ts';
import { readChoice } from './chat.ts';
import { contentText } from './common.ts';
import { readOutputs } from './mistral.ts';
import type { ProviderId } from './settings.ts';
import { cutShort, eventObject, Pieces, streamFailure, type Obj, type StreamReader, type TurnTextSink } from './stream.ts';
import { usageOf } from './usage.ts';
import type { RoundRequest, RoundResult } from '../contracts/index.ts';

interface Call {
  id: string;
  name: string;
  args: Pieces;
}

export class ChatReader implements StreamReader {
  private content = new Pieces();
  private refusal = new Pieces();
  private calls: Call[] = [];
  private finish_: unknown = null;
  private usage: Obj | null = null;
  private done = false;
  private error: RoundResult | null = null;

  constructor(
    private readonly provider: ProviderId,
    private readonly req: RoundRequest,
    private readonly onText: TurnTextSink,
  ) {}

  event(_name: string, data: string): void {
    if (this.error || this.done) return;
    if (data.trim() === '[DONE]') {
      this.done = true;
      return;
    }
    const e = eventObject(data);
    if (!e) return;
    if (isPlainObject(e['error'])) {
      this.error = streamFailure(this.provider, e['error']['code'] ?? e['error']['type'], e['error']['message']);
      return;
    }
    if (isPlainObject(e['usage'])) this.usage = e['usage'];
    const choice = Array.isArray(e['choices']) ? e['choices'][0] : undefined;
    if (!isPlainObject(choice)) return;
    const d = choice['delta'];
    if (isPlainObject(d)) this.delta(d);
    const f = choice['finish_reason'];
    if (f === 'error') this.error = streamFailure(this.provider, 'error', 'the provider ended the answer with an error');
    else if (typeof f === 'string') this.finish_ = f;
  }

  private delta(d: Obj): void {
    const c = d['content'];
    const text = typeof c === 'string' ? c : Array.isArray(c) ? contentText(c) : '';
    if (text) {
      this.content.add(text);
      if (this.req.mode === 'single') this.onText(text);
    }
    if (typeof d['refusal'] === 'string') this.refusal.add(d['refusal']);
    if (!Array.isArray(d['tool_calls'])) return;
    for (const tc of d['tool_calls'] as unknown[]) {
      if (!isPlainObject(tc)) continue;
      const f = isPlainObject(tc['function']) ? tc['function'] : {};
      const id = typeof tc['id'] === 'string' ? tc['id'] : '';
      // By index (OpenAI's pieces); a server that sends whole calls without one is matched by id, else appended.
      let call = typeof tc['index'] === 'number' ? this.calls[tc['index']] : id ? this.calls.find((x) => x.id === id) : undefined;
      if (!call) {
        call = { id, name: '', args: new Pieces() };
        if (typeof tc['index'] === 'number') this.calls[tc['index']] = call;
        else this.calls.push(call);
      }
      if (id && !call.id) call.id = id;
      if (typeof f['name'] === 'string' && f['name']) call.name = f['name'];
      const args = typeof f['arguments'] === 'string' ? f['arguments'] : isPlainObject(f['arguments']) ? stringify(f['arguments']) : '';
      if (args) {
        call.args.add(args);
        if (call.name === this.req.schemaName) this.onText(args);
      }
    }
  }

  finish(): RoundResult {
    if (this.error) return this.error;
    if (!this.done && this.finish_ === null) return cutShort(this.provider);
    const calls = this.calls.filter(Boolean).map((c) => ({ id: c.id, type: 'function', function: { name: c.name, arguments: c.args.text() } }));
    const message: Obj = { role: 'assistant', content: this.content.empty ? null : this.content.text() };
    if (!this.refusal.empty) message['refusal'] = this.refusal.text();
    if (calls.length) message['tool_calls'] = calls;
    const obj: Obj = { choices: [{ message, finish_reason: this.finish_ }], ...(this.usage ? { usage: this.usage } : {}) };
    const usage = usageOf(obj);
    const r = readChoice(this.provider, obj, this.req);
    return usage ? { ...r, usage } : r;
  }
}

export class ConversationsReader implements StreamReader {
  private text = new Pieces();
  private calls = new Map<string, { name: string; args: Pieces }>();
  private usage: Obj | null = null;
  private done = false;
  private error: RoundResult | null = null;

  constructor(
    private readonly req: RoundRequest,
    private readonly onText: TurnTextSink,
  ) {}

  event(name: string, data: string): void {
    if (this.error || this.done) return;
    const e = eventObject(data);
    if (!e) return;
    const type = typeof e['type'] === 'string' ? e['type'] : name;
    if (type === 'message.output.delta') {
      const c = e['content'];
      const t = typeof c === 'string' ? c : Array.isArray(c) ? contentText(c) : isPlainObject(c) ? contentText([c]) : '';
      if (t) {
        this.text.add(t);
        this.onText(t);
      }
    } else if (type === 'function.call.delta') {
      const id = String(e['tool_call_id'] ?? e['id'] ?? '');
      const call = this.calls.get(id) ?? { name: '', args: new Pieces() };
      this.calls.set(id, call);
      if (typeof e['name'] === 'string' && e['name']) call.name = e['name'];
      if (typeof e['arguments'] === 'string') call.args.add(e['arguments']);
    } else if (type === 'conversation.response.done') {
      if (isPlainObject(e['usage'])) this.usage = e['usage'];
      this.done = true;
    } else if (type === 'conversation.response.error') this.error = streamFailure('mistral', e['code'], e['message']);
  }

  finish(): RoundResult {
    if (this.error) return this.error;
    if (!this.done) return cutShort('mistral');
    const outputs: Obj[] = [{ type: 'message.output', content: this.text.text() }];
    for (const c of this.calls.values()) outputs.push({ type: 'function.call', name: c.name, arguments: c.args.text() });
    const obj: Obj = { outputs, ...(this.usage ? { usage: this.usage } : {}) };
    const usage = usageOf(obj);
    const r = readOutputs(obj, this.req);
    return usage ? { ...r, usage } : r;
  }
}

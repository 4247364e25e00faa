// Provider A's streamed round (Responses API, stream: true; the SDK's
// ResponseStreamEvent): response.created and in_progress, an output item's
// added, deltas and done events, and the closing response.completed,
// response.incomplete or response.failed, which carries the whole response
// (status, output, usage). The output is taken from the closing event, or from
// the output_item.done events where it has none. Handed on as it grows: the
// orch_turn call's arguments (response.function_call_arguments.delta of the
// item announced with that name) and, in a single-shot round, the message's
// text (response.output_text.delta). An `error` event ends the round with the
// provider's code and words.

import { isPlainObject } from '../util/json.ts';
import { readOutput } from './openai.ts';
import { cutShort, eventObject, streamFailure, type Obj, type StreamReader, type TurnTextSink } from './stream.ts';
import { usageOf } from './usage.ts';
import type { RoundRequest, RoundResult } from '../contracts/index.ts';

export class ResponsesReader implements StreamReader {
  private items: Obj[] = [];
  /** output_index of the item whose text is the turn (orch_turn's call, or the message in a single-shot round). */
  private turnAt = -1;
  private final: Obj | null = null;
  private error: RoundResult | null = null;

  constructor(
    private readonly req: RoundRequest,
    private readonly onText: TurnTextSink,
  ) {}

  event(name: string, data: string): void {
    if (this.error || this.final) return;
    const e = eventObject(data);
    if (!e) return;
    const type = typeof e['type'] === 'string' ? e['type'] : name;
    const at = typeof e['output_index'] === 'number' ? e['output_index'] : -1;
    switch (type) {
      case 'response.output_item.added': {
        const item = e['item'];
        if (!isPlainObject(item) || this.turnAt >= 0) return;
        if ((item['type'] === 'function_call' && item['name'] === this.req.schemaName) || (item['type'] === 'message' && this.req.mode === 'single')) this.turnAt = at;
        return;
      }
      case 'response.function_call_arguments.delta':
      case 'response.output_text.delta':
        if (at === this.turnAt && typeof e['delta'] === 'string') this.onText(e['delta']);
        return;
      case 'response.output_item.done':
        if (isPlainObject(e['item']) && at >= 0) this.items[at] = e['item'];
        return;
      case 'response.completed':
      case 'response.incomplete':
      case 'response.failed':
        this.final = isPlainObject(e['response']) ? e['response'] : {};
        return;
      case 'error':
        this.error = streamFailure('openai', e['code'], e['message']);
        return;
    }
  }

  finish(): RoundResult {
    if (this.error) return this.error;
    if (!this.final) return cutShort('openai');
    const obj: Obj = { ...this.final };
    if (!Array.isArray(obj['output']) || obj['output'].length === 0) obj['output'] = this.items.filter(isPlainObject);
    const usage = usageOf(obj);
    const r = readOutput(obj, this.req);
    return usage ? { ...r, usage } : r;
  }
}

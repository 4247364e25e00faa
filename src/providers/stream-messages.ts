// Provider B's streamed round (Messages API, stream: true; the SDK's
// RawMessageStreamEvent), also a custom endpoint in messages style:
// message_start (the message with its input usage), then per content block
// content_block_start, content_block_delta (text_delta, input_json_delta,
// thinking_delta, signature_delta, citations_delta) and content_block_stop,
// then message_delta (stop_reason and the output usage) and message_stop;
// ping events keep the connection alive and an error event ends the round
// (overloaded_error and api_error are worth a retry). The blocks are assembled
// into the message the whole-answer parser reads (a tool_use block's input is
// the JSON its input_json_delta pieces spell). Handed on as it grows: the
// input JSON of orch_turn's tool_use block and, in a single-shot round without
// tools (the schema-less retry), the text.

import { isPlainObject, parseJson } from '../util/json.ts';
import { readContent } from './anthropic.ts';
import type { ProviderId } from './settings.ts';
import { cutShort, eventObject, Pieces, streamFailure, type Obj, type StreamReader, type TurnTextSink } from './stream.ts';
import { usageOf } from './usage.ts';
import type { WireRound } from './common.ts';
import type { RoundResult } from '../contracts/index.ts';

interface Block {
  raw: Obj;
  text: Pieces | null;
  json: Pieces | null;
  thinking: Pieces | null;
  turn: boolean;
}

export class MessagesReader implements StreamReader {
  private blocks: Block[] = [];
  private usage: Obj = {};
  private stop: unknown = null;
  private ended = false;
  private error: RoundResult | null = null;

  constructor(
    private readonly provider: ProviderId,
    private readonly req: WireRound,
    private readonly onText: TurnTextSink,
  ) {}

  event(name: string, data: string): void {
    if (this.error || this.ended) return;
    const e = eventObject(data);
    if (!e) return;
    const type = typeof e['type'] === 'string' ? e['type'] : name;
    const at = typeof e['index'] === 'number' ? e['index'] : -1;
    switch (type) {
      case 'message_start': {
        const m = e['message'];
        if (isPlainObject(m) && isPlainObject(m['usage'])) this.usage = { ...m['usage'] };
        return;
      }
      case 'content_block_start': {
        const b = e['content_block'];
        if (!isPlainObject(b) || at < 0) return;
        const kind = b['type'];
        const turn = (kind === 'tool_use' && b['name'] === this.req.schemaName) || (kind === 'text' && this.req.mode === 'single' && this.req.schemaless === true && this.noTurnYet());
        this.blocks[at] = {
          raw: { ...b },
          text: kind === 'text' ? new Pieces() : null,
          json: kind === 'tool_use' || kind === 'server_tool_use' || kind === 'mcp_tool_use' ? new Pieces() : null,
          thinking: kind === 'thinking' ? new Pieces() : null,
          turn,
        };
        return;
      }
      case 'content_block_delta':
        return this.delta(this.blocks[at], e['delta']);
      case 'content_block_stop':
        return this.close(this.blocks[at]);
      case 'message_delta': {
        const d = e['delta'];
        if (isPlainObject(d) && d['stop_reason'] !== undefined) this.stop = d['stop_reason'];
        // The delta's usage is cumulative: its fields replace the start's.
        if (isPlainObject(e['usage'])) for (const [k, v] of Object.entries(e['usage'])) if (v !== null && v !== undefined) this.usage[k] = v;
        return;
      }
      case 'message_stop':
        this.ended = true;
        return;
      case 'error': {
        const err = isPlainObject(e['error']) ? e['error'] : {};
        this.error = streamFailure(this.provider, err['type'], err['message']);
        return;
      }
    }
  }

  private noTurnYet(): boolean {
    return !this.blocks.some((b) => b?.turn);
  }

  private delta(b: Block | undefined, d: unknown): void {
    if (!b || !isPlainObject(d)) return;
    if (d['type'] === 'text_delta' && typeof d['text'] === 'string' && b.text) {
      b.text.add(d['text']);
      if (b.turn) this.onText(d['text']);
    } else if (d['type'] === 'input_json_delta' && typeof d['partial_json'] === 'string' && b.json) {
      b.json.add(d['partial_json']);
      if (b.turn) this.onText(d['partial_json']);
    } else if (d['type'] === 'thinking_delta' && typeof d['thinking'] === 'string' && b.thinking) b.thinking.add(d['thinking']);
    else if (d['type'] === 'signature_delta' && typeof d['signature'] === 'string') b.raw['signature'] = d['signature'];
  }

  private close(b: Block | undefined): void {
    if (!b) return;
    if (b.text) b.raw['text'] = b.text.text();
    if (b.thinking) b.raw['thinking'] = b.thinking.text();
    if (b.json && !b.json.empty) {
      // The input its pieces spell (without pieces: the input the block started with, {} for a tool without
      // arguments); unreadable JSON stays text for the parser to judge.
      const text = b.json.text();
      const p = parseJson(text);
      b.raw['input'] = p.ok ? p.value : text;
    }
    b.text = b.json = b.thinking = null;
  }

  finish(): RoundResult {
    if (this.error) return this.error;
    if (!this.ended) return cutShort(this.provider);
    for (const b of this.blocks) if (b) this.close(b);
    const obj: Obj = { content: this.blocks.filter(Boolean).map((b) => b.raw), stop_reason: this.stop, usage: this.usage };
    const usage = usageOf(obj);
    const r = readContent(this.provider, obj, this.req);
    return usage ? { ...r, usage } : r;
  }
}

// One streamed exchange of the provider wire: the request goes out with
// stream: true, and an answer that comes back as an event stream
// (Content-Type text/event-stream) is parsed as it arrives (src/net/http/sse.ts,
// bounded) by the dialect's reader (stream-*.ts), which hands the turn's text on
// as it grows; any other answer (an error status, or a server that answers a
// streamed request whole) is read whole, capped, by the dialect's ordinary
// parser. The deadline is silence: no byte for the provider's read deadline
// (catalog.ts capMs: 60 s, the custom endpoint 30 s) abandons the round, and
// an answer that keeps flowing runs until the turn's own deadline.

import type { ClientRequest, ClientResult } from '../net/http/client.ts';
import { SseParser } from '../net/http/sse.ts';
import { errorMessage } from '../util/json.ts';
import type { StreamDialect, WireBackend, WireRound } from './common.ts';
import { fromClient, malformed } from './errors.ts';
import type { ProviderId } from './settings.ts';
import type { StreamReader, TurnTextSink } from './stream.ts';
import { ChatReader, ConversationsReader } from './stream-chat.ts';
import { MessagesReader } from './stream-messages.ts';
import { ResponsesReader } from './stream-responses.ts';
import type { RoundResult, RoundStream, WireRequest } from '../contracts/index.ts';

/** Largest answer read whole when a streamed request is not answered as a stream. */
const WHOLE_MAX = 1024 * 1024;
// Regular expressions are module constants: XS compiles a literal each time it is evaluated.
const EVENT_STREAM = /^\s*text\/event-stream/i;

export function streamReader(dialect: StreamDialect, provider: ProviderId, req: WireRound, onText: TurnTextSink): StreamReader {
  switch (dialect) {
    case 'responses':
      return new ResponsesReader(req, onText);
    case 'messages':
      return new MessagesReader(provider, req, onText);
    case 'conversations':
      return new ConversationsReader(req, onText);
    default:
      return new ChatReader(provider, req, onText);
  }
}

export interface StreamedExchange {
  client: { request(req: ClientRequest): Promise<ClientResult> };
  backend: WireBackend;
  req: WireRound;
  built: WireRequest & { dialect?: StreamDialect };
  /** Silence allowed between bytes of the answer. */
  idleMs: number;
  stream: RoundStream;
  cancel?: { onCancel: (() => void) | null };
}

/** Sends a streamed round and reads its answer; never throws. */
export async function streamedExchange(x: StreamedExchange): Promise<RoundResult> {
  const { req, built } = x;
  let status = 0;
  let reader: StreamReader | null = null;
  let sse: SseParser | null = null;
  let broken: string | null = null;
  const whole: Uint8Array[] = [];
  let wholeBytes = 0;
  // The caller's sink must not take the round down.
  const onText: TurnTextSink = (d) => {
    try {
      x.stream.onText(d);
    } catch {
      // a listener's bug: the round goes on
    }
  };
  const res = await x.client.request({
    method: 'POST',
    url: built.url,
    headers: built.headers,
    body: built.body,
    timeoutMs: Math.max(1, x.stream.turnLeftMs),
    idleTimeoutMs: x.idleMs,
    idempotent: true,
    ...(x.cancel ? { cancel: x.cancel } : {}),
    onHead: (s, headers) => {
      status = s;
      if (s >= 200 && s <= 299 && EVENT_STREAM.test(headers.get('content-type') ?? '')) {
        const r = streamReader(built.dialect ?? 'chat', req.provider, req, onText);
        reader = r;
        sse = new SseParser((name, data) => {
          try {
            r.event(name, data);
          } catch (e) {
            broken = `unreadable event (${errorMessage(e)})`;
          }
        });
      }
    },
    onBody: (chunk) => {
      if (sse) {
        sse.feed(chunk);
        if (sse.error) broken = sse.error;
        return broken === null;
      }
      wholeBytes += chunk.length;
      if (wholeBytes > WHOLE_MAX) return false;
      whole.push(chunk);
      return true;
    },
  });
  if (broken !== null) return malformed(req.provider, `the answer's stream broke: ${broken}`);
  if (!res.ok) {
    if (wholeBytes > WHOLE_MAX) return malformed(req.provider, `the answer is over ${WHOLE_MAX} bytes`);
    return fromClient(res.error, res.message);
  }
  const finished = reader as StreamReader | null;
  if (finished) {
    (sse as SseParser | null)?.end();
    return finished.finish();
  }
  const body = new Uint8Array(wholeBytes);
  let at = 0;
  for (const c of whole) {
    body.set(c, at);
    at += c.length;
  }
  return x.backend.parse(status, body, req);
}

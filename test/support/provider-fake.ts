// Fake provider servers on the in-memory network, for the wire's unit tests:
// each parses one HTTP/1.1 request (head and Content-Length body), records
// it, and answers what the test's handler says (or holds the connection
// open, so the client's deadline fires on the virtual clock).

import { ProviderWire, WIRE_NS, type WireSettings } from '../../src/providers/wire.ts';
import { Store } from '../../src/core/store.ts';
import { HttpClient } from '../../src/net/http/client.ts';
import type { ProviderId } from '../../src/providers/settings.ts';
import type { RoundRequest, TranscriptItem } from '../../src/contracts/index.ts';
import { buildTurnSchema } from '../../src/turn/schema.ts';
import { turnPromptDoc } from '../../src/turn/promptdoc.ts';
import { VirtualClock } from './clock.ts';
import { MemNet } from './memnet.ts';
import { MemNvs } from './memstorage.ts';

export interface SeenRequest {
  host: string;
  port: number;
  tls: boolean;
  method: string;
  path: string;
  headers: Record<string, string>;
  /** The raw request bytes as text (head and body). */
  raw: string;
  body: unknown;
  /** How many writes the request arrived in. */
  writes: number;
}

export type Answer = { status: number; body: unknown; headers?: Record<string, string> } | 'hold';

const decoder = new TextDecoder();

/** Registers a fake server at host:port; returns the list of requests it gets. */
export function fakeProvider(net: MemNet, host: string, port: number, answer: (req: SeenRequest) => Answer, options: { trusted?: boolean } = {}): SeenRequest[] {
  const seen: SeenRequest[] = [];
  net.serve(
    host,
    port,
    (s, opts) => {
      s.onData = () => {
        const text = s.inbox.map((c) => decoder.decode(c)).join('');
        const end = text.indexOf('\r\n\r\n');
        if (end < 0) return;
        const [line, ...lines] = text.slice(0, end).split('\r\n');
        const headers: Record<string, string> = {};
        for (const l of lines) {
          const i = l.indexOf(':');
          headers[l.slice(0, i).toLowerCase()] = l.slice(i + 1).trim();
        }
        const bytes = new TextEncoder().encode(text.slice(end + 4));
        const want = Number(headers['content-length'] ?? 0);
        if (bytes.length < want) return;
        const bodyText = decoder.decode(bytes.slice(0, want));
        let body: unknown = null;
        try {
          body = bodyText ? JSON.parse(bodyText) : null;
        } catch {
          body = bodyText;
        }
        const [method, path] = line!.split(' ');
        const req: SeenRequest = { host, port, tls: !!opts.tls, method: method!, path: path!, headers, raw: text, body, writes: s.inbox.length };
        seen.push(req);
        const a = answer(req);
        if (a === 'hold') return;
        const payload = typeof a.body === 'string' ? a.body : JSON.stringify(a.body);
        const out = new TextEncoder().encode(payload);
        const head = [`HTTP/1.1 ${a.status} X`, 'Content-Type: application/json', `Content-Length: ${out.length}`, ...Object.entries(a.headers ?? {}).map(([k, v]) => `${k}: ${v}`)];
        s.send(head.join('\r\n') + '\r\n\r\n');
        s.send(out);
        s.end();
      };
    },
    options,
  );
  return seen;
}

export class FakeSettings implements WireSettings {
  keys: Partial<Record<ProviderId, string>> = {};
  base = '';
  style: 'chat' | 'messages' = 'chat';
  custom = '';
  orchModel = '';
  key(provider: ProviderId): string | null {
    return this.keys[provider] ?? null;
  }
  customBase(): string {
    return this.base;
  }
  customStyle(): 'chat' | 'messages' {
    return this.style;
  }
  customModel(): string {
    return this.custom;
  }
  model(): string {
    return this.orchModel;
  }
}

export interface WireRig {
  net: MemNet;
  clock: VirtualClock;
  settings: FakeSettings;
  store: Store;
  nvs: MemNvs;
  logs: string[];
  wire: ProviderWire;
}

export function wireRig(verify = true): WireRig {
  const net = new MemNet();
  const clock = new VirtualClock();
  const settings = new FakeSettings();
  const nvs = new MemNvs();
  const store = new Store(nvs, WIRE_NS);
  const logs: string[] = [];
  const client = new HttpClient(net, clock, { verify: () => verify, caBundle: () => 'test-bundle' });
  const log = { info: (t: string, m: string) => void logs.push(`${t}: ${m}`), warn: (t: string, m: string) => void logs.push(`W ${t}: ${m}`) };
  return { net, clock, settings, store, nvs, logs, wire: new ProviderWire(client, settings, log, clock, store) };
}

/** A plausible round: prompt blocks, a question, and (optionally) an earlier tool exchange. */
export function roundRequest(provider: ProviderId, over: Partial<RoundRequest> = {}): RoundRequest {
  return {
    provider,
    model: '',
    transcript: [
      { kind: 'system', text: 'You are the desk assistant. Be brief.' },
      { kind: 'user', text: 'What is the battery level?' },
    ],
    mode: 'loop',
    tools: [
      { name: 'device_status', description: 'Full live state of the device.', parameters: { type: 'object', properties: {}, required: [] } },
      {
        name: 'memory_search',
        description: 'Search long-term memory.',
        parameters: { type: 'object', properties: { query: { type: 'string' }, n_results: { type: 'integer' } }, required: ['query'] },
      },
    ],
    forceFinal: false,
    schema: buildTurnSchema(),
    schemaName: 'orch_turn',
    schemaDoc: turnPromptDoc(),
    ...over,
  };
}

/** A transcript after one tool round: the call (with the given id) and its result. */
export function withToolExchange(id: string, extra: TranscriptItem[] = []): TranscriptItem[] {
  return [
    { kind: 'system', text: 'You are the desk assistant. Be brief.' },
    { kind: 'user', text: 'What is the battery level?' },
    ...extra,
    { kind: 'tool_call', id, name: 'device_status', args: '{}' },
    { kind: 'tool_result', id, name: 'device_status', output: '{"success":true,"output":"battery 80%","error":null,"error_type":null}' },
  ];
}

export const TURN = { reply: 'Battery is at 80%.', memory: '', ask: '', device: null, mem_write: null, mem_query: null, session_ops: null, scratchpad: null };

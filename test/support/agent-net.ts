// The provider emulator's sub-agent jobs (tools/agent-emulator.mjs) served on
// the in-memory network, so the fabric's unit tests run the real backends
// against the same state machine the simulator's end-to-end test uses, on
// the virtual clock: HTTP/1.1 requests are parsed and recorded, answers
// come from the emulator's job logic, a scripted delay waits on the virtual
// clock, and a held request stays open until the client gives up.

import { createAgentJobs, type AgentJobs, type JobScript } from '../../tools/agent-emulator.mjs';
import type { VirtualClock } from './clock.ts';
import type { MemNet } from './memnet.ts';

export const AGENT_HOSTS = ['api.anthropic.com', 'api.openai.com', 'api.mistral.ai', 'api.z.ai', 'router.desk-assistant.invalid', 'custom.emulator.test', 'demo.emulator.test'];

export interface AgentRequest {
  host: string;
  method: string;
  path: string;
  query?: string;
  headers: Record<string, string>;
  body: any; // eslint-disable-line @typescript-eslint/no-explicit-any
}

export interface AgentNet {
  jobs: AgentJobs;
  requests: AgentRequest[];
  /** Queues job scripts (taken by the requests that start jobs, in order; match narrows by host). */
  script(...jobs: Array<JobScript & { host?: string }>): void;
  /** Answers every request to a host with this status instead (null: normal). */
  down: Map<string, number>;
  /** Serves the same jobs on another network (a restarted device's). */
  rebind(net: MemNet, clock: VirtualClock): void;
}

const decoder = new TextDecoder();
const encoder = new TextEncoder();

export function agentNet(net: MemNet, clock: VirtualClock, hosts: string[] = AGENT_HOSTS): AgentNet {
  const jobs = createAgentJobs();
  const queue: Array<{ job: JobScript; match?: { host?: string } }> = [];
  const requests: AgentRequest[] = [];
  const down = new Map<string, number>();
  const serveOn = (net: MemNet, clock: VirtualClock): void => {
    for (const host of hosts) {
      for (const port of [443, 80]) {
        net.serve(host, port, (s) => {
          let answered = false;
          s.onData = () => {
            if (answered) return;
            const text = s.inbox.map((c) => decoder.decode(c)).join('');
            const end = text.indexOf('\r\n\r\n');
            if (end < 0) return;
            const [line, ...lines] = text.slice(0, end).split('\r\n');
            const headers: Record<string, string> = {};
            for (const l of lines) {
              const i = l.indexOf(':');
              headers[l.slice(0, i).toLowerCase()] = l.slice(i + 1).trim();
            }
            const bytes = encoder.encode(text.slice(end + 4));
            const want = Number(headers['content-length'] ?? 0);
            if (bytes.length < want) return;
            answered = true;
            const bodyText = decoder.decode(bytes.slice(0, want));
            let body: unknown = null;
            try {
              body = bodyText ? JSON.parse(bodyText) : null;
            } catch {
              body = bodyText;
            }
            const [method, target] = line!.split(' ');
            const path = target!.split('?')[0]!;
            const query = target!.includes('?') ? target!.slice(target!.indexOf('?')) : '';
            const rec = { host, method: method!, path, query, headers, body };
            requests.push(rec);
            const reply = (status: number, payload: unknown): void => {
              if (s.closed) return;
              const out = encoder.encode(JSON.stringify(payload));
              s.send(`HTTP/1.1 ${status} X\r\nContent-Type: application/json\r\nContent-Length: ${out.length}\r\n\r\n`);
              s.send(out);
              s.end();
            };
            const forced = down.get(host);
            if (forced) return reply(forced, { error: { message: `emulated HTTP ${forced}` } });
            const a = jobs.handle(rec, queue);
            if (!a) return reply(404, { error: { message: `not a sub-agent request: ${method} ${path}` } });
            if ('hold' in a) return;
            if (a.delayMs) clock.setTimeout(() => reply(a.status, a.body), a.delayMs);
            else reply(a.status, a.body);
          };
        });
      }
    }
  };
  serveOn(net, clock);
  return {
    jobs,
    requests,
    down,
    rebind: serveOn,
    script(...scripts) {
      for (const { host, ...job } of scripts) queue.push({ job, ...(host ? { match: { host } } : {}) });
    },
  };
}

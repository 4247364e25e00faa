// Provider A's sub-agent backend: background responses (Responses API).
//   create  POST {base}/v1/responses {model, input: brief, background: true,
//           store: true, tools: [web search]}: the provider keeps the
//           response and works on it; the answer carries its id and status.
//   poll    GET {base}/v1/responses/<id>: queued or in_progress (running),
//           completed (the output text), incomplete (what there is, marked
//           partial), failed or cancelled.
//   cancel  POST {base}/v1/responses/<id>/cancel.
// store is true because a background response must be stored to be polled.
// A job an admin spawned also carries the owner's approved, ready tool
// servers as mcp tools entries next to web search (tool-servers.ts).

import { isPlainObject } from '../../util/json.ts';
import { CATALOG } from '../../providers/index.ts';
import { contentText } from '../../providers/index.ts';
import { type ToolServer, type ToolServerProvider } from '../../contracts/index.ts';
import { responsesMcpTools } from '../../providers/index.ts';
import { CALL_MS, POLL_BODY_MAX } from '../limits.ts';
import { exchange, reason, transient } from './http.ts';
import type { AgentBackend, BackendEnv, PollOutcome, StartOutcome } from './types.ts';

// Regular expressions are module constants: XS compiles a literal each time it is evaluated.
const RESPONSE_ID = /^[A-Za-z0-9_-]{1,128}$/;

/** The web search tool of the Responses API. */
export const WEB_SEARCH_TOOL = { type: 'web_search' };

function outputText(obj: Record<string, unknown>): string {
  if (typeof obj['output_text'] === 'string') return obj['output_text'];
  const parts: string[] = [];
  const output = obj['output'];
  if (Array.isArray(output)) {
    for (const item of output) {
      if (isPlainObject(item) && item['type'] === 'message') parts.push(contentText(item['content']));
    }
  }
  return parts.join('\n\n').trim();
}

function errorOf(obj: Record<string, unknown>): string {
  const e = obj['error'];
  if (isPlainObject(e) && typeof e['message'] === 'string') return e['message'];
  const d = obj['incomplete_details'];
  if (isPlainObject(d) && typeof d['reason'] === 'string') return d['reason'];
  return 'no reason given';
}

/** Reads a response object's status into a poll outcome. */
export function readResponse(obj: Record<string, unknown>): PollOutcome {
  switch (obj['status']) {
    case 'queued':
    case 'in_progress':
      return { kind: 'running' };
    case 'completed': {
      const text = outputText(obj);
      return text ? { kind: 'done', text, partial: false } : { kind: 'failed', error: 'the response completed without text' };
    }
    case 'incomplete': {
      const text = outputText(obj);
      return text ? { kind: 'done', text, partial: true } : { kind: 'failed', error: `the response ended incomplete (${errorOf(obj)})` };
    }
    case 'failed':
      return { kind: 'failed', error: errorOf(obj) };
    case 'cancelled':
      return { kind: 'failed', error: 'the provider cancelled it' };
    default:
      return { kind: 'failed', error: `unknown response status ${String(obj['status'])}` };
  }
}

/** The tool servers a job may carry: the owner's approved, ready ones, for an admin's job only; never throws. */
export async function serversOf(env: BackendEnv, provider: ToolServerProvider, admin: boolean): Promise<ToolServer[]> {
  if (!admin || !env.servers) return [];
  try {
    return await env.servers.serversFor(provider);
  } catch {
    return [];
  }
}

export function backgroundBackend(env: BackendEnv): AgentBackend {
  const base = CATALOG.openai.base;
  return {
    provider: 'openai',
    resumable: true,
    async start(req): Promise<StartOutcome> {
      const x = await exchange(env, {
        provider: 'openai',
        method: 'POST',
        url: `${base}/v1/responses`,
        auth: 'bearer',
        body: { model: req.model, input: req.brief, background: true, store: true, tools: [WEB_SEARCH_TOOL, ...responsesMcpTools(await serversOf(env, 'openai', req.admin === true))] },
        timeoutMs: CALL_MS,
      });
      if (!x.ok || x.status > 299) return { kind: 'failed', error: reason(x), timeout: false };
      const id = x.json?.['id'];
      if (typeof id !== 'string' || !RESPONSE_ID.test(id)) return { kind: 'failed', error: 'the provider answered without a response id', timeout: false };
      const now = readResponse(x.json!);
      if (now.kind === 'done') return now;
      if (now.kind === 'failed') return { kind: 'failed', error: now.error, timeout: false };
      return { kind: 'running', jobId: id };
    },
    async poll(jobId): Promise<PollOutcome> {
      const x = await exchange(env, { provider: 'openai', method: 'GET', url: `${base}/v1/responses/${jobId}`, auth: 'bearer', timeoutMs: CALL_MS, maxBodyBytes: POLL_BODY_MAX });
      if (!x.ok || x.status > 299) return transient(x) ? { kind: 'retry', error: reason(x) } : { kind: 'failed', error: reason(x) };
      return x.json ? readResponse(x.json) : { kind: 'retry', error: 'unreadable answer' };
    },
    async cancel(jobId): Promise<void> {
      // No body, as the SDK's responses.cancel(id) sends none.
      await exchange(env, { provider: 'openai', method: 'POST', url: `${base}/v1/responses/${jobId}/cancel`, auth: 'bearer', timeoutMs: CALL_MS });
    },
  };
}

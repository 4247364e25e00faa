// The synchronous sub-agent backends: one request whose answer is the
// result, within the provider's read deadline (spec: 60 s; the custom
// endpoint 30 s). The fabric caches the answer and serves it once; cancel
// aborts the request in flight. A call that runs past the deadline is a
// timeout (spec, Other failure rules 6), not a connection failure, however
// the socket ended. None of them survives a reboot.
//   provider C    POST {base}/v1/conversations {model, inputs: brief, store: false};
//                 the text of the message.output entries
//   custom chat   POST {origin}/v1/chat/completions; choices[0].message.content
//   custom messages  POST {origin}/v1/messages; the text blocks
//   Z.ai-style    POST {host}/api/paas/v4/chat/completions (the pinned host)
//   model router  POST {router}/router/<upstream>/v1/chat/completions, bare model id
// The brief is the one user message; there is no system prompt.

import { isPlainObject } from '../../util/json.ts';
import { CATALOG, ZAI_PATH } from '../../providers/index.ts';
import { ANTHROPIC_VERSION, MAX_TOKENS } from '../../providers/index.ts';
import { contentText } from '../../providers/index.ts';
import { routerRoot } from '../../providers/index.ts';
import type { ProviderId } from '../../contracts/index.ts';
import { exchange, reason, type ExchangeRequest } from './http.ts';
import type { AgentBackend, BackendEnv, StartOutcome, StartRequest } from './types.ts';
import { cleanBase, origin } from '../../net/url.ts';

type Dialect = 'conversations' | 'chat' | 'messages';

interface Target {
  url: string;
  dialect: Dialect;
  model: string;
  auth: ExchangeRequest['auth'];
}

function target(env: BackendEnv, provider: ProviderId, model: string): Target | { error: string } {
  switch (provider) {
    case 'mistral':
      return { url: `${CATALOG.mistral.base}/v1/conversations`, dialect: 'conversations', model, auth: 'bearer' };
    case 'zai': {
      const root = cleanBase(env.zaiHost());
      return root ? { url: `${root}${ZAI_PATH}/chat/completions`, dialect: 'chat', model, auth: 'bearer' } : { error: `bad zai host ${env.zaiHost()}` };
    }
    case 'router': {
      const r = routerRoot(env.routerHost(), model);
      return r ? { url: `${r.root}/chat/completions`, dialect: 'chat', model: r.model, auth: 'bearer' } : { error: `router model ${model} is not <upstream>/<model>` };
    }
    case 'custom': {
      const base = env.endpoint ? env.endpoint.base : env.customBase();
      const style = env.endpoint ? env.endpoint.style : env.customStyle();
      const o = base.trim() ? origin(base) : null;
      if (!o) return { error: 'the custom endpoint has no base URL' };
      return style === 'messages'
        ? { url: `${o}/v1/messages`, dialect: 'messages', model, auth: 'x-api-key' }
        : { url: `${o}/v1/chat/completions`, dialect: 'chat', model, auth: 'bearer' };
    }
    default:
      return { error: `${provider} has no synchronous sub-agent backend` };
  }
}

function body(t: Target, brief: string): unknown {
  if (t.dialect === 'conversations') return { model: t.model, inputs: brief, store: false };
  if (t.dialect === 'messages') return { model: t.model, max_tokens: MAX_TOKENS, messages: [{ role: 'user', content: [{ type: 'text', text: brief }] }] };
  return { model: t.model, messages: [{ role: 'user', content: brief }] };
}

/** The answer's text in the dialect's shape ('' when there is none). */
export function answerText(dialect: Dialect, obj: Record<string, unknown>): string {
  if (dialect === 'conversations') {
    const outputs = obj['outputs'];
    if (!Array.isArray(outputs)) return '';
    return outputs
      .filter((o) => isPlainObject(o) && o['type'] === 'message.output')
      .map((o) => contentText((o as Record<string, unknown>)['content']))
      .join('')
      .trim();
  }
  if (dialect === 'messages') return contentText(obj['content']).trim();
  const choices = obj['choices'];
  const first = Array.isArray(choices) ? choices[0] : null;
  const message = isPlainObject(first) ? first['message'] : null;
  return isPlainObject(message) ? contentText(message['content']).trim() : '';
}

export function syncBackend(env: BackendEnv, provider: ProviderId, clock: { monoMs(): number }): AgentBackend {
  const readMs = CATALOG[provider].capMs;
  return {
    provider,
    resumable: false,
    async start(req: StartRequest): Promise<StartOutcome> {
      const t = target(env, provider, req.model);
      if ('error' in t) return { kind: 'failed', error: t.error, timeout: false };
      const t0 = clock.monoMs();
      const x = await exchange(env, {
        provider,
        method: 'POST',
        url: t.url,
        auth: t.auth,
        ...(t.dialect === 'messages' ? { headers: { 'anthropic-version': ANTHROPIC_VERSION } } : {}),
        body: body(t, req.brief),
        timeoutMs: readMs,
        cancel: req.cancel,
        ...(env.endpoint ? { key: null } : {}),
      });
      const waited = clock.monoMs() - t0;
      if (!x.ok && x.kind === 'aborted') return { kind: 'failed', error: 'stopped', timeout: false };
      // Past the read deadline it is a timeout, however the connection ended.
      if ((!x.ok && x.kind === 'timeout') || (waited >= readMs && !(x.ok && x.status <= 299))) {
        return { kind: 'failed', error: `the agent ran longer than can be awaited (${Math.round(readMs / 1000)} s)`, timeout: true };
      }
      if (!x.ok || x.status > 299) return { kind: 'failed', error: reason(x), timeout: false };
      const text = x.json ? answerText(t.dialect, x.json) : '';
      return text ? { kind: 'done', text, partial: false } : { kind: 'failed', error: 'the provider answered without text', timeout: false };
    },
    poll: () => Promise.resolve({ kind: 'failed', error: 'a synchronous job cannot be polled' }),
    cancel: () => Promise.resolve(),
  };
}

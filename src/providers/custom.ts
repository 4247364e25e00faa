// The custom endpoint: any OpenAI-compatible server the owner names by base
// URL, conversation style and model id. Only the scheme, host and port of
// the base matter (spec): the paths are the style's, {origin}/v1/chat/completions
// (chat) or {origin}/v1/messages (messages, Anthropic style).
//   single-shot  chat: response_format json_schema strict; messages: forced
//                tool use of orch_turn. Many local servers refuse a schema
//                with 400, so the wire retries such a round once schemaless
//                (schemalessRetry): no response_format or tools, the field
//                docs in the system prompt.
//   no tool loop (loops false), except for the offline demo endpoint, which
//                the firmware's own emulator serves (DEMO_ENDPOINT, demo.ts).
// Over plain http:// the endpoint runs keyless: a key is only ever sent
// over https (spec, Authentication 15).

import { buildMessages, parseMessages } from './anthropic.ts';
import { buildChat, parseChat, type ChatFlavor } from './chat.ts';
import { configError, usableKey, type WireBackend, type WireRound } from './common.ts';
import { origin } from '../net/url.ts';
import { CATALOG } from './catalog.ts';
import type { CustomEndpoint } from '../contracts/index.ts';

export type { CustomEndpoint } from '../contracts/index.ts';

export const CUSTOM_FLAVOR: ChatFlavor = {
  provider: 'custom',
  loopChoice: 'required',
  pin: 'function',
  single: 'json_schema',
  lateSystem: 'system',
  strictTool: true,
  toolMessageName: false,
  streamUsage: true,
};

export function customBackend(ep: CustomEndpoint): WireBackend {
  return {
    id: 'custom',
    defaultModel: CATALOG.custom.defaultModel,
    loops: ep.loops === true,
    schemalessRetry: true,
    build: (req, key) => {
      const o = ep.base.trim() === '' ? null : origin(ep.base);
      if (o === null) return configError(ep.base.trim() === '' ? 'the custom endpoint has no base URL' : `bad custom endpoint URL ${ep.base}`);
      const schemaless = (req as WireRound).schemaless === true && req.mode === 'single';
      if (ep.style === 'messages') return buildMessages(req, { provider: 'custom', url: `${o}/v1/messages`, key, keyOptional: true, schemaless });
      const url = `${o}/v1/chat/completions`;
      const k = usableKey(url, key, 'custom', true);
      if (!('ok' in k)) return k;
      return buildChat(req, CUSTOM_FLAVOR, url, k.key, req.model, schemaless);
    },
    parse: (status, body, req) => (ep.style === 'messages' ? parseMessages('custom', status, body, req) : parseChat('custom', status, body, req)),
  };
}

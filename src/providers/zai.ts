// The Z.ai-style backend: OpenAI-compatible chat completions under the base
// path /api/paas/v4 (POST {host}/api/paas/v4/chat/completions, the reply in
// choices[0].message.content), on one of two regional hosts. Which host a
// key belongs to is found by the key check (the wire probes GET
// /api/paas/v4/models on both and pins the one that answers); this module
// only speaks to the host it is given.
//
// The API takes tool_choice "auto" only and response_format json_object (no
// json_schema), so: single-shot asks for a JSON object with the field docs
// in the system prompt; loop rounds offer orch_turn with the registry's tools
// under "auto"; the forced final round offers orch_turn alone. A plain-text
// answer is read as the turn, and the device parser judges it.

import { CATALOG, ZAI_PATH } from './catalog.ts';
import { buildChat, parseChat, type ChatFlavor } from './chat.ts';
import { configError, usableKey } from './common.ts';
import { cleanBase } from '../net/url.ts';
import type { Backend } from '../contracts/index.ts';

export const ZAI_FLAVOR: ChatFlavor = {
  provider: 'zai',
  loopChoice: 'auto',
  pin: 'offer-only',
  single: 'json_object',
  lateSystem: 'system',
  strictTool: false,
  toolMessageName: false,
};

export function zaiBackend(host: string = CATALOG.zai.base): Backend {
  return {
    id: 'zai',
    defaultModel: CATALOG.zai.defaultModel,
    loops: true,
    build: (req, key) => {
      const root = cleanBase(host);
      if (root === null) return configError(`bad zai host ${host}`);
      const url = `${root}${ZAI_PATH}/chat/completions`;
      const k = usableKey(url, key, 'zai', false);
      if (!('ok' in k)) return k;
      return buildChat(req, ZAI_FLAVOR, url, k.key);
    },
    parse: (status, body, req) => parseChat('zai', status, body, req),
  };
}

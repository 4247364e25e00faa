// The model router: one key for many upstream providers. The model is chosen
// in settings as <upstream>/<model>; a round goes to
// POST {router_host}/router/<upstream>/v1/chat/completions with the bare
// model id, and the key check to GET {router_host}/router/<upstream>/v1/models.
// Rounds are OpenAI style: tool_choice "required" every loop round, the
// forced final round names orch_turn, single-shot is json_schema strict.

import { CATALOG, splitRouterModel } from './catalog.ts';
import { buildChat, parseChat, type ChatFlavor } from './chat.ts';
import { configError, usableKey } from './common.ts';
import { cleanBase } from '../net/url.ts';
import type { Backend } from '../contracts/index.ts';

export const ROUTER_FLAVOR: ChatFlavor = {
  provider: 'router',
  loopChoice: 'required',
  pin: 'function',
  single: 'json_schema',
  lateSystem: 'system',
  strictTool: true,
  toolMessageName: false,
  streamUsage: true,
};

/** {router_host}/router/<upstream>/v1 for a router model id, or null when it is not upstream/model. */
export function routerRoot(host: string, model: string): { root: string; model: string } | null {
  const base = cleanBase(host);
  const split = splitRouterModel(model);
  if (base === null || split === null) return null;
  return { root: `${base}/router/${split.upstream}/v1`, model: split.model };
}

export function routerBackend(host: string = CATALOG.router.base): Backend {
  return {
    id: 'router',
    defaultModel: CATALOG.router.defaultModel,
    loops: true,
    build: (req, key) => {
      const r = routerRoot(host, req.model);
      if (r === null) return configError(`router model ${req.model} is not <upstream>/<model>, or the router host ${host} is not a URL`);
      const url = `${r.root}/chat/completions`;
      const k = usableKey(url, key, 'router', false);
      if (!('ok' in k)) return k;
      return buildChat(req, ROUTER_FLAVOR, url, k.key, r.model);
    },
    parse: (status, body, req) => parseChat('router', status, body, req),
  };
}

// Provider C.
//   single-shot  the conversations API (POST {base}/v1/conversations) with
//                store false (nothing kept server-side) and
//                completion_args.response_format json_schema strict;
//   loop round   stateless chat completions (POST {base}/v1/chat/completions)
//                with the orch_turn function tool; tool_choice "any" (Mistral's
//                word for "a tool every round"), the forced final round names
//                orch_turn. Every tool-call id sent is exactly nine
//                [a-zA-Z0-9] characters (the API refuses others), mapped from
//                whatever provider made the call (tool-ids.ts).

import { isPlainObject } from '../util/json.ts';
import { CATALOG, ROUND_OUTPUT_TOKENS } from './catalog.ts';
import { buildChat, parseChat, type ChatFlavor } from './chat.ts';
import { NO_MESSAGE } from './anthropic.ts';
import { argsText, configError, contentText, jsonHeaders, parseRound, splitSystem, turnResult, turnText, TURN_SCHEMA_DESCRIPTION, usableKey, type WireRound } from './common.ts';
import { cleanBase } from '../net/url.ts';
import { jsonBody } from '../util/json.ts';
import { malformed } from './errors.ts';
import { MISTRAL_ID, mapIds } from './tool-ids.ts';
import type { Backend, RoundRequest, RoundResult } from '../contracts/index.ts';

export const MISTRAL_FLAVOR: ChatFlavor = {
  provider: 'mistral',
  loopChoice: 'any',
  pin: 'function',
  single: 'json_schema',
  ids: MISTRAL_ID,
  lateSystem: 'user',
  strictTool: true,
  toolMessageName: true,
  maxTokens: ROUND_OUTPUT_TOKENS,
};

/** Conversation entries (inputs) of the conversations API. */
function entries(req: RoundRequest): { instructions: string; inputs: unknown[] } {
  const { system, rest } = splitSystem(req.transcript);
  const ids = mapIds(
    rest.flatMap((i) => (i.kind === 'tool_call' || i.kind === 'tool_result' ? [i.id] : [])),
    MISTRAL_ID,
  );
  const inputs: unknown[] = [];
  for (const item of rest) {
    switch (item.kind) {
      case 'system':
      case 'user':
        inputs.push({ type: 'message.input', role: 'user', content: item.text });
        break;
      case 'assistant':
        inputs.push({ type: 'message.input', role: 'assistant', content: item.text });
        break;
      case 'tool_call':
        inputs.push({ type: 'function.call', tool_call_id: ids.get(item.id)!, name: item.name, arguments: item.args });
        break;
      case 'tool_result':
        inputs.push({ type: 'function.result', tool_call_id: ids.get(item.id)!, result: item.output });
        break;
      case 'opaque':
        break;
    }
  }
  if (!inputs.some((e) => isPlainObject(e) && e['role'] === 'user')) inputs.unshift({ type: 'message.input', role: 'user', content: NO_MESSAGE });
  return { instructions: [req.schemaDoc, ...system].join('\n\n'), inputs };
}

function parseConversation(status: number, bytes: Uint8Array, req: RoundRequest): RoundResult {
  return parseRound('mistral', status, bytes, (obj) => readOutputs(obj, req));
}

export function readOutputs(obj: Record<string, unknown>, req: RoundRequest): RoundResult {
  const outputs = obj['outputs'];
  if (!Array.isArray(outputs)) return malformed('mistral', 'no outputs list');
  const texts: string[] = [];
  for (const o of outputs) {
    if (!isPlainObject(o)) continue;
    // content is a string or a list of chunks (text, tool_file, document_url, think, ...): contentText keeps the text ones.
    if (o['type'] === 'message.output') texts.push(contentText(o['content']));
    else if (o['type'] === 'function.call' && o['name'] === req.schemaName) return turnResult(argsText(o['arguments']));
  }
  const text = turnText(texts.join(''));
  return text !== '' ? turnResult(text) : malformed('mistral', 'no message output');
}

export function mistralBackend(base: string = CATALOG.mistral.base): Backend {
  return {
    id: 'mistral',
    defaultModel: CATALOG.mistral.defaultModel,
    loops: true,
    build: (req, key) => {
      const root = cleanBase(base);
      if (root === null) return configError(`bad mistral base URL ${base}`);
      if (req.mode === 'loop') {
        const url = `${root}/v1/chat/completions`;
        const k = usableKey(url, key, 'mistral', false);
        if (!('ok' in k)) return k;
        return buildChat(req, MISTRAL_FLAVOR, url, k.key);
      }
      const url = `${root}/v1/conversations`;
      const k = usableKey(url, key, 'mistral', false);
      if (!('ok' in k)) return k;
      const { instructions, inputs } = entries(req);
      const body: Record<string, unknown> = { model: req.model, inputs };
      body['instructions'] = instructions;
      body['store'] = false;
      if ((req as WireRound).stream) body['stream'] = true;
      body['completion_args'] = {
        response_format: { type: 'json_schema', json_schema: { name: req.schemaName, description: TURN_SCHEMA_DESCRIPTION, schema: req.schema, strict: true } },
      };
      const headers = jsonHeaders((req as WireRound).stream);
      if (k.key !== null) headers['Authorization'] = `Bearer ${k.key}`;
      return { url, headers, body: jsonBody(body), dialect: 'conversations' };
    },
    parse: (status, body, req) => (req.mode === 'loop' ? parseChat('mistral', status, body, req) : parseConversation(status, body, req)),
  };
}

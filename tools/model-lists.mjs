// Model lists as each provider's GET models endpoint answers them (shapes
// from their public API references: OpenAI and Z.ai {object: list, data:
// [{id, object, created, owned_by}]}; Anthropic {data: [{type, id,
// display_name, created_at}], has_more, first_id, last_id} with dated ids;
// Mistral {object: list, data: [{id, capabilities: {...}, ...}]}), for the
// provider emulator and the model catalog's unit tests. The lists mix what
// a real account sees: current models, dated snapshots, fine-tunes and
// models of roles the device does not use.

const OPENAI = [
  'gpt-5',
  'gpt-5-mini',
  'gpt-5-nano',
  'gpt-5-2025-08-07',
  'gpt-5-mini-2025-08-07',
  'gpt-4.1',
  'gpt-4.1-mini',
  'o4-mini',
  'o3',
  'o3-deep-research',
  'gpt-image-1',
  'gpt-image-1-mini',
  'dall-e-3',
  'text-embedding-3-small',
  'text-embedding-3-large',
  'gpt-4o-mini-transcribe',
  'whisper-1',
  'gpt-4o-mini-tts',
  'tts-1',
  'omni-moderation-latest',
  'babbage-002',
  'ft:gpt-4.1-mini:acme::b7x',
];

const ANTHROPIC = [
  ['claude-opus-4-5-20251101', 'Claude Opus 4.5'],
  ['claude-sonnet-4-5-20250929', 'Claude Sonnet 4.5'],
  ['claude-haiku-4-5-20251001', 'Claude Haiku 4.5'],
  ['claude-opus-4-1-20250805', 'Claude Opus 4.1'],
  ['claude-3-haiku-20240307', 'Claude Haiku 3'],
];

const MISTRAL = [
  ['mistral-large-latest', { completion_chat: true, function_calling: true, vision: true }],
  ['mistral-medium-latest', { completion_chat: true, function_calling: true, vision: true }],
  ['mistral-small-latest', { completion_chat: true, function_calling: true, vision: true }],
  ['magistral-medium-latest', { completion_chat: true, function_calling: true, vision: false }],
  ['codestral-latest', { completion_chat: true, function_calling: true, completion_fim: true }],
  ['mistral-embed', { completion_chat: false, function_calling: false }],
  ['mistral-moderation-latest', { completion_chat: false, moderation: true }],
  ['voxtral-mini-latest', { completion_chat: true, audio: true }],
  ['mistral-medium-2508', { completion_chat: true, function_calling: true, vision: true }],
];

const ZAI = ['glm-4.6', 'glm-4.5', 'glm-4.5-air', 'glm-4.5-flash', 'cogview-4-250304', 'embedding-3'];

const ROUTER = { openai: ['gpt-5', 'gpt-5-mini', 'gpt-5-nano'], anthropic: ['claude-sonnet-4-5', 'claude-haiku-4-5'], mistral: ['mistral-large-latest', 'mistral-medium-latest'] };

const CREATED = 1_754_000_000;

/** The models answer for a host and path (null when the host lists nothing). */
export function modelListBody(host, path) {
  const router = /^\/router\/([^/]+)\/v1\/models$/.exec(path);
  if (router) return { object: 'list', data: (ROUTER[router[1]] ?? []).map((id) => ({ id, object: 'model', created: CREATED, owned_by: router[1] })) };
  if (host === 'api.openai.com') return { object: 'list', data: OPENAI.map((id) => ({ id, object: 'model', created: CREATED, owned_by: id.startsWith('ft:') ? 'acme' : 'system' })) };
  if (host === 'api.anthropic.com')
    return { data: ANTHROPIC.map(([id, name]) => ({ type: 'model', id, display_name: name, created_at: '2025-09-29T00:00:00Z' })), has_more: false, first_id: ANTHROPIC[0][0], last_id: ANTHROPIC[ANTHROPIC.length - 1][0] };
  if (host === 'api.mistral.ai')
    return {
      object: 'list',
      data: MISTRAL.map(([id, caps]) => ({ id, object: 'model', created: CREATED, owned_by: 'mistralai', capabilities: { completion_chat: false, completion_fim: false, function_calling: false, fine_tuning: false, vision: false, classification: false, ...caps }, max_context_length: 131072, deprecation: null })),
    };
  if (host === 'api.z.ai' || host === 'open.bigmodel.cn') return { object: 'list', data: ZAI.map((id) => ({ id, object: 'model', created: CREATED, owned_by: 'z-ai' })) };
  return { object: 'list', data: [{ id: 'local-model', object: 'model' }, { id: 'llama-3.1-8b-instruct', object: 'model' }] };
}

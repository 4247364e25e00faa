// image.generate (spec, Tool server): turn-only; needs an SD card and an
// image-capable provider key; saves a PNG into the artifact store; quality
// low by default. The image-capable provider is OpenAI's Images API with a
// GPT image model (POST /v1/images/generations, b64_json answers); the
// model is the catalog's image model of that provider (gpt-image-1-mini
// unless the owner's list hides it) or one the model names, which must be
// an image model in the catalog.
//
// The answer (a few MB of base64 in JSON) is never held whole: the body is
// streamed through a base64 decoder (b64-stream.ts) into a part file under
// /mem/incoming, checked to be a PNG, then moved into the store as
// <project>/<name> (default images/image-<6 hex>.png) for the asking person,
// under the store's quota and visibility rules. describe: true asks the
// provider's default model (vision-capable) for a two-sentence description
// of the saved image.

import type { Log } from '../log/log.ts';
import type { HttpClient } from '../net/http/client.ts';
import type { RandomFill } from '../util/ids.ts';
import { checkName, checkProject, extensionOf, FilesError, INCOMING, NAME_MAX, type ArtifactStore, type PartWriter } from '../files/index.ts';
import { fail, ok, type ToolCaller, type ToolResult, type ToolSpec } from '../core/tools/types.ts';
import type { ModelCatalog } from '../models/index.ts';
import { CATALOG } from '../providers/index.ts';
import type { ProviderId } from '../contracts/index.ts';
import { concatBytes } from '../util/bytes.ts';
import { toHex } from '../util/encoding.ts';
import { randomBytes } from '../util/ids.ts';
import { errorMessage, isPlainObject, parseJson, stringify } from '../util/json.ts';
import { decode, encode } from '../util/utf8.ts';
import { B64ValueStream } from './b64-stream.ts';
import { isPlainHttp } from '../net/url.ts';

export const IMAGE_PROVIDER: ProviderId = 'openai';
export const IMAGE_URL = `${CATALOG.openai.base}/v1/images/generations`;
export const DESCRIBE_URL = `${CATALOG.openai.base}/v1/responses`;
export const SIZES = ['1024x1024', '1024x1536', '1536x1024', 'auto'] as const;
export const QUALITIES = ['low', 'medium', 'high'] as const;
export const DEFAULT_PROJECT = 'images';
/** Largest PNG accepted (decoded bytes). */
export const IMAGE_MAX = 16 * 1024 * 1024;
/** base64 text kept for describe (a larger image is saved but not described). */
const DESCRIBE_MAX_B64 = 6 * 1024 * 1024;
const GENERATE_MS = 180_000;
const DESCRIBE_MS = 60_000;
const ERROR_KEEP = 8 * 1024;
const PNG_MAGIC = [0x89, 0x50, 0x4e, 0x47, 0x0d, 0x0a, 0x1a, 0x0a];

export interface ImageDeps {
  /** The file store the image is saved in (src/files/). */
  store: Pick<ArtifactStore, 'requireCard' | 'room' | 'beginPart' | 'adopt'>;
  /** Removes a part file left by a failed download. */
  remove(path: string): void;
  client: Pick<HttpClient, 'request'>;
  random: RandomFill;
  log: Pick<Log, 'info'>;
  catalog: Pick<ModelCatalog, 'modelFor' | 'find' | 'models'>;
  key(): string | null;
}

function str(a: Record<string, unknown>, k: string): string | undefined {
  return typeof a[k] === 'string' ? (a[k] as string).trim() : undefined;
}

function apiError(status: number, body: Uint8Array): ToolResult {
  const doc = parseJson(decode(body));
  const e = doc.ok && isPlainObject(doc.value) && isPlainObject(doc.value['error']) ? doc.value['error'] : null;
  const message = typeof e?.['message'] === 'string' ? (e['message'] as string).slice(0, 240) : `HTTP ${status}`;
  if (status === 401 || status === 403) return fail('auth', `The image service refused the key: ${message}`);
  if (status === 429) return fail('rate-limit', `The image service is limiting requests: ${message}`);
  if (e?.['code'] === 'moderation_blocked' || e?.['code'] === 'content_policy_violation') return fail('refused', `The image service refused the prompt: ${message}`);
  return fail('http', `The image service answered ${status}: ${message}`);
}

export async function generate(d: ImageDeps, a: Record<string, unknown>, caller: ToolCaller): Promise<ToolResult> {
  const { store } = d;
  const key = d.key();
  if (!key) return fail('unavailable', 'No image-capable provider key is set (an OpenAI key, on the web page).');
  if (isPlainHttp(IMAGE_URL)) return fail('config', 'refusing to send the key over plain http');
  const prompt = str(a, 'prompt') ?? '';
  if (!prompt) return fail('bad-arguments', 'image.generate: prompt is empty.');
  const project = str(a, 'project') || DEFAULT_PROJECT;
  const badProject = checkProject(project);
  if (badProject) return fail('bad-arguments', `image.generate: ${badProject}.`);
  let name = str(a, 'name') || `image-${toHex(randomBytes(d.random, 3))}.png`;
  if (!extensionOf(name)) name = `${name.slice(0, NAME_MAX - 4)}.png`;
  if (extensionOf(name) !== 'png') return fail('bad-arguments', 'image.generate: the name must end in .png (the image is a PNG).');
  const badName = checkName(name);
  if (badName) return fail('bad-arguments', `image.generate: ${badName}.`);
  const model = str(a, 'model') || d.catalog.modelFor(IMAGE_PROVIDER, 'image') || 'gpt-image-1-mini';
  const entry = d.catalog.find(IMAGE_PROVIDER, model);
  if (!entry || !entry.roles.includes('image')) {
    const images = d.catalog.models(IMAGE_PROVIDER).filter((m) => m.roles.includes('image')).map((m) => m.id);
    return fail('bad-arguments', `image.generate: ${model} does not make images; image models: ${images.join(', ') || 'none'}.`);
  }
  const size = str(a, 'size') || '1024x1024';
  const quality = str(a, 'quality') || 'low';
  try {
    store.requireCard();
    if (store.room() <= 0) throw new FilesError('quota', 'The file store is full: remove files or use a larger card.');
  } catch (e) {
    return e instanceof FilesError ? fail(e.code, e.message) : fail('internal', errorMessage(e));
  }

  const part = `${INCOMING}/img-${toHex(randomBytes(d.random, 4))}.png`;
  let writer: PartWriter;
  try {
    writer = store.beginPart(part);
  } catch (e) {
    return e instanceof FilesError ? fail(e.code, e.message) : fail('internal', errorMessage(e));
  }
  let status = 0;
  const errorBody: Uint8Array[] = [];
  let errorSize = 0;
  const head = new Uint8Array(8);
  let total = 0;
  let problem: ToolResult | null = null;
  const keepB64 = a['describe'] === true;
  const b64: Uint8Array[] = [];
  let b64Size = 0;
  const room = store.room();
  const stream = new B64ValueStream((bytes) => {
    if (problem) return;
    for (let i = 0; i < bytes.length && total + i < 8; i++) head[total + i] = bytes[i]!;
    total += bytes.length;
    if (total > IMAGE_MAX) problem = fail('too-large', `The image is over ${IMAGE_MAX} bytes.`);
    else if (total > room) problem = fail('quota', 'The image does not fit in the file store; remove files or use a larger card.');
    else {
      try {
        writer.write(bytes);
      } catch (e) {
        problem = e instanceof FilesError ? fail(e.code, e.message) : fail('internal', errorMessage(e));
      }
    }
  });
  const res = await d.client.request({
    method: 'POST',
    url: IMAGE_URL,
    headers: { Authorization: `Bearer ${key}`, 'Content-Type': 'application/json', Accept: 'application/json' },
    body: stringify({ model, prompt, n: 1, size, quality, output_format: 'png' }),
    timeoutMs: GENERATE_MS,
    onHead: (s) => {
      status = s;
    },
    onBody: (chunk) => {
      if (status < 200 || status > 299) {
        if (errorSize < ERROR_KEEP) {
          errorBody.push(chunk);
          errorSize += chunk.length;
        }
        return true;
      }
      stream.feed(chunk);
      if (keepB64 && b64Size <= DESCRIBE_MAX_B64) {
        b64.push(chunk);
        b64Size += chunk.length;
      }
      return problem === null && stream.error === null;
    },
  });
  const finish = (r: ToolResult): ToolResult => {
    writer.abort();
    return r;
  };
  if (problem) return finish(problem);
  if (!res.ok) return finish(fail(res.error === 'timeout' ? 'timeout' : 'transport', `The image service could not be reached (${res.error}).`));
  if (status < 200 || status > 299) return finish(apiError(status, concatBytes(errorBody)));
  if (stream.error) return finish(fail('malformed', `The image service answered something unreadable (${stream.error}).`));
  if (!stream.done || total < 8) return finish(fail('malformed', 'The image service answered without an image.'));
  if (!PNG_MAGIC.every((b, i) => head[i] === b)) return finish(fail('malformed', 'The image service answered with something that is not a PNG.'));
  let saved;
  try {
    writer.commit();
    saved = store.adopt(caller.person, project, name, part, { kind: 'image' });
  } catch (e) {
    writer.abort();
    try {
      d.remove(part);
    } catch {
      // cleared at the next start
    }
    return e instanceof FilesError ? fail(e.code, e.message) : fail('internal', errorMessage(e));
  }
  d.log.info('images', `image saved as ${saved.project}/${saved.name} (${saved.size} bytes, ${model}, ${quality})`);
  const lines = [`Saved ${saved.project}/${saved.name} (PNG, ${saved.size} bytes; ${model}, ${size}, quality ${quality}).`];
  if (keepB64) lines.push(await describe(d, key, concatBytes(b64), b64Size > DESCRIBE_MAX_B64));
  return ok(lines.join('\n'));
}


/** Asks the provider's default model to describe the image (its base64 from the answer body). */
async function describe(d: ImageDeps, key: string, body: Uint8Array, tooLarge: boolean): Promise<string> {
  if (tooLarge) return 'Description: not made (the image is too large to send back for one).';
  // The answer body's b64_json value, as text once (for a data URL in the request).
  const doc = parseJson(decode(body));
  const data = doc.ok && isPlainObject(doc.value) && Array.isArray(doc.value['data']) && isPlainObject(doc.value['data'][0]) ? doc.value['data'][0]['b64_json'] : null;
  if (typeof data !== 'string') return 'Description: not made (the answer could not be read again).';
  const model = CATALOG.openai.defaultModel;
  const req = {
    model,
    store: false,
    max_output_tokens: 300,
    input: [
      {
        role: 'user',
        content: [
          { type: 'input_text', text: 'Describe this image in at most two sentences, plainly, for someone who cannot see it.' },
          // The SDK's ResponseInputImage requires detail; auto is the API's default.
          { type: 'input_image', detail: 'auto', image_url: `data:image/png;base64,${data}` },
        ],
      },
    ],
  };
  const res = await d.client.request({ method: 'POST', url: DESCRIBE_URL, headers: { Authorization: `Bearer ${key}`, 'Content-Type': 'application/json' }, body: encode(stringify(req)), timeoutMs: DESCRIBE_MS });
  if (!res.ok) return `Description: not made (${res.error}).`;
  if (res.response.status < 200 || res.response.status > 299) return `Description: not made (HTTP ${res.response.status}).`;
  const answer = parseJson(decode(res.response.body));
  const out = answer.ok && isPlainObject(answer.value) && Array.isArray(answer.value['output']) ? answer.value['output'] : [];
  const texts: string[] = [];
  for (const item of out) {
    if (!isPlainObject(item) || !Array.isArray(item['content'])) continue;
    for (const c of item['content']) if (isPlainObject(c) && c['type'] === 'output_text' && typeof c['text'] === 'string') texts.push(c['text']);
  }
  return texts.length ? `Description: ${texts.join(' ').trim()}` : 'Description: not made (no text came back).';
}

export function imageTool(d: ImageDeps): ToolSpec {
  return {
    name: 'image.generate',
    description: 'Make an image from a text prompt and save it as a PNG in the file store (project images by default). Costs the owner money per image; quality low unless asked.',
    schema: {
      type: 'object',
      properties: {
        prompt: { type: 'string', minLength: 1, maxLength: 4000, description: 'what to draw' },
        project: { type: 'string', description: 'project folder (default images)' },
        name: { type: 'string', description: 'file name ending in .png (default image-<id>.png)' },
        size: { type: 'string', enum: [...SIZES], default: '1024x1024' },
        quality: { type: 'string', enum: [...QUALITIES], default: 'low' },
        model: { type: 'string', maxLength: 39, description: 'an image model of the catalog (default the provider\'s)' },
        describe: { type: 'boolean', default: false, description: 'also return a short description of the image' },
      },
      required: ['prompt'],
      additionalProperties: false,
    },
    access: 'open',
    where: 'turn',
    available: () => d.key() !== null,
    handler: (a, caller) => generate(d, a, caller),
  };
}

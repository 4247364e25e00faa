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

/** What image.generate was asked for, its defaults filled in and checked. */
interface ImageRequest {
  key: string;
  prompt: string;
  project: string;
  name: string;
  model: string;
  size: string;
  quality: string;
}

/** Checks the arguments (and that there is a key to send): the request, or the refusal to answer with. */
function readRequest(d: ImageDeps, a: Record<string, unknown>): { ok: true; req: ImageRequest } | { ok: false; result: ToolResult } {
  const refuse = (code: string, message: string): { ok: false; result: ToolResult } => ({ ok: false, result: fail(code, message) });
  const key = d.key();
  if (!key) return refuse('unavailable', 'No image-capable provider key is set (an OpenAI key, on the web page).');
  if (isPlainHttp(IMAGE_URL)) return refuse('config', 'refusing to send the key over plain http');
  const prompt = str(a, 'prompt') ?? '';
  if (!prompt) return refuse('bad-arguments', 'image.generate: prompt is empty.');
  const project = str(a, 'project') || DEFAULT_PROJECT;
  const badProject = checkProject(project);
  if (badProject) return refuse('bad-arguments', `image.generate: ${badProject}.`);
  let name = str(a, 'name') || `image-${toHex(randomBytes(d.random, 3))}.png`;
  if (!extensionOf(name)) name = `${name.slice(0, NAME_MAX - 4)}.png`;
  if (extensionOf(name) !== 'png') return refuse('bad-arguments', 'image.generate: the name must end in .png (the image is a PNG).');
  const badName = checkName(name);
  if (badName) return refuse('bad-arguments', `image.generate: ${badName}.`);
  const model = str(a, 'model') || d.catalog.modelFor(IMAGE_PROVIDER, 'image') || 'gpt-image-1-mini';
  const entry = d.catalog.find(IMAGE_PROVIDER, model);
  if (!entry || !entry.roles.includes('image')) {
    const images = d.catalog.models(IMAGE_PROVIDER).filter((m) => m.roles.includes('image')).map((m) => m.id);
    return refuse('bad-arguments', `image.generate: ${model} does not make images; image models: ${images.join(', ') || 'none'}.`);
  }
  return { ok: true, req: { key, prompt, project, name, model, size: str(a, 'size') || '1024x1024', quality: str(a, 'quality') || 'low' } };
}

function filesFailure(e: unknown): ToolResult {
  return e instanceof FilesError ? fail(e.code, e.message) : fail('internal', errorMessage(e));
}

/**
 * The answer as it arrives: a success's b64_json decoded into the part file
 * (its first bytes kept for the PNG check, its size held to the limit and
 * the store's room), the base64 kept for describe, an error's body kept apart.
 */
class ImageReceiver {
  status = 0;
  problem: ToolResult | null = null;
  readonly head = new Uint8Array(8);
  total = 0;
  readonly stream: B64ValueStream;
  readonly b64: Uint8Array[] = [];
  b64Size = 0;
  private readonly errorBody: Uint8Array[] = [];
  private errorSize = 0;

  constructor(
    private readonly writer: PartWriter,
    private readonly room: number,
    private readonly keepB64: boolean,
  ) {
    this.stream = new B64ValueStream((bytes) => this.decoded(bytes));
  }

  private decoded(bytes: Uint8Array): void {
    if (this.problem) return;
    for (let i = 0; i < bytes.length && this.total + i < 8; i++) this.head[this.total + i] = bytes[i]!;
    this.total += bytes.length;
    if (this.total > IMAGE_MAX) this.problem = fail('too-large', `The image is over ${IMAGE_MAX} bytes.`);
    else if (this.total > this.room) this.problem = fail('quota', 'The image does not fit in the file store; remove files or use a larger card.');
    else {
      try {
        this.writer.write(bytes);
      } catch (e) {
        this.problem = filesFailure(e);
      }
    }
  }

  /** A piece of the answer's body; false stops the download. */
  body(chunk: Uint8Array): boolean {
    if (this.status < 200 || this.status > 299) {
      if (this.errorSize < ERROR_KEEP) {
        this.errorBody.push(chunk);
        this.errorSize += chunk.length;
      }
      return true;
    }
    this.stream.feed(chunk);
    if (this.keepB64 && this.b64Size <= DESCRIBE_MAX_B64) {
      this.b64.push(chunk);
      this.b64Size += chunk.length;
    }
    return this.problem === null && this.stream.error === null;
  }

  /** Why the answer is not a saved image yet (null: a whole PNG is in the part file). */
  refusal(res: { ok: true } | { ok: false; error: string }): ToolResult | null {
    if (this.problem) return this.problem;
    if (!res.ok) return fail(res.error === 'timeout' ? 'timeout' : 'transport', `The image service could not be reached (${res.error}).`);
    if (this.status < 200 || this.status > 299) return apiError(this.status, concatBytes(this.errorBody));
    if (this.stream.error) return fail('malformed', `The image service answered something unreadable (${this.stream.error}).`);
    if (!this.stream.done || this.total < 8) return fail('malformed', 'The image service answered without an image.');
    if (!PNG_MAGIC.every((b, i) => this.head[i] === b)) return fail('malformed', 'The image service answered with something that is not a PNG.');
    return null;
  }
}

export async function generate(d: ImageDeps, a: Record<string, unknown>, caller: ToolCaller): Promise<ToolResult> {
  const { store } = d;
  const asked = readRequest(d, a);
  if (!asked.ok) return asked.result;
  const { key, prompt, project, name, model, size, quality } = asked.req;
  try {
    store.requireCard();
    if (store.room() <= 0) throw new FilesError('quota', 'The file store is full: remove files or use a larger card.');
  } catch (e) {
    return filesFailure(e);
  }
  const part = `${INCOMING}/img-${toHex(randomBytes(d.random, 4))}.png`;
  let writer: PartWriter;
  try {
    writer = store.beginPart(part);
  } catch (e) {
    return filesFailure(e);
  }
  const keepB64 = a['describe'] === true;
  const got = new ImageReceiver(writer, store.room(), keepB64);
  const res = await d.client.request({
    method: 'POST',
    url: IMAGE_URL,
    headers: { Authorization: `Bearer ${key}`, 'Content-Type': 'application/json', Accept: 'application/json' },
    body: stringify({ model, prompt, n: 1, size, quality, output_format: 'png' }),
    timeoutMs: GENERATE_MS,
    onHead: (s) => {
      got.status = s;
    },
    onBody: (chunk) => got.body(chunk),
  });
  const refused = got.refusal(res);
  if (refused) {
    writer.abort();
    return refused;
  }
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
    return filesFailure(e);
  }
  d.log.info('images', `image saved as ${saved.project}/${saved.name} (${saved.size} bytes, ${model}, ${quality})`);
  const lines = [`Saved ${saved.project}/${saved.name} (PNG, ${saved.size} bytes; ${model}, ${size}, quality ${quality}).`];
  if (keepB64) lines.push(await describe(d, key, concatBytes(got.b64), got.b64Size > DESCRIBE_MAX_B64));
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

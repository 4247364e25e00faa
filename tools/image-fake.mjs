// A fake of the image generation API image.generate uses: OpenAI's
// POST /v1/images/generations with a GPT image model (request {model,
// prompt, n, size, quality, output_format}; answer {created, data:
// [{b64_json}], usage, size, quality, output_format}). The image is a real
// PNG (a gradient, or noise to make it large), whatever size was asked.
// Transport-free (answer()), used by the provider emulator and by unit
// tests on the in-memory network; it records every request.

import { deflateSync } from 'node:zlib';

export const IMAGE_PATH = '/v1/images/generations';
const MODELS = ['gpt-image-1', 'gpt-image-1-mini'];
const SIZES = ['1024x1024', '1024x1536', '1536x1024', 'auto'];
const QUALITIES = ['low', 'medium', 'high', 'auto'];

const CRC_TABLE = Array.from({ length: 256 }, (_, n) => {
  let c = n;
  for (let k = 0; k < 8; k++) c = c & 1 ? 0xedb88320 ^ (c >>> 1) : c >>> 1;
  return c >>> 0;
});

function crc32(bytes) {
  let c = 0xffffffff;
  for (const b of bytes) c = CRC_TABLE[(c ^ b) & 0xff] ^ (c >>> 8);
  return (c ^ 0xffffffff) >>> 0;
}

function chunk(type, data) {
  const head = Buffer.alloc(8);
  head.writeUInt32BE(data.length, 0);
  head.write(type, 4, 'ascii');
  const crc = Buffer.alloc(4);
  crc.writeUInt32BE(crc32(Buffer.concat([Buffer.from(type, 'ascii'), data])), 0);
  return Buffer.concat([head, data, crc]);
}

/** An RGB PNG of width x height: a gradient, or noise (which does not compress). */
export function png(width, height, { noise = false } = {}) {
  const rows = [];
  for (let y = 0; y < height; y++) {
    const row = Buffer.alloc(1 + width * 3);
    for (let x = 0; x < width; x++) {
      const o = 1 + x * 3;
      if (noise) {
        row[o] = (x * 73 + y * 151 + ((x * y) % 251)) & 0xff;
        row[o + 1] = (x * 31 ^ y * 17) & 0xff;
        row[o + 2] = ((x + 7) * (y + 3) * 11) & 0xff;
      } else {
        row[o] = Math.round((x / Math.max(1, width - 1)) * 255);
        row[o + 1] = Math.round((y / Math.max(1, height - 1)) * 255);
        row[o + 2] = 128;
      }
    }
    rows.push(row);
  }
  const ihdr = Buffer.alloc(13);
  ihdr.writeUInt32BE(width, 0);
  ihdr.writeUInt32BE(height, 4);
  ihdr[8] = 8; // bit depth
  ihdr[9] = 2; // RGB
  return Buffer.concat([Buffer.from([0x89, 0x50, 0x4e, 0x47, 0x0d, 0x0a, 0x1a, 0x0a]), chunk('IHDR', ihdr), chunk('IDAT', deflateSync(Buffer.concat(rows), { level: noise ? 0 : 6 })), chunk('IEND', Buffer.alloc(0))]);
}

/** Options: key (the only accepted key), width/height/noise of the PNG given back. */
export function createImageApi({ key, width = 64, height = 64, noise = false } = {}) {
  const requests = [];
  const image = png(width, height, { noise });
  const reply = (status, value) => ({ status, headers: { 'Content-Type': 'application/json' }, body: Buffer.from(JSON.stringify(value)) });
  const error = (status, message, code = null) => reply(status, { error: { message, type: 'invalid_request_error', param: null, code } });
  return {
    requests,
    image,
    answer(method, url, headers, body) {
      const u = new URL(url, 'https://api.openai.com');
      if (method !== 'POST' || u.pathname !== IMAGE_PATH) return error(404, 'not found');
      const auth = String(headers['authorization'] ?? '');
      if (!auth.startsWith('Bearer ') || (key !== undefined && auth.slice(7) !== key)) return error(401, 'Incorrect API key provided', 'invalid_api_key');
      let req;
      try {
        req = JSON.parse(Buffer.from(body).toString('utf8'));
      } catch {
        return error(400, 'We could not parse the JSON body of your request.');
      }
      requests.push(req);
      if (!MODELS.includes(req.model)) return error(400, `Invalid value: '${req.model}'. Supported values are: ${MODELS.join(', ')}.`, 'invalid_value');
      if (typeof req.prompt !== 'string' || !req.prompt) return error(400, "Missing required parameter: 'prompt'.", 'missing_required_parameter');
      if (req.size !== undefined && !SIZES.includes(req.size)) return error(400, `Invalid value: '${req.size}'.`, 'invalid_value');
      if (req.quality !== undefined && !QUALITIES.includes(req.quality)) return error(400, `Invalid value: '${req.quality}'.`, 'invalid_value');
      if (/forbidden/i.test(req.prompt)) return error(400, 'Your request was rejected as a result of our safety system.', 'moderation_blocked');
      return reply(200, {
        created: Math.floor(Date.now() / 1000),
        background: 'opaque',
        data: [{ b64_json: image.toString('base64') }],
        output_format: req.output_format ?? 'png',
        quality: req.quality ?? 'auto',
        size: req.size ?? '1024x1024',
        usage: { input_tokens: 20, input_tokens_details: { image_tokens: 0, text_tokens: 20 }, output_tokens: 272, total_tokens: 292 },
      });
    },
  };
}

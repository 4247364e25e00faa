// The Telegram Bot API's rules, for the Bot API fake (tools/telegram-fake.mjs):
// how a request carries its parameters, which parameters each method the fake
// serves takes, how values are read, how a chat id names a chat, which files a
// voice message takes. The fake must be at least as strict as the service, so
// each rule names where it comes from: the Bot API documentation
// (https://core.telegram.org/bots/api, anchors below), or, where a rule is
// stricter than the service, says so. The parameter tables are checked
// against @grammyjs/types (the declarations grammY maintains from that
// documentation) by test/unit/chat/bot-api-types.test.ts.

export const DOC = 'https://core.telegram.org/bots/api';

/** An Update's kinds (#update), as allowed_updates names them. */
export const UPDATE_TYPES = [
  'message', 'edited_message', 'channel_post', 'edited_channel_post', 'business_connection', 'business_message', 'edited_business_message',
  'deleted_business_messages', 'guest_message', 'stopped_message_generation', 'message_reaction', 'message_reaction_count', 'inline_query',
  'chosen_inline_result', 'callback_query', 'shipping_query', 'pre_checkout_query', 'purchased_paid_media', 'poll', 'poll_answer',
  'my_chat_member', 'chat_member', 'chat_join_request', 'chat_boost', 'removed_chat_boost', 'managed_bot', 'subscription',
];
/** #getupdates allowed_updates: "Specify an empty list to receive all update types except chat_member, message_reaction, and message_reaction_count (default)". */
export const DEFAULT_ALLOWED = UPDATE_TYPES.filter((t) => t !== 'chat_member' && t !== 'message_reaction' && t !== 'message_reaction_count');

const SEND_COMMON = [
  'business_connection_id', 'chat_id', 'message_thread_id', 'direct_messages_topic_id', 'ephemeral_message_parameters', 'disable_notification',
  'protect_content', 'allow_paid_broadcast', 'suggested_post_parameters', 'message_effect_id', 'reply_parameters', 'reply_markup', 'reply_to_message_id',
];
const CAPTIONED = ['caption', 'parse_mode', 'caption_entities'];

/**
 * The methods the fake serves: their parameters (#getme, #getupdates,
 * #sendmessage, #sendvoice, #senddocument, #getfile, #setwebhook,
 * #deletewebhook) and which of them carry files (#sending-files).
 */
export const METHODS = {
  getMe: { params: [] },
  getUpdates: { params: ['offset', 'limit', 'timeout', 'allowed_updates'] },
  sendMessage: { params: [...SEND_COMMON, 'text', 'parse_mode', 'entities', 'link_preview_options'] },
  sendVoice: { params: [...SEND_COMMON, ...CAPTIONED, 'voice', 'duration'], file: 'voice' },
  sendDocument: { params: [...SEND_COMMON, ...CAPTIONED, 'document', 'thumbnail', 'disable_content_type_detection'], file: 'document' },
  getFile: { params: ['file_id'] },
  setWebhook: { params: ['url', 'certificate', 'ip_address', 'max_connections', 'allowed_updates', 'drop_pending_updates', 'secret_token'] },
  deleteWebhook: { params: ['drop_pending_updates'] },
};

/** #making-requests: "All methods in the Bot API are case-insensitive." The method's name as documented, or null. */
export function methodNamed(name) {
  const lower = String(name).toLowerCase();
  return Object.keys(METHODS).find((m) => m.toLowerCase() === lower) ?? null;
}

/** #formatting-options: the parse modes the service knows. */
export const PARSE_MODES = ['MarkdownV2', 'HTML', 'Markdown'];

/** #sendmessage text "1-4096 characters after entities parsing"; #sendvoice, #senddocument caption "0-1024 characters". Characters are UTF-16 code units (#messageentity counts offsets in them). */
export const TEXT_MAX = 4096;
export const CAPTION_MAX = 1024;
/** #getfile: "bots can download files of up to 20MB in size". */
export const DOWNLOAD_MAX = 20 * 1024 * 1024;
/** #senddocument, #sendvoice: "Bots can currently send ... files of up to 50 MB in size". */
export const UPLOAD_MAX = 50 * 1024 * 1024;

// --- how a request carries its parameters (#making-requests) ------------------------

const HEADER_PARAM = /;\s*([A-Za-z0-9_*-]+)\s*=\s*(?:"((?:[^"\\]|\\.)*)"|([^;]*))/g;

/** The parameters of a header value such as Content-Disposition (RFC 7578 section 4.2: quoted or bare values). */
function headerParams(value) {
  const out = {};
  for (const m of `;${value}`.matchAll(HEADER_PARAM)) out[m[1].toLowerCase()] = m[2] !== undefined ? m[2].replace(/\\(.)/g, '$1') : m[3].trim();
  return out;
}

/** A multipart/form-data body (RFC 7578): {fields, files}, or null when it does not parse. Header names are case-insensitive (RFC 7230 section 3.2). */
export function parseMultipart(body, contentType) {
  const boundary = headerParams(contentType.slice(contentType.indexOf(';')))['boundary'];
  if (!boundary) return null;
  const delim = Buffer.from(`--${boundary}`);
  const fields = {};
  const files = {};
  let at = body.indexOf(delim);
  if (at < 0) return null;
  for (;;) {
    at += delim.length;
    if (body[at] === 45 && body[at + 1] === 45) return { fields, files };
    if (body[at] !== 13 || body[at + 1] !== 10) return null;
    at += 2;
    const headEnd = body.indexOf('\r\n\r\n', at);
    if (headEnd < 0) return null;
    const head = {};
    for (const line of body.subarray(at, headEnd).toString('utf8').split('\r\n')) {
      const colon = line.indexOf(':');
      if (colon > 0) head[line.slice(0, colon).trim().toLowerCase()] = line.slice(colon + 1).trim();
    }
    const next = body.indexOf(Buffer.concat([Buffer.from('\r\n'), delim]), headEnd + 4);
    if (next < 0) return null;
    const data = body.subarray(headEnd + 4, next);
    const disposition = head['content-disposition'] ?? '';
    const { name, filename } = headerParams(disposition.slice(disposition.indexOf(';')));
    if (!/^form-data\s*(;|$)/i.test(disposition) || name === undefined) return null;
    if (filename !== undefined) files[name] = { name: filename, mime: (head['content-type'] ?? 'application/octet-stream').split(';')[0].trim(), bytes: Buffer.from(data) };
    else fields[name] = data.toString('utf8');
    at = next + 2;
  }
}

/**
 * A request's parameters, the four ways the service takes them
 * (#making-requests): the URL's query string, application/x-www-form-urlencoded,
 * application/json ("except for uploading files") and multipart/form-data
 * ("use to upload files"). Resolves {params, files, via} or {refusal}.
 */
export function readRequest(url, headers, body) {
  const q = url.indexOf('?');
  const params = q >= 0 ? Object.fromEntries(new URLSearchParams(url.slice(q + 1))) : {};
  const type = String(headers['content-type'] ?? '').trim();
  const mime = type.split(';')[0].trim().toLowerCase();
  if (!body.length) return { params, files: {}, via: q >= 0 ? 'query' : 'none' };
  if (mime === 'application/json') {
    let doc;
    try {
      doc = JSON.parse(body.toString('utf8'));
    } catch {
      return { refusal: 'Bad Request: the JSON body does not parse (#making-requests: application/json)' };
    }
    if (doc === null || typeof doc !== 'object' || Array.isArray(doc)) return { refusal: 'Bad Request: the JSON body must be an object of parameters (#making-requests)' };
    return { params: { ...params, ...doc }, files: {}, via: 'json' };
  }
  if (mime === 'application/x-www-form-urlencoded') return { params: { ...params, ...Object.fromEntries(new URLSearchParams(body.toString('utf8'))) }, files: {}, via: 'form' };
  if (mime === 'multipart/form-data') {
    const mp = parseMultipart(body, type);
    if (!mp) return { refusal: 'Bad Request: the multipart/form-data body does not parse (RFC 7578)' };
    return { params: { ...params, ...mp.fields }, files: mp.files, via: 'multipart' };
  }
  // Stricter than the service, which ignores a body it cannot read: a body the device meant to send must not vanish.
  return { refusal: `Bad Request: a body of Content-Type "${type}" carries no parameters (#making-requests: query string, x-www-form-urlencoded, application/json or multipart/form-data)` };
}

/**
 * Stricter than the service, which ignores parameters it does not know: a
 * misspelled parameter is a device bug the service would hide. Null, or the
 * refusal naming the parameter and the method's documentation.
 */
export function unknownParam(method, params, files) {
  const known = METHODS[method].params;
  const extra = Object.keys(params).find((k) => !known.includes(k));
  if (extra !== undefined) return `Bad Request: parameter "${extra}" is not one of ${method}'s (${DOC}#${method.toLowerCase()}); the service would ignore it`;
  // A file part is named by its parameter, or by an attach:// reference in one (#sending-files, #inputmedia).
  const attached = new Set(Object.values(params).filter((v) => typeof v === 'string' && v.startsWith('attach://')).map((v) => v.slice(9)));
  const stray = Object.keys(files).find((k) => !known.includes(k) && !attached.has(k));
  return stray === undefined ? null : `Bad Request: the file part "${stray}" is neither a parameter of ${method} nor named by an attach:// value (${DOC}#sending-files)`;
}

// --- reading values: JSON gives them typed, the forms as text (#making-requests) ------

const INTEGER = /^-?\d+$/;

/** An Integer parameter: a JSON integer, or its decimal text from a form. {value} (undefined when absent) or {error}. */
export function readInt(params, name, { min = -Infinity, max = Infinity } = {}) {
  const v = params[name];
  if (v === undefined || v === null || v === '') return { value: undefined };
  const n = typeof v === 'number' ? v : typeof v === 'string' && INTEGER.test(v.trim()) ? Number(v.trim()) : NaN;
  if (!Number.isSafeInteger(n)) return { error: `Bad Request: ${name} must be an Integer (${DOC}#making-requests)` };
  if (n < min || n > max) return { error: `Bad Request: ${name} must be between ${min} and ${max}` };
  return { value: n };
}

/** A Boolean parameter: JSON true/false, or "true"/"false" (also 1/0) from a form. */
export function readBool(params, name) {
  const v = params[name];
  if (v === undefined || v === null || v === '') return { value: undefined };
  if (v === true || v === 'true' || v === '1' || v === 1) return { value: true };
  if (v === false || v === 'false' || v === '0' || v === 0) return { value: false };
  return { error: `Bad Request: ${name} must be a Boolean (${DOC}#making-requests)` };
}

/** A String parameter (a JSON number is taken as its text, as the service does). */
export function readString(params, name) {
  const v = params[name];
  if (v === undefined || v === null) return { value: undefined };
  if (typeof v === 'string') return { value: v };
  if (typeof v === 'number') return { value: String(v) };
  return { error: `Bad Request: ${name} must be a String (${DOC}#making-requests)` };
}

/** An object or array parameter: JSON in a JSON body, "JSON-serialized" text in the forms (#making-requests). */
export function readJson(params, name, shape) {
  let v = params[name];
  if (v === undefined || v === null || v === '') return { value: undefined };
  if (typeof v === 'string') {
    try {
      v = JSON.parse(v);
    } catch {
      return { error: `Bad Request: can't parse ${name} JSON ${shape === 'array' ? 'array' : 'object'}` };
    }
  }
  if (shape === 'array' ? !Array.isArray(v) : v === null || typeof v !== 'object' || Array.isArray(v)) return { error: `Bad Request: ${name} must be a JSON ${shape === 'array' ? 'array' : 'object'} (${DOC}#making-requests)` };
  return { value: v };
}

/** #getupdates allowed_updates: a list of Update's kinds. Stricter than the service: a name that is no kind is refused, not ignored. */
export function readAllowed(params) {
  const r = readJson(params, 'allowed_updates', 'array');
  if (r.error || r.value === undefined) return r;
  const wrong = r.value.find((t) => !UPDATE_TYPES.includes(t));
  if (wrong !== undefined) return { error: `Bad Request: allowed_updates names "${wrong}", which is no kind of Update (${DOC}#update)` };
  return { value: r.value.length ? r.value : DEFAULT_ALLOWED };
}

// --- chats --------------------------------------------------------------------

/** Supergroups and channels are -100<n> in the Bot API (https://core.telegram.org/api/bots/ids: -(1000000000000 + id)). */
const SUPERGROUP_BELOW = -1_000_000_000_000;

/** The kind of chat a numeric id names (https://core.telegram.org/api/bots/ids): users positive, basic groups -n, supergroups -100n. */
export function chatKindOf(id) {
  if (id > 0) return 'private';
  return id <= SUPERGROUP_BELOW ? 'supergroup' : 'group';
}

/**
 * #sendmessage chat_id: "Integer or String: Unique identifier for the target
 * chat or username of the target channel (in the format @channelusername)".
 * {id} or {username} or {error}, in the service's words.
 */
export function readChatId(params) {
  const v = params['chat_id'];
  if (v === undefined || v === null || v === '') return { error: 'Bad Request: chat_id is empty' };
  if (typeof v === 'number') return Number.isSafeInteger(v) && v !== 0 ? { id: v } : { error: 'Bad Request: chat not found' };
  if (typeof v !== 'string') return { error: 'Bad Request: chat_id must be an Integer or a String' };
  const s = v.trim();
  if (INTEGER.test(s)) return Number(s) !== 0 && Number.isSafeInteger(Number(s)) ? { id: Number(s) } : { error: 'Bad Request: chat not found' };
  if (/^@[A-Za-z0-9_]{4,32}$/.test(s)) return { username: s.slice(1) };
  return { error: 'Bad Request: chat not found' };
}

// --- files ----------------------------------------------------------------------

/**
 * A file parameter (#sending-files, #inputfile): a file_id or URL as text, a
 * multipart part under the parameter's own name ("Post the file using
 * multipart/form-data in the usual way that files are uploaded via the
 * browser"), or "attach://<name>" naming a part (#inputmedia; grammY sends
 * every upload this way). {upload} | {fileId} | {error}.
 */
export function readFileParam(params, files, name) {
  const v = params[name];
  if (typeof v === 'string' && v.startsWith('attach://')) {
    const part = files[v.slice(9)];
    return part ? { upload: part } : { error: `Bad Request: there is no file part "${v.slice(9)}" that ${name}'s ${v} names (${DOC}#sending-files)` };
  }
  if (files[name]) return { upload: files[name] };
  if (typeof v === 'string' && v) return { fileId: v };
  return { error: `Bad Request: there is no ${name} in the request` };
}

/**
 * #sendvoice: "your audio must be in an .OGG file encoded with OPUS, or in
 * .MP3 format, or in .M4A format (other formats may be sent as Audio or
 * Document)". The MIME type the bytes carry, or null. Stricter than the
 * service, which may deliver another format as a file instead of a voice
 * message: the fake refuses it.
 */
export function voiceMime(bytes) {
  const b = bytes;
  if (b.length >= 4 && b.toString('latin1', 0, 4) === 'OggS') return 'audio/ogg';
  if (b.length >= 3 && (b.toString('latin1', 0, 3) === 'ID3' || (b[0] === 0xff && (b[1] & 0xe0) === 0xe0))) return 'audio/mpeg';
  if (b.length >= 8 && b.toString('latin1', 4, 8) === 'ftyp') return 'audio/mp4';
  return null;
}

/** Seconds of an Ogg Opus stream: the last page's granule position less the pre-skip, at 48 kHz (RFC 7845 section 4), rounded; null when not Ogg Opus. */
export function oggOpusSeconds(bytes) {
  const head = bytes.indexOf('OpusHead');
  if (bytes.toString('latin1', 0, 4) !== 'OggS' || head < 0 || head + 12 > bytes.length) return null;
  const preSkip = bytes.readUInt16LE(head + 10);
  const last = bytes.lastIndexOf('OggS');
  if (last < 0 || last + 14 > bytes.length) return null;
  const granule = Number(bytes.readBigUInt64LE(last + 6));
  return Math.max(0, Math.round((granule - preSkip) / 48000));
}

const MIME_BY_EXT = { txt: 'text/plain', md: 'text/markdown', csv: 'text/csv', json: 'application/json', pdf: 'application/pdf', zip: 'application/zip', jpg: 'image/jpeg', jpeg: 'image/jpeg', png: 'image/png', ogg: 'audio/ogg', oga: 'audio/ogg', mp3: 'audio/mpeg', wav: 'audio/x-wav' };

/** #senddocument disable_content_type_detection: the service detects a document's type unless told not to; from the name's extension here. */
export function documentMime(name, partMime) {
  if (partMime && partMime !== 'application/octet-stream') return partMime;
  return MIME_BY_EXT[String(name).split('.').pop().toLowerCase()] ?? 'application/octet-stream';
}

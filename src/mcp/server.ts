// The MCP server behind POST /mcp: JSON-RPC 2.0 over Streamable HTTP,
// serving the registry's tools, the resources and the prompts to the token
// holder. An answer is application/json, or an event stream when a running
// tool speaks to the client (src/mcp/exchange.ts).
//
// Protocol versions (docs/decisions.md, "Tool server (/mcp)" and "MCP:
// resources, prompts, sessions and the conformance suite"):
// - legacy, by the initialize handshake: 2025-11-25, 2025-06-18, 2025-03-26,
//   2024-11-05. initialize answers the client's version when it is one of
//   these, else 2025-11-25, and opens a session (Mcp-Session-Id,
//   src/mcp/sessions.ts). Methods: initialize, ping, tools/list,
//   tools/call, resources/list, resources/read, resources/templates/list,
//   prompts/list, prompts/get; notifications (notifications/initialized,
//   ...) and the client's responses to the server's questions get 202.
// - modern, per request: 2026-07-28. A request whose MCP-Protocol-Version
//   header or _meta names it is served statelessly: server/discover and the
//   same list, read, get and call methods; the header must match _meta
//   (io.modelcontextprotocol/protocolVersion), Mcp-Method the method and
//   Mcp-Name the tool, prompt or resource named, else 400 with
//   HeaderMismatch (-32020); an unknown method is 404 with -32601; results
//   carry resultType, and cacheable ones ttlMs and cacheScope.
// - An MCP-Protocol-Version header naming any other version: 400 with
//   UnsupportedProtocolVersion (-32022) listing the supported ones. No header
//   reads as 2025-03-26, as the 2025 transports say.
// - Batches (JSON arrays) only for 2025-03-26 and 2024-11-05, the versions
//   whose transport allowed them (2025-06-18 removed batching); initialize
//   may not be batched.
// - Origin: src/mcp/origin.ts (403 for a foreign one).

import type { Clock } from '../hal/index.ts';
import { fromBase64 } from '../util/encoding.ts';
import type { RandomFill } from '../util/ids.ts';
import { errorMessage, isPlainObject, parseJson, stringify } from '../util/json.ts';
import { decode } from '../util/utf8.ts';
import type { HttpRequest, HttpResponse } from '../net/http/types.ts';
import { mediaType } from '../net/http/body.ts';
import { Exchange, Outbound } from './exchange.ts';
import {
  FORBIDDEN,
  HEADER_MISMATCH,
  INTERNAL_ERROR,
  INVALID_PARAMS,
  INVALID_REQUEST,
  METHOD_NOT_FOUND,
  PARSE_ERROR,
  RESOURCE_NOT_FOUND,
  SESSION_NOT_FOUND,
  UNSUPPORTED_PROTOCOL_VERSION,
  classify,
  rpcError,
  rpcResult,
  type RpcId,
  type RpcResponse,
} from './jsonrpc.ts';
import { originRefusal } from './origin.ts';
import type { PromptRegistry } from './prompts.ts';
import type { ToolRegistry } from '../core/tools/registry.ts';
import { cursorOf, paginate, ResourceError, type ResourceRegistry } from './resources.ts';
import { Sessions, type Session } from './sessions.ts';
import type { ToolCaller, ToolResult } from '../core/tools/types.ts';

// Regular expressions are module constants: XS compiles a literal each time it is evaluated.
const BASE64_HEADER_WORD = /^=\?base64\?([A-Za-z0-9+/=]*)\?=$/;

/** A /mcp caller holds the device token: the owner, an admin, attended. */
export const MCP_CALLER: ToolCaller = Object.freeze({ via: 'mcp', admin: true, scheduled: false, unattended: false, person: null });

export const MODERN_VERSIONS = ['2026-07-28'] as const;
export const LEGACY_VERSIONS = ['2025-11-25', '2025-06-18', '2025-03-26', '2024-11-05'] as const;
export const SUPPORTED_VERSIONS: readonly string[] = [...MODERN_VERSIONS, ...LEGACY_VERSIONS];
/** What a request without MCP-Protocol-Version is taken to speak (2025-06-18 transport rule). */
export const DEFAULT_VERSION = '2025-03-26';
const LATEST_LEGACY = LEGACY_VERSIONS[0];
const BATCH_VERSIONS: readonly string[] = ['2025-03-26', '2024-11-05'];
/** Most messages in one batch: the device answers them one after another. */
export const MAX_BATCH = 32;
/**
 * How long a modern client may cache a list (ttlMs): 0 for what can change
 * at any moment (tools' availability, files, approved skills); the
 * templates and server/discover change only with the firmware.
 */
const LIST_TTL_MS = 0;
const DISCOVER_TTL_MS = 5 * 60_000;
const TEMPLATES_TTL_MS = 5 * 60_000;

const META_VERSION = 'io.modelcontextprotocol/protocolVersion';
const META_CAPABILITIES = 'io.modelcontextprotocol/clientCapabilities';
const SERVER_INFO = 'io.modelcontextprotocol/serverInfo';

/** Methods whose request names a tool, prompt or resource in Mcp-Name (2026-07-28), and the param it mirrors. */
const NAMED: Record<string, 'name' | 'uri'> = { 'tools/call': 'name', 'prompts/get': 'name', 'resources/read': 'uri' };

export interface ServerIdentity {
  name: string;
  title: string;
  version: string;
}

/** What the server offers besides tools, and what sessions and questions to clients need. */
export interface McpExtras {
  resources?: ResourceRegistry;
  prompts?: PromptRegistry;
  /** With random: sessions and questions to clients (without them the server is stateless and asks nothing). */
  clock?: Clock;
  random?: RandomFill;
}

interface Answer {
  status: number;
  /** null: no response body (202 for notifications). */
  body: RpcResponse | null;
  headers?: Record<string, string>;
  /** An event stream that replaces the body (a tool that spoke while it ran). */
  response?: HttpResponse;
}

/** What one HTTP request tells every message in it. */
interface Incoming {
  headerVersion: string | undefined;
  headers: Map<string, string>;
  /** The client accepts text/event-stream. */
  sse: boolean;
  /** Mcp-Session-Id as sent (legacy only). */
  sessionId: string | undefined;
  inBatch: boolean;
}

/** The era and client of one message. */
interface Scope {
  modern: boolean;
  session: Session | null;
  /** What the client declared it can do (session or _meta); null when unknown. */
  capabilities: Record<string, unknown> | null;
  meta: Record<string, unknown> | null;
  incoming: Incoming;
}

const has = (list: readonly string[], s: string): boolean => list.indexOf(s) >= 0;

function mediaTypes(header: string): string[] {
  return header.split(',').map((p) => p.split(';')[0]!.trim().toLowerCase());
}

/** Decodes the =?base64?...?= sentinel of Mcp-Name (2026-07-28); null when malformed. */
export function decodeHeaderValue(v: string): string | null {
  const m = BASE64_HEADER_WORD.exec(v);
  if (!m) return v;
  const bytes = fromBase64(m[1]!);
  return bytes ? decode(bytes) : null;
}

function json(status: number, body: unknown, headers: Record<string, string> = {}): HttpResponse {
  return { status, headers: { 'Content-Type': 'application/json', 'Cache-Control': 'no-store', ...headers }, body: stringify(body) };
}

export class McpServer {
  private readonly sessions: Sessions | null;
  private readonly outbound: Outbound | null;

  constructor(
    private readonly tools: ToolRegistry,
    private readonly identity: ServerIdentity,
    /** Who a /mcp call runs as: the token holder (the owner). */
    private readonly caller: () => ToolCaller,
    private readonly instructions: string,
    private readonly extras: McpExtras = {},
  ) {
    const { clock, random } = extras;
    this.sessions = clock && random ? new Sessions(clock, random) : null;
    this.outbound = clock && random ? new Outbound(clock, random) : null;
  }

  /** 403 for a request whose Origin is not the device itself (src/mcp/origin.ts); null to go on. */
  refuse(req: HttpRequest): HttpResponse | null {
    const why = originRefusal(req.headers.get('origin'), req.headers.get('host'));
    // MCP transports: 403, with a JSON-RPC error response that has no id.
    return why === null ? null : json(403, { jsonrpc: '2.0', error: { code: FORBIDDEN, message: `Forbidden: ${why}.` } });
  }

  /** The capabilities initialize and server/discover declare: only what this server answers. */
  capabilities(): Record<string, unknown> {
    const out: Record<string, unknown> = { tools: { listChanged: false } };
    if (this.extras.resources && !this.extras.resources.empty) out.resources = { listChanged: false };
    if (this.extras.prompts && !this.extras.prompts.empty) out.prompts = { listChanged: false };
    return out;
  }

  async handle(req: HttpRequest): Promise<HttpResponse> {
    const forbidden = this.refuse(req);
    if (forbidden) return forbidden;
    if (mediaType(req) !== 'application/json') return json(415, rpcError(null, INVALID_REQUEST, 'POST a JSON-RPC message with Content-Type: application/json.'));
    const accept = req.headers.get('accept');
    const accepted = accept === undefined ? [] : mediaTypes(accept);
    if (accept !== undefined && !accepted.some((t) => t === 'application/json' || t === 'application/*' || t === '*/*')) {
      return json(406, rpcError(null, INVALID_REQUEST, 'This server answers with application/json (or, while a tool reports progress or asks a question, text/event-stream); the Accept header must allow JSON.'));
    }
    const headerVersion = req.headers.get('mcp-protocol-version')?.trim();
    const parsed = parseJson(decode(req.body));
    if (headerVersion !== undefined && !has(SUPPORTED_VERSIONS, headerVersion)) {
      // The request's id when it can be read (2026-07-28 error responses carry an id or none, never null).
      const v = parsed.ok ? parsed.value : null;
      const id = isPlainObject(v) && (typeof v.id === 'string' || (typeof v.id === 'number' && Number.isFinite(v.id))) ? v.id : null;
      return json(400, this.unsupported(id, headerVersion));
    }
    if (!parsed.ok) return json(400, rpcError(null, PARSE_ERROR, `Parse error: ${parsed.error}`));

    const incoming: Incoming = {
      headerVersion,
      headers: req.headers,
      sse: accepted.some((t) => t === 'text/event-stream'),
      sessionId: req.headers.get('mcp-session-id')?.trim(),
      inBatch: Array.isArray(parsed.value),
    };
    if (Array.isArray(parsed.value)) return this.batch(parsed.value, incoming);
    const answer = await this.message(parsed.value, incoming);
    if (answer.response) return answer.response;
    return answer.body === null ? { status: answer.status, ...(answer.headers ? { headers: answer.headers } : {}) } : json(answer.status, answer.body, answer.headers);
  }

  private async batch(items: unknown[], incoming: Incoming): Promise<HttpResponse> {
    const version = incoming.headerVersion ?? DEFAULT_VERSION;
    if (!has(BATCH_VERSIONS, version)) {
      return json(400, rpcError(null, INVALID_REQUEST, `Protocol version ${version} does not allow batches: send one message per request.`));
    }
    if (items.length === 0) return json(400, rpcError(null, INVALID_REQUEST, 'An empty batch is not a request.'));
    if (items.length > MAX_BATCH) return json(400, rpcError(null, INVALID_REQUEST, `A batch may hold at most ${MAX_BATCH} messages.`));
    const out: RpcResponse[] = [];
    for (const item of items) {
      const answer = await this.message(item, incoming);
      // An unknown session refuses the whole batch, as it would a single message.
      if (answer.status === 404 && answer.body) return json(404, answer.body);
      if (answer.body) out.push(answer.body);
    }
    return out.length ? json(200, out) : { status: 202 };
  }

  private unsupported(id: RpcId | null, requested: string): RpcResponse {
    return rpcError(id, UNSUPPORTED_PROTOCOL_VERSION, `Unsupported protocol version ${requested}.`, { supported: [...SUPPORTED_VERSIONS], requested });
  }

  /** One message: its answer, or a null body when none is due. */
  private async message(value: unknown, incoming: Incoming): Promise<Answer> {
    const msg = classify(value);
    if (msg.kind === 'invalid') return { status: 400, body: rpcError(msg.id, INVALID_REQUEST, `Invalid request: ${msg.reason}.`) };
    if (msg.kind === 'response') {
      // The client's answer to a question a tool asked (accepted, whether or not anything still waits for it).
      this.outbound?.deliver(msg.id, incoming.sessionId ?? null, msg.result, msg.error);
      return { status: 202, body: null };
    }

    const meta = isPlainObject(msg.params) && isPlainObject(msg.params._meta) ? msg.params._meta : null;
    const metaVersion = meta && META_VERSION in meta ? meta[META_VERSION] : undefined;
    const { headerVersion } = incoming;
    const modern = (headerVersion !== undefined && has(MODERN_VERSIONS, headerVersion)) || (typeof metaVersion === 'string' && has(MODERN_VERSIONS, metaVersion));
    if (metaVersion !== undefined && (typeof metaVersion !== 'string' || !has(SUPPORTED_VERSIONS, metaVersion))) {
      if (msg.kind === 'notification') return { status: 202, body: null };
      return { status: 400, body: this.unsupported(msg.id, String(metaVersion)) };
    }
    const id = msg.kind === 'request' ? msg.id : null;
    if (modern) {
      if (incoming.inBatch) return { status: 400, body: rpcError(id, INVALID_REQUEST, 'Protocol version 2026-07-28 does not allow batches.') };
      const mismatch = this.headerMismatch(msg.kind === 'request' ? msg.method : null, msg.params, headerVersion, metaVersion, incoming.headers);
      if (mismatch && msg.kind === 'request') return { status: 400, body: rpcError(id, HEADER_MISMATCH, `Header mismatch: ${mismatch}.`) };
    }

    // Legacy sessions: a known one carries the client's capabilities; an unknown one is 404 (initialize again).
    let session: Session | null = null;
    if (!modern && this.sessions && incoming.sessionId !== undefined && !(msg.kind === 'request' && msg.method === 'initialize')) {
      session = this.sessions.get(incoming.sessionId);
      if (!session) return { status: 404, body: rpcError(null, SESSION_NOT_FOUND, 'Session not found: it ended (the device may have restarted); initialize again.') };
    }
    if (msg.kind === 'notification') return { status: 202, body: null };

    const capabilities = modern ? (meta && isPlainObject(meta[META_CAPABILITIES]) ? meta[META_CAPABILITIES] : null) : (session?.capabilities ?? null);
    const scope: Scope = { modern, session, capabilities, meta, incoming };
    const { method, params } = msg;
    try {
      switch (method) {
        case 'initialize':
          if (modern) break;
          if (incoming.inBatch) return { status: 200, body: rpcError(msg.id, INVALID_REQUEST, 'initialize may not be part of a batch.') };
          return this.initialize(msg.id, params);
        case 'ping':
          if (modern) break; // removed in 2026-07-28
          return { status: 200, body: rpcResult(msg.id, {}) };
        case 'server/discover':
          return { status: 200, body: rpcResult(msg.id, this.modernResult(this.discover(), DISCOVER_TTL_MS)) };
        case 'tools/list':
          return this.listTools(msg.id, params, modern);
        case 'tools/call':
          return await this.callTool(msg.id, params, scope);
        case 'resources/list':
        case 'resources/templates/list':
        case 'resources/read':
          if (!this.extras.resources || this.extras.resources.empty) break;
          return this.resources(msg.id, method, params, modern);
        case 'prompts/list':
        case 'prompts/get':
          if (!this.extras.prompts || this.extras.prompts.empty) break;
          return this.prompts(msg.id, method, params, modern);
        default:
          break;
      }
    } catch (e) {
      return { status: 200, body: rpcError(msg.id, INTERNAL_ERROR, `Internal error: ${errorMessage(e)}`) };
    }
    return { status: modern ? 404 : 200, body: rpcError(msg.id, METHOD_NOT_FOUND, `Method not found: ${method.slice(0, 64)}`) };
  }

  /** The 2026-07-28 header checks; a description of the first mismatch, or null. */
  private headerMismatch(method: string | null, params: unknown, headerVersion: string | undefined, metaVersion: unknown, headers: Map<string, string>): string | null {
    if (headerVersion === undefined) return 'the MCP-Protocol-Version header is required';
    if (metaVersion === undefined) return `MCP-Protocol-Version is ${headerVersion} but params._meta carries no ${META_VERSION}`;
    if (metaVersion !== headerVersion) return `MCP-Protocol-Version ${headerVersion} does not match _meta ${String(metaVersion)}`;
    if (method === null) return null;
    const mcpMethod = headers.get('mcp-method');
    if (mcpMethod === undefined) return 'the Mcp-Method header is required';
    if (mcpMethod !== method) return `Mcp-Method ${mcpMethod.slice(0, 64)} does not match the method`;
    const field = NAMED[method];
    if (field !== undefined) {
      const value = isPlainObject(params) ? params[field] : undefined;
      const raw = headers.get('mcp-name');
      if (raw === undefined) return `the Mcp-Name header is required for ${method}`;
      const decoded = decodeHeaderValue(raw);
      if (decoded === null) return 'Mcp-Name is not valid base64';
      if (decoded !== value) return `Mcp-Name does not match params.${field}`;
    }
    return null;
  }

  private initialize(id: RpcId, params: unknown): Answer {
    if (!isPlainObject(params) || typeof params.protocolVersion !== 'string') {
      return { status: 200, body: rpcError(id, INVALID_PARAMS, 'initialize needs params.protocolVersion.') };
    }
    const requested = params.protocolVersion;
    const protocolVersion = has(LEGACY_VERSIONS, requested) ? requested : LATEST_LEGACY;
    const session = this.sessions?.open(protocolVersion, isPlainObject(params.capabilities) ? params.capabilities : {}) ?? null;
    return {
      status: 200,
      body: rpcResult(id, {
        protocolVersion,
        capabilities: this.capabilities(),
        serverInfo: { ...this.identity },
        instructions: this.instructions,
      }),
      ...(session ? { headers: { 'Mcp-Session-Id': session.id } } : {}),
    };
  }

  private discover(): Record<string, unknown> {
    return {
      supportedVersions: [...SUPPORTED_VERSIONS],
      capabilities: this.capabilities(),
      instructions: this.instructions,
    };
  }

  /** Adds the 2026-07-28 result fields (ttlMs and cacheScope on cacheable results). */
  private modernResult(result: Record<string, unknown>, ttlMs: number | null): Record<string, unknown> {
    const out: Record<string, unknown> = { ...result, resultType: 'complete', _meta: { [SERVER_INFO]: { ...this.identity } } };
    if (ttlMs !== null) {
      out.ttlMs = ttlMs;
      // What is listed or read depends on who asks (admin tools, a person's files): never shared across tokens.
      out.cacheScope = 'private';
    }
    return out;
  }

  private result(id: RpcId, result: Record<string, unknown>, modern: boolean, ttlMs: number | null): Answer {
    return { status: 200, body: rpcResult(id, modern ? this.modernResult(result, ttlMs) : result) };
  }

  private listTools(id: RpcId, params: unknown, modern: boolean): Answer {
    if (params !== undefined && !isPlainObject(params)) return { status: 200, body: rpcError(id, INVALID_PARAMS, 'params must be an object.') };
    if (isPlainObject(params) && params.cursor !== undefined) {
      // The whole list fits one page, so no cursor this server gave out exists.
      return { status: 200, body: rpcError(id, INVALID_PARAMS, 'Invalid cursor: this server does not page tools/list.') };
    }
    const tools = this.tools.list(this.caller()).map((t) => ({ name: t.name, description: t.description, inputSchema: t.schema }));
    return this.result(id, { tools }, modern, LIST_TTL_MS);
  }

  private async callTool(id: RpcId, params: unknown, scope: Scope): Promise<Answer> {
    if (!isPlainObject(params) || typeof params.name !== 'string') {
      return { status: 200, body: rpcError(id, INVALID_PARAMS, 'tools/call needs params.name.') };
    }
    const name = params.name;
    const { modern } = scope;
    const progressToken = scope.meta?.progressToken;
    const exchange = new Exchange({
      id,
      modern,
      // An event stream needs a client that takes one, and a way to hear back (2026-07-28 asks in its result instead).
      stream: scope.incoming.sse && !scope.incoming.inBatch,
      ...(typeof progressToken === 'string' || typeof progressToken === 'number' ? { progressToken } : {}),
      capabilities: scope.capabilities,
      inputResponses: modern && isPlainObject(params.inputResponses) ? params.inputResponses : null,
      session: scope.session?.id ?? null,
      outbound: this.outbound,
      decorate: (r) => (modern ? this.modernResult(r, null) : r),
    });
    const caller: ToolCaller = { ...this.caller(), peer: exchange };
    this.tools.call(name, params.arguments, caller).then(
      (result) => {
        // An unknown tool is a protocol error; every other failure is a tool
        // result with isError (a bad argument too, as 2025-11-25 asks), so the
        // model reads it.
        if (result.error_type === 'unknown-tool') return exchange.finish(200, rpcError(id, INVALID_PARAMS, `Unknown tool: ${name.slice(0, 64)}`));
        const body = toCallResult(result);
        exchange.finish(200, rpcResult(id, modern ? this.modernResult(body, null) : body));
      },
      (e: unknown) => exchange.finish(200, rpcError(id, INTERNAL_ERROR, `Internal error: ${errorMessage(e)}`)),
    );
    const outcome = await exchange.outcome;
    return outcome.kind === 'json' ? { status: outcome.status, body: outcome.body } : { status: 200, body: null, response: outcome.response };
  }

  private resources(id: RpcId, method: string, params: unknown, modern: boolean): Answer {
    const registry = this.extras.resources!;
    const caller = this.caller();
    if (method === 'resources/read') {
      if (!isPlainObject(params) || typeof params.uri !== 'string') return { status: 200, body: rpcError(id, INVALID_PARAMS, 'resources/read needs params.uri.') };
      try {
        const read = registry.read(params.uri, caller);
        return this.result(id, { contents: read.contents }, modern, read.ttlMs);
      } catch (e) {
        if (!(e instanceof ResourceError)) throw e;
        // Resource not found: -32002 through 2025-11-25; 2026-07-28 replaced it with -32602.
        return { status: 200, body: rpcError(id, modern ? INVALID_PARAMS : RESOURCE_NOT_FOUND, e.message, { uri: params.uri }) };
      }
    }
    const c = cursorOf(params);
    if (!c) return { status: 200, body: rpcError(id, INVALID_PARAMS, 'params must be an object.') };
    const listing = method === 'resources/list';
    const page = paginate<unknown>(listing ? registry.list(caller) : registry.templates(), c.cursor);
    if (!page.ok) return { status: 200, body: rpcError(id, INVALID_PARAMS, page.error) };
    const result: Record<string, unknown> = listing ? { resources: page.items } : { resourceTemplates: page.items };
    if (page.nextCursor !== undefined) result.nextCursor = page.nextCursor;
    return this.result(id, result, modern, listing ? LIST_TTL_MS : TEMPLATES_TTL_MS);
  }

  private prompts(id: RpcId, method: string, params: unknown, modern: boolean): Answer {
    const registry = this.extras.prompts!;
    const caller = this.caller();
    if (method === 'prompts/get') {
      if (!isPlainObject(params)) return { status: 200, body: rpcError(id, INVALID_PARAMS, 'prompts/get needs params.name.') };
      const got = registry.get(params.name, params.arguments, caller);
      if (!got.ok) return { status: 200, body: rpcError(id, INVALID_PARAMS, got.error) };
      return this.result(id, { ...got.result }, modern, null);
    }
    const c = cursorOf(params);
    if (!c) return { status: 200, body: rpcError(id, INVALID_PARAMS, 'params must be an object.') };
    const page = paginate(registry.list(caller), c.cursor);
    if (!page.ok) return { status: 200, body: rpcError(id, INVALID_PARAMS, page.error) };
    return this.result(id, { prompts: page.items, ...(page.nextCursor !== undefined ? { nextCursor: page.nextCursor } : {}) }, modern, LIST_TTL_MS);
  }
}

/** A registry result as an MCP CallToolResult (the uniform result rides along as structuredContent). */
export function toCallResult(r: ToolResult): Record<string, unknown> {
  const text = r.success ? r.output : `${r.error_type ?? 'error'}: ${r.error ?? 'failed'}`;
  const uniform = { success: r.success, output: r.output, error: r.error, error_type: r.error_type };
  return { content: r.content && r.content.length ? r.content : [{ type: 'text', text }], isError: !r.success, structuredContent: uniform };
}

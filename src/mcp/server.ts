// The MCP tool server behind POST /mcp: JSON-RPC 2.0 over Streamable HTTP,
// answered with application/json only (no event streams), stateless (no
// session ids), serving the registry's tools to the token holder.
//
// Protocol versions (docs/decisions.md, "Tool server (/mcp)"):
// - legacy, by the initialize handshake: 2025-11-25, 2025-06-18, 2025-03-26,
//   2024-11-05. initialize answers the client's version when it is one of
//   these, else 2025-11-25. Methods: initialize, ping, tools/list,
//   tools/call; notifications (notifications/initialized, ...) get 202.
// - modern, per request: 2026-07-28. A request whose MCP-Protocol-Version
//   header or _meta names it is served statelessly: server/discover,
//   tools/list, tools/call; the header must match _meta
//   (io.modelcontextprotocol/protocolVersion), Mcp-Method the method and
//   Mcp-Name the tool name, else 400 with HeaderMismatch (-32020); an unknown
//   method is 404 with -32601; results carry resultType, and list results
//   ttlMs and cacheScope.
// - An MCP-Protocol-Version header naming any other version: 400 with
//   UnsupportedProtocolVersion (-32022) listing the supported ones. No header
//   reads as 2025-03-26, as the 2025 transports say.
// - Batches (JSON arrays) only for 2025-03-26 and 2024-11-05, the versions
//   whose transport allowed them (2025-06-18 removed batching); initialize
//   may not be batched.

import { fromBase64 } from '../util/encoding.ts';
import { errorMessage, isPlainObject, parseJson, stringify } from '../util/json.ts';
import { decode } from '../util/utf8.ts';
import type { HttpRequest, HttpResponse } from '../net/http/types.ts';
import {
  HEADER_MISMATCH,
  INTERNAL_ERROR,
  INVALID_PARAMS,
  INVALID_REQUEST,
  METHOD_NOT_FOUND,
  PARSE_ERROR,
  UNSUPPORTED_PROTOCOL_VERSION,
  classify,
  rpcError,
  rpcResult,
  type RpcId,
  type RpcResponse,
} from './jsonrpc.ts';
import type { ToolRegistry } from './registry.ts';
import type { ToolCaller, ToolResult } from './types.ts';

// Regular expressions are module constants: XS compiles a literal each time it is evaluated.
const BASE64_HEADER_WORD = /^=\?base64\?([A-Za-z0-9+/=]*)\?=$/;

export const MODERN_VERSIONS = ['2026-07-28'] as const;
export const LEGACY_VERSIONS = ['2025-11-25', '2025-06-18', '2025-03-26', '2024-11-05'] as const;
export const SUPPORTED_VERSIONS: readonly string[] = [...MODERN_VERSIONS, ...LEGACY_VERSIONS];
/** What a request without MCP-Protocol-Version is taken to speak (2025-06-18 transport rule). */
export const DEFAULT_VERSION = '2025-03-26';
const LATEST_LEGACY = LEGACY_VERSIONS[0];
const BATCH_VERSIONS: readonly string[] = ['2025-03-26', '2024-11-05'];
/** Most messages in one batch: the device answers them one after another. */
export const MAX_BATCH = 32;
/** How long a modern client may cache tools/list (0: availability changes at any time) and server/discover. */
const LIST_TTL_MS = 0;
const DISCOVER_TTL_MS = 5 * 60_000;

const META_VERSION = 'io.modelcontextprotocol/protocolVersion';
const SERVER_INFO = 'io.modelcontextprotocol/serverInfo';

export interface ServerIdentity {
  name: string;
  title: string;
  version: string;
}

interface Answer {
  status: number;
  /** null: no response body (202 for notifications). */
  body: RpcResponse | null;
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

function json(status: number, body: unknown): HttpResponse {
  return { status, headers: { 'Content-Type': 'application/json', 'Cache-Control': 'no-store' }, body: stringify(body) };
}

export class McpServer {
  constructor(
    private readonly tools: ToolRegistry,
    private readonly identity: ServerIdentity,
    /** Who a /mcp call runs as: the token holder (the owner). */
    private readonly caller: () => ToolCaller,
    private readonly instructions: string,
  ) {}

  async handle(req: HttpRequest): Promise<HttpResponse> {
    const type = (req.headers.get('content-type') ?? '').split(';')[0]!.trim().toLowerCase();
    if (type !== 'application/json') return json(415, rpcError(null, INVALID_REQUEST, 'POST a JSON-RPC message with Content-Type: application/json.'));
    const accept = req.headers.get('accept');
    if (accept !== undefined && !mediaTypes(accept).some((t) => t === 'application/json' || t === 'application/*' || t === '*/*')) {
      return json(406, rpcError(null, INVALID_REQUEST, 'This server answers with application/json only; the Accept header must allow it.'));
    }
    const headerVersion = req.headers.get('mcp-protocol-version')?.trim();
    if (headerVersion !== undefined && !has(SUPPORTED_VERSIONS, headerVersion)) return json(400, this.unsupported(null, headerVersion));

    const parsed = parseJson(decode(req.body));
    if (!parsed.ok) return json(400, rpcError(null, PARSE_ERROR, `Parse error: ${parsed.error}`));

    if (Array.isArray(parsed.value)) return this.batch(parsed.value, headerVersion, req.headers);
    const answer = await this.message(parsed.value, headerVersion, req.headers, false);
    return answer.body === null ? { status: 202 } : json(answer.status, answer.body);
  }

  private async batch(items: unknown[], headerVersion: string | undefined, headers: Map<string, string>): Promise<HttpResponse> {
    const version = headerVersion ?? DEFAULT_VERSION;
    if (!has(BATCH_VERSIONS, version)) {
      return json(400, rpcError(null, INVALID_REQUEST, `Protocol version ${version} does not allow batches: send one message per request.`));
    }
    if (items.length === 0) return json(400, rpcError(null, INVALID_REQUEST, 'An empty batch is not a request.'));
    if (items.length > MAX_BATCH) return json(400, rpcError(null, INVALID_REQUEST, `A batch may hold at most ${MAX_BATCH} messages.`));
    const out: RpcResponse[] = [];
    for (const item of items) {
      const answer = await this.message(item, headerVersion, headers, true);
      if (answer.body) out.push(answer.body);
    }
    return out.length ? json(200, out) : { status: 202 };
  }

  private unsupported(id: RpcId | null, requested: string): RpcResponse {
    return rpcError(id, UNSUPPORTED_PROTOCOL_VERSION, `Unsupported protocol version ${requested}.`, { supported: [...SUPPORTED_VERSIONS], requested });
  }

  /** One message: its answer, or a null body when none is due. */
  private async message(value: unknown, headerVersion: string | undefined, headers: Map<string, string>, inBatch: boolean): Promise<Answer> {
    const msg = classify(value);
    if (msg.kind === 'invalid') return { status: 400, body: rpcError(msg.id, INVALID_REQUEST, `Invalid request: ${msg.reason}.`) };
    if (msg.kind === 'response') return { status: 202, body: null };

    const meta = isPlainObject(msg.params) && isPlainObject(msg.params._meta) ? msg.params._meta : null;
    const metaVersion = meta && META_VERSION in meta ? meta[META_VERSION] : undefined;
    const modern = (headerVersion !== undefined && has(MODERN_VERSIONS, headerVersion)) || (typeof metaVersion === 'string' && has(MODERN_VERSIONS, metaVersion));
    if (metaVersion !== undefined && (typeof metaVersion !== 'string' || !has(SUPPORTED_VERSIONS, metaVersion))) {
      if (msg.kind === 'notification') return { status: 202, body: null };
      return { status: 400, body: this.unsupported(msg.id, String(metaVersion)) };
    }
    if (modern) {
      const id = msg.kind === 'request' ? msg.id : null;
      if (inBatch) return { status: 400, body: rpcError(id, INVALID_REQUEST, 'Protocol version 2026-07-28 does not allow batches.') };
      const mismatch = this.headerMismatch(msg.kind === 'request' ? msg.method : null, msg.params, headerVersion, metaVersion, headers);
      if (mismatch && msg.kind === 'request') return { status: 400, body: rpcError(id, HEADER_MISMATCH, `Header mismatch: ${mismatch}.`) };
    }
    if (msg.kind === 'notification') return { status: 202, body: null };

    const { id, method, params } = msg;
    try {
      switch (method) {
        case 'initialize':
          if (modern) break;
          if (inBatch) return { status: 200, body: rpcError(id, INVALID_REQUEST, 'initialize may not be part of a batch.') };
          return this.initialize(id, params);
        case 'ping':
          if (modern) break; // removed in 2026-07-28
          return { status: 200, body: rpcResult(id, {}) };
        case 'server/discover':
          return { status: 200, body: rpcResult(id, this.modernResult(this.discover(), DISCOVER_TTL_MS)) };
        case 'tools/list':
          return this.listTools(id, params, modern);
        case 'tools/call':
          return await this.callTool(id, params, modern);
        default:
          break;
      }
    } catch (e) {
      return { status: 200, body: rpcError(id, INTERNAL_ERROR, `Internal error: ${errorMessage(e)}`) };
    }
    return { status: modern ? 404 : 200, body: rpcError(id, METHOD_NOT_FOUND, `Method not found: ${method.slice(0, 64)}`) };
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
    if (method === 'tools/call') {
      const name = isPlainObject(params) ? params.name : undefined;
      const raw = headers.get('mcp-name');
      if (raw === undefined) return 'the Mcp-Name header is required for tools/call';
      const decoded = decodeHeaderValue(raw);
      if (decoded === null) return 'Mcp-Name is not valid base64';
      if (decoded !== name) return 'Mcp-Name does not match params.name';
    }
    return null;
  }

  private initialize(id: RpcId, params: unknown): Answer {
    if (!isPlainObject(params) || typeof params.protocolVersion !== 'string') {
      return { status: 200, body: rpcError(id, INVALID_PARAMS, 'initialize needs params.protocolVersion.') };
    }
    const requested = params.protocolVersion;
    const protocolVersion = has(LEGACY_VERSIONS, requested) ? requested : LATEST_LEGACY;
    return {
      status: 200,
      body: rpcResult(id, {
        protocolVersion,
        capabilities: { tools: { listChanged: false } },
        serverInfo: { ...this.identity },
        instructions: this.instructions,
      }),
    };
  }

  private discover(): Record<string, unknown> {
    return {
      supportedVersions: [...SUPPORTED_VERSIONS],
      capabilities: { tools: { listChanged: false } },
      instructions: this.instructions,
    };
  }

  /** Adds the 2026-07-28 result fields. */
  private modernResult(result: Record<string, unknown>, ttlMs: number | null): Record<string, unknown> {
    const out: Record<string, unknown> = { ...result, resultType: 'complete', _meta: { [SERVER_INFO]: { ...this.identity } } };
    if (ttlMs !== null) {
      out.ttlMs = ttlMs;
      // The list depends on who asks (admin tools): never shared across tokens.
      out.cacheScope = 'private';
    }
    return out;
  }

  private listTools(id: RpcId, params: unknown, modern: boolean): Answer {
    if (params !== undefined && !isPlainObject(params)) return { status: 200, body: rpcError(id, INVALID_PARAMS, 'params must be an object.') };
    if (isPlainObject(params) && params.cursor !== undefined) {
      // The whole list fits one page, so no cursor this server gave out exists.
      return { status: 200, body: rpcError(id, INVALID_PARAMS, 'Invalid cursor: this server does not page tools/list.') };
    }
    const tools = this.tools.list(this.caller()).map((t) => ({ name: t.name, description: t.description, inputSchema: t.schema }));
    return { status: 200, body: rpcResult(id, modern ? this.modernResult({ tools }, LIST_TTL_MS) : { tools }) };
  }

  private async callTool(id: RpcId, params: unknown, modern: boolean): Promise<Answer> {
    if (!isPlainObject(params) || typeof params.name !== 'string') {
      return { status: 200, body: rpcError(id, INVALID_PARAMS, 'tools/call needs params.name.') };
    }
    const result = await this.tools.call(params.name, params.arguments, this.caller());
    // An unknown tool is a protocol error; every other failure is a tool
    // result with isError (a bad argument too, as 2025-11-25 asks), so the
    // model reads it.
    if (result.error_type === 'unknown-tool') return { status: 200, body: rpcError(id, INVALID_PARAMS, `Unknown tool: ${params.name.slice(0, 64)}`) };
    const body = toCallResult(result);
    return { status: 200, body: rpcResult(id, modern ? this.modernResult(body, null) : body) };
  }
}

/** A registry result as an MCP CallToolResult (the uniform result rides along as structuredContent). */
export function toCallResult(r: ToolResult): Record<string, unknown> {
  const text = r.success ? r.output : `${r.error_type ?? 'error'}: ${r.error ?? 'failed'}`;
  return { content: [{ type: 'text', text }], isError: !r.success, structuredContent: { ...r } };
}

// The 2026-07-28 revision of MCP against the real firmware's /mcp on the
// simulator. The official conformance suite (0.1.16) does not know this
// revision, so this file plays its part, in its style: each scenario has a
// name, the spec versions it covers, a description of what the server must
// do, and a run(url) that returns checks ({id, name, description, status
// SUCCESS | FAILURE | WARNING | INFO, errorMessage, specReferences,
// details}); a scenario passes with no FAILURE and no WARNING, the suite's
// own rule.
//
// Every result and error is checked against the published schema of the
// revision, written out below as JSON Schemas (Ajv) from:
// - schema/2026-07-28/schema.ts, modelcontextprotocol/modelcontextprotocol
//   at 1898711f3ecc24b0a8804913293346e8439494c5 (Result and resultType,
//   CacheableResult's ttlMs and cacheScope, DiscoverResult, the list and
//   read results, CallToolResult and ContentBlock, InputRequiredResult,
//   HeaderMismatchError -32020, MissingRequiredClientCapabilityError -32021,
//   UnsupportedProtocolVersionError -32022, resource not found as -32602);
// - docs/specification/2026-07-28/basic/transports/streamable-http.mdx at
//   b488c16623e5202a3961e551886044577ae0f096 (MCP-Protocol-Version,
//   Mcp-Method and Mcp-Name with its =?base64?...?= form, 400 for header
//   validation, 404 with -32601 for an unknown method, 405 for GET and
//   DELETE, Mcp-Session-Id ignored and never minted, the response stream);
// - docs/specification/2026-07-28/basic/patterns/mrtr.mdx at the same
//   commit (inputRequests, inputResponses, the retry).
import Ajv, { type ValidateFunction } from 'ajv';
import { afterAll, beforeAll, describe, expect, it } from 'vitest';
import { cleanup, startDevice, type Device } from './harness.ts';

afterAll(cleanup);

const V = '2026-07-28';
const SCHEMA_TS = 'https://github.com/modelcontextprotocol/modelcontextprotocol/blob/1898711f3ecc24b0a8804913293346e8439494c5/schema/2026-07-28/schema.ts';
const TRANSPORT = 'https://modelcontextprotocol.io/specification/2026-07-28/basic/transports/streamable-http';
const MRTR = 'https://modelcontextprotocol.io/specification/2026-07-28/basic/patterns/mrtr';

type Status = 'SUCCESS' | 'FAILURE' | 'WARNING' | 'INFO';
interface Check {
  id: string;
  name: string;
  description: string;
  status: Status;
  timestamp: string;
  errorMessage?: string;
  specReferences: Array<{ id: string; url: string }>;
  details?: Record<string, unknown>;
}
interface Scenario {
  name: string;
  specVersions: string[];
  description: string;
  run(url: string, token: string): Promise<Check[]>;
}

// ---------------------------------------------------------------------------
// The revision's schema (schema.ts), as JSON Schemas.

const meta = { type: 'object' };
const implementation = { type: 'object', required: ['name', 'version'], properties: { name: { type: 'string' }, title: { type: 'string' }, version: { type: 'string' } } };
/** Result: resultType is required of servers implementing this version; _meta may carry serverInfo. */
const result = {
  type: 'object',
  required: ['resultType'],
  properties: { resultType: { type: 'string' }, _meta: { type: 'object', properties: { 'io.modelcontextprotocol/serverInfo': implementation } } },
};
/** CacheableResult: ttlMs (minimum 0) and cacheScope "public" | "private", both required. */
const cacheable = { allOf: [result, { type: 'object', required: ['ttlMs', 'cacheScope'], properties: { ttlMs: { type: 'number', minimum: 0 }, cacheScope: { enum: ['public', 'private'] } } }] };
const paginated = { type: 'object', properties: { nextCursor: { type: 'string' } } };
const annotations = { type: 'object' };
const textResource = { type: 'object', required: ['uri', 'text'], properties: { uri: { type: 'string' }, mimeType: { type: 'string' }, text: { type: 'string' }, _meta: meta } };
const blobResource = { type: 'object', required: ['uri', 'blob'], properties: { uri: { type: 'string' }, mimeType: { type: 'string' }, blob: { type: 'string' }, _meta: meta } };
const resource = { type: 'object', required: ['uri', 'name'], properties: { uri: { type: 'string' }, name: { type: 'string' }, title: { type: 'string' }, description: { type: 'string' }, mimeType: { type: 'string' }, size: { type: 'number' }, annotations, _meta: meta } };
const contentBlock = {
  oneOf: [
    { type: 'object', required: ['type', 'text'], properties: { type: { const: 'text' }, text: { type: 'string' } } },
    { type: 'object', required: ['type', 'data', 'mimeType'], properties: { type: { const: 'image' }, data: { type: 'string' }, mimeType: { type: 'string' } } },
    { type: 'object', required: ['type', 'data', 'mimeType'], properties: { type: { const: 'audio' }, data: { type: 'string' }, mimeType: { type: 'string' } } },
    { allOf: [resource, { type: 'object', required: ['type'], properties: { type: { const: 'resource_link' } } }] },
    { type: 'object', required: ['type', 'resource'], properties: { type: { const: 'resource' }, resource: { oneOf: [textResource, blobResource] } } },
  ],
};
const tool = {
  type: 'object',
  required: ['name', 'inputSchema'],
  properties: { name: { type: 'string' }, title: { type: 'string' }, description: { type: 'string' }, inputSchema: { type: 'object', required: ['type'], properties: { type: { const: 'object' }, $schema: { type: 'string' } } } },
};
const prompt = {
  type: 'object',
  required: ['name'],
  properties: { name: { type: 'string' }, title: { type: 'string' }, description: { type: 'string' }, arguments: { type: 'array', items: { type: 'object', required: ['name'], properties: { name: { type: 'string' }, description: { type: 'string' }, required: { type: 'boolean' } } } } },
};
const serverCapabilities = {
  type: 'object',
  properties: {
    tools: { type: 'object', properties: { listChanged: { type: 'boolean' } } },
    resources: { type: 'object', properties: { subscribe: { type: 'boolean' }, listChanged: { type: 'boolean' } } },
    prompts: { type: 'object', properties: { listChanged: { type: 'boolean' } } },
  },
};
const inputRequest = {
  oneOf: [
    { type: 'object', required: ['method', 'params'], properties: { method: { const: 'sampling/createMessage' }, params: { type: 'object', required: ['messages', 'maxTokens'] } } },
    { type: 'object', required: ['method', 'params'], properties: { method: { const: 'elicitation/create' }, params: { type: 'object', required: ['message'] } } },
    { type: 'object', required: ['method'], properties: { method: { const: 'roots/list' } } },
  ],
};
const errorResponse = (code: number, data?: object) => ({
  type: 'object',
  required: ['jsonrpc', 'error'],
  properties: {
    jsonrpc: { const: '2.0' },
    id: { type: ['string', 'number'] },
    error: { type: 'object', required: ['code', 'message', ...(data ? ['data'] : [])], properties: { code: { const: code }, message: { type: 'string' }, ...(data ? { data } : {}) } },
  },
});

const SCHEMAS = {
  DiscoverResult: { allOf: [cacheable, { type: 'object', required: ['supportedVersions', 'capabilities'], properties: { supportedVersions: { type: 'array', items: { type: 'string' } }, capabilities: serverCapabilities, instructions: { type: 'string' } } }] },
  ListToolsResult: { allOf: [cacheable, paginated, { type: 'object', required: ['tools'], properties: { tools: { type: 'array', items: tool } } }] },
  ListResourcesResult: { allOf: [cacheable, paginated, { type: 'object', required: ['resources'], properties: { resources: { type: 'array', items: resource } } }] },
  ListResourceTemplatesResult: {
    allOf: [cacheable, paginated, { type: 'object', required: ['resourceTemplates'], properties: { resourceTemplates: { type: 'array', items: { type: 'object', required: ['uriTemplate', 'name'], properties: { uriTemplate: { type: 'string' }, name: { type: 'string' } } } } } }],
  },
  ReadResourceResult: { allOf: [cacheable, { type: 'object', required: ['contents'], properties: { contents: { type: 'array', items: { oneOf: [textResource, blobResource] } } } }] },
  ListPromptsResult: { allOf: [cacheable, paginated, { type: 'object', required: ['prompts'], properties: { prompts: { type: 'array', items: prompt } } }] },
  GetPromptResult: { allOf: [result, { type: 'object', required: ['messages'], properties: { description: { type: 'string' }, messages: { type: 'array', items: { type: 'object', required: ['role', 'content'], properties: { role: { enum: ['user', 'assistant'] }, content: contentBlock } } } } }] },
  CallToolResult: { allOf: [result, { type: 'object', required: ['content'], properties: { resultType: { const: 'complete' }, content: { type: 'array', items: contentBlock }, isError: { type: 'boolean' } } }] },
  InputRequiredResult: {
    allOf: [result, { type: 'object', properties: { resultType: { const: 'input_required' }, inputRequests: { type: 'object', additionalProperties: inputRequest }, requestState: { type: 'string' } }, anyOf: [{ required: ['inputRequests'] }, { required: ['requestState'] }] }],
  },
  HeaderMismatchError: errorResponse(-32020),
  MissingRequiredClientCapabilityError: errorResponse(-32021, { type: 'object', required: ['requiredCapabilities'], properties: { requiredCapabilities: { type: 'object' } } }),
  UnsupportedProtocolVersionError: errorResponse(-32022, { type: 'object', required: ['supported', 'requested'], properties: { supported: { type: 'array', items: { type: 'string' } }, requested: { type: 'string' } } }),
  MethodNotFoundError: errorResponse(-32601),
  InvalidParamsError: errorResponse(-32602),
} as const;
type SchemaName = keyof typeof SCHEMAS;

const ajv = new Ajv({ strict: false, allErrors: true });
const validators = new Map<SchemaName, ValidateFunction>(Object.entries(SCHEMAS).map(([k, s]) => [k as SchemaName, ajv.compile(s)]));

// ---------------------------------------------------------------------------
// The client side: a request with the revision's metadata, headers and body alike.

const CLIENT_INFO = { name: 'mcp-2026-07-28-e2e', version: '1.0.0' };
const metaOf = (capabilities: Record<string, unknown> = {}) => ({ 'io.modelcontextprotocol/protocolVersion': V, 'io.modelcontextprotocol/clientInfo': CLIENT_INFO, 'io.modelcontextprotocol/clientCapabilities': capabilities });

interface Sent {
  status: number;
  headers: Headers;
  body: Record<string, unknown> | null;
  raw: string;
}

let nextId = 1;
async function send(url: string, token: string, method: string, params: Record<string, unknown> = {}, options: { headers?: Record<string, string | null>; capabilities?: Record<string, unknown>; name?: string; httpMethod?: string; body?: unknown } = {}): Promise<Sent> {
  const named = options.name ?? (typeof params.name === 'string' ? params.name : typeof params.uri === 'string' ? params.uri : undefined);
  const headers: Record<string, string> = { 'Content-Type': 'application/json', Accept: 'application/json, text/event-stream', 'X-Device-Token': token, 'MCP-Protocol-Version': V, 'Mcp-Method': method };
  if (named !== undefined) headers['Mcp-Name'] = named;
  for (const [k, v] of Object.entries(options.headers ?? {})) {
    if (v === null) delete headers[k];
    else headers[k] = v;
  }
  const body = options.body ?? { jsonrpc: '2.0', id: nextId++, method, params: { ...params, _meta: metaOf(options.capabilities) } };
  const res = await fetch(url, { method: options.httpMethod ?? 'POST', headers, ...(options.httpMethod && options.httpMethod !== 'POST' ? {} : { body: JSON.stringify(body) }) });
  const raw = await res.text();
  let parsed: Record<string, unknown> | null = null;
  if ((res.headers.get('content-type') ?? '').startsWith('application/json') && raw) parsed = JSON.parse(raw) as Record<string, unknown>;
  return { status: res.status, headers: res.headers, body: parsed, raw };
}

function check(id: string, name: string, description: string, problems: string[], refs: Array<{ id: string; url: string }>, details?: Record<string, unknown>): Check {
  return { id, name, description, status: problems.length ? 'FAILURE' : 'SUCCESS', timestamp: new Date().toISOString(), ...(problems.length ? { errorMessage: problems.join('; ') } : {}), specReferences: refs, ...(details ? { details } : {}) };
}

/** Problems of a value against one of the revision's schemas. */
function against(name: SchemaName, value: unknown): string[] {
  const v = validators.get(name)!;
  return v(value) ? [] : (v.errors ?? []).map((e) => `${name}${e.instancePath} ${e.message ?? ''}`);
}

const ref = (id: string, url = SCHEMA_TS) => ({ id, url });

// ---------------------------------------------------------------------------
// The scenarios.

const SCENARIOS: Scenario[] = [
  {
    name: 'server-discover',
    specVersions: [V],
    description: 'server/discover answers a DiscoverResult: the supported versions (this one among them), the capabilities, resultType and the CacheableResult fields ttlMs and cacheScope.',
    async run(url, token) {
      const r = await send(url, token, 'server/discover');
      const res = r.body?.result as Record<string, unknown> | undefined;
      const problems = [...(r.status === 200 ? [] : [`HTTP ${r.status}`]), ...against('DiscoverResult', res)];
      if (!(res?.supportedVersions as string[] | undefined)?.includes(V)) problems.push(`supportedVersions lacks ${V}`);
      if (res?.resultType !== 'complete') problems.push(`resultType ${String(res?.resultType)}`);
      return [check('server-discover', 'ServerDiscover', 'Server implements server/discover (MUST)', problems, [ref('DiscoverResult')], { result: res })];
    },
  },
  {
    name: 'per-request-protocol-version',
    specVersions: [V],
    description: 'Every request carries the version in MCP-Protocol-Version and in _meta io.modelcontextprotocol/protocolVersion; they must agree, else 400 HeaderMismatch (-32020). A version the server does not implement is 400 UnsupportedProtocolVersionError (-32022) with data.supported and data.requested.',
    async run(url, token) {
      const checks: Check[] = [];
      const ok = await send(url, token, 'tools/list');
      checks.push(check('version-header-and-meta', 'VersionHeaderAndMeta', 'A request with matching header and _meta is served', [...(ok.status === 200 ? [] : [`HTTP ${ok.status}`]), ...against('ListToolsResult', ok.body?.result)], [ref('RequestMetaObject')]));
      const noHeader = await send(url, token, 'tools/list', {}, { headers: { 'MCP-Protocol-Version': null } });
      checks.push(check('version-header-missing', 'VersionHeaderMissing', 'A request whose _meta names 2026-07-28 without the header is 400 HeaderMismatch', [...(noHeader.status === 400 ? [] : [`HTTP ${noHeader.status}`]), ...against('HeaderMismatchError', noHeader.body)], [ref('HeaderMismatchError'), ref('Protocol Version Header', TRANSPORT)]));
      const noMeta = await send(url, token, 'tools/list', {}, { body: { jsonrpc: '2.0', id: nextId++, method: 'tools/list', params: {} } });
      checks.push(check('version-meta-missing', 'VersionMetaMissing', 'A 2026-07-28 header without the _meta version is 400 HeaderMismatch', [...(noMeta.status === 400 ? [] : [`HTTP ${noMeta.status}`]), ...against('HeaderMismatchError', noMeta.body)], [ref('RequestMetaObject')]));
      const other = await send(url, token, 'tools/list', {}, { headers: { 'MCP-Protocol-Version': '2025-11-25' } });
      checks.push(check('version-disagree', 'VersionDisagree', 'A header that disagrees with _meta is 400 HeaderMismatch', [...(other.status === 400 ? [] : [`HTTP ${other.status}`]), ...against('HeaderMismatchError', other.body)], [ref('HeaderMismatchError')]));
      const future = await send(url, token, 'tools/list', {}, { headers: { 'MCP-Protocol-Version': '2099-01-01' } });
      const data = ((future.body?.error as Record<string, unknown> | undefined)?.data ?? {}) as { requested?: string; supported?: string[] };
      const problems = [...(future.status === 400 ? [] : [`HTTP ${future.status}`]), ...against('UnsupportedProtocolVersionError', future.body)];
      if (data.requested !== '2099-01-01') problems.push(`data.requested ${String(data.requested)}`);
      if (!data.supported?.includes(V)) problems.push('data.supported lacks 2026-07-28');
      checks.push(check('version-unsupported', 'VersionUnsupported', 'An unknown version is 400 UnsupportedProtocolVersionError listing the supported ones', problems, [ref('UnsupportedProtocolVersionError')], { body: future.body }));
      return checks;
    },
  },
  {
    name: 'standard-request-headers',
    specVersions: [V],
    description: 'Mcp-Method must equal the method, and Mcp-Name the params.name of tools/call and prompts/get and the params.uri of resources/read (decoded from =?base64?...?= when so sent); a missing or different value is 400 HeaderMismatch (-32020).',
    async run(url, token) {
      const checks: Check[] = [];
      const cases: Array<[string, string, Record<string, unknown>, string]> = [
        ['tools/call', 'tools', { name: 'test_simple_text', arguments: {} }, 'CallToolResult'],
        ['prompts/get', 'prompts', { name: 'test_simple_prompt' }, 'GetPromptResult'],
        ['resources/read', 'resources', { uri: 'test://static-text' }, 'ReadResourceResult'],
      ];
      for (const [method, short, params, schema] of cases) {
        const good = await send(url, token, method, params);
        checks.push(check(`${short}-headers-match`, 'HeadersMatch', `${method} with matching Mcp-Method and Mcp-Name is served`, [...(good.status === 200 ? [] : [`HTTP ${good.status}`]), ...against(schema as SchemaName, good.body?.result)], [ref('Standard Request Headers', TRANSPORT)]));
        const name = String(params.name ?? params.uri);
        const encoded = await send(url, token, method, params, { name: `=?base64?${Buffer.from(name).toString('base64')}?=` });
        checks.push(check(`${short}-name-base64`, 'NameBase64', `${method} with Mcp-Name in the base64 sentinel form is served`, encoded.status === 200 ? [] : [`HTTP ${encoded.status}`], [ref('Value Encoding', TRANSPORT)]));
        for (const [label, headers] of [
          ['missing-name', { 'Mcp-Name': null }],
          ['wrong-name', { 'Mcp-Name': `${name}-other` }],
          ['bad-base64', { 'Mcp-Name': '=?base64?###?=' }],
          ['missing-method', { 'Mcp-Method': null }],
          ['wrong-method', { 'Mcp-Method': 'tools/list' }],
        ] as Array<[string, Record<string, string | null>]>) {
          const bad = await send(url, token, method, params, { headers });
          checks.push(check(`${short}-${label}`, 'HeaderMismatchRejected', `${method} with ${label} is 400 HeaderMismatch`, [...(bad.status === 400 ? [] : [`HTTP ${bad.status}`]), ...against('HeaderMismatchError', bad.body)], [ref('Server Validation', TRANSPORT), ref('HeaderMismatchError')]));
        }
      }
      return checks;
    },
  },
  {
    name: 'cacheable-lists',
    specVersions: [V],
    description: 'tools/list, resources/list (followed through every nextCursor), resources/templates/list, prompts/list and resources/read are CacheableResults (resultType, ttlMs, cacheScope); prompts/get is a Result; tools/call results are CallToolResults with content blocks.',
    async run(url, token) {
      const checks: Check[] = [];
      for (const [method, schema] of [
        ['tools/list', 'ListToolsResult'],
        ['resources/templates/list', 'ListResourceTemplatesResult'],
        ['prompts/list', 'ListPromptsResult'],
      ] as Array<[string, SchemaName]>) {
        const r = await send(url, token, method);
        checks.push(check(`${method.replace(/\//g, '-')}-cacheable`, 'CacheableList', `${method} is a ${schema}`, [...(r.status === 200 ? [] : [`HTTP ${r.status}`]), ...against(schema, r.body?.result)], [ref(schema), ref('CacheableResult')]));
      }
      const problems: string[] = [];
      let cursor: string | undefined;
      let pages = 0;
      let count = 0;
      do {
        const r = await send(url, token, 'resources/list', cursor === undefined ? {} : { cursor });
        const res = r.body?.result as { nextCursor?: string; resources?: unknown[] } | undefined;
        problems.push(...against('ListResourcesResult', res));
        count += res?.resources?.length ?? 0;
        cursor = res?.nextCursor;
        pages++;
      } while (cursor !== undefined && pages < 50);
      if (pages < 2) problems.push(`expected several pages of resources, got ${pages}`);
      checks.push(check('resources-list-paginated', 'ResourcesListPaginated', 'resources/list pages through nextCursor, each page a ListResourcesResult', problems, [ref('PaginatedResult'), ref('ListResourcesResult')], { pages, count }));
      const bad = await send(url, token, 'resources/list', { cursor: 'not-a-cursor' });
      checks.push(check('resources-list-bad-cursor', 'InvalidCursor', 'An invalid cursor is -32602', against('InvalidParamsError', bad.body), [ref('InvalidParamsError')]));
      for (const uri of ['test://static-text', 'test://static-binary', 'docs://readme']) {
        const r = await send(url, token, 'resources/read', { uri });
        checks.push(check(`resources-read-${uri}`, 'ReadResource', `resources/read ${uri} is a ReadResourceResult`, [...(r.status === 200 ? [] : [`HTTP ${r.status}`]), ...against('ReadResourceResult', r.body?.result)], [ref('ReadResourceResult')]));
      }
      const missing = await send(url, token, 'resources/read', { uri: 'docs://readme/no-such-section' });
      checks.push(check('resources-read-not-found', 'ResourceNotFound', 'An unknown resource is -32602 (this revision replaced -32002)', against('InvalidParamsError', missing.body), [ref('MCP error codes (-32002 replaced by -32602)')]));
      const got = await send(url, token, 'prompts/get', { name: 'test_prompt_with_arguments', arguments: { arg1: 'a', arg2: 'b' } });
      const gp = against('GetPromptResult', got.body?.result);
      if (got.body?.result && 'ttlMs' in (got.body.result as object)) gp.push('prompts/get is no CacheableResult, yet carries ttlMs');
      checks.push(check('prompts-get', 'GetPrompt', 'prompts/get is a GetPromptResult', gp, [ref('GetPromptResult')]));
      for (const name of ['test_simple_text', 'test_image_content', 'test_audio_content', 'test_embedded_resource', 'test_multiple_content_types', 'test_error_handling']) {
        const r = await send(url, token, 'tools/call', { name, arguments: {} });
        const p = against('CallToolResult', r.body?.result);
        if (name === 'test_error_handling' && (r.body?.result as { isError?: boolean } | undefined)?.isError !== true) p.push('isError is not true');
        checks.push(check(`tools-call-${name}`, 'CallToolResult', `tools/call ${name} is a CallToolResult`, p, [ref('CallToolResult'), ref('ContentBlock')]));
      }
      return checks;
    },
  },
  {
    name: 'method-not-found',
    specVersions: [V],
    description: 'A method the server does not implement, and the removed ping and initialize, are 404 with -32601; HTTP GET and DELETE to the endpoint are 405; batches are not part of this revision.',
    async run(url, token) {
      const checks: Check[] = [];
      for (const method of ['ping', 'initialize', 'logging/setLevel', 'completion/complete', 'no/such-method']) {
        const r = await send(url, token, method);
        checks.push(check(`not-found-${method}`, 'MethodNotFound', `${method} is 404 with -32601`, [...(r.status === 404 ? [] : [`HTTP ${r.status}`]), ...against('MethodNotFoundError', r.body)], [ref('Protocol Version Header (404 for an unknown method)', TRANSPORT), ref('MethodNotFoundError')]));
      }
      for (const m of ['GET', 'DELETE']) {
        const r = await send(url, token, 'tools/list', {}, { httpMethod: m, headers: { Accept: 'text/event-stream' } });
        checks.push(check(`http-${m.toLowerCase()}-405`, 'HttpMethodNotAllowed', `HTTP ${m} to the MCP endpoint is 405`, r.status === 405 ? [] : [`HTTP ${r.status}`], [ref('Earlier Streamable HTTP Revisions', TRANSPORT)]));
      }
      const batch = await send(url, token, 'tools/list', {}, { body: [{ jsonrpc: '2.0', id: nextId++, method: 'tools/list', params: { _meta: metaOf() } }] });
      checks.push(check('batch-refused', 'BatchRefused', 'A JSON array is refused (one request per POST)', batch.status === 400 ? [] : [`HTTP ${batch.status}`], [ref('Sending Messages', TRANSPORT)]));
      return checks;
    },
  },
  {
    name: 'no-sessions',
    specVersions: [V],
    description: 'Protocol-level sessions were removed: an Mcp-Session-Id header is ignored, and the server neither mints nor echoes one.',
    async run(url, token) {
      const r = await send(url, token, 'tools/list', {}, { headers: { 'Mcp-Session-Id': 'not-a-session-this-server-knows' } });
      const problems = [...(r.status === 200 ? [] : [`HTTP ${r.status}`]), ...(r.headers.has('mcp-session-id') ? ['an Mcp-Session-Id was sent back'] : [])];
      const d = await send(url, token, 'server/discover');
      if (d.headers.has('mcp-session-id')) problems.push('server/discover minted a session');
      return [check('session-id-ignored', 'SessionIdIgnored', 'Mcp-Session-Id is ignored and never minted', problems, [ref('Earlier Streamable HTTP Revisions', TRANSPORT)])];
    },
  },
  {
    name: 'response-stream',
    specVersions: [V],
    description: 'A request may be answered with an SSE stream scoped to it: notifications/progress for its progressToken, then the final response, then the stream ends.',
    async run(url, token) {
      const r = await send(url, token, 'tools/call', { name: 'test_tool_with_progress', arguments: {}, _meta: { ...metaOf(), progressToken: 'tok-1' } }, { body: { jsonrpc: '2.0', id: 4242, method: 'tools/call', params: { name: 'test_tool_with_progress', arguments: {}, _meta: { ...metaOf(), progressToken: 'tok-1' } } } });
      const problems: string[] = [];
      if (!(r.headers.get('content-type') ?? '').startsWith('text/event-stream')) problems.push(`content-type ${r.headers.get('content-type')}`);
      const messages = r.raw
        .split('\n\n')
        .map((b) => b.split('\n').filter((l) => l.startsWith('data: ')).map((l) => l.slice(6)).join(''))
        .filter((d) => d)
        .map((d) => JSON.parse(d) as { method?: string; id?: number; params?: { progressToken?: string; progress?: number }; result?: unknown });
      const progress = messages.filter((m) => m.method === 'notifications/progress');
      if (progress.length !== 3 || progress.some((p) => p.params?.progressToken !== 'tok-1')) problems.push(`${progress.length} progress notifications for tok-1`);
      const last = messages[messages.length - 1];
      if (last?.id !== 4242) problems.push('the final response is not the last message');
      problems.push(...against('CallToolResult', last?.result));
      return [check('response-stream', 'ResponseStream', 'Progress notifications, then the final response, on the request\'s stream', problems, [ref('Receiving Messages', TRANSPORT), ref('ProgressNotification')], { messages: messages.length })];
    },
  },
  {
    name: 'multi-round-trip',
    specVersions: [V],
    description: 'A server needing input from the client answers an InputRequiredResult (resultType input_required, inputRequests); the client retries the same request (a new id) with inputResponses under the same keys and gets the final result. A request whose _meta lacks the capability an input needs is 400 MissingRequiredClientCapabilityError (-32021).',
    async run(url, token) {
      const checks: Check[] = [];
      const params = { name: 'test_elicitation', arguments: { message: 'Your name?' } };
      const first = await send(url, token, 'tools/call', params, { capabilities: { elicitation: {} } });
      const res = first.body?.result as { inputRequests?: Record<string, { method: string }> } | undefined;
      const p1 = [...(first.status === 200 ? [] : [`HTTP ${first.status}`]), ...against('InputRequiredResult', res)];
      const keys = Object.keys(res?.inputRequests ?? {});
      if (keys.length !== 1 || res?.inputRequests?.[keys[0]!]?.method !== 'elicitation/create') p1.push(`inputRequests ${JSON.stringify(res?.inputRequests)}`);
      checks.push(check('mrtr-input-required', 'InputRequired', 'The first request answers an InputRequiredResult with an elicitation', p1, [ref('InputRequiredResult'), ref('Basic Workflow', MRTR)]));
      const retry = await send(url, token, 'tools/call', { ...params, inputResponses: { [keys[0] ?? 'r1']: { action: 'accept', content: { username: 'octocat', email: 'o@example.org' } } } }, { capabilities: { elicitation: {} } });
      const p2 = [...(retry.status === 200 ? [] : [`HTTP ${retry.status}`]), ...against('CallToolResult', retry.body?.result)];
      const text = ((retry.body?.result as { content?: Array<{ text?: string }> } | undefined)?.content?.[0]?.text) ?? '';
      if (!text.includes('octocat')) p2.push(`the result does not use the answer: ${text}`);
      checks.push(check('mrtr-retry-completes', 'RetryCompletes', 'The retry with inputResponses completes with the answer used', p2, [ref('InputResponseRequestParams'), ref('Basic Workflow', MRTR)]));
      const missing = await send(url, token, 'tools/call', { name: 'test_sampling', arguments: { prompt: 'hi' } }, { capabilities: {} });
      checks.push(check('mrtr-missing-capability', 'MissingCapability', 'An input the client did not declare is 400 MissingRequiredClientCapabilityError', [...(missing.status === 400 ? [] : [`HTTP ${missing.status}`]), ...against('MissingRequiredClientCapabilityError', missing.body)], [ref('MissingRequiredClientCapabilityError'), ref('Server Requirements 7', MRTR)]));
      return checks;
    },
  },
];

describe(`MCP ${V} against /mcp on the simulator (the conformance suite's style, the published schema)`, () => {
  let device: Device;
  let token: string;
  let url: string;

  beforeAll(async () => {
    device = await startDevice();
    token = (await device.command('WEBTOK?')).split('\n')[0]!;
    url = new URL('/mcp', device.url!).href;
  });

  for (const scenario of SCENARIOS) {
    it(`${scenario.name}: ${scenario.description.split('.')[0]}`, async () => {
      const checks = await scenario.run(url, token);
      expect(checks.length).toBeGreaterThan(0);
      const failed = checks.filter((c) => c.status === 'FAILURE' || c.status === 'WARNING').map((c) => `${c.id}: ${c.errorMessage ?? ''}`);
      expect(failed).toEqual([]);
    });
  }

  it('the schemas catch what they describe (a control: wrong shapes fail)', () => {
    expect(against('ListToolsResult', { tools: [], resultType: 'complete' }).join()).toMatch(/ttlMs/);
    expect(against('ListToolsResult', { tools: [], resultType: 'complete', ttlMs: -1, cacheScope: 'private' }).join()).toMatch(/>= 0/);
    expect(against('ListToolsResult', { tools: [], resultType: 'complete', ttlMs: 0, cacheScope: 'shared' }).join()).toMatch(/allowed values/);
    expect(against('CallToolResult', { content: [{ type: 'image', data: 'x' }], resultType: 'complete' }).length).toBeGreaterThan(0);
    expect(against('InputRequiredResult', { resultType: 'input_required' }).length).toBeGreaterThan(0);
    expect(against('UnsupportedProtocolVersionError', { jsonrpc: '2.0', error: { code: -32022, message: 'x' } }).join()).toMatch(/data/);
  });
});

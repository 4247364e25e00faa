// The official MCP conformance suite's fixtures (npm
// @modelcontextprotocol/conformance 0.1.16, its server scenarios), installed
// in test builds only (hal.build.testBuild): tools through the normal tool
// registry (where 'mcp': never offered to a model in a turn), resources
// under test://, and prompts. So the suite drives the device's real /mcp:
// the same registry, validator, result shapes, event streams, questions to
// the client and sessions every tool uses. Each fixture answers exactly what
// the suite's scenario description asks (the quoted texts are the suite's).
//
// Not here, because the device does not declare the capability they test
// (test/e2e/conformance/expected-failures.yml): test_tool_with_logging
// (logging), the completion of test_prompt_with_arguments (completions),
// subscriptions to test://watched-resource (resources.subscribe).

import type { Clock } from '../hal/index.ts';
import { errorMessage, isPlainObject, stringify } from '../util/json.ts';
import type { PromptProvider, PromptInfo, PromptResult } from './prompts.ts';
import { ResourceError, type ResourceProvider, type ResourceRead } from './resources.ts';
import { fail, ok, PeerRefusal, type McpContent, type ToolCaller, type ToolResult, type ToolSpec } from '../core/tools/types.ts';

/** A 1x1 red pixel, PNG. */
export const RED_PIXEL_PNG = 'iVBORw0KGgoAAAANSUhEUgAAAAEAAAABCAYAAAAfFcSJAAAADUlEQVR4AWP4z8DwHwAFAAH/e+m+7wAAAABJRU5ErkJggg==';
/** One millisecond of silence: 8 samples, 8 kHz, 16-bit mono WAV. */
export const SILENT_WAV = 'UklGRjQAAABXQVZFZm10IBAAAAABAAEAQB8AAIA+AAACABAAZGF0YRAAAAAAAAAAAAAAAAAAAAAAAAAA';

// Regular expressions are module constants: XS compiles a literal each time it is evaluated.
const TEMPLATE_URI = /^test:\/\/template\/([^/]+)\/data$/;

const NO_ARGS = { type: 'object', properties: {}, additionalProperties: false };

function fixture(name: string, description: string, handler: ToolSpec['handler'], schema: Record<string, unknown> = NO_ARGS): ToolSpec {
  return { name, description: `Conformance fixture (test builds): ${description}`, schema, access: 'open', where: 'mcp', handler };
}

function withContent(output: string, content: McpContent[]): ToolResult {
  return { ...ok(output), content };
}

/** Asks the client through the caller's peer; a refusal or failure is the tool's error. */
async function ask(caller: ToolCaller, method: string, params: Record<string, unknown>): Promise<Record<string, unknown> | ToolResult> {
  if (!caller.peer) return fail('unsupported', `${method} needs an MCP client on the other end (a /mcp call).`);
  try {
    return await caller.peer.request(method, params);
  } catch (e) {
    return fail(e instanceof PeerRefusal ? 'unsupported' : 'client-error', errorMessage(e));
  }
}

const isResult = (r: unknown): r is ToolResult => isPlainObject(r) && typeof r.success === 'boolean' && 'error_type' in r;

function elicited(r: Record<string, unknown>): string {
  return `action=${String(r.action)}, content=${stringify(r.content ?? {})}`;
}

export function fixtureTools(clock: Clock): ToolSpec[] {
  const pause = (ms: number): Promise<void> => new Promise((r) => clock.setTimeout(r, ms));
  return [
    fixture('test_simple_text', 'returns simple text.', () => ok('This is a simple text response for testing.')),
    fixture('test_image_content', 'returns a 1x1 red PNG.', () => withContent('An image: a 1x1 red pixel (PNG).', [{ type: 'image', data: RED_PIXEL_PNG, mimeType: 'image/png' }])),
    fixture('test_audio_content', 'returns a short silent WAV.', () => withContent('Audio: 1 ms of silence (WAV).', [{ type: 'audio', data: SILENT_WAV, mimeType: 'audio/wav' }])),
    fixture('test_embedded_resource', 'returns an embedded text resource.', () =>
      withContent('This is an embedded resource content.', [{ type: 'resource', resource: { uri: 'test://embedded-resource', mimeType: 'text/plain', text: 'This is an embedded resource content.' } }]),
    ),
    fixture('test_multiple_content_types', 'returns text, an image and an embedded resource.', () =>
      withContent('Multiple content types test:', [
        { type: 'text', text: 'Multiple content types test:' },
        { type: 'image', data: RED_PIXEL_PNG, mimeType: 'image/png' },
        { type: 'resource', resource: { uri: 'test://mixed-content-resource', mimeType: 'application/json', text: '{"test":"data","value":123}' } },
      ]),
    ),
    fixture('test_error_handling', 'always fails.', () => fail('test-error', 'This tool intentionally returns an error for testing')),
    fixture('test_tool_with_progress', 'reports progress 0, 50 and 100 of 100, 50 ms apart.', async (_a, caller) => {
      caller.peer?.progress(0, 100);
      await pause(50);
      caller.peer?.progress(50, 100);
      await pause(50);
      caller.peer?.progress(100, 100);
      return ok('Progress test completed.');
    }),
    fixture(
      'test_sampling',
      'asks the client to sample an LLM (sampling/createMessage) with the prompt.',
      async (a, caller) => {
        const r = await ask(caller, 'sampling/createMessage', { messages: [{ role: 'user', content: { type: 'text', text: String(a.prompt) } }], maxTokens: 100 });
        if (isResult(r)) return r;
        const content = isPlainObject(r.content) ? r.content : null;
        return ok(`LLM response: ${content && typeof content.text === 'string' ? content.text : stringify(r.content)}`);
      },
      { type: 'object', properties: { prompt: { type: 'string', description: 'The prompt to send to the LLM' } }, required: ['prompt'], additionalProperties: false },
    ),
    fixture(
      'test_elicitation',
      'asks the user for a username and an email (elicitation/create).',
      async (a, caller) => {
        const r = await ask(caller, 'elicitation/create', {
          message: String(a.message),
          requestedSchema: {
            type: 'object',
            properties: { username: { type: 'string', description: "User's response" }, email: { type: 'string', description: "User's email address" } },
            required: ['username', 'email'],
          },
        });
        return isResult(r) ? r : ok(`User response: ${elicited(r)}`);
      },
      { type: 'object', properties: { message: { type: 'string', description: 'The message to show the user' } }, required: ['message'], additionalProperties: false },
    ),
    fixture('test_elicitation_sep1034_defaults', 'asks for a form whose fields all have defaults (SEP-1034).', async (_a, caller) => {
      const r = await ask(caller, 'elicitation/create', {
        message: 'Please review the defaults and accept or change them.',
        requestedSchema: {
          type: 'object',
          properties: {
            name: { type: 'string', description: 'User name', default: 'John Doe' },
            age: { type: 'integer', description: 'User age', default: 30 },
            score: { type: 'number', description: 'User score', default: 95.5 },
            status: { type: 'string', description: 'User status', enum: ['active', 'inactive', 'pending'], default: 'active' },
            verified: { type: 'boolean', description: 'Verification status', default: true },
          },
        },
      });
      return isResult(r) ? r : ok(`Elicitation completed: ${elicited(r)}`);
    }),
    fixture('test_elicitation_sep1330_enums', 'asks for a form with the five kinds of enum (SEP-1330).', async (_a, caller) => {
      const r = await ask(caller, 'elicitation/create', {
        message: 'Please choose from each list.',
        requestedSchema: {
          type: 'object',
          properties: {
            untitledSingle: { type: 'string', title: 'Untitled single-select', enum: ['option1', 'option2', 'option3'] },
            titledSingle: {
              type: 'string',
              title: 'Titled single-select',
              oneOf: [
                { const: 'value1', title: 'First Option' },
                { const: 'value2', title: 'Second Option' },
                { const: 'value3', title: 'Third Option' },
              ],
            },
            legacyEnum: { type: 'string', title: 'Legacy titled enum', enum: ['opt1', 'opt2', 'opt3'], enumNames: ['Option One', 'Option Two', 'Option Three'] },
            untitledMulti: { type: 'array', title: 'Untitled multi-select', items: { type: 'string', enum: ['option1', 'option2', 'option3'] } },
            titledMulti: {
              type: 'array',
              title: 'Titled multi-select',
              items: {
                anyOf: [
                  { const: 'value1', title: 'First Choice' },
                  { const: 'value2', title: 'Second Choice' },
                  { const: 'value3', title: 'Third Choice' },
                ],
              },
            },
          },
        },
      });
      return isResult(r) ? r : ok(`Elicitation completed: ${elicited(r)}`);
    }),
    fixture('json_schema_2020_12_tool', 'takes arguments described with JSON Schema 2020-12 ($schema, $defs, $ref).', (a) => ok(stringify(a)), {
      $schema: 'https://json-schema.org/draft/2020-12/schema',
      type: 'object',
      $defs: { address: { type: 'object', properties: { street: { type: 'string' }, city: { type: 'string' } } } },
      properties: { name: { type: 'string' }, address: { $ref: '#/$defs/address' } },
      additionalProperties: false,
    }),
    // SEP-1699 asks this tool to close its event stream mid-call and finish on the client's reconnection;
    // the device does not resume streams (no event ids), so it answers at once.
    fixture('test_reconnection', 'answers at once (the device does not resume event streams).', () => ok('Reconnection test completed successfully')),
  ];
}

function text(uri: string, mimeType: string, body: string): ResourceRead {
  return { contents: [{ uri, mimeType, text: body }], ttlMs: 0 };
}

export function fixtureResources(): ResourceProvider {
  return {
    scheme: 'test',
    list: () => [
      { uri: 'test://static-text', name: 'static-text', title: 'Static text', description: 'Conformance fixture: a text resource.', mimeType: 'text/plain' },
      { uri: 'test://static-binary', name: 'static-binary', title: 'Static binary', description: 'Conformance fixture: a 1x1 red PNG.', mimeType: 'image/png' },
      { uri: 'test://watched-resource', name: 'watched-resource', title: 'Watched resource', description: 'Conformance fixture: the resource the suite subscribes to.', mimeType: 'text/plain' },
    ],
    templates: () => [{ uriTemplate: 'test://template/{id}/data', name: 'template-data', title: 'Template data', description: 'Conformance fixture: JSON data for an id.', mimeType: 'application/json' }],
    read: (uri) => {
      if (uri === 'test://static-text') return text(uri, 'text/plain', 'This is the content of the static text resource.');
      if (uri === 'test://static-binary') return { contents: [{ uri, mimeType: 'image/png', blob: RED_PIXEL_PNG }], ttlMs: 0 };
      if (uri === 'test://watched-resource') return text(uri, 'text/plain', 'Watched resource content.');
      const m = TEMPLATE_URI.exec(uri);
      if (m) {
        let id = m[1]!;
        try {
          id = decodeURIComponent(id);
        } catch {
          // kept as sent
        }
        return text(uri, 'application/json', stringify({ id, templateTest: true, data: `Data for ID: ${id}` }));
      }
      throw new ResourceError(`No resource ${uri.slice(0, 120)}.`);
    },
  };
}

const PROMPTS: PromptInfo[] = [
  { name: 'test_simple_prompt', title: 'Simple prompt', description: 'Conformance fixture: a prompt without arguments.' },
  {
    name: 'test_prompt_with_arguments',
    title: 'Prompt with arguments',
    description: 'Conformance fixture: a prompt with two arguments.',
    arguments: [
      { name: 'arg1', description: 'First test argument', required: true },
      { name: 'arg2', description: 'Second test argument', required: true },
    ],
  },
  {
    name: 'test_prompt_with_embedded_resource',
    title: 'Prompt with an embedded resource',
    description: 'Conformance fixture: a prompt embedding a resource.',
    arguments: [{ name: 'resourceUri', description: 'URI of the resource to embed', required: true }],
  },
  { name: 'test_prompt_with_image', title: 'Prompt with an image', description: 'Conformance fixture: a prompt with an image.' },
];

export function fixturePrompts(): PromptProvider {
  return {
    list: () => PROMPTS,
    get: (name, args): PromptResult => {
      switch (name) {
        case 'test_prompt_with_arguments':
          return { messages: [{ role: 'user', content: { type: 'text', text: `Prompt with arguments: arg1='${args.arg1}', arg2='${args.arg2}'` } }] };
        case 'test_prompt_with_embedded_resource':
          return {
            messages: [
              { role: 'user', content: { type: 'resource', resource: { uri: args.resourceUri!, mimeType: 'text/plain', text: 'Embedded resource content for testing.' } } },
              { role: 'user', content: { type: 'text', text: 'Please process the embedded resource above.' } },
            ],
          };
        case 'test_prompt_with_image':
          return {
            messages: [
              { role: 'user', content: { type: 'image', data: RED_PIXEL_PNG, mimeType: 'image/png' } },
              { role: 'user', content: { type: 'text', text: 'Please analyze the image above.' } },
            ],
          };
        default:
          return { messages: [{ role: 'user', content: { type: 'text', text: 'This is a simple prompt for testing.' } }] };
      }
    },
  };
}

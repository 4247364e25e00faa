// The tool server's routes: POST /mcp (JSON-RPC, token-gated by the router
// like every API route), GET and DELETE /mcp answered 405 (no standalone
// event stream; sessions end by themselves), every /mcp method refusing a
// foreign Origin with 403 (src/mcp/origin.ts), and GET /api/tools, the tool
// panel. Here the server gets what it serves besides the registry's tools:
// the documentation pack and the caller's text files as resources, the
// approved skill capsules as prompts, and in test builds the conformance
// suite's fixtures (src/mcp/fixtures.ts).

import type { Context } from '../core/context.ts';
import type { Docs } from '../docs/docs.ts';
import { docsResources } from '../docs/resources.ts';
import { fileResources } from '../files/resources.ts';
import { errorResponse, jsonResponse } from '../net/http/errors.ts';
import type { HttpRequest } from '../net/http/types.ts';
import { skillPrompts } from '../skills/prompts.ts';
import type { SkillStore } from '../skills/store.ts';
import { fixturePrompts, fixtureResources, fixtureTools } from './fixtures.ts';
import { PromptRegistry } from './prompts.ts';
import { ResourceRegistry } from './resources.ts';
import { McpServer } from './server.ts';
import type { ToolCaller, ToolRunsOn } from '../core/tools/types.ts';

/** Tool arguments may carry a document (artifact.save takes about 24 KB of text). */
export const MCP_BODY_LIMIT = 32 * 1024;

/** A /mcp caller holds the device token: the owner, an admin, attended. */
export const MCP_CALLER: ToolCaller = Object.freeze({ via: 'mcp', admin: true, scheduled: false, unattended: false, person: null });

const INSTRUCTIONS =
  'Tools of a desk assistant device. Tool names are dotted (device.status). A tool that runs and fails answers ' +
  'with isError true; structuredContent always carries the uniform result {success, output, error, error_type}. ' +
  'docs.search and docs.read answer questions about the device from its documentation, which is also readable as ' +
  'docs:// resources; saved text files are artifact:// resources, and approved skill capsules are prompts.';

/** What /mcp serves besides the tool registry. */
export interface McpSources {
  docs?: Docs;
  skills?: SkillStore;
}

export function installMcp(ctx: Context, sources: McpSources = {}): McpServer {
  const resources = new ResourceRegistry((m) => ctx.log.error('mcp', m));
  const prompts = new PromptRegistry();
  // Test builds only (never a release image): the conformance suite's fixtures, through the same registries.
  if (ctx.hal.build.testBuild) {
    for (const t of fixtureTools(ctx.hal.clock)) ctx.tools.register(t);
    resources.register(fixtureResources());
    prompts.register(fixturePrompts());
  }
  if (sources.docs && !sources.docs.empty()) resources.register(docsResources(sources.docs));
  resources.register(fileResources(ctx.files));
  if (sources.skills) prompts.register(skillPrompts(sources.skills));
  const server = new McpServer(
    ctx.tools,
    { name: 'desk-assistant', title: 'Desk assistant', version: ctx.hal.build.version },
    () => MCP_CALLER,
    INSTRUCTIONS,
    { resources, prompts, clock: ctx.hal.clock, random: ctx.random },
  );
  ctx.router.add({ method: 'POST', path: '/mcp', bodyLimit: MCP_BODY_LIMIT, handler: (req) => server.handle(req) });
  const noStream = (req: HttpRequest) =>
    server.refuse(req) ??
    errorResponse(405, 'method-not-allowed', 'POST JSON-RPC messages to /mcp: this server opens no standalone event stream, and its sessions end by themselves.', { Allow: 'POST' });
  ctx.router.add({ method: 'GET', path: '/mcp', handler: noStream });
  ctx.router.add({ method: 'DELETE', path: '/mcp', handler: noStream });

  ctx.router.add({
    method: 'GET',
    path: '/api/tools',
    handler: () => {
      const tools = ctx.tools.panel();
      const counts: Record<ToolRunsOn, number> = { Orchestrator: 0, 'Sub-agents': 0, Unavailable: 0 };
      for (const t of tools) counts[t.runsOn]++;
      return jsonResponse({ tools, counts });
    },
  });
  return server;
}

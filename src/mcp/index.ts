// The tool server's routes: POST /mcp (JSON-RPC, token-gated by the router
// like every API route), GET and DELETE /mcp answered 405 (no event stream,
// no sessions to end), and GET /api/tools, the tool panel.

import type { Context } from '../core/context.ts';
import { errorResponse, jsonResponse } from '../net/http/errors.ts';
import { McpServer } from './server.ts';
import type { ToolCaller, ToolRunsOn } from './types.ts';

/** Tool arguments may carry a document (artifact.save takes about 24 KB of text). */
export const MCP_BODY_LIMIT = 32 * 1024;

/** A /mcp caller holds the device token: the owner, an admin, attended. */
export const MCP_CALLER: ToolCaller = Object.freeze({ via: 'mcp', admin: true, scheduled: false, unattended: false, person: null });

const INSTRUCTIONS =
  'Tools of a desk assistant device. Tool names are dotted (device.status). A tool that runs and fails answers ' +
  'with isError true; structuredContent always carries the uniform result {success, output, error, error_type}. ' +
  'docs.search and docs.read answer questions about the device from its documentation.';

export function installMcp(ctx: Context): void {
  const server = new McpServer(
    ctx.tools,
    { name: 'desk-assistant', title: 'Desk assistant', version: ctx.hal.build.version },
    () => MCP_CALLER,
    INSTRUCTIONS,
  );
  ctx.router.add({ method: 'POST', path: '/mcp', bodyLimit: MCP_BODY_LIMIT, handler: (req) => server.handle(req) });
  const noStream = () =>
    errorResponse(405, 'method-not-allowed', 'POST JSON-RPC messages to /mcp: this server opens no event stream and keeps no sessions.', { Allow: 'POST' });
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
}

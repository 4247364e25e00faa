// The tool server's routes: POST /mcp (JSON-RPC, token-gated by the router
// like every API route), GET and DELETE /mcp answered 405 (no standalone
// event stream; sessions end by themselves), every /mcp method refusing a
// foreign Origin with 403 (src/mcp/origin.ts), and GET /api/tools, the tool
// panel.

import type { Route } from '../core/router.ts';
import type { ToolRegistry } from '../core/tools/registry.ts';
import type { ToolRunsOn } from '../core/tools/types.ts';
import { errorResponse, jsonResponse } from '../net/http/errors.ts';
import type { HttpRequest } from '../net/http/types.ts';
import type { McpServer } from './server.ts';

/** Tool arguments may carry a document (artifact.save takes about 24 KB of text). */
export const MCP_BODY_LIMIT = 32 * 1024;

export function mcpRoutes(server: McpServer, tools: ToolRegistry): Route[] {
  const noStream = (req: HttpRequest) =>
    server.refuse(req) ??
    errorResponse(405, 'method-not-allowed', 'POST JSON-RPC messages to /mcp: this server opens no standalone event stream, and its sessions end by themselves.', { Allow: 'POST' });
  return [
    { method: 'POST', path: '/mcp', bodyLimit: MCP_BODY_LIMIT, handler: (req) => server.handle(req) },
    { method: 'GET', path: '/mcp', handler: noStream },
    { method: 'DELETE', path: '/mcp', handler: noStream },
    {
      method: 'GET',
      path: '/api/tools',
      handler: () => {
        const list = tools.panel();
        const counts: Record<ToolRunsOn, number> = { Orchestrator: 0, 'Sub-agents': 0, Unavailable: 0 };
        for (const t of list) counts[t.runsOn]++;
        return jsonResponse({ tools: list, counts });
      },
    },
  ];
}

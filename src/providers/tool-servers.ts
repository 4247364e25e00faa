// Remote tool servers in provider requests: the owner's approved, ready
// connectors (src/connectors/) as the two dialects that can reach a remote
// MCP server write them. The provider calls the server itself (server-side
// tools): the device never sees those calls, only their trace in the answer.
//   provider A (Responses API)  a tools entry {type: mcp, server_label,
//               server_url | connector_id, authorization, require_approval:
//               never}; the same entries ride along web_search in a
//               background response (sub-agent jobs);
//   provider B (Messages API)   mcp_servers [{type: url, url, name,
//               authorization_token}], each named by one {type: mcp_toolset,
//               mcp_server_name} in tools, under the beta header
//               mcp-client-2025-11-20 (the Messages API's MCP connector).
// Provider C, Z.ai, the router and the custom endpoint have no remote MCP
// support: nothing is sent to them. The credential is a secret: it goes in
// the request body over https only, and nowhere else.

import type { ToolServer } from '../contracts/index.ts';

export type { ToolServer, ToolServerProvider, ToolServerSource } from '../contracts/index.ts';

/** The Messages API's MCP connector beta (docs.claude.com, "MCP connector"; 2025-04-04 is deprecated). */
export const MCP_CLIENT_BETA = 'mcp-client-2025-11-20';

/** Provider A: the mcp tools entries. */
export function responsesMcpTools(servers: readonly ToolServer[]): Array<Record<string, unknown>> {
  return servers.map((s) => ({
    type: 'mcp',
    server_label: s.label,
    ...(s.connectorId ? { connector_id: s.connectorId } : { server_url: s.url }),
    ...(s.name && s.name !== s.label ? { server_description: s.name } : {}),
    ...(s.credential ? { authorization: s.credential } : {}),
    // The owner approved the server as a whole (/mcp approve); nobody is there to approve each call.
    require_approval: 'never',
  }));
}

/** Provider B: the mcp_servers parameter and the toolsets that enable them (every server needs exactly one). */
export function messagesMcp(servers: readonly ToolServer[]): { servers: Array<Record<string, unknown>>; toolsets: Array<Record<string, unknown>> } {
  const usable = servers.filter((s) => s.url !== '');
  return {
    servers: usable.map((s) => ({ type: 'url', url: s.url, name: s.label, ...(s.credential ? { authorization_token: s.credential } : {}) })),
    toolsets: usable.map((s) => ({ type: 'mcp_toolset', mcp_server_name: s.label })),
  };
}

// The owner's chat command for tool server entries (spec: Chat owner
// commands, "/mcp approve or deny <name>"; Approval-gated objects, "Tool
// server entry"): every connector is one entry.
//   /mcp                    lists the entries with their approval and status
//   /mcp approve <name>     approves one (it may then travel in provider A and
//                           B rounds and jobs, once it is ready)
//   /mcp deny <name>        removes the approval; the record stays
// <name> is the connector id, or its display name when only one connector
// has it. Owner-only (the chat service refuses it to anyone else); the reply
// is signed by the chat service like every command's. The connectors
// subsystem registers it into the chat commands' registry it receives in its
// options (index.ts).

import type { ChatCommand } from '../contracts/index.ts';
import type { Connectors } from './connectors.ts';

// Regular expressions are module constants: XS compiles a literal each time it is evaluated.
const SPACE = /\s/;

const USAGE = 'Usage: /mcp approve | deny <name> (/mcp alone lists the tool servers)';

function describe(v: Record<string, unknown>): string {
  const reaches = Array.isArray(v['reaches']) ? (v['reaches'] as string[]) : [];
  const status = String(v['status']).replace('-', ' ');
  const where = reaches.length ? `for ${reaches.join(' and ')}` : 'no provider here can carry it';
  return `${String(v['id'])} "${String(v['name'])}" (${v['kind'] === 'mcp' ? 'MCP server' : `${String(v['provider'])} connector`}, ${status}, ${where}): ${v['approved'] === true ? 'approved' : 'not approved'}`;
}

/** The /mcp command's reply to an owner's arguments. */
export function mcpCommand(c: Connectors, args: string): string {
  const text = args.trim();
  if (!text) {
    const all = c.list();
    if (!all.length) return 'No tool servers are set up. Add one on the web page (Assistant > Connectors), then approve it here with /mcp approve <name>.';
    return ['Tool servers:', ...all.map(describe), 'Approve one with /mcp approve <name>; /mcp deny <name> removes an approval.'].join('\n');
  }
  const space = text.search(SPACE);
  const verb = (space < 0 ? text : text.slice(0, space)).toLowerCase();
  const name = space < 0 ? '' : text.slice(space).trim();
  if ((verb !== 'approve' && verb !== 'deny') || !name) return USAGE;
  const found = c.resolve(name);
  if (!found.ok) return `${found.message} /mcp lists the tool servers. Nothing was changed.`;
  const r = c.setApproval(found.id, verb === 'approve');
  if (!r.ok) return r.message;
  const label = `${found.id}${found.name !== found.id ? ` "${found.name}"` : ''}`;
  if (verb === 'deny') return r.changed ? `Removed the approval of ${label}: providers no longer get it. The record stays; delete it on the web page.` : `${label} was not approved; nothing was changed.`;
  const status = String(r.view['status']);
  const ready = status === 'ready' || status === 'signed-in';
  const reaches = Array.isArray(r.view['reaches']) ? (r.view['reaches'] as string[]) : [];
  const when = !reaches.length
    ? ' No provider here can carry it as it is set up (provider B takes servers by URL only).'
    : ready
      ? ` It goes to ${reaches.join(' and ')} turns from now on.`
      : ` It is not usable yet (${status.replace('-', ' ')}): it goes to ${reaches.join(' and ')} turns once it is ${r.view['auth'] === 'oauth' ? 'signed in' : 'given its secret'} on the web page.`;
  return r.changed ? `Approved ${label}.${when}` : `${label} was already approved.${when}`;
}

/** The connectors' chat commands. */
export function connectorChatCommands(c: Connectors): ChatCommand[] {
  return [
    {
      name: '/mcp',
      usage: 'approve | deny <name>',
      help: 'approve a tool server or remove its approval (/mcp alone lists them)',
      run: (call) => mcpCommand(c, call.args),
    },
  ];
}

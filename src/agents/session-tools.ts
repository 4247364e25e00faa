// session.tell and session.poll: the sub-agent fabric is fire-and-forget
// (spec: sub-agents return text once, no conversation with a running job),
// so these answer unsupported. They exist for /mcp clients that expect them
// and are reachable over /mcp only; the live turn never offers them.
// session.spawn, session.list and session.terminate belong to the fabric
// and are registered with it (src/agents/index.ts mounts both).

import { fail, type ToolSpec } from '../core/tools/types.ts';

const UNSUPPORTED =
  'Sub-agents are fire-and-forget: a running job cannot be told anything or polled. Its result arrives by itself when it finishes (results.list, results.get).';

export const SESSION_UNSUPPORTED_TOOLS: ToolSpec[] = [
  {
    name: 'session.tell',
    description: 'Unsupported: sub-agents are fire-and-forget and cannot be sent messages. Always answers unsupported.',
    schema: {
      type: 'object',
      properties: { id: { type: 'string', minLength: 1, description: 'session tag' }, message: { type: 'string', minLength: 1 } },
      required: ['id', 'message'],
      additionalProperties: false,
    },
    access: 'open',
    where: 'mcp',
    handler: () => fail('unsupported', UNSUPPORTED),
  },
  {
    name: 'session.poll',
    description: 'Unsupported: sub-agents are fire-and-forget and cannot be polled. Always answers unsupported.',
    schema: {
      type: 'object',
      properties: { id: { type: 'string', minLength: 1, description: 'session tag' } },
      required: ['id'],
      additionalProperties: false,
    },
    access: 'open',
    where: 'mcp',
    handler: () => fail('unsupported', UNSUPPORTED),
  },
];

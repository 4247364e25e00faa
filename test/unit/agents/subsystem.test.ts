// The agents subsystem mounted on a test kernel from its declared options:
// the turn subsystem (itself on small fakes) for the assistant, and fakes for
// the providers, the wire, the file store, the chat, the memory, the card and
// the local time. Its blocks join the prompt, and its tools, routes, commands
// and state section are registered; the fabric's behaviour with the whole
// device is in the other tests here.
import { describe, expect, it } from 'vitest';
import { agents } from '../../../src/agents/index.ts';
import { mount, ready } from '../../../src/core/subsystem.ts';
import type { HttpResponse } from '../../../src/net/http/types.ts';
import type { ProviderSettings } from '../../../src/providers/index.ts';
import { pending, testKernel } from '../../support/kernel.ts';
import { mountTurnOnFakes } from '../../support/turn-fakes.ts';

function setup() {
  const { kernel } = testKernel();
  const { face, blocks, episodic } = mountTurnOnFakes(kernel);
  const { assistant } = face;
  const sent: string[] = [];
  const fabric = mount(kernel, agents, {
    assistant,
    // No provider is keyed: nothing is dispatched.
    providers: { key: () => '', customBase: () => '', customStyle: () => 'chat', customModel: () => '', keyedList: () => [] } as unknown as ProviderSettings,
    wire: { keyed: () => false, zaiHost: () => null, routerHost: () => '' } as never,
    files: {
      store: {
        readText: () => {
          throw new Error('no file');
        },
        save: () => {
          throw new Error('no card');
        },
      },
    },
    client: {} as never,
    connectors: { serversFor: () => Promise.resolve([]) },
    outbox: { post: () => true },
    chat: ready({ notify: (m: { text: string }) => void sent.push(m.text) }),
    memory: { episodic },
    card: { live: () => false },
    time: { nowStamp: () => null },
    skills: pending('skills'),
  });
  return { kernel, blocks, fabric, sent };
}

describe('the agents subsystem', () => {
  it('joins the prompt and registers its tools, routes, commands and state section', () => {
    const { kernel, blocks, fabric } = setup();
    expect(blocks).toEqual(['conversation', 'sessions', 'spawn-capacity', 'fresh-results', 'subagent-capabilities']);
    for (const name of ['session.tell', 'session.poll', 'session.spawn', 'session.list', 'session.terminate', 'results.get', 'results.list']) expect(kernel.tools.get(name)).toBeDefined();
    expect(kernel.router.list().filter((r) => r.path === '/api/sessions').map((r) => r.method)).toEqual(['GET', 'POST']);
    expect(kernel.console.has('SESSIONS?')).toBe(true);
    expect(kernel.console.has('SESSIONMSG?')).toBe(true);
    expect(kernel.status.snapshot()).toMatchObject({ agents: { queued: 0, running: 0, results: 0, fresh: 0 } });
    fabric.stop();
  });

  it('answers POST /api/sessions without an action with a 400 that changes nothing', async () => {
    const { kernel, fabric } = setup();
    const route = kernel.router.list().find((r) => r.method === 'POST' && r.path === '/api/sessions')!;
    const res: HttpResponse = await route.handler({ method: 'POST', path: '/api/sessions', query: '', headers: new Map([['content-type', 'application/x-www-form-urlencoded']]), body: new TextEncoder().encode('task=x'), remote: 'test' });
    expect({ status: res.status, json: JSON.parse(String(res.body)) }).toEqual({ status: 400, json: { error: 'bad-request', message: 'action must be spawn or terminate. Nothing was changed.' } });
    expect(fabric.fabric.queued()).toBe(0);
    fabric.stop();
  });
});

// Provider B's managed-agent sessions polled against the emulator's event
// list, which pages as the API does (types[], limit, next_page,
// created_at[gte]): a long session finishes, each event is read once, and
// an idle session ends the job by its stop reason (the SDK's: end_turn,
// requires_action, retries_exhausted, budget_reached, refusal).
import { describe, expect, it } from 'vitest';
import { Store } from '../../../src/core/store.ts';
import { HttpClient } from '../../../src/net/http/client.ts';
import { sessionsBackend } from '../../../src/agents/backends/sessions.ts';
import type { PollOutcome } from '../../../src/agents/backends/types.ts';
import type { Usage } from '../../../src/contracts/index.ts';
import type { ProviderId } from '../../../src/providers/settings.ts';
import { agentNet } from '../../support/agent-net.ts';
import { VirtualClock } from '../../support/clock.ts';
import { MemNet } from '../../support/memnet.ts';
import { MemNvs } from '../../support/memstorage.ts';

function setup() {
  const net = new MemNet();
  const clock = new VirtualClock();
  const agents = agentNet(net, clock, ['api.anthropic.com']);
  const counted: Array<[ProviderId, Usage]> = [];
  const backend = sessionsBackend({
    client: new HttpClient(net, clock, { verify: () => false, caBundle: () => '' }),
    key: () => 'sk-ant-test',
    customBase: () => '',
    customStyle: () => 'chat',
    zaiHost: () => 'https://api.z.ai',
    routerHost: () => 'https://router.desk-assistant.invalid',
    store: new Store(new MemNvs(), 'agents'),
    endpoint: null,
    usage: (p, u) => void counted.push([p, u]),
  });
  return { agents, backend, counted };
}

async function start(backend: ReturnType<typeof setup>['backend']): Promise<string> {
  const s = await backend.start({ tag: 't1', model: 'claude-sonnet-4-5', brief: '-----\nFind the news.', cancel: { onCancel: null } });
  if (s.kind !== 'running') throw new Error(JSON.stringify(s));
  return s.jobId;
}

describe('provider B session polling', () => {
  it('a long session (12 pages of 20 events unfiltered) finishes; polls ask for the types and a limit and never read an event twice', async () => {
    const { agents, backend, counted } = setup();
    agents.script({ polls: 3, events: 240, result: 'The news in brief.' });
    const id = await start(backend);
    const outcomes: PollOutcome[] = [];
    // As the fabric does: poll until the job ends.
    for (let i = 0; i < 5 && outcomes[outcomes.length - 1]?.kind !== 'done'; i++) outcomes.push(await backend.poll(id));
    expect(outcomes).toHaveLength(3);
    expect(outcomes.slice(0, 2)).toEqual([{ kind: 'running' }, { kind: 'running' }]);
    expect(outcomes[2]).toEqual({ kind: 'done', text: 'The news in brief.', partial: false });
    const polls = agents.requests.filter((r) => r.method === 'GET');
    for (const p of polls) {
      const q = new URLSearchParams(p.query ?? '');
      expect(q.getAll('types[]')).toEqual(expect.arrayContaining(['agent.message', 'session.status_idle', 'session.error']));
      expect(Number(q.get('limit'))).toBeGreaterThan(20);
    }
    // Later polls start after what the earlier ones read.
    expect(new URLSearchParams(polls[1]!.query ?? '').get('created_at[gte]')).toBeTruthy();
    // The session's model usage (60 span.model_request_end events of 1500 tokens, 500 of them cached) counted once.
    const total = counted.reduce((n, [, u]) => n + u.input + u.output, 0);
    expect(total).toBe(60 * (1000 + 500 + 100));
    expect(counted.every(([p]) => p === 'anthropic')).toBe(true);
  });

  it.each([
    ['refusal', { kind: 'failed', error: 'the model declined the task (refusal)' }],
    ['retries_exhausted', { kind: 'failed', error: 'the agent gave up after repeated errors' }],
    ['budget_reached', { kind: 'done', text: 'half an answer', partial: true }],
  ] as const)('idle with stop reason %s ends the job at once', async (stop, outcome) => {
    const { agents, backend } = setup();
    agents.script({ polls: 1, stop, result: 'half an answer' });
    const id = await start(backend);
    expect(await backend.poll(id)).toEqual(outcome);
  });

  it('the emulator refuses a poll without the managed-agents beta, and a limit over 100', async () => {
    const { agents, backend } = setup();
    agents.script({ polls: 1 });
    const id = await start(backend);
    const a = agents.jobs.handle({ method: 'GET', host: 'api.anthropic.com', path: `/v1/sessions/${id}/events`, query: '', body: null, headers: { 'x-api-key': 'k', 'anthropic-version': '2023-06-01' } }, []);
    expect(a).toMatchObject({ status: 400 });
    const b = agents.jobs.handle({ method: 'GET', host: 'api.anthropic.com', path: `/v1/sessions/${id}/events`, query: '?limit=500', body: null, headers: { 'x-api-key': 'k', 'anthropic-version': '2023-06-01', 'anthropic-beta': 'managed-agents-2026-04-01' } }, []);
    expect(b).toMatchObject({ status: 400 });
  });
});

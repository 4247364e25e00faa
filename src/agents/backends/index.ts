// The backend for a provider (spec, "Sub-agent backends"): provider B's
// sessions, provider A's background responses, and the synchronous rest.

import type { ProviderId } from '../../contracts/index.ts';
import { backgroundBackend } from './background.ts';
import { sessionsBackend } from './sessions.ts';
import { syncBackend } from './sync.ts';
import type { AgentBackend, BackendEnv } from './types.ts';

export function backendFor(provider: ProviderId, env: BackendEnv, clock: { monoMs(): number }): AgentBackend {
  if (env.endpoint) return syncBackend(env, 'custom', clock);
  switch (provider) {
    case 'anthropic':
      return sessionsBackend(env);
    case 'openai':
      return backgroundBackend(env);
    default:
      return syncBackend(env, provider, clock);
  }
}

/** Whether a provider's jobs survive a device restart. */
export function resumable(provider: ProviderId): boolean {
  return provider === 'anthropic' || provider === 'openai';
}

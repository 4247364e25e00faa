// The turn's failover rules (spec: provider failover; docs/decisions.md,
// "Turn engine"): after an attempt on a provider fails, what the turn does
// next, and the reply the owner reads when it gives up.
//
// A context overflow starts a fresh thread once (and the chat is folded
// soon). With midFail on, a transport-like failure is retried once on the
// same provider, then the next provider takes over the shared transcript
// (minus what only the old dialect reads). With midFail off, a turn that
// has called a tool stops; otherwise the same provider gets one fresh try,
// then the next provider starts afresh. Each switch counts toward the cap.

import type { CapName, ProviderErrorKind } from '../contracts/index.ts';

/** Failures retried once on the same provider before switching (midFail on); read by GET /api/fallbacks. */
export const TRANSPORTISH: readonly ProviderErrorKind[] = ['transport', 'timeout', 'http', 'malformed'];

/** The one-time retries a turn has used; sameHost is per provider (a switch gives it back). */
export interface Tries {
  sameHost: boolean;
  fresh: boolean;
  overflow: boolean;
}

/**
 * What follows a failed attempt: stop (give up), overflow (a fresh thread,
 * the chat folded soon), same (again on this provider, the transcript as it
 * is), fresh (again on this provider, a fresh transcript), switch (the next
 * provider, the shared transcript), switch-fresh (the next provider, afresh).
 */
export type NextAttempt = 'stop' | 'overflow' | 'same' | 'fresh' | 'switch' | 'switch-fresh';

export function afterFailure(error: string, tries: Tries, o: { midFail: boolean; canSwitch: boolean; toolCalls: number }): NextAttempt {
  if (error === 'context-overflow' && !tries.overflow) {
    tries.overflow = true;
    return 'overflow';
  }
  if (o.midFail) {
    if (TRANSPORTISH.includes(error as ProviderErrorKind) && !tries.sameHost) {
      tries.sameHost = true;
      return 'same';
    }
    return o.canSwitch ? 'switch' : 'stop';
  }
  if (o.toolCalls > 0) return 'stop';
  if (!tries.fresh) {
    tries.fresh = true;
    return 'fresh';
  }
  return o.canSwitch ? 'switch-fresh' : 'stop';
}

/** The reply of a turn that failed (a cap, an unreadable answer, a refusal, no provider reached). */
export function failureReply(error: string, cap: CapName | null, label: string): string {
  if (error === 'cap') return `Sorry, I could not finish that within my limits (${cap ?? 'limit'}). Please try a smaller request.`;
  if (error === 'parse') return 'Sorry, the model answered in a form I could not read. Please ask again.';
  if (error === 'refused') return `Sorry, ${label} declined to answer that.`;
  return `Sorry, I could not reach a model provider (${error}). Please try again later.`;
}

// The time span of /remind <when> <what> (spec, Chat owner commands): a
// whole number with the suffix s, m, h or d (a bare number is minutes),
// from 2 minutes to 7 days inclusive. The scheduler that arms reminders
// uses the same parser (it owns the reminder itself).

// Regular expressions are module constants: XS compiles a literal each time it is evaluated.
const SPAN = /^(\d{1,9})([smhdSMHD]?)$/;

export const SPAN_MIN_MS = 2 * 60_000;
export const SPAN_MAX_MS = 7 * 24 * 60 * 60_000;
const UNIT_MS: Record<string, number> = { s: 1000, m: 60_000, h: 60 * 60_000, d: 24 * 60 * 60_000 };

export type SpanResult = { ok: true; ms: number } | { ok: false; error: string };

export function parseSpan(text: string): SpanResult {
  const m = SPAN.exec(text.trim());
  if (!m) return { ok: false, error: `"${text.slice(0, 16)}" is not a time span: write a number with s, m, h or d (a bare number is minutes), e.g. 90s, 45, 2h, 3d` };
  const ms = Number(m[1]) * UNIT_MS[(m[2] || 'm').toLowerCase()]!;
  if (ms < SPAN_MIN_MS || ms > SPAN_MAX_MS) return { ok: false, error: 'a reminder must be from 2 minutes to 7 days away' };
  return { ok: true, ms };
}

/** '2h 5m', '90s', '3d' for people. */
export function describeSpan(ms: number): string {
  const parts: string[] = [];
  let left = Math.round(ms / 1000);
  for (const [unit, s] of [['d', 86400], ['h', 3600], ['m', 60], ['s', 1]] as const) {
    if (left >= s) {
      parts.push(`${Math.floor(left / s)}${unit}`);
      left %= s;
    }
  }
  return parts.join(' ') || '0s';
}

// The IANA time zone database's answers, from Node's Intl: what the
// firmware's POSIX TZ rules (src/util/tz.ts, src/util/zones.ts) are held to.

const formats = new Map<string, Intl.DateTimeFormat>();

/** The IANA zone's UTC offset (seconds east) at an instant. */
export function ianaOffset(zone: string, ms: number): number {
  let f = formats.get(zone);
  if (!f) formats.set(zone, (f = new Intl.DateTimeFormat('en-US', { timeZone: zone, hourCycle: 'h23', year: 'numeric', month: '2-digit', day: '2-digit', hour: '2-digit', minute: '2-digit', second: '2-digit' })));
  const parts = f.formatToParts(new Date(ms));
  const get = (t: string): number => Number(parts.find((p) => p.type === t)!.value);
  const local = Date.UTC(get('year'), get('month') - 1, get('day'), get('hour'), get('minute'), get('second'));
  return Math.round((local - Math.floor(ms / 1000) * 1000) / 1000);
}

/**
 * The instants (whole seconds, UTC ms) at which the zone's offset changes
 * between fromMs and toMs: sampled every 12 hours (no two changes are that
 * close), each change then found to the second by bisection.
 */
export function ianaTransitions(zone: string, fromMs: number, toMs: number): number[] {
  const step = 12 * 3600_000;
  const out: number[] = [];
  let prev = ianaOffset(zone, fromMs);
  for (let t = fromMs + step; t <= toMs; t += step) {
    const off = ianaOffset(zone, t);
    if (off === prev) continue;
    let lo = t - step;
    let hi = t;
    while (hi - lo > 1000) {
      const mid = lo + Math.floor((hi - lo) / 2000) * 1000;
      if (ianaOffset(zone, mid) === prev) lo = mid;
      else hi = mid;
    }
    out.push(hi);
    prev = off;
  }
  return out;
}

// The web search: Brave's Web Search API behind the tool web.search, its
// monthly budget and its settings routes; what each setting means is in the
// face's header (index.ts), which mounts it.

import { formRoute } from '../core/form-route.ts';
import type { Route } from '../core/router.ts';
import type { Store } from '../core/store.ts';
import type { HttpClient } from '../net/http/client.ts';
import { jsonResponse } from '../net/http/errors.ts';
import { fail, ok, type ToolResult, type ToolSpec } from '../core/tools/types.ts';
import { capBytes } from '../util/cap.ts';
import { civilFromDays } from '../util/civil.ts';
import { isPlainObject, parseJson } from '../util/json.ts';
import { decode, utf8Length } from '../util/utf8.ts';
import { replaceEachMatch, replaceEvery } from '../util/replace.ts';

// Regular expressions are module constants: XS compiles a literal each time it is evaluated.
const TAGS = /<[^>]*>/;
/** An entity and its name, for replaceEachMatch. */
const ENTITY_MATCH = /(&(?:amp|lt|gt|quot|#39|#x27|nbsp);)/;
const SPACES = /\s+/;
const WHITESPACE = /\s/;

export const SEARCH_NS = 'search';
export const SEARCH_URL = 'https://api.search.brave.com/res/v1/web/search';
export const DEFAULT_RESULTS = 5;
export const MAX_RESULTS = 20;
export const QUERY_MAX = 400;
export const BUDGET_MAX = 100_000;
const SEARCH_MS = 15_000;
const DESCRIPTION_BYTES = 300;
const ENTITY: Record<string, string> = { amp: '&', lt: '<', gt: '>', quot: '"', '#39': "'", '#x27': "'", nbsp: ' ' };

/** Year and month (UTC) of a wall-clock time, without Date (firmware rule). */
export function yearMonth(ms: number): { y: number; m: number } {
  const [y, m] = civilFromDays(Math.floor(ms / 86_400_000));
  return { y, m };
}

function pad(n: number): string {
  return n < 10 ? `0${n}` : String(n);
}

export function monthKey(ms: number): string {
  const { y, m } = yearMonth(ms);
  return `${y}-${pad(m)}`;
}

/** The first day of the month after the one ms falls in, as YYYY-MM-01. */
export function nextMonthStart(ms: number): string {
  const { y, m } = yearMonth(ms);
  return m === 12 ? `${y + 1}-01-01` : `${y}-${pad(m + 1)}-01`;
}

export class WebSearch {
  constructor(
    private readonly store: Store,
    private readonly client: Pick<HttpClient, 'request'>,
    private readonly wallMs: () => number,
    private readonly secret: (v: string) => void,
  ) {
    const k = this.key();
    if (k) secret(k);
  }

  key(): string | null {
    return this.store.strOrNull('wsKey');
  }
  budget(): number {
    return this.store.int('budget', 0);
  }
  /** Searches counted this month (0 when the stored count is from an earlier month). */
  used(): number {
    return this.store.str('month', '') === monthKey(this.wallMs()) ? this.store.int('used', 0) : 0;
  }

  view(): Record<string, unknown> {
    const budget = this.budget();
    const used = this.used();
    return { service: 'brave', keySet: this.key() !== null, budget: budget || null, used, month: monthKey(this.wallMs()), remaining: budget ? Math.max(0, budget - used) : null, resetsOn: nextMonthStart(this.wallMs()), defaultResults: DEFAULT_RESULTS };
  }

  /** Applies the owner's form, all or nothing; returns a problem sentence or null. */
  apply(fields: Map<string, string>): string | null {
    const writes: Array<[string, string | number | undefined]> = [];
    for (const [name, raw] of fields) {
      const v = raw.trim();
      if (name === 'token') continue;
      if (name === 'key') {
        if (utf8Length(v) > 128 || WHITESPACE.test(v)) return 'the search key is malformed';
        writes.push(['wsKey', v === '' ? undefined : v]);
      } else if (name === 'budget') {
        const n = Number(v);
        if (v === '' || !Number.isInteger(n) || n < 0 || n > BUDGET_MAX) return `budget is a whole number of searches a month, 0 (no limit) to ${BUDGET_MAX}`;
        writes.push(['budget', n]);
      } else return `unknown setting ${name}`;
    }
    this.store.setMany(writes);
    const k = this.key();
    if (k) this.secret(k);
    return null;
  }

  private count(): void {
    const month = monthKey(this.wallMs());
    const used = this.used();
    this.store.setMany([
      ['month', month],
      ['used', used + 1],
    ]);
  }

  async search(query: string, count: number): Promise<ToolResult> {
    const key = this.key();
    if (!key) return fail('unavailable', 'No web search key is set (the owner adds one on the web page).');
    const budget = this.budget();
    if (budget && this.used() >= budget) return fail('budget', `The monthly web search budget (${budget} searches) is used up; it resets on ${nextMonthStart(this.wallMs())}.`);
    const url = `${SEARCH_URL}?q=${encodeURIComponent(query)}&count=${count}`;
    const res = await this.client.request({ method: 'GET', url, headers: { Accept: 'application/json', 'X-Subscription-Token': key }, timeoutMs: SEARCH_MS, maxBodyBytes: 512 * 1024 });
    if (!res.ok) return fail('transport', `The search service could not be reached (${res.error}).`);
    const { status, body } = res.response;
    if (status === 401 || status === 403) return fail('auth', 'The search service refused the key.');
    if (status === 429) return fail('rate-limit', 'The search service is limiting requests; try again in a moment.');
    if (status < 200 || status > 299) return fail('http', `The search service answered HTTP ${status}.`);
    this.count();
    const doc = parseJson(decode(body));
    const web = doc.ok && isPlainObject(doc.value) && isPlainObject(doc.value['web']) ? doc.value['web']['results'] : null;
    const results = Array.isArray(web) ? web.filter(isPlainObject).slice(0, count) : [];
    if (!results.length) return ok(`No web results for "${query}".`);
    const lines = [`Web results for "${query}":`];
    results.forEach((r, i) => {
      const title = clean(r['title']);
      const link = typeof r['url'] === 'string' ? r['url'] : '';
      const description = capBytes(clean(r['description']), DESCRIPTION_BYTES);
      lines.push(`${i + 1}. ${title} (${link})`);
      if (description) lines.push(`   ${description}`);
    });
    return ok(lines.join('\n'));
  }
}

function clean(v: unknown): string {
  if (typeof v !== 'string') return '';
  return replaceEvery(replaceEachMatch(replaceEvery(v, TAGS, ''), ENTITY_MATCH, (m) => ENTITY[m.slice(1, -1)] ?? ' '), SPACES, ' ').trim();
}

export function searchTool(ws: WebSearch, screen: (text: string, caller: { admin: boolean }) => string): ToolSpec {
  return {
    name: 'web.search',
    description: `Search the web. Returns up to max_results (default ${DEFAULT_RESULTS}) results: title, address and a snippet. Each search counts against the owner's monthly budget.`,
    schema: {
      type: 'object',
      properties: {
        query: { type: 'string', minLength: 1, maxLength: QUERY_MAX, description: 'what to search for' },
        max_results: { type: 'integer', minimum: 1, maximum: MAX_RESULTS, default: DEFAULT_RESULTS, description: `how many results (1-${MAX_RESULTS}, default ${DEFAULT_RESULTS})` },
      },
      required: ['query'],
      additionalProperties: false,
    },
    access: 'open',
    where: 'both',
    available: () => ws.key() !== null,
    handler: async (a, caller) => {
      const query = String(a['query']).trim();
      if (!query) return fail('bad-arguments', 'web.search: query is empty.');
      const n = typeof a['max_results'] === 'number' ? a['max_results'] : DEFAULT_RESULTS;
      const r = await ws.search(query, n);
      // Results are fetched text: non-admin turns see them through the injection screen.
      return r.success ? ok(screen(r.output, { admin: caller.admin })) : r;
    },
  };
}

/** What web search needs: outbound HTTPS, and the injection screen fetched text passes through (src/files). */
export function searchRoutes(ws: WebSearch): Route[] {
  return [
    { method: 'GET', path: '/api/websearch', handler: () => jsonResponse(ws.view()) },
    formRoute({ path: '/api/websearch', bodyLimit: 1024, apply: (f) => ws.apply(f), view: () => ws.view() }),
  ];
}

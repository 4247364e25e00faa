// A fake of the web search API the firmware's web.search uses: Brave's Web
// Search API (GET https://api.search.brave.com/res/v1/web/search?q=&count=,
// key in the X-Subscription-Token header; answer {type: "search", query,
// web: {type: "search", results: [{title, url, description, ...}]}}, with
// <strong> marks in descriptions as the service sends them). Transport-free
// (answer()), used by the provider emulator (which serves BRAVE_HOST) and by
// unit tests on the in-memory network. It answers 401 for a wrong key, 422
// for a missing or too long query, 429 when told to, and records queries.

export const BRAVE_HOST = 'api.search.brave.com';
export const SEARCH_PATH = '/res/v1/web/search';

/**
 * Options: key (the only accepted key; any when absent), results(query)
 * (the results to give; a deterministic list by default).
 */
export function createSearchApi({ key, results } = {}) {
  const queries = [];
  let limited = 0;
  const reply = (status, value, headers = {}) => ({ status, headers: { 'Content-Type': 'application/json', ...headers }, body: Buffer.from(JSON.stringify(value)) });
  return {
    queries,
    /** The next n requests are answered 429 (rate limited). */
    rateLimit(n = 1) {
      limited = n;
    },
    answer(method, url, headers) {
      const u = new URL(url, `https://${BRAVE_HOST}`);
      if (method !== 'GET' || u.pathname !== SEARCH_PATH) return reply(404, { type: 'ErrorResponse', error: { code: 'NOT_FOUND', status: 404 } });
      const token = headers['x-subscription-token'];
      if (!token || (key !== undefined && token !== key)) return reply(401, { type: 'ErrorResponse', error: { code: 'SUBSCRIPTION_TOKEN_INVALID', detail: 'The provided subscription token is invalid.', status: 401 } });
      if (limited > 0) {
        limited--;
        return reply(429, { type: 'ErrorResponse', error: { code: 'RATE_LIMITED', status: 429 } }, { 'X-RateLimit-Remaining': '0' });
      }
      const q = u.searchParams.get('q') ?? '';
      if (!q || q.length > 400) return reply(422, { type: 'ErrorResponse', error: { code: 'VALIDATION', detail: 'q', status: 422 } });
      const count = Math.min(20, Math.max(1, Number(u.searchParams.get('count') ?? 20) || 20));
      queries.push({ q, count, at: Date.now() });
      const list = (results ? results(q) : Array.from({ length: 20 }, (_, i) => ({ title: `${q} result ${i + 1}`, url: `https://example.org/${encodeURIComponent(q)}/${i + 1}`, description: `About <strong>${q}</strong>: page ${i + 1} of the fake index.` }))).slice(0, count);
      return reply(200, {
        type: 'search',
        query: { original: q, more_results_available: list.length === count },
        mixed: { type: 'mixed', main: list.map((_, i) => ({ type: 'web', index: i, all: false })) },
        web: { type: 'search', family_friendly: true, results: list.map((r) => ({ type: 'search_result', language: 'en', family_friendly: true, profile: { name: new URL(r.url).hostname }, ...r })) },
      });
    },
  };
}

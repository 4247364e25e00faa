// Web search (spec: the web.search tool; Limits: web search max_results
// default 5, optional monthly budget). The service is Brave's Web Search
// API (GET /res/v1/web/search?q=&count=, the key in X-Subscription-Token):
// a plain JSON GET with one header, a result list of title, url and
// description, and a free tier counted per request, which suits a monthly
// budget counted on the device.
//
// Settings (human-web-only: no tool or device action can set them; the key
// is wsKey, a protected name): GET/POST /api/websearch with key (write-only,
// empty clears) and budget (searches per calendar month, 0 = no limit).
// The tool is offered only while a key is set. The budget counts searches
// the service answered (2xx) in the current calendar month (UTC, by the
// wall clock); at the budget the tool refuses with error_type budget and
// the date it resets; the count starts again when the month changes.

import type { Subsystem } from '../core/subsystem.ts';
import type { HttpClient } from '../net/http/client.ts';
import { SEARCH_NS, searchRoutes, searchTool, WebSearch } from './search.ts';

export interface SearchOptions {
  client: Pick<HttpClient, 'request'>;
  /** The files (src/files/): the injection screen for fetched content, by the caller's role. */
  files: { screenFetched(text: string, caller: { admin: boolean }): string };
}

export const search: Subsystem<SearchOptions, WebSearch> = {
  name: 'search',
  needs: ['client', 'files'],
  provides: {},
  start(k, o) {
    const ws = new WebSearch(k.store(SEARCH_NS), o.client, () => k.hal.clock.wallMs(), (v) => k.log.redactor.add(v));
    return { provides: ws, tools: [searchTool(ws, (text, caller) => o.files.screenFetched(text, caller))], routes: searchRoutes(ws) };
  },
};

// The owner's page as this build carries it. tools/build.mjs builds it from
// src/web/page/ (tools/web-page.mjs) and injects it as the define
// __WEB_PAGE__: the HTML in chunks of a few thousand characters, its UTF-8
// length and an ETag. The server streams the chunks one by one, so serving
// the page never encodes the whole ~45 KB string in RAM at once. A build
// without the define (unit tests that boot the firmware) serves the plain
// shell of shell.ts, which says the page is missing.

import { SHELL_HTML } from './shell.ts';
import { utf8Length } from '../util/utf8.ts';

export interface WebPage {
  chunks: string[];
  /** UTF-8 length of all chunks together. */
  bytes: number;
  /** A strong validator for If-None-Match. */
  etag: string;
}

declare const __WEB_PAGE__: WebPage | undefined;

export function pageOf(html: string, etag = '"shell"'): WebPage {
  return { chunks: [html], bytes: utf8Length(html), etag };
}

export function builtInPage(): WebPage {
  if (typeof __WEB_PAGE__ === 'object' && __WEB_PAGE__ !== null && Array.isArray(__WEB_PAGE__.chunks)) return __WEB_PAGE__;
  return pageOf(SHELL_HTML);
}

#!/usr/bin/env node
// Builds the owner's web page (src/web/page/) into one self-contained HTML
// file: esbuild bundles and minifies the page's TypeScript and CSS, and both
// are inlined into src/web/page/index.html. tools/build.mjs injects the
// result into the firmware as the define __WEB_PAGE__ (src/web/built.ts),
// cut into chunks the device streams without re-encoding one large string.
// Usage: node tools/web-page.mjs [--out FILE]   (prints the sizes)
import { createHash } from 'node:crypto';
import { readFileSync, writeFileSync } from 'node:fs';
import { dirname, join, resolve } from 'node:path';
import { fileURLToPath } from 'node:url';
import { gzipSync } from 'node:zlib';
import * as esbuild from 'esbuild';

const ROOT = resolve(dirname(fileURLToPath(import.meta.url)), '..');
const PAGE_DIR = join(ROOT, 'src/web/page');

/** The budget for the page in flash and over the air (gzipped bytes). */
export const WEB_PAGE_GZIP_BUDGET = 80 * 1024;
/** Characters per chunk of the define: the device encodes and sends one at a time. */
const CHUNK_CHARS = 4096;

/** The page as one HTML string; `inputs`, when given, receives the absolute paths of every file it was made from. */
export async function buildWebPage({ minify = true, inputs = null } = {}) {
  const js = await esbuild.build({
    metafile: inputs !== null,
    entryPoints: [join(PAGE_DIR, 'main.ts')],
    bundle: true,
    write: false,
    format: 'iife',
    // Browsers of the last few years on phones and desktops.
    target: ['es2020', 'chrome90', 'firefox90', 'safari15'],
    minify,
    legalComments: 'none',
    logLevel: 'warning',
    charset: 'utf8',
  });
  // What went into the page (for the license inventory, tools/licenses.mjs): the bundle's inputs and the files read beside it.
  if (inputs) inputs.push(...Object.keys(js.metafile.inputs).map((f) => resolve(f)), join(PAGE_DIR, 'style.css'), join(PAGE_DIR, 'index.html'));
  const css = await esbuild.transform(readFileSync(join(PAGE_DIR, 'style.css'), 'utf8'), { loader: 'css', minify, target: ['chrome90', 'firefox90', 'safari15'] });
  // A script may not contain its own end tag.
  const script = js.outputFiles[0].text.replace(/<\/(script)/gi, '<\\/$1').trim();
  const html = readFileSync(join(PAGE_DIR, 'index.html'), 'utf8')
    .replace('/*STYLE*/', () => css.code.trim())
    .replace('/*SCRIPT*/', () => script);
  return minify ? html.replace(/>\n+</g, '><') : html;
}

/** Raw and gzipped sizes of a built page. */
export function webPageSizes(html) {
  const raw = Buffer.byteLength(html, 'utf8');
  return { raw, gzip: gzipSync(html, { level: 9 }).length };
}

/** What the firmware embeds: the page in chunks, its byte length and an ETag. */
export function webPageDefine(html) {
  const chunks = [];
  const chars = [...html];
  for (let i = 0; i < chars.length; i += CHUNK_CHARS) chunks.push(chars.slice(i, i + CHUNK_CHARS).join(''));
  return {
    chunks,
    bytes: Buffer.byteLength(html, 'utf8'),
    etag: `"${createHash('sha256').update(html).digest('hex').slice(0, 16)}"`,
  };
}

if (process.argv[1] && resolve(process.argv[1]) === fileURLToPath(import.meta.url)) {
  const out = process.argv.indexOf('--out');
  const html = await buildWebPage();
  const { raw, gzip } = webPageSizes(html);
  if (out > 0) writeFileSync(resolve(process.argv[out + 1]), html);
  console.log(`web page: ${raw} bytes, ${gzip} gzipped (budget ${WEB_PAGE_GZIP_BUDGET})`);
}

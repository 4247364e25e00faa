// The repository stands alone (issue 38, item 5): every relative link in
// every Markdown file of the checkout resolves to a file inside it, and a
// #fragment to one of that file's headings by GitHub's slug rules (the docs
// pack's slugify); no file of the checkout names a folder beside it. The
// checker itself is shown to catch each kind of broken link on a made-up
// tree (tools/doc-links.mjs).

import { mkdirSync, mkdtempSync, rmSync, writeFileSync } from 'node:fs';
import { tmpdir } from 'node:os';
import { join } from 'node:path';
import { describe, expect, it } from 'vitest';
import { anchorsOf, checkLinks, linksOf, mentions, repositoryFiles } from '../../../tools/doc-links.mjs';

const BESIDE = ['..', 'shared'].join('/');

describe('the repository stands alone', () => {
  it('every relative link in every Markdown file resolves (files and #headings)', () => {
    const md = repositoryFiles().filter((f) => f.endsWith('.md'));
    expect(md).toEqual(expect.arrayContaining(['README.md', 'docs/interface.md', 'docs/targets.md', 'docs/licenses.md']));
    expect(checkLinks()).toEqual([]);
  });

  it(`no file of the checkout mentions ${BESIDE}`, () => {
    expect(mentions(BESIDE)).toEqual([]);
  });

  it('the checker finds a missing file, a missing heading, a link out of the tree, and passes good ones', () => {
    const root = mkdtempSync(join(tmpdir(), 'doc-links-'));
    try {
      mkdirSync(join(root, 'docs'));
      writeFileSync(
        join(root, 'docs', 'a.md'),
        [
          '# Title',
          '## Same name',
          '## Same name',
          '## What `code` & (punctuation) do',
          '[ok](b.md) [ok anchor](b.md#second-part) [self](#same-name-1) [punct](#what-code--punctuation-do) [web](https://example.com/x)',
          '[gone](missing.md) [bad anchor](b.md#nope) [out](../../elsewhere.md) ![img](pic.png)',
          '`[in code](nowhere.md)`',
          '```',
          '[in a fence](nowhere.md)',
          '```',
          '[ref]: ../README.md#top',
        ].join('\n'),
      );
      writeFileSync(join(root, 'docs', 'b.md'), '# B\n\n## Second part\n');
      writeFileSync(join(root, 'README.md'), '# Top\n');
      const problems = checkLinks(root, ['docs/a.md']).map((p) => `${p.line} ${p.target}: ${p.problem}`);
      expect(problems).toEqual([
        '6 missing.md: no such file: docs/missing.md',
        '6 b.md#nope: no heading #nope in docs/b.md',
        '6 ../../elsewhere.md: points outside the repository',
        '6 pic.png: no such file: docs/pic.png',
      ]);
      expect([...anchorsOf('# A\n## A\n```\n# not a heading\n```\n## A')]).toEqual(['a', 'a-1', 'a-2']);
      expect(linksOf('see [x](y.md "title") and <a href="z.md">z</a>').map((l) => l.target)).toEqual(['y.md', 'z.md']);
      writeFileSync(join(root, 'notes.txt'), `see ${BESIDE}/spec.md\n`);
      expect(mentions(BESIDE, root, ['notes.txt', 'README.md'])).toEqual([{ file: 'notes.txt', line: 1 }]);
    } finally {
      rmSync(root, { recursive: true, force: true });
    }
  });
});

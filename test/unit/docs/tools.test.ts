// The documentation pack and the docs tools: the build-time split into
// sections (ids, code fences, repeated headings), and docs.list,
// docs.search (keyword AND-match) and docs.read (near-miss ids for an
// unknown one) over the pack generated from this repository's docs.
import { describe, expect, it } from 'vitest';
import { Docs } from '../../../src/docs/docs.ts';
import { docs } from '../../../src/docs/index.ts';
import { EMPTY_PACK, builtInPack } from '../../../src/docs/pack.ts';
import { mount } from '../../../src/core/subsystem.ts';
import type { ToolCaller } from '../../../src/core/tools/types.ts';
import { testKernel } from '../../support/kernel.ts';
import { ROOT } from '../../../tools/build.mjs';
import { docsFiles, docsPack, parseMarkdown, slugify } from '../../../tools/docs-pack.mjs';

const TURN: ToolCaller = { via: 'turn', admin: false, scheduled: true, unattended: true, person: 'guest' };
const pack = docsPack(ROOT);

function tools(p = pack) {
  const { kernel } = testKernel();
  mount(kernel, docs, { pack: p });
  return (name: string, args: unknown) => kernel.tools.call(name, args, TURN);
}

describe('the pack, built from README.md and docs/*.md', () => {
  it('splits Markdown at every heading, ignoring headings inside code fences', () => {
    const md = ['Intro text.', '# Title', 'Body.', '```sh', '# not a heading', '```', '## Part (one) ##', 'More.', '## Part (one)', '### Deep'].join('\n');
    expect(parseMarkdown(md)).toEqual([
      { level: 0, title: '', text: 'Intro text.' },
      { level: 1, title: 'Title', text: 'Body.\n```sh\n# not a heading\n```' },
      { level: 2, title: 'Part (one)', text: 'More.' },
      { level: 2, title: 'Part (one)', text: '' },
      { level: 3, title: 'Deep', text: '' },
    ]);
    expect(slugify('Tool server (/mcp)')).toBe('tool-server-mcp');
    expect(slugify('Utilities (`src/util/`)')).toBe('utilities-srcutil');
  });

  it('covers every doc file with unique ids of the form <file>#<heading>', () => {
    expect(pack.files.map((f) => f.path)).toEqual(docsFiles(ROOT));
    expect(pack.files[0]).toEqual({ slug: 'readme', path: 'README.md', title: 'Desk assistant firmware' });
    const ids = pack.sections.map((s) => s.id);
    expect(new Set(ids).size).toBe(ids.length);
    for (const id of ids) expect(id).toMatch(/^[a-z0-9-]+#[a-z0-9_-]+$/);
    expect(ids).toContain('readme#set-up-and-run');
  });

  it('is empty in a build that did not inject it', () => {
    expect(builtInPack()).toBe(EMPTY_PACK);
  });
});

describe('docs.list', () => {
  it('lists the files, then one file\'s sections', async () => {
    const call = tools();
    const files = await call('docs.list', {});
    expect(files.output.split('\n')[0]).toMatch(/^readme \(README\.md\): Desk assistant firmware, \d+ sections$/);
    const readme = await call('docs.list', { file: 'README.md' });
    expect(readme.output).toContain('readme#desk-assistant-firmware: Desk assistant firmware');
    expect(readme.output).toContain('  readme#set-up-and-run: Set up and run');
    const unknown = await call('docs.list', { file: 'nope' });
    expect(unknown).toMatchObject({ success: false, error_type: 'not-found' });
    expect(unknown.error).toContain('Files: readme, ');
  });
});

describe('docs.search', () => {
  it('finds sections that contain every keyword, best first', async () => {
    const call = tools();
    const r = await call('docs.search', { query: 'npm start' });
    expect(r.success).toBe(true);
    expect(r.output).toMatch(/^\d+ sections? match:/);
    expect(r.output).toContain('- readme#set-up-and-run: Set up and run |');
    const both = await call('docs.search', { query: 'simulator NPM' });
    const onlyOne = await call('docs.search', { query: 'simulator zzqxj' });
    expect(both.output).toContain('readme#set-up-and-run');
    expect(onlyOne.output).toBe('No section contains all of: simulator, zzqxj.');
  });

  it('refuses an empty query', async () => {
    const call = tools();
    expect((await call('docs.search', { query: '' })).error_type).toBe('bad-arguments');
    expect((await call('docs.search', { query: ' , ' })).error).toBe('The query has no keywords.');
  });
});

describe('docs.read', () => {
  it('reads one section with its subsections', async () => {
    const call = tools();
    const r = await call('docs.read', { id: 'readme#set-up-and-run' });
    expect(r.output.startsWith('## Set up and run\n\n')).toBe(true);
    expect(r.output).toContain(pack.sections.find((x) => x.id === 'readme#set-up-and-run')!.text);
    const top = await call('docs.read', { id: 'readme#desk-assistant-firmware' });
    expect(top.output).toContain('Subsections: readme#set-up-and-run');
  });

  it('answers an unknown id with near-miss ids', async () => {
    const call = tools();
    const r = await call('docs.read', { id: 'readme#setup-and-running' });
    expect(r).toMatchObject({ success: false, error_type: 'not-found' });
    expect(r.error).toMatch(/^No section "readme#setup-and-running"\. Did you mean: readme#set-up-and-run/);
    const file = await call('docs.read', { id: 'readme' });
    expect(file.error).toContain('Did you mean: readme#desk-assistant-firmware');
  });

  it('says so when the build carries no pack', async () => {
    const call = tools(EMPTY_PACK);
    expect((await call('docs.list', {})).output).toBe('This firmware build carries no documentation pack.');
    expect((await call('docs.read', { id: 'readme#x' })).error).toBe('No section "readme#x". This firmware build carries no documentation pack.');
  });

  it('cuts a very long section and says so', () => {
    const docs = new Docs({ files: [{ slug: 'big', path: 'docs/big.md', title: 'Big' }], sections: [{ id: 'big#big', file: 'big', level: 1, title: 'Big', text: 'x'.repeat(9000) }] });
    const r = docs.read('big#big');
    expect(r.ok && r.text.endsWith('(cut at 8000 characters)')).toBe(true);
  });
});

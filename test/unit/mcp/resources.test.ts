// Boots the whole device: /mcp serves the docs and files subsystems' resources and the skills' prompts together.
// Resources and prompts over POST /mcp: the documentation pack (docs://) and
// the caller's text files (artifact://) under the file store's own
// per-person visibility, paged lists and their cursors, the templates,
// resource-not-found by era (-32002, 2026-07-28's -32602), the 2026-07-28
// fields (ttlMs, cacheScope, Mcp-Name carrying the uri); approved skill
// capsules as prompts (waiting ones never), their task argument, unknown
// prompts and missing arguments; and what a release build serves (no
// conformance fixtures).
import { describe, expect, it } from 'vitest';
import { Docs } from '../../../src/docs/docs.ts';
import { docsResources, DOCS_TTL_MS } from '../../../src/docs/resources.ts';
import { DEFAULT_FILE_PEOPLE } from '../../../src/files/people.ts';
import { artifactUri, fileResources, TEXT_MAX } from '../../../src/files/resources.ts';
import { boot, HTTP_PORT } from '../../../src/main.ts';
import { MCP_CALLER } from '../../../src/mcp/server.ts';
import { PromptRegistry } from '../../../src/mcp/prompts.ts';
import { PAGE_SIZE, paginate, ResourceError, ResourceRegistry } from '../../../src/mcp/resources.ts';
import { McpServer } from '../../../src/mcp/server.ts';
import type { ToolCaller } from '../../../src/core/tools/types.ts';
import { docsPack } from '../../../tools/docs-pack.mjs';
import { ROOT } from '../../../tools/build.mjs';
import { encode } from '../../../src/util/utf8.ts';
import { request } from '../../support/http.ts';
import { createMemHal } from '../../support/memhal.ts';

type Json = Record<string, unknown>;

const req = (id: number, method: string, params?: unknown) => ({ jsonrpc: '2.0', id, method, ...(params === undefined ? {} : { params }) });
const modernMeta = { 'io.modelcontextprotocol/protocolVersion': '2026-07-28', 'io.modelcontextprotocol/clientCapabilities': {} };

function start(options: Parameters<typeof createMemHal>[0] = {}) {
  const mem = createMemHal(options);
  const device = boot(mem.hal);
  device.files.setPeople(DEFAULT_FILE_PEOPLE);
  const token = device.ctx.token.reveal();
  const post = async (body: unknown, headers: Record<string, string> = {}) => {
    const res = await request(mem.net, HTTP_PORT, 'POST', '/mcp', {
      headers: { 'Content-Type': 'application/json', Accept: 'application/json, text/event-stream', 'X-Device-Token': token, ...headers },
      body: JSON.stringify(body),
    });
    return { status: res.status, headers: res.headers, json: JSON.parse(res.body) as Json & { result: Json; error: Json } };
  };
  return { mem, device, post };
}

/** A server over the real documentation pack (boot's pack is empty under vitest: the build injects it). */
function docsServer() {
  const resources = new ResourceRegistry();
  const docs = new Docs(docsPack(ROOT));
  resources.register(docsResources(docs));
  const server = new McpServer(boot(createMemHal().hal).ctx.tools, { name: 'x', title: 'X', version: 'v1' }, () => MCP_CALLER, '', { resources });
  const call = async (body: unknown, headers: Record<string, string> = {}) => {
    const res = await server.handle({ method: 'POST', path: '/mcp', query: '', remote: '', headers: new Map([['content-type', 'application/json'], ...Object.entries(headers).map(([k, v]) => [k.toLowerCase(), v] as [string, string])]), body: encode(JSON.stringify(body)) });
    return { status: res.status, json: JSON.parse(res.body as string) as Json & { result: Json; error: Json } };
  };
  return { docs, call };
}

describe('the documentation pack as resources', () => {
  it('lists every file outline and section, paged, with sizes; reads a section whole and an outline', async () => {
    const { docs, call } = docsServer();
    const all: Array<{ uri: string; name: string; title: string; mimeType: string; size?: number }> = [];
    let cursor: string | undefined;
    let pages = 0;
    do {
      const res = await call(req(1, 'resources/list', cursor === undefined ? {} : { cursor }));
      const result = res.json.result as { resources: typeof all; nextCursor?: string };
      expect(result.resources.length).toBeLessThanOrEqual(PAGE_SIZE);
      all.push(...result.resources);
      cursor = result.nextCursor;
      pages++;
    } while (cursor !== undefined && pages < 20);
    expect(all.length).toBe(docs.pack.files.length + docs.pack.sections.length);
    expect(pages).toBe(Math.ceil(all.length / PAGE_SIZE));
    expect(new Set(all.map((r) => r.uri)).size).toBe(all.length);
    const section = all.find((r) => r.name === 'readme#set-up-and-run')!;
    expect(section).toMatchObject({ uri: 'docs://readme/set-up-and-run', title: 'Set up and run', mimeType: 'text/markdown' });
    expect(section.size).toBeGreaterThan(100);

    const read = await call(req(2, 'resources/read', { uri: section.uri }));
    const text = ((read.json.result as { contents: Array<{ text: string }> }).contents[0]!).text;
    expect(text.startsWith('## Set up and run\n\n')).toBe(true);
    expect(text).toContain('npm start');
    // Whole, not cut at docs.read's 8000 characters.
    const longest = [...docs.pack.sections].sort((a, b) => b.text.length - a.text.length)[0]!;
    const [file, heading] = longest.id.split('#');
    const whole = await call(req(3, 'resources/read', { uri: `docs://${file}/${heading}` }));
    expect(((whole.json.result as { contents: Array<{ text: string }> }).contents[0]!).text).toContain(longest.text);
    expect(longest.text.length).toBeGreaterThan(8000);

    const outline = await call(req(4, 'resources/read', { uri: 'docs://readme' }));
    expect((outline.json.result as { contents: Array<{ text: string; mimeType: string }> }).contents[0]).toMatchObject({
      mimeType: 'text/markdown',
      text: expect.stringContaining('- [Set up and run](docs://readme/set-up-and-run) `readme#set-up-and-run`'),
    });
  });

  it('answers an unknown section with -32002 and near misses (2026-07-28: -32602), and a bad cursor with -32602', async () => {
    const { call } = docsServer();
    const missing = await call(req(1, 'resources/read', { uri: 'docs://readme/set-up' }));
    expect(missing.json.error).toMatchObject({ code: -32002, message: expect.stringContaining('Did you mean: readme#set-up-and-run'), data: { uri: 'docs://readme/set-up' } });
    expect((await call(req(2, 'resources/read', { uri: 'docs://nosuchfile' }))).json.error).toMatchObject({ code: -32002 });
    expect((await call(req(3, 'resources/read', { uri: 'gopher://x' }))).json.error).toMatchObject({ code: -32002, message: expect.stringContaining('docs://') });
    expect((await call(req(4, 'resources/read', {}))).json.error).toMatchObject({ code: -32602 });
    for (const cursor of ['abc', 'o', 7, 'o-1']) expect((await call(req(5, 'resources/list', { cursor }))).json.error, String(cursor)).toMatchObject({ code: -32602 });

    const modern = await call(req(6, 'resources/read', { uri: 'docs://readme/set-up', _meta: modernMeta }), { 'MCP-Protocol-Version': '2026-07-28', 'Mcp-Method': 'resources/read', 'Mcp-Name': 'docs://readme/set-up' });
    expect(modern.json.error).toMatchObject({ code: -32602 });
  });

  it('2026-07-28: reads with resultType, ttlMs and cacheScope, and checks Mcp-Name against the uri', async () => {
    const { call } = docsServer();
    const headers = (name: string) => ({ 'MCP-Protocol-Version': '2026-07-28', 'Mcp-Method': 'resources/read', 'Mcp-Name': name });
    const ok = await call(req(1, 'resources/read', { uri: 'docs://readme', _meta: modernMeta }), headers('docs://readme'));
    expect(ok.json.result).toMatchObject({ resultType: 'complete', ttlMs: DOCS_TTL_MS, cacheScope: 'private', contents: [{ uri: 'docs://readme' }] });
    const mismatch = await call(req(2, 'resources/read', { uri: 'docs://readme', _meta: modernMeta }), headers('docs://device'));
    expect(mismatch.status).toBe(400);
    expect(mismatch.json.error).toMatchObject({ code: -32020, message: expect.stringContaining('Mcp-Name does not match params.uri') });
    const list = await call(req(3, 'resources/templates/list', { _meta: modernMeta }), { 'MCP-Protocol-Version': '2026-07-28', 'Mcp-Method': 'resources/templates/list' });
    expect(list.json.result).toMatchObject({ resultType: 'complete', ttlMs: 300000, cacheScope: 'private', resourceTemplates: [{ uriTemplate: 'docs://{file}' }, { uriTemplate: 'docs://{file}/{section}' }] });
  });
});

describe('saved text files as resources', () => {
  it('lists the owner\'s text files (not images) and reads one, with the store\'s own visibility for other people', async () => {
    const { device, post } = start({ testBuild: false });
    const store = device.files.store;
    store.save(null, 'notes', 'plan.md', encode('# Plan\nbuy milk'));
    store.save('chat:ann', 'ann', 'diary.txt', encode('dear diary'));
    store.save('chat:bob', 'bob', 'shared.csv', encode('a,b\n1,2'));
    store.share('chat:bob', 'bob', 'shared.csv', true);
    store.save(null, 'pics', 'cat.png', new Uint8Array([137, 80, 78, 71]));

    const list = await post(req(1, 'resources/list'));
    const resources = (list.json.result as { resources: Array<{ uri: string; name: string; mimeType: string; size: number }> }).resources;
    // The /mcp token holder is the owner, who sees every file (files.list alike); a release build has no test:// fixtures.
    expect(resources.map((r) => r.uri)).toEqual(['artifact://ann/diary.txt', 'artifact://bob/shared.csv', 'artifact://notes/plan.md']);
    expect(resources.find((r) => r.name === 'notes/plan.md')).toMatchObject({ mimeType: 'text/markdown', size: 15 });
    const read = await post(req(2, 'resources/read', { uri: 'artifact://notes/plan.md' }));
    expect(read.json.result).toEqual({ contents: [{ uri: 'artifact://notes/plan.md', mimeType: 'text/markdown', text: '# Plan\nbuy milk' }] });
    expect((await post(req(3, 'resources/read', { uri: 'artifact://pics/cat.png' }))).json.error).toMatchObject({ code: -32002, message: expect.stringContaining('not a text file') });
    expect((await post(req(4, 'resources/read', { uri: 'artifact://notes/none.md' }))).json.error).toMatchObject({ code: -32002, message: 'No file notes/none.md.' });

    // Another person (a provider asked for another caller, as a turn would): their own and shared files only.
    const provider = fileResources(device.files);
    const ann: ToolCaller = { via: 'turn', admin: false, scheduled: false, unattended: false, person: 'chat:ann' };
    expect(provider.list(ann).map((r) => r.uri)).toEqual(['artifact://ann/diary.txt', 'artifact://bob/shared.csv']);
    expect(() => provider.read('artifact://notes/plan.md', ann)).toThrow(ResourceError);
    expect(() => provider.read('artifact://notes/plan.md', ann)).toThrow('No file notes/plan.md.');
    device.stop();
  });

  it('names files with spaces in a URI, cuts a long file with where files.read goes on, and lists nothing without a card', async () => {
    const { mem, device, post } = start({ testBuild: false });
    const store = device.files.store;
    store.save(null, 'web', 'long notes.txt', encode('x'.repeat(TEXT_MAX + 5000)));
    const uri = artifactUri({ project: 'web', name: 'long notes.txt' });
    expect(uri).toBe('artifact://web/long%20notes.txt');
    const read = await post(req(1, 'resources/read', { uri }));
    const text = ((read.json.result as { contents: Array<{ text: string }> }).contents[0]!).text;
    expect(text.startsWith('x'.repeat(TEXT_MAX))).toBe(true);
    expect(text).toMatch(/\n\[cut at \d+ of 37768 bytes: files\.read continues from offset \d+\]$/);

    mem.sd.pull();
    device.ctx.card.probe();
    expect(((await post(req(2, 'resources/list'))).json.result as { resources: unknown[] }).resources).toEqual([]);
    expect((await post(req(3, 'resources/read', { uri }))).json.error).toMatchObject({ code: -32002, message: expect.stringMatching(/SD card/) });
    device.stop();
  });
});

describe('approved skill capsules as prompts', () => {
  it('offers the approved capsules only, fills the task, and refuses unknown prompts and wrong arguments', async () => {
    const { mem, device, post } = start({ testBuild: false });
    const saved = await device.ctx.tools.call('skill.save', { id: 'triage', md: '---\ntitle: Triage\n---\nSort the inbox by urgency.' }, { ...MCP_CALLER });
    expect(saved.success).toBe(true);
    const names = async () => ((await post(req(1, 'prompts/list'))).json.result as { prompts: Array<{ name: string }> }).prompts.map((p) => p.name);
    // The built-ins ship approved; triage waits for the owner.
    expect(await names()).toEqual(['research', 'summarize', 'compare']);
    const waiting = await post(req(2, 'prompts/get', { name: 'triage' }));
    expect(waiting.json.error).toMatchObject({ code: -32602, message: 'Unknown prompt: triage' });

    const token = device.ctx.token.reveal();
    const approve = await request(mem.net, HTTP_PORT, 'POST', '/api/skills', { headers: { 'X-Device-Token': token, 'Content-Type': 'application/x-www-form-urlencoded' }, body: 'action=approve&id=triage' });
    expect(approve.status).toBe(200);
    expect(await names()).toEqual(['research', 'summarize', 'compare', 'triage']);
    const list = (await post(req(3, 'prompts/list'))).json.result as { prompts: Array<Json> };
    expect(list.prompts[3]).toEqual({
      name: 'triage',
      title: 'Triage',
      description: expect.stringContaining('Skill capsule triage (Triage)'),
      arguments: [{ name: 'task', description: expect.any(String), required: false }],
    });
    const got = await post(req(4, 'prompts/get', { name: 'triage', arguments: { task: 'this morning\'s mail' } }));
    expect(got.json.result).toEqual({ description: 'Triage', messages: [{ role: 'user', content: { type: 'text', text: "Sort the inbox by urgency.\n\nTask: this morning's mail" } }] });
    const plain = await post(req(5, 'prompts/get', { name: 'research' }));
    expect(((plain.json.result as { messages: Array<{ content: { text: string } }> }).messages[0]!).content.text).toMatch(/^You research for the owner/);
    expect((await post(req(6, 'prompts/get', { name: 'research', arguments: { task: 3 } }))).json.error).toMatchObject({ code: -32602, message: 'argument task must be a string.' });
    expect((await post(req(7, 'prompts/get', {}))).json.error).toMatchObject({ code: -32602 });
    // 2026-07-28: prompts/get is no cacheable result (no ttlMs); its Mcp-Name is the prompt's name.
    const modern = await post(req(8, 'prompts/get', { name: 'research', _meta: modernMeta }), { 'MCP-Protocol-Version': '2026-07-28', 'Mcp-Method': 'prompts/get', 'Mcp-Name': 'research' });
    expect(modern.json.result).toMatchObject({ resultType: 'complete', messages: [{ role: 'user' }] });
    expect(modern.json.result).not.toHaveProperty('ttlMs');
    device.stop();
  });
});

describe('pagination', () => {
  it('pages by offset cursors and says when the list ends', () => {
    const items = Array.from({ length: 7 }, (_, i) => i);
    expect(paginate(items, undefined, 3)).toEqual({ ok: true, items: [0, 1, 2], nextCursor: 'o3' });
    expect(paginate(items, 'o3', 3)).toEqual({ ok: true, items: [3, 4, 5], nextCursor: 'o6' });
    expect(paginate(items, 'o6', 3)).toEqual({ ok: true, items: [6] });
    // A list that shrank under a cursor ends instead of failing.
    expect(paginate(items, 'o9', 3)).toEqual({ ok: true, items: [] });
    expect(paginate(items, 'x', 3)).toMatchObject({ ok: false });
  });

  it('lets the first provider of a prompt name answer it', () => {
    const r = new PromptRegistry();
    r.register({ list: () => [{ name: 'a' }], get: () => ({ messages: [{ role: 'user', content: { type: 'text', text: 'first' } }] }) });
    r.register({ list: () => [{ name: 'a' }, { name: 'b', arguments: [{ name: 'x', required: true }] }], get: () => ({ messages: [{ role: 'user', content: { type: 'text', text: 'second' } }] }) });
    expect(r.list(MCP_CALLER).map((p) => p.name)).toEqual(['a', 'b']);
    expect(r.get('a', {}, MCP_CALLER)).toMatchObject({ ok: true, result: { messages: [{ content: { text: 'first' } }] } });
    expect(r.get('b', {}, MCP_CALLER)).toEqual({ ok: false, error: 'Prompt b needs the argument x.' });
    expect(r.get('b', { x: 1 }, MCP_CALLER)).toEqual({ ok: false, error: 'argument x must be a string.' });
    expect(r.get('b', { x: '1' }, MCP_CALLER)).toMatchObject({ ok: true });
  });
});

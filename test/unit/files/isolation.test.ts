// Issue 29, item 2 (spec, Authentication 18): another person's file is not
// found, for every tool and route, writes included. Each file tool is called
// by Bob on a name Ana holds (unshared) and on a name nobody holds, and the
// two answers must be the same but for the name: a non-owner learns nothing
// about whether a name exists. A save or a download under Ana's name lands
// among Bob's own files (every owner has their own folder), Ana's stays as it
// was; the device owner, who sees every file, gets each person's file by its
// owner from the tools and the routes. Persons' folders survive a rescan, and
// files saved before per-person folders are read where they are.

import { describe, expect, it } from 'vitest';
import type { ToolCaller, ToolResult } from '../../../src/core/tools/types.ts';
import { DEFAULT_FILE_PEOPLE } from '../../../src/files/people.ts';
import { homeDir, personOfDir } from '../../../src/files/names.ts';
import type { FileMeta } from '../../../src/files/store.ts';
import { flushJobs } from '../../support/clock.ts';
import { request } from '../../support/http.ts';
import { deviceKernel, mountFiles, HTTP_PORT } from '../../support/kernel.ts';
import { createMemHal, rebootMemHal, type MemHal } from '../../support/memhal.ts';

const OWNER: ToolCaller = { via: 'turn', admin: true, scheduled: false, unattended: false, person: null };
const as = (person: string): ToolCaller => ({ via: 'turn', admin: false, scheduled: false, unattended: false, person });
// Person ids as chat ids are digits; 'chat:ana' also has a character FAT does not take in a folder name.
const ANA = 'chat:ana';
const BOB = '2002';

/** Files on a kernel with the device's token gate and HTTP server. */
function filesAlone(mem: MemHal) {
  const dk = deviceKernel({ mem });
  const { files } = mountFiles(dk);
  dk.start();
  return { ctx: { ...dk.kernel, token: dk.token }, files, stop: () => dk.stop() };
}
type Device = ReturnType<typeof filesAlone>;

interface Rig {
  mem: MemHal;
  device: Device;
  sent: Array<{ chat: string | null; file: string; owner: string | null }>;
}

function bootOn(mem: MemHal): Rig {
  const device = filesAlone(mem);
  device.files.setPeople(DEFAULT_FILE_PEOPLE);
  const rig: Rig = { mem, device, sent: [] };
  device.files.setSender({
    send: async (chat, meta) => {
      rig.sent.push({ chat, file: `${meta.project}/${meta.name}`, owner: meta.owner });
      return { ok: true, message: `Sent ${meta.project}/${meta.name} to chat ${chat ?? 'owner'}.` };
    },
  });
  return rig;
}

function start(): Rig {
  const mem = createMemHal();
  mem.net.serve('files.test', 80, (s) => {
    s.onData = () => {
      const text = s.inbox.map((c) => new TextDecoder().decode(c)).join('');
      if (!text.includes('\r\n\r\n')) return;
      const body = new TextEncoder().encode('# fetched\n');
      s.send(`HTTP/1.1 200 OK\r\nContent-Length: ${body.length}\r\n\r\n`);
      s.send(body);
      s.end();
    };
  });
  return bootOn(mem);
}

const call = (rig: Rig, name: string, args: Record<string, unknown>, caller: ToolCaller = OWNER): Promise<ToolResult> => rig.device.ctx.tools.call(name, args, caller);

async function settle(rig: Rig): Promise<void> {
  for (const j of rig.device.files.downloads.jobs()) await rig.device.files.downloads.settled(j.id);
  await rig.mem.clock.advance(1);
  await flushJobs();
}

async function api(rig: Rig, method: string, path: string): Promise<{ status: number; body: string }> {
  const r = await request(rig.mem.net, HTTP_PORT, method, path, { headers: { 'X-Device-Token': rig.device.ctx.token.reveal() } });
  return { status: r.status, body: r.body };
}

/** A tool result with the asked name replaced by NAME, and download ids by ID, for comparing two answers. */
function shape(r: ToolResult, name: string): string {
  return JSON.stringify(r).split(name).join('NAME').replace(/f[0-9a-f]{6}/g, 'ID');
}

describe("another person's file is not found, for every tool, writes included", () => {
  it('Bob hears the same about a name Ana holds as about a name nobody holds, from every file tool', async () => {
    const rig = start();
    const bob = as(BOB);
    expect((await call(rig, 'artifact.save', { project: 'p', name: 'taken.md', text: 'Ana keeps her zucchini plans here.' }, as(ANA))).success).toBe(true);
    // The device owner's own unshared file is another person's file for Bob too.
    expect((await call(rig, 'artifact.save', { project: 'p', name: 'owners.md', text: 'The owner keeps his zucchini plans here.' })).success).toBe(true);
    for (const held of ['taken.md', 'owners.md']) {
      const cases: Array<[string, (name: string) => Record<string, unknown>]> = [
        ['files.stat', (name) => ({ project: 'p', name })],
        ['files.read', (name) => ({ project: 'p', name })],
        ['files.read', (name) => ({ project: 'p', name, offset: 4 })],
        ['files.share', (name) => ({ project: 'p', name })],
        ['files.share', (name) => ({ project: 'p', name, share: false })],
        ['files.send', (name) => ({ project: 'p', name })],
        ['files.stat', (name) => ({ project: 'p', name, owner: ANA })],
        ['files.read', (name) => ({ project: 'p', name, owner: ANA })],
        ['files.stat', (name) => ({ project: 'P', name: name.toUpperCase() })],
      ];
      for (const [tool, args] of cases) {
        const onHeld = await call(rig, tool, args(held), bob);
        const onNone = await call(rig, tool, args('nobody.md'), bob);
        expect(onHeld.success, `${tool} ${held}`).toBe(false);
        expect(shape(onHeld, held.toUpperCase()).split(held).join('NAME'), `${tool} ${held}`).toBe(shape(onNone, 'NOBODY.MD').split('nobody.md').join('NAME'));
      }
    }
    // Listing and searching show nothing of them.
    expect((await call(rig, 'files.list', {}, bob)).output).toBe('No files yet.');
    expect((await call(rig, 'files.list', { project: 'p' }, bob)).output).toBe((await call(rig, 'files.list', { project: 'q' }, bob)).output.replace('q', 'p'));
    expect((await call(rig, 'files.search', { query: 'zucchini' }, bob)).output).toBe('No file matches.');
    expect(rig.sent).toEqual([]);

    // Writes: a save under a held name and under a free one answer alike and both land among Bob's own files.
    const saveHeld = await call(rig, 'artifact.save', { project: 'p', name: 'taken.md', text: 'Bob was here.' }, bob);
    const saveNone = await call(rig, 'artifact.save', { project: 'p', name: 'nobody.md', text: 'Bob was here.' }, bob);
    expect(saveHeld).toMatchObject({ success: true, output: 'Saved p/taken.md (13 bytes).' });
    expect(shape(saveHeld, 'taken.md')).toBe(shape(saveNone, 'nobody.md'));
    const saveOwners = await call(rig, 'artifact.save', { project: 'p', name: 'owners.md', text: 'Bob was here.' }, bob);
    expect(saveOwners).toMatchObject({ success: true });
    // Ana's and the owner's files are as they were; Bob reads his own.
    expect((await call(rig, 'files.read', { project: 'p', name: 'taken.md' }, as(ANA))).output).toMatch(/^Ana keeps her zucchini plans here\./);
    expect((await call(rig, 'files.read', { project: 'p', name: 'owners.md' })).output).toMatch(/^The owner keeps his zucchini plans here\./);
    expect((await call(rig, 'files.read', { project: 'p', name: 'taken.md' }, bob)).output).toMatch(/^Bob was here\./);
    expect(JSON.parse((await call(rig, 'files.stat', { project: 'p', name: 'taken.md' }, bob)).output)).toMatchObject({ owner: BOB, size: 13 });
    // Bob's share and send reach his own file, never Ana's.
    expect((await call(rig, 'files.share', { project: 'p', name: 'taken.md' }, bob)).output).toBe('p/taken.md is shared.');
    expect(JSON.parse((await call(rig, 'files.stat', { project: 'p', name: 'taken.md' }, as(ANA))).output)).toMatchObject({ owner: ANA, share: false });
    expect((await call(rig, 'files.send', { project: 'p', name: 'taken.md' }, bob)).success).toBe(true);
    expect(rig.sent).toEqual([{ chat: BOB, file: 'p/taken.md', owner: BOB }]);

    // files.fetch's target: a download to a held name and to a free one start alike and land among Bob's files.
    await rig.device.files.downloads.setPolicy('trust');
    const fetchHeld = await call(rig, 'files.fetch', { url: 'http://files.test/a.md', project: 'p', name: 'owners.md' }, as(ANA));
    const fetchNone = await call(rig, 'files.fetch', { url: 'http://files.test/a.md', project: 'p', name: 'fresh.md' }, as(ANA));
    expect(fetchHeld.success).toBe(true);
    expect(shape(fetchHeld, 'owners.md')).toBe(shape(fetchNone, 'fresh.md'));
    await settle(rig);
    expect(rig.device.files.downloads.jobs().map((j) => [j.name, j.state])).toEqual([
      ['owners.md', 'done'],
      ['fresh.md', 'done'],
    ]);
    expect((await call(rig, 'files.read', { project: 'p', name: 'owners.md' }, as(ANA))).output).toMatch(/^# fetched/);
    expect((await call(rig, 'files.read', { project: 'p', name: 'owners.md' })).output).toMatch(/^The owner keeps his zucchini plans here\./);
    expect((await call(rig, 'files.read', { project: 'p', name: 'owners.md' }, bob)).output).toMatch(/^Bob was here\./);
    rig.device.stop();
  });

  it("the device owner sees every person's file by its owner, in the tools and the routes; the owner's upload of a held name is the owner's own", async () => {
    const rig = start();
    await call(rig, 'artifact.save', { project: 'p', name: 'plan.md', text: 'ana plan' }, as(ANA));
    await call(rig, 'artifact.save', { project: 'p', name: 'plan.md', text: 'bob plan' }, as(BOB));
    // Only persons hold p/plan.md: the owner's bare name finds the first by owner id; owner picks one.
    expect((await call(rig, 'files.read', { project: 'p', name: 'plan.md' })).output).toMatch(/^bob plan/);
    expect((await call(rig, 'files.read', { project: 'p', name: 'plan.md', owner: ANA })).output).toMatch(/^ana plan/);
    expect((await call(rig, 'files.read', { project: 'p', name: 'plan.md', owner: '9999' })).error_type).toBe('not-found');
    // The owner's upload of that name is the owner's own file; neither person's changes.
    const form = (text: string): { body: string; type: string } => {
      const b = 'iso42';
      return { body: `--${b}\r\nContent-Disposition: form-data; name="project"\r\n\r\np\r\n--${b}\r\nContent-Disposition: form-data; name="file"; filename="plan.md"\r\nContent-Type: text/markdown\r\n\r\n${text}\r\n--${b}--\r\n`, type: `multipart/form-data; boundary=${b}` };
    };
    const up = form('owner plan');
    const uploaded = await request(rig.mem.net, HTTP_PORT, 'POST', '/api/files/upload', { headers: { 'X-Device-Token': rig.device.ctx.token.reveal(), 'Content-Type': up.type }, body: up.body });
    expect(uploaded.status).toBe(200);
    expect(JSON.parse(uploaded.body)).toMatchObject({ saved: true, file: { project: 'p', name: 'plan.md', owner: null } });
    const listed = JSON.parse((await api(rig, 'GET', '/api/files/list')).body) as { count: number; files: FileMeta[] };
    expect(listed.count).toBe(3);
    expect(listed.files.map((f) => [f.project, f.name, f.owner])).toEqual([
      ['p', 'plan.md', null],
      ['p', 'plan.md', BOB],
      ['p', 'plan.md', ANA],
    ]);
    expect((await api(rig, 'GET', '/api/files/dl?project=p&name=plan.md')).body).toBe('owner plan');
    expect((await api(rig, 'GET', `/api/files/dl?project=p&name=plan.md&owner=${encodeURIComponent(ANA)}`)).body).toBe('ana plan');
    expect((await api(rig, 'GET', `/api/files/dl?ref=p/plan.md&owner=${BOB}`)).body).toBe('bob plan');
    expect((await api(rig, 'GET', '/api/files/dl?project=p&name=plan.md&owner=9999')).status).toBe(404);
    // Each person still reads their own.
    expect((await call(rig, 'files.read', { project: 'p', name: 'plan.md' }, as(ANA))).output).toMatch(/^ana plan/);
    expect((await call(rig, 'files.read', { project: 'p', name: 'plan.md' }, as(BOB))).output).toMatch(/^bob plan/);
    // A shared file of another person is readable when the reader has none of that name, and by owner when they do.
    await call(rig, 'files.share', { project: 'p', name: 'plan.md' }, as(ANA));
    expect((await call(rig, 'files.read', { project: 'p', name: 'plan.md', owner: ANA }, as(BOB))).output).toMatch(/^ana plan/);
    // Someone with no file of that name gets the one visible to them: Ana's shared one, not the owner's unshared one.
    expect((await call(rig, 'files.read', { project: 'p', name: 'plan.md' }, as('3003'))).output).toMatch(/^ana plan/);
    rig.device.stop();
  });

  it("each person's folder is theirs on the card, across a restart; files saved before per-person folders are read where they are", async () => {
    const rig = start();
    await call(rig, 'artifact.save', { project: 'p', name: 'a.md', text: 'ana' }, as(ANA));
    await call(rig, 'artifact.save', { project: 'p', name: 'a.md', text: 'bob' }, as(BOB));
    await call(rig, 'artifact.save', { project: 'p', name: 'a.md', text: 'owner' });
    expect(homeDir(ANA)).toBe('/mem/files/@chat~3aana');
    expect(personOfDir('@chat~3aana')).toBe(ANA);
    expect(personOfDir('@2002')).toBe(BOB);
    expect(personOfDir('p')).toBeNull();
    const sd = rig.mem.hal.sd;
    expect(new TextDecoder().decode(sd.read('/mem/files/@chat~3aana/p/a.md', 0, 100))).toBe('ana');
    expect(new TextDecoder().decode(sd.read('/mem/files/@2002/p/a.md', 0, 100))).toBe('bob');
    expect(new TextDecoder().decode(sd.read('/mem/files/p/a.md', 0, 100))).toBe('owner');
    // A person's file from before per-person folders: in the files root, its metadata naming the person.
    sd.mkdir('/mem/files/old/.meta');
    const w = (path: string, text: string): void => {
      const f = sd.open(path, 'w');
      f.write(new TextEncoder().encode(text));
      f.sync();
      f.close();
    };
    w('/mem/files/old/note.md', 'legacy bob');
    w('/mem/files/old/.meta/note.md.json', JSON.stringify({ kind: 'markdown', created: 1, providerFileId: null, owner: BOB, share: false }));
    rig.device.stop();
    const again = bootOn(rebootMemHal(rig.mem));
    expect((await call(again, 'files.read', { project: 'p', name: 'a.md' }, as(ANA))).output).toMatch(/^ana/);
    expect((await call(again, 'files.read', { project: 'p', name: 'a.md' }, as(BOB))).output).toMatch(/^bob/);
    expect((await call(again, 'files.read', { project: 'p', name: 'a.md' })).output).toMatch(/^owner/);
    expect((await call(again, 'files.read', { project: 'old', name: 'note.md' }, as(ANA))).error_type).toBe('not-found');
    expect((await call(again, 'files.read', { project: 'old', name: 'note.md' }, as(BOB))).output).toMatch(/^legacy bob/);
    // Bob's save of it replaces it where it is; the device owner, who sees it, is told whose the name is.
    expect((await call(again, 'artifact.save', { project: 'old', name: 'note.md', text: 'bob again' }, as(BOB))).success).toBe(true);
    expect(new TextDecoder().decode(again.mem.hal.sd.read('/mem/files/old/note.md', 0, 100))).toBe('bob again');
    expect(await call(again, 'artifact.save', { project: 'old', name: 'note.md', text: 'owner' })).toMatchObject({ success: false, error_type: 'name-taken', error: expect.stringContaining(`chat ${BOB}`) });
    expect(JSON.parse((await api(again, 'GET', '/api/files/list')).body)).toMatchObject({ count: 4 });
    again.device.stop();
  });
});

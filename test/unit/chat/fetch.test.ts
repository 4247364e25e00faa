// The chat's /fetch approve <id> with a real pending download, end to end on
// the in-memory HAL: a download asked for under the url policy 'ask' waits;
// the owner approves it from the chat (Bot API fake), the job runs in the
// background against a web server on the in-memory network, and the file
// lands in the store with the owner told. (test/unit/chat/chat.test.ts covers the
// command's usage, unknown ids and deny.)
import { describe, expect, it } from 'vitest';
import { mountMessenger } from '../../support/assistant.ts';
import { deviceKernel } from '../../support/kernel.ts';
import { createMemHal, type MemHal } from '../../support/memhal.ts';
import { fakeTelegram, serveHttp } from '../../support/telegram-net.ts';

const TOKEN = '123456789:AAH-fake-token-for-tests-0123456789abc';
const OWNER = '1001';
const NOTES = '# Notes\nfetched for the owner\n';

/** The chat and the file store it approves downloads in (its notices through the chat's outbox), on a device kernel over the assistant's stack. */
function boot(mem: MemHal) {
  const dk = deviceKernel({ mem });
  const { chat, files } = mountMessenger(dk);
  dk.start();
  return {
    ctx: dk.kernel,
    files,
    stop: () => {
      chat.stop();
      dk.stop();
    },
  };
}

describe('/fetch approve <id> from the chat', () => {
  it('starts the waiting download; the file lands and the owner hears of it', async () => {
    const mem = createMemHal();
    mem.nvs.setMany('wifi', [['ssid', 'Home'], ['pass', 'home-pass-1']]);
    mem.nvs.set('chat', 'token', TOKEN);
    mem.nvs.set('chat', 'allow', OWNER);
    const bot = fakeTelegram(mem.net, () => mem.clock);
    const served: string[] = [];
    serveHttp(mem.net, 'example.org', async (method, path) => {
      served.push(`${method} ${path}`);
      const found = path === '/notes.md';
      return { status: found ? 200 : 404, headers: { 'Content-Type': 'text/markdown' }, body: found ? new TextEncoder().encode(NOTES) : new Uint8Array(0) };
    });
    const device = boot(mem);
    const until = async (pred: () => boolean): Promise<void> => {
      if (!(await mem.clock.until(pred, 30_000, 50))) throw new Error(`not in time; sent: ${JSON.stringify(bot.sent.map((s) => s.text))}`);
    };
    const ask = async (text: string): Promise<string> => {
      const before = bot.to(OWNER).length;
      bot.say(OWNER, text);
      await until(() => bot.to(OWNER).length > before);
      return bot.to(OWNER)[before]!.text;
    };

    const r = device.files.downloads.request(null, 'https://example.org/notes.md', 'web', undefined);
    expect(r).toMatchObject({ ok: true, status: 'pending' });
    const id = r.ok ? r.id : '';
    await until(() => bot.to(OWNER).some((m) => m.text.includes(`Reply /fetch approve ${id}`)));
    expect(served).toEqual([]);

    expect(await ask(`/fetch approve ${id}`)).toMatch(new RegExp(`^Approved: downloading https://example\\.org/notes\\.md to web/notes\\.md\\.`));
    await until(() => bot.to(OWNER).some((m) => m.text.startsWith('Downloaded https://example.org/notes.md to web/notes.md')));
    expect(served).toEqual(['GET /notes.md']);
    expect(device.files.downloads.pending()).toEqual([]);
    expect(device.files.downloads.jobs()).toEqual([expect.objectContaining({ id, state: 'done', bytes: NOTES.length })]);
    const meta = device.files.store.stat(null, 'web', 'notes.md');
    expect(meta).toMatchObject({ size: NOTES.length, source: 'https://example.org/notes.md' });
    const read = await device.ctx.tools.call('files.read', { project: 'web', name: 'notes.md' }, { via: 'turn', admin: true, scheduled: false, unattended: false, person: null });
    expect(read.output).toContain(NOTES);
    // The same id again: nothing waits any more.
    expect(await ask(`/fetch approve ${id}`)).toMatch(new RegExp(`^No download waits with id ${id}\\.`));
    device.stop();
  });
});

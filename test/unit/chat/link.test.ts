// The Bot API link on the chat alone (./rig.ts: mounted on a test kernel,
// an assistant that echoes): the poll's backoff, retry_after, and a refused
// token that stops the poll until a new one is set on the web page.
import { describe, expect, it } from 'vitest';
import { api, ask, chatRig as setup, consoleLine, OWNER, until } from './rig.ts';

describe('the Bot API link', () => {
  it('backs off on errors (1, 2, 4 s ...), honours retry_after, and resumes', async () => {
    const rig = setup();
    rig.bot.fail('getUpdates', 502, { times: 3 });
    await rig.mem.clock.advance(100);
    rig.bot.say(OWNER, 'are you there?');
    await until(rig, () => rig.bot.to(OWNER).length === 1);
    const polls = rig.bot.calls.filter((c) => c.method === 'getUpdates');
    expect(polls.length).toBeGreaterThanOrEqual(4);
    expect(rig.kernel.log.text()).toMatch(/poll failed \(server: fake error 502\); next try in 1 s[\s\S]*next try in 2 s[\s\S]*next try in 4 s/);
    rig.bot.fail('sendMessage', 429, { retryAfter: 7 });
    const t0 = rig.mem.clock.monoMs();
    await ask(rig, OWNER, 'again');
    expect(rig.mem.clock.monoMs() - t0).toBeGreaterThanOrEqual(7000);
  });

  it('a refused token stops the poll until a new one is set on the web page', async () => {
    const rig = setup();
    await rig.mem.clock.advance(100);
    rig.bot.setToken('123456789:BBH-another-token-0000000000000000000');
    rig.bot.say(OWNER, 'hello?');
    await rig.mem.clock.advance(5000);
    expect((await api(rig, 'GET', '/api/chat')).json['status']).toMatchObject({ state: 'unauthorized' });
    expect(await consoleLine(rig, 'CHAT?')).toContain('state=unauthorized');
    expect((await api(rig, 'POST', '/api/chat', { tg_token: '123456789:BBH-another-token-0000000000000000000' })).status).toBe(200);
    await until(rig, () => rig.bot.to(OWNER).length === 1);
    expect(rig.bot.to(OWNER)[0]!.text).toBe('echo: hello?');
  });
});

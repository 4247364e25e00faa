// Boots the whole device: the published route table is every subsystem's routes together.
// Versioning 8 and 10: the state snapshot names the running build, and the
// HTTP route table is the published one (docs/http-routes.md), so a change
// that drops, moves or re-gates a route fails here instead of in a script.
import { readFileSync } from 'node:fs';
import { join } from 'node:path';
import { describe, expect, it } from 'vitest';
import { boot, HTTP_PORT } from '../../../src/main.ts';
import { request } from '../../support/http.ts';
import { createMemHal } from '../../support/memhal.ts';

const ROOT = join(import.meta.dirname, '../../..');

function provisioned() {
  const mem = createMemHal({ version: 'v1.4.2' });
  mem.nvs.setMany('wifi', [['ssid', 'Home'], ['pass', 'home-pass-1']]);
  mem.wifi.networks.set('Home', 'home-pass-1');
  return mem;
}

function publishedRoutes(): string[] {
  const text = readFileSync(join(ROOT, 'docs/http-routes.md'), 'utf8');
  const block = /```\n([\s\S]*?)```/.exec(text);
  if (!block) throw new Error('docs/http-routes.md has no route block');
  return block[1]!.split('\n').filter((l) => l.trim() !== '').sort();
}

describe('versioning', () => {
  it('serves exactly the published route table, each route with its published access', () => {
    const device = boot(provisioned().hal);
    const served = device.ctx.router
      .list()
      .map((r) => `${r.method} ${r.path}${r.prefix ? '*' : ''} ${r.access === undefined || r.access === 'token' ? 'token' : r.access === 'open' ? 'open' : 'bootstrap'}`)
      .sort();
    const published = publishedRoutes();
    expect(published.length).toBeGreaterThan(60);
    expect(published.filter((r) => !served.includes(r)), 'published routes the firmware no longer serves as published').toEqual([]);
    expect(served.filter((r) => !published.includes(r)), 'routes missing from docs/http-routes.md').toEqual([]);
  });

  it('the state snapshot carries the firmware version and the build id of the running commit', async () => {
    const mem = provisioned();
    const device = boot(mem.hal);
    const res = await request(mem.net, HTTP_PORT, 'GET', '/api/state', { headers: { 'X-Device-Token': device.ctx.token.reveal() } });
    expect(res.status).toBe(200);
    const state = JSON.parse(res.body) as Record<string, unknown>;
    expect(state['version']).toBe('v1.4.2');
    expect(state['buildId']).toBe(mem.hal.build.buildId);
  });
});

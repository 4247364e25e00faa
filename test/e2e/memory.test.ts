// Long-term memory on the simulator: a power cut (SIGKILL of the runtime,
// unsynced card data lost) in the middle of a burst of memory writes driven
// over the console (MEMFILL vec). After the reboot the store opens and holds
// every write the firmware acknowledged before the cut, as a contiguous
// prefix of the burst, and takes new writes.
import { readFileSync } from 'node:fs';
import { join } from 'node:path';
import { afterAll, describe, expect, it } from 'vitest';
import { cleanup, startDevice } from './harness.ts';

afterAll(cleanup);

interface Item {
  content: string;
}

describe('vector memory across a power cut', () => {
  it('holds every acknowledged write of a MEMFILL burst cut by a power loss', async () => {
    const device = await startDevice();
    const token = (await device.command('WEBTOK?')).split('\n')[0]!;
    const boots = (await device.board.request<{ bootCount: number }>('status')).bootCount;
    device.board.proc.stdin!.write('MEMFILL vec 5000 100\r\n');
    await device.board.request('wait', { for: 'log', match: 'memfill vec 200 acknowledged', timeoutMs: 30_000 });
    await device.board.request('power.cut');
    await device.board.request('wait', { for: 'ready', after: boots, timeoutMs: 20_000 });

    // What the firmware acknowledged before the cut, from its log.
    const log = readFileSync(join(device.dir, 'device.log'), 'utf8');
    const acked = Math.max(...[...log.matchAll(/memfill vec (\d+) acknowledged/g)].map((m) => Number(m[1])));
    expect(acked).toBeGreaterThanOrEqual(200);
    expect(acked).toBeLessThan(5000); // the cut landed inside the burst

    const items: Item[] = [];
    for (let offset = 0; ; offset += 100) {
      const res = await device.fetch(`/api/mem/vector?limit=100&offset=${offset}`, { token });
      expect(res.status).toBe(200);
      const page = (await res.json()) as { total: number; items: Item[] };
      items.push(...page.items);
      if (items.length >= page.total) break;
    }
    const indexes = items.map((i) => Number(/^vecfill \S+ item (\d+):/.exec(i.content)![1])).sort((a, b) => a - b);
    // Every acknowledged write is there, at most the one in flight beyond, and no holes.
    expect(indexes.length).toBeGreaterThanOrEqual(acked);
    expect(indexes.length).toBeLessThanOrEqual(acked + 25);
    expect(indexes).toEqual(indexes.map((_, i) => i));
    expect(await device.command('STATUS')).toMatch(new RegExp(` vec=${indexes.length} `));

    // The store takes writes after the reboot.
    expect(await device.command('MEMFILL vec 5 100', 20_000)).toMatch(new RegExp(`vec 5 written \\(5 new\\); vec=${indexes.length + 5}\\nOK$`));
  });
});

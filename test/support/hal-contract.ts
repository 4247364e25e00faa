// The HAL's rules, stated once (issue 25): what src/ may rely on from NVS, the
// SD card, the clock and HalError, whichever host runs it. Each rule comes from
// the interface's own words (src/hal/storage.ts, src/hal/clock.ts) and the
// ESP-IDF limits they cite. test/unit/hal/contract.test.ts runs these against
// every HAL: the in-memory one of the unit tests, the simulator's (over the
// board's own NVS and card services) and the device's (over fakes of the SDK
// modules it calls), so the three cannot drift apart unnoticed.
import { describe, expect, it } from 'vitest';
import { HalError, NVS_KEY_MAX, NVS_STR_MAX, type Clock, type HalErrorCode, type Nvs, type SdCard } from '../../src/hal/index.ts';

export interface HalUnderTest {
  nvs: Nvs;
  sd: SdCard;
  clock: Clock;
  /** Moves time forward, firing due timers in order (the host's event loop). */
  advance(ms: number): Promise<void>;
  /** How finely setWall() sets the wall clock (the device's RTC keeps whole seconds). */
  wallResolutionMs: number;
  /** A power cut: what was not synced is lost. */
  cut(): void;
  /** The card is pulled out. */
  pull(): void;
  close?(): void;
}

/** What a harness can show of its host: a power cut and a pulled card need the host's storage underneath. */
export interface Shows {
  cut: boolean;
  pull: boolean;
}

const CODES: readonly HalErrorCode[] = ['ENOENT', 'EEXIST', 'ENOTDIR', 'EISDIR', 'ENOTEMPTY', 'ENOSPC', 'ENOCARD', 'EIO', 'EINVAL', 'ECONN', 'ETIMEDOUT', 'ETLS', 'EBUSY', 'ENOTSUP'];

/** The HalError fn throws (fails when it throws anything else, or nothing). */
export function halError(fn: () => unknown): HalError {
  try {
    fn();
  } catch (e) {
    expect(e).toBeInstanceOf(HalError);
    expect(CODES).toContain((e as HalError).code);
    return e as HalError;
  }
  throw new Error('expected a HalError, nothing was thrown');
}

const bytes = (...b: number[]): Uint8Array => new Uint8Array(b);
const text = (s: string): Uint8Array => new TextEncoder().encode(s);
const str = (b: Uint8Array): string => new TextDecoder().decode(b);

function writeFile(sd: SdCard, path: string, data: Uint8Array, sync = true): void {
  const f = sd.open(path, 'w');
  f.write(data);
  if (sync) f.sync();
  f.close();
}

function readAll(sd: SdCard, path: string): string {
  return str(sd.read(path, 0, 1 << 20));
}

export function halContract(name: string, make: () => HalUnderTest | Promise<HalUnderTest>, shows: Shows): void {
  describe(`the HAL contract: ${name}`, () => {
    async function withHal(body: (h: HalUnderTest) => void | Promise<void>): Promise<void> {
      const h = await make();
      try {
        await body(h);
      } finally {
        h.close?.();
      }
    }

    describe('NVS', () => {
      it('reads back what was written: strings, 32-bit integers and blobs; a missing key is undefined', () =>
        withHal(({ nvs }) => {
          expect(nvs.get('contract', 'missing')).toBeUndefined();
          nvs.set('contract', 's', 'héllo');
          nvs.set('contract', 'n', -2147483648);
          nvs.set('contract', 'b', bytes(0, 1, 255));
          expect(nvs.get('contract', 's')).toBe('héllo');
          expect(nvs.get('contract', 'n')).toBe(-2147483648);
          expect([...(nvs.get('contract', 'b') as Uint8Array)]).toEqual([0, 1, 255]);
          nvs.set('contract', 's', 'again');
          expect(nvs.get('contract', 's')).toBe('again');
          expect([...nvs.keys('contract')].sort()).toEqual(['b', 'n', 's']);
        }));

      it('delete and setMany with undefined remove keys; setMany writes several at once', () =>
        withHal(({ nvs }) => {
          nvs.setMany('contract', [
            ['a', '1'],
            ['b', 2],
          ]);
          expect(nvs.get('contract', 'a')).toBe('1');
          expect(nvs.get('contract', 'b')).toBe(2);
          nvs.delete('contract', 'a');
          nvs.setMany('contract', [['b', undefined]]);
          expect(nvs.get('contract', 'a')).toBeUndefined();
          expect(nvs.get('contract', 'b')).toBeUndefined();
          expect(nvs.keys('contract')).toEqual([]);
          nvs.delete('contract', 'never-set');
        }));

      it('keeps namespaces apart: the same key in two, and erase(ns) clears one; erase() clears all', () =>
        withHal(({ nvs }) => {
          nvs.set('one', 'k', 'first');
          nvs.set('two', 'k', 'second');
          expect(nvs.get('one', 'k')).toBe('first');
          expect(nvs.get('two', 'k')).toBe('second');
          expect(nvs.keys('three')).toEqual([]);
          nvs.erase('one');
          expect(nvs.get('one', 'k')).toBeUndefined();
          expect(nvs.get('two', 'k')).toBe('second');
          nvs.set('one', 'k', 'back');
          nvs.erase();
          expect(nvs.get('one', 'k')).toBeUndefined();
          expect(nvs.get('two', 'k')).toBeUndefined();
        }));

      it('refuses over-long names and values and non-32-bit numbers with EINVAL, and changes nothing', () =>
        withHal(({ nvs }) => {
          nvs.set('contract', 'kept', 'old');
          const long = 'k'.repeat(NVS_KEY_MAX + 1);
          expect(halError(() => nvs.set('contract', long, 'x')).code).toBe('EINVAL');
          expect(halError(() => nvs.set(long, 'k', 'x')).code).toBe('EINVAL');
          expect(halError(() => nvs.set('contract', 'kept', 'x'.repeat(NVS_STR_MAX + 1))).code).toBe('EINVAL');
          expect(halError(() => nvs.set('contract', 'kept', 2 ** 31)).code).toBe('EINVAL');
          expect(halError(() => nvs.set('contract', 'kept', 1.5)).code).toBe('EINVAL');
          // A bad entry anywhere in setMany: none of it is written.
          expect(
            halError(() =>
              nvs.setMany('contract', [
                ['kept', 'new'],
                ['other', 'x'.repeat(NVS_STR_MAX + 1)],
              ]),
            ).code,
          ).toBe('EINVAL');
          expect(nvs.get('contract', 'kept')).toBe('old');
          expect(nvs.get('contract', 'other')).toBeUndefined();
          expect(nvs.get('contract', long.slice(0, NVS_KEY_MAX))).toBeUndefined();
          // The limits themselves are allowed.
          nvs.set('contract', 'k'.repeat(NVS_KEY_MAX), 'x'.repeat(NVS_STR_MAX));
          expect((nvs.get('contract', 'k'.repeat(NVS_KEY_MAX)) as string).length).toBe(NVS_STR_MAX);
        }));
    });

    describe('SD card', () => {
      it('writes, syncs and reads files; appends; reads fewer bytes at the end; stats and lists; makes parents', () =>
        withHal(({ sd }) => {
          expect(sd.probe().present).toBe(true);
          sd.mkdir('/contract/deep/er');
          expect(sd.stat('/contract/deep')).toMatchObject({ isDir: true });
          writeFile(sd, '/contract/deep/er/a.txt', text('hello'));
          const f = sd.open('/contract/deep/er/a.txt', 'a');
          f.write(text(' world'));
          f.sync();
          f.close();
          expect(readAll(sd, '/contract/deep/er/a.txt')).toBe('hello world');
          expect(str(sd.read('/contract/deep/er/a.txt', 6, 100))).toBe('world');
          expect(sd.read('/contract/deep/er/a.txt', 11, 10).length).toBe(0);
          expect(sd.stat('/contract/deep/er/a.txt')).toMatchObject({ size: 11, isDir: false });
          expect(sd.stat('/contract/none')).toBeNull();
          expect(sd.list('/contract/deep/er').map((e) => [e.name, e.isDir, e.size])).toEqual([['a.txt', false, 11]]);
          writeFile(sd, '/contract/deep/er/a.txt', text('new'));
          expect(readAll(sd, '/contract/deep/er/a.txt')).toBe('new');
        }));

      it('write-new, sync, rename replaces the target whole; the new name is gone after', () =>
        withHal(({ sd }) => {
          sd.mkdir('/contract');
          writeFile(sd, '/contract/state.json', text('{"v":1}'));
          writeFile(sd, '/contract/state.json.new', text('{"v":2,"more":true}'));
          sd.rename('/contract/state.json.new', '/contract/state.json');
          expect(readAll(sd, '/contract/state.json')).toBe('{"v":2,"more":true}');
          expect(sd.stat('/contract/state.json.new')).toBeNull();
          expect(sd.list('/contract').map((e) => e.name)).toEqual(['state.json']);
        }));

      it.runIf(shows.cut)('after a power cut a synced file keeps what it had; a write-new that was not renamed leaves the old file whole', () =>
        withHal(({ sd, cut }) => {
          sd.mkdir('/contract');
          writeFile(sd, '/contract/state.json', text('old and whole'));
          const f = sd.open('/contract/state.json.new', 'w');
          f.write(text('new but not synced'));
          cut();
          expect(readAll(sd, '/contract/state.json')).toBe('old and whole');
          const torn = sd.stat('/contract/state.json.new');
          expect(torn === null || torn.size === 0).toBe(true);
        }));

      it('answers a missing file with ENOENT and removes missing paths quietly', () =>
        withHal(({ sd }) => {
          expect(halError(() => sd.read('/contract/missing.txt', 0, 10)).code).toBe('ENOENT');
          sd.remove('/contract/missing.txt');
          sd.mkdir('/contract');
          writeFile(sd, '/contract/x', text('x'));
          sd.remove('/contract/x');
          expect(sd.stat('/contract/x')).toBeNull();
        }));

      it.runIf(shows.pull)('answers ENOCARD once the card is pulled, and probe() says it is gone', () =>
        withHal(({ sd, pull }) => {
          sd.mkdir('/contract');
          writeFile(sd, '/contract/x', text('x'));
          pull();
          expect(sd.probe().present).toBe(false);
          expect(halError(() => sd.read('/contract/x', 0, 1)).code).toBe('ENOCARD');
          expect(halError(() => sd.open('/contract/y', 'w')).code).toBe('ENOCARD');
        }));
    });

    describe('clock', () => {
      it('fires timers in due order (ties in the order set), never early, and a cancelled one never', () =>
        withHal(async ({ clock, advance }) => {
          const fired: string[] = [];
          clock.setTimeout(() => fired.push('c@30'), 30);
          clock.setTimeout(() => fired.push('a@10'), 10);
          clock.setTimeout(() => fired.push('b@10'), 10);
          const x = clock.setTimeout(() => fired.push('x@20'), 20);
          clock.setTimeout(() => fired.push('z@0'), 0);
          x.cancel();
          x.cancel(); // idempotent
          await advance(9);
          expect(fired).toEqual(['z@0']);
          await advance(21);
          expect(fired).toEqual(['z@0', 'a@10', 'b@10', 'c@30']);
        }));

      it('repeats an interval until it is cancelled; cancelling a fired timeout is harmless', () =>
        withHal(async ({ clock, advance }) => {
          let n = 0;
          const t = clock.setInterval(() => n++, 100);
          await advance(350);
          expect(n).toBe(3);
          t.cancel();
          await advance(500);
          expect(n).toBe(3);
          const once = clock.setTimeout(() => n++, 1);
          await advance(5);
          once.cancel();
          expect(n).toBe(4);
        }));

      it('counts monotonic time with the timers, and setWall() sets the wall clock and synced()', () =>
        withHal(async ({ clock, advance, wallResolutionMs }) => {
          const t0 = clock.monoMs();
          await advance(1500);
          expect(clock.monoMs() - t0).toBe(1500);
          const wall = Date.UTC(2026, 10, 26, 12, 0, 0, 400);
          clock.setWall(wall);
          expect(clock.synced()).toBe(true);
          expect(Math.abs(clock.wallMs() - wall)).toBeLessThanOrEqual(wallResolutionMs / 2 + 1);
          expect(clock.monoMs() - t0).toBe(1500);
        }));
    });
  });
}

// eslint-disable-next-line @typescript-eslint/triple-slash-reference -- the runtime globals the simulator's HAL uses (a script, not a module)
/// <reference path="../../../hosts/sim/hal/sim-globals.d.ts" />
// The HAL contract (test/support/hal-contract.ts) run against all three HALs:
// - the in-memory HAL of the unit tests (test/support/memhal.ts);
// - the simulator's (hosts/sim/hal) over the board's own NVS and SD card
//   services (hosts/sim/board/nvs.ts, sdcard.ts) in a temporary device
//   folder, the __sim bridge answered in-process as the board answers it
//   (hosts/sim/board/board.ts onFrame: BoardError codes, TypeError and
//   RangeError as EINVAL);
// - the device's (hosts/esp32/hal) over small fakes of the SDK modules it
//   calls: Preference (modules/files/preference), Time and Timer, and the
//   native SD glue (hosts/esp32/native/desk_sd.c: "CODE: what" errors,
//   undefined for a missing stat) over a temporary folder.
// The sim and device clocks run over one virtual timer queue (the runtime's
// and the SDK's timers are not in Node), so what is checked of them is the
// HAL's own part: ids, cancel, repeat, ordering handed through, setWall.
import { mkdtempSync, rmSync } from 'node:fs';
import * as fs from 'node:fs';
import { tmpdir } from 'node:os';
import { join } from 'node:path';
import { vi } from 'vitest';
import { BoardError } from '../../../hosts/sim/board/errors.ts';
import { NvsStore } from '../../../hosts/sim/board/nvs.ts';
import { SdCard as BoardSd } from '../../../hosts/sim/board/sdcard.ts';
import type { OpHandler, Session } from '../../../hosts/sim/board/service.ts';
import { createClock as createSimClock } from '../../../hosts/sim/hal/index.ts';
import { createNvs as createSimNvs, createSd as createSimSd } from '../../../hosts/sim/hal/storage.ts';
import { createClock as createDeviceClock } from '../../../hosts/esp32/hal/clock.ts';
import { createNvs as createDeviceNvs, type KeepStore } from '../../../hosts/esp32/hal/nvs.ts';
import { createSd as createDeviceSd } from '../../../hosts/esp32/hal/storage.ts';
import { VirtualClock } from '../../support/clock.ts';
import { halContract } from '../../support/hal-contract.ts';
import { createMemHal } from '../../support/memhal.ts';

// ---- the SDK modules the device HAL imports, faked as their sources describe them ----

const sdk = vi.hoisted(() => ({
  /** The virtual clock the fake Time and Timer run on (set per test). */
  clock: null as null | import('../../support/clock.ts').VirtualClock,
  /** Preference: per-namespace values; blobs stored and handed back as whole ArrayBuffers. */
  prefs: new Map<string, Map<string, boolean | number | string | ArrayBuffer>>(),
  /** The native SD glue's card: a folder, or null without a card. */
  card: null as null | string,
  fds: new Map<number, number>(),
  nextFd: 3,
}));

vi.mock('preference', () => {
  const table = (ns: string): Map<string, boolean | number | string | ArrayBuffer> => {
    let t = sdk.prefs.get(ns);
    if (!t) sdk.prefs.set(ns, (t = new Map()));
    return t;
  };
  return {
    default: {
      get: (ns: string, key: string) => {
        const v = table(ns).get(key);
        return v instanceof ArrayBuffer ? v.slice(0) : v;
      },
      set: (ns: string, key: string, value: boolean | number | string | ArrayBuffer) => {
        table(ns).set(key, value instanceof ArrayBuffer ? value.slice(0) : value);
      },
      delete: (ns: string, key: string) => void table(ns).delete(key),
      keys: (ns: string) => [...table(ns).keys()],
    },
  };
});

vi.mock('time', () => ({
  default: {
    get ticks() {
      return sdk.clock!.monoMs();
    },
    set: (seconds: number) => sdk.clock!.setWall(seconds * 1000),
  },
}));

vi.mock('timer', () => {
  type T = { cancel(): void };
  return {
    default: {
      set: (fn: () => void, ms: number): T => sdk.clock!.setTimeout(fn, ms),
      repeat: (fn: () => void, ms: number): T => sdk.clock!.setInterval(fn, ms),
      clear: (t: T) => t.cancel(),
    },
  };
});

vi.mock('../../../hosts/esp32/native/desk-native.js', async () => {
  const fs = await import('node:fs');
  const { join } = await import('node:path');
  const CODES = new Set(['ENOENT', 'EEXIST', 'ENOTDIR', 'EISDIR', 'ENOTEMPTY', 'ENOSPC', 'EINVAL']);
  // desk_sd.c's desk_sd_throw: "CODE: what", ENOCARD without a card, EIO for the rest.
  const glue = <T>(what: string, fn: (root: string) => T): T => {
    if (sdk.card === null) throw new Error(`ENOCARD: ${what}`);
    try {
      return fn(sdk.card);
    } catch (e) {
      const code = (e as NodeJS.ErrnoException).code ?? '';
      throw new Error(`${CODES.has(code) ? code : 'EIO'}: ${what}`);
    }
  };
  const real = (root: string, path: string): string => join(root, path);
  // The keep partition and the app flash are not part of this contract (the NVS harness passes its own keep store).
  const unused = (name: string) => (): never => {
    throw new Error(`${name} is not faked here`);
  };
  const others = ['keepGet', 'keepSet', 'keepDelete', 'keepKeys', 'keepErase', 'nvsEraseMain', 'otaAbort', 'otaBegin', 'otaBoot', 'otaEnd', 'otaMarkValid', 'otaPartitions', 'otaRead', 'otaRunning', 'otaSetBoot', 'otaState', 'otaWrite'];
  return {
    ...Object.fromEntries(others.map((n) => [n, unused(n)])),
    sdMount: () => sdk.card !== null,
    sdUnmount: () => undefined,
    sdInfo: () => (sdk.card === null ? undefined : [32 * 1024 ** 3, 16 * 1024 ** 3]),
    sdStat: (path: string) =>
      glue('stat', (root) => {
        if (!fs.existsSync(real(root, path))) return undefined;
        const st = fs.statSync(real(root, path));
        return [st.size, st.isDirectory(), Math.floor(st.mtimeMs / 1000)];
      }),
    sdList: (path: string) =>
      glue('list', (root) =>
        fs.readdirSync(real(root, path), { withFileTypes: true }).map((d) => [d.name, d.isDirectory(), d.isDirectory() ? 0 : fs.statSync(join(real(root, path), d.name)).size]),
      ),
    sdMkdir: (path: string) => glue('mkdir', (root) => void fs.mkdirSync(real(root, path), { recursive: true })),
    sdRead: (path: string, offset: number, length: number) =>
      glue('read', (root) => {
        const b = fs.readFileSync(real(root, path));
        const out = b.subarray(Math.min(offset, b.length), Math.min(offset + length, b.length));
        return out.buffer.slice(out.byteOffset, out.byteOffset + out.length);
      }),
    sdOpen: (path: string, mode: 'w' | 'a') =>
      glue('open', (root) => {
        const fd = fs.openSync(real(root, path), mode);
        const id = sdk.nextFd++;
        sdk.fds.set(id, fd);
        return [id, fs.fstatSync(fd).size];
      }),
    sdWrite: (id: number, bytes: Uint8Array) =>
      glue('write', () => {
        const fd = sdk.fds.get(id)!;
        fs.writeSync(fd, bytes);
        return fs.fstatSync(fd).size;
      }),
    sdSync: (id: number) => glue('sync', () => fs.fsyncSync(sdk.fds.get(id)!)),
    sdClose: (id: number) => {
      const fd = sdk.fds.get(id);
      sdk.fds.delete(id);
      if (fd !== undefined) fs.closeSync(fd);
    },
    sdRename: (from: string, to: string) => glue('rename', (root) => fs.renameSync(real(root, from), real(root, to))),
    sdRemove: (path: string) =>
      glue('remove', (root) => {
        const p = real(root, path);
        if (!fs.existsSync(p)) return;
        if (fs.statSync(p).isDirectory()) fs.rmdirSync(p);
        else fs.unlinkSync(p);
      }),
  };
});

// ---- the in-memory HAL ----

halContract(
  'in-memory HAL (test/support/memhal.ts)',
  () => {
    const mem = createMemHal({ synced: false });
    return {
      nvs: mem.hal.nvs,
      sd: mem.hal.sd,
      clock: mem.hal.clock,
      advance: (ms) => mem.clock.advance(ms),
      wallResolutionMs: 1,
      cut: () => mem.sd.cut(),
      pull: () => mem.sd.pull(),
    };
  },
  { cut: true, pull: true },
);

// ---- the simulator's HAL over the board's services ----

const SESSION: Session = { boot: 1, alive: true, slot: 0, emit: () => undefined, congested: false, onDrain: (fn) => fn() };

halContract(
  "simulator's HAL (hosts/sim/hal over hosts/sim/board's NVS and card)",
  () => {
    const dir = mkdtempSync(join(tmpdir(), 'hal-contract-sim-'));
    const nvs = new NvsStore(join(dir, 'nvs.json'), 0x6000);
    const sd = new BoardSd(join(dir, 'sd'), 32 * 1024 ** 3, true, () => undefined);
    const ops = new Map<string, OpHandler>([...Object.entries(nvs.ops), ...Object.entries(sd.ops)]);
    const clock = new VirtualClock({ synced: false });
    const timers = new Map<number, { cancel(): void }>();
    let nextTimer = 1;
    // The runtime's half of the pipe, answered in-process as board.ts answers a call frame.
    (globalThis as { __sim?: unknown }).__sim = {
      call(json: string, bin?: ArrayBufferView): [string, ArrayBuffer | undefined] {
        const msg = JSON.parse(json) as Record<string, unknown>;
        const op = String(msg['op']);
        try {
          const handler = ops.get(op);
          if (!handler) throw new BoardError('ENOTSUP', `the board has no op '${op}'`);
          const r = handler(msg, bin ? Buffer.from(bin.buffer, bin.byteOffset, bin.byteLength) : Buffer.alloc(0), SESSION);
          if (r instanceof Promise) throw new Error(`${op} is not synchronous`);
          const out = r?.bin ? Uint8Array.from(r.bin).buffer : undefined; // a copy: a Buffer may be a view of a shared pool
          return [JSON.stringify({ ok: true, ...(r?.json ?? {}) }), out];
        } catch (e) {
          const err = e instanceof BoardError ? e : e instanceof TypeError || e instanceof RangeError ? new BoardError('EINVAL', `${op}: ${e.message}`) : new BoardError('EIO', `${op}: ${String(e)}`);
          return [JSON.stringify({ ok: false, code: err.code, message: err.message }), undefined];
        }
      },
      send: () => undefined,
      monoMs: () => clock.monoMs(),
      setTimer(ms: number, repeat: boolean, fn: () => void): number {
        const id = nextTimer++;
        timers.set(id, repeat ? clock.setInterval(fn, ms) : clock.setTimeout(fn, ms));
        return id;
      },
      clearTimer(id: number): void {
        timers.get(id)?.cancel();
        timers.delete(id);
      },
    };
    return {
      nvs: createSimNvs(),
      sd: createSimSd(),
      clock: createSimClock(null),
      advance: (ms) => clock.advance(ms),
      wallResolutionMs: 1,
      cut: () => sd.stop(),
      pull: () => sd.remove(),
      close: () => {
        delete (globalThis as { __sim?: unknown }).__sim;
        rmSync(dir, { recursive: true, force: true });
      },
    };
  },
  { cut: true, pull: true },
);

// ---- the device's HAL over fakes of the SDK ----

/** The nvs_keep partition (desk_nvs.c), as the device HAL sees it: a store of its own. */
function keepStore(): KeepStore {
  const keep = new Map<string, number | string | ArrayBuffer>();
  return {
    get: (key) => keep.get(key),
    set: (key, value) => void keep.set(key, value instanceof Uint8Array ? value.slice().buffer : value),
    delete: (key) => void keep.delete(key),
    keys: () => [...keep.keys()],
    erase: () => keep.clear(),
    eraseMain: () => sdk.prefs.clear(),
  };
}

halContract(
  "device's HAL (hosts/esp32/hal over fakes of Preference, Time, Timer and the SD glue)",
  () => {
    const dir = mkdtempSync(join(tmpdir(), 'hal-contract-esp32-'));
    fs.mkdirSync(join(dir, 'card'));
    sdk.card = join(dir, 'card');
    sdk.prefs.clear();
    sdk.clock = new VirtualClock({ synced: false });
    vi.useFakeTimers({ toFake: ['Date'] });
    vi.setSystemTime(0);
    // Date on the device is the RTC: it follows the fake Time.set.
    const clock = sdk.clock;
    const realSetWall = clock.setWall.bind(clock);
    clock.setWall = (ms: number) => {
      realSetWall(ms);
      vi.setSystemTime(ms);
    };
    return {
      nvs: createDeviceNvs(keepStore()),
      sd: createDeviceSd({ bus: 'sdspi', sclk: 1, mosi: 2, miso: 3, cs: 4 }),
      clock: createDeviceClock(),
      advance: async (ms) => {
        await clock.advance(ms);
        vi.setSystemTime(Date.now() + ms);
      },
      wallResolutionMs: 1000,
      cut: () => undefined,
      pull: () => (sdk.card = null),
      close: () => {
        vi.useRealTimers();
        for (const fd of sdk.fds.values()) fs.closeSync(fd);
        sdk.fds.clear();
        sdk.card = null;
        rmSync(dir, { recursive: true, force: true });
      },
    };
  },
  { cut: false, pull: true },
);

// The device folder and its device.json: the board type, the SD card's size
// and presence, the battery, the known Wi-Fi networks, addresses, BLE bonds,
// the microphone's input file and what the CLI last flashed. Loaded once,
// saved atomically on every change.

import { randomBytes } from 'node:crypto';
import { existsSync, mkdirSync, readFileSync } from 'node:fs';
import { join } from 'node:path';
import type { BatteryReading, DeviceType } from '../../../src/hal/index.ts';
import { DEVICE_TYPES } from '../../../src/hal/index.ts';
import { writeFileAtomic } from './atomic.ts';

export interface WifiNetwork {
  ssid: string;
  passphrase: string;
  rssi?: number;
  channel?: number;
}

/** The gauge's state as the firmware reads it (present: the gauge answers). */
export type BatteryState = BatteryReading;

export interface DeviceConfig {
  version: 1;
  board: DeviceType;
  sd: { sizeBytes: number; inserted: boolean };
  battery: BatteryState;
  wifi: { networks: WifiNetwork[] };
  mac: string;
  ble: { address: string; bonds: string[] };
  mic: { wav: string | null };
  /** What the CLI flashed last (sha256 of the image file), to reflash when it changes. */
  flashed: { sha256: string; image: string; at: string } | null;
  /** The port the HTTP listener got last (reused when --http-port is 0). */
  httpPort: number | null;
}

export const DEFAULT_SD_BYTES = 32 * 1024 ** 3;

export const DEFAULT_NETWORK: WifiNetwork = { ssid: 'SimNet', passphrase: 'simnet-pass', rssi: -52, channel: 6 };

function macFrom(prefix: number[]): string {
  const tail = [...randomBytes(6 - prefix.length)];
  return [...prefix, ...tail].map((b) => b.toString(16).padStart(2, '0')).join(':');
}

function defaults(board: DeviceType): DeviceConfig {
  return {
    version: 1,
    board,
    sd: { sizeBytes: DEFAULT_SD_BYTES, inserted: true },
    battery: { present: true, levelPct: 80, healthPct: 100, millivolts: 3950, external: true, charging: false },
    wifi: { networks: [{ ...DEFAULT_NETWORK }] },
    // Espressif's OUI, as the real boards report.
    mac: macFrom([0x24, 0x0a, 0xc4]),
    ble: { address: macFrom([0x24, 0x0a, 0xc4]), bonds: [] },
    mic: { wav: null },
    flashed: null,
    httpPort: null,
  };
}

export class DeviceFolder {
  readonly dir: string;
  readonly fresh: boolean;
  config: DeviceConfig;

  constructor(dir: string, board: DeviceType | undefined) {
    this.dir = dir;
    const file = join(dir, 'device.json');
    this.fresh = !existsSync(file);
    mkdirSync(dir, { recursive: true });
    for (const sub of ['sd', 'run', 'audio']) mkdirSync(join(dir, sub), { recursive: true });
    if (this.fresh) {
      this.config = defaults(board ?? 'panel-35');
    } else {
      let parsed: Partial<DeviceConfig>;
      try {
        parsed = JSON.parse(readFileSync(file, 'utf8')) as Partial<DeviceConfig>;
      } catch (e) {
        throw new Error(`${file} is not valid JSON (${(e as Error).message}); fix or delete it`);
      }
      const base = defaults(board ?? (parsed.board as DeviceType | undefined) ?? 'panel-35');
      this.config = {
        ...base,
        ...parsed,
        sd: { ...base.sd, ...parsed.sd },
        battery: { ...base.battery, ...parsed.battery },
        wifi: { ...base.wifi, ...parsed.wifi },
        ble: { ...base.ble, ...parsed.ble },
        mic: { ...base.mic, ...parsed.mic },
        version: 1,
      };
      // Older folders kept a wallSynced switch: the clock now comes from the board's time server.
      delete (this.config as unknown as Record<string, unknown>)['wallSynced'];
      if (board) this.config.board = board;
    }
    if (!DEVICE_TYPES.includes(this.config.board)) throw new Error(`device.json: unknown board '${this.config.board}'`);
    this.save();
  }

  path(...parts: string[]): string {
    return join(this.dir, ...parts);
  }

  save(): void {
    writeFileAtomic(this.path('device.json'), JSON.stringify(this.config, null, 2) + '\n');
  }

  update(change: (c: DeviceConfig) => void): void {
    change(this.config);
    this.save();
  }
}

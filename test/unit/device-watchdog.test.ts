// Boots the whole device: the watchdog is fed by main.ts's own loop.
// The device's task watchdog and the setup network's DNS offer, as the
// ESP-IDF settings the build adds to the Moddable SDK's
// (hosts/esp32/sdkconfig/sdkconfig.defaults): the chain of options that
// makes a hung device reset, a timeout the firmware's feeding and the SDK's
// message loop both beat, and the OTA slot erased as it is written (a whole
// 6.5 MB slot erased up front would outlast the watchdog). With the SDK at
// hand (tools/sdk.mjs's rule: MODDABLE, or the archive) the option names
// are checked against the SDK's own ESP32 configurations and the code that
// subscribes and feeds the watchdog; without it that part says it skipped.

import { spawnSync } from 'node:child_process';
import { existsSync, mkdtempSync, readdirSync, readFileSync, rmSync } from 'node:fs';
import { tmpdir } from 'node:os';
import { dirname, join, resolve } from 'node:path';
import { fileURLToPath } from 'node:url';
import { describe, expect, it } from 'vitest';
import { WATCHDOG_FEED_MS } from '../../src/main.ts';
import { findArchive } from '../../tools/sdk.mjs';
import { sdk as located } from '../support/sdk.ts';

const ROOT = resolve(dirname(fileURLToPath(import.meta.url)), '../..');
const DEFAULTS = readFileSync(join(ROOT, 'hosts/esp32/sdkconfig/sdkconfig.defaults'), 'utf8');

function options(text: string): Map<string, string> {
  const out = new Map<string, string>();
  for (const line of text.split('\n')) {
    const m = /^(CONFIG_[A-Z0-9_]+)=(.*)$/.exec(line.trim());
    if (m) out.set(m[1]!, m[2]!);
  }
  return out;
}

const ours = options(DEFAULTS);

describe('the task watchdog (sdkconfig)', () => {
  it('is on, started at boot, resets on a timeout, and watches the idle tasks', () => {
    // ESP-IDF's chain: INIT depends on EN, PANIC and TIMEOUT_S on INIT.
    for (const name of ['CONFIG_ESP_TASK_WDT_EN', 'CONFIG_ESP_TASK_WDT_INIT', 'CONFIG_ESP_TASK_WDT_PANIC', 'CONFIG_ESP_TASK_WDT_CHECK_IDLE_TASK_CPU0', 'CONFIG_ESP_TASK_WDT_CHECK_IDLE_TASK_CPU1']) {
      expect(ours.get(name), name).toBe('y');
    }
    // The panic handler resets (it could halt instead, which would leave the device hung).
    expect(ours.get('CONFIG_ESP_SYSTEM_PANIC_PRINT_REBOOT')).toBe('y');
    expect(DEFAULTS).not.toMatch(/CONFIG_ESP_SYSTEM_PANIC_PRINT_HALT=y/);
  });

  it('times out after 8 s: within ESP-IDF range, and well beyond the firmware feeding and the SDK loop waking', () => {
    const s = Number(ours.get('CONFIG_ESP_TASK_WDT_TIMEOUT_S'));
    expect(s).toBe(8);
    expect(s).toBeGreaterThanOrEqual(1);
    expect(s).toBeLessThanOrEqual(60);
    // The firmware feeds every second; the SDK's loop waits at most TIMEOUT_S - 1 s between its own feeds.
    expect(WATCHDOG_FEED_MS * 4).toBeLessThanOrEqual(s * 1000);
  });

  it('has the setup network offer the device as the DNS server (the captive portal)', () => {
    expect(ours.get('CONFIG_LWIP_DHCPS_ADD_DNS')).toBe('y');
  });

  it('erases the OTA slot as it is written, not all at once before (which would outlast the watchdog)', () => {
    const c = readFileSync(join(ROOT, 'hosts/esp32/native/desk_ota.c'), 'utf8');
    expect(c).toContain('esp_ota_begin(p, OTA_WITH_SEQUENTIAL_WRITES, &gHandle)');
    expect(c).not.toContain('OTA_SIZE_UNKNOWN');
  });
});

/** The Moddable SDK's folder, its archive, or why there is none: the project's one rule (tools/sdk.mjs). */
function findSdk(): { dir: string } | { archive: string } | { none: string } {
  if (located.ok && located.moddable && existsSync(join(located.moddable, 'build/devices/esp32'))) return { dir: located.moddable };
  const archive = findArchive();
  if (archive) return { archive };
  return { none: `no Moddable SDK here (${located.reason})` };
}

const FILES = ['build/devices/esp32/lib/main/main.c', 'xs/platforms/esp/xsHost.h', 'build/devices/esp32/targets/lilygo_tdisplay_s3/sdkconfig/sdkconfig.defaults.release'];

const sdk = findSdk();
if ('none' in sdk) console.log(`device-watchdog: the SDK checks are skipped: ${sdk.none}`);

describe.skipIf('none' in sdk)('the watchdog against the Moddable SDK 8.2.3 (ESP-IDF v6.0)', () => {
  it("uses the option names the SDK's own ESP32-S3 targets use; the SDK's loop task subscribes and its loop feeds when EN is set", () => {
    let dir: string;
    let temp: string | null = null;
    if ('dir' in sdk) dir = sdk.dir;
    else {
      temp = mkdtempSync(join(tmpdir(), 'desk-sdk-wdt-'));
      const r = spawnSync('tar', ['-xJf', (sdk as { archive: string }).archive, '-C', temp, ...FILES.map((f) => `moddable/${f}`)], { encoding: 'utf8' });
      expect(r.status, r.stderr).toBe(0);
      dir = join(temp, 'moddable');
    }
    try {
      const main = readFileSync(join(dir, FILES[0]!), 'utf8');
      expect(main).toMatch(/#if CONFIG_ESP_TASK_WDT_EN\s+esp_task_wdt_add\(NULL\);/);
      const host = readFileSync(join(dir, FILES[1]!), 'utf8');
      expect(host).toMatch(/#if CONFIG_ESP_TASK_WDT_EN\s+#define modWatchDogReset\(\) esp_task_wdt_reset\(\)/);
      const target = options(readFileSync(join(dir, FILES[2]!), 'utf8'));
      for (const name of ['CONFIG_ESP_TASK_WDT_EN', 'CONFIG_ESP_TASK_WDT_INIT', 'CONFIG_ESP_TASK_WDT_PANIC', 'CONFIG_ESP_TASK_WDT_TIMEOUT_S']) expect(target.has(name), name).toBe(true);
      if ('dir' in sdk) {
        // Every watchdog option we set is one some SDK ESP32 configuration sets too.
        const all = new Set<string>();
        const targets = join(dir, 'build/devices/esp32/targets');
        for (const t of readdirSync(targets)) {
          const folder = join(targets, t, 'sdkconfig');
          if (!existsSync(folder)) continue;
          for (const f of readdirSync(folder)) for (const line of readFileSync(join(folder, f), 'utf8').split('\n')) all.add((/^#?\s*(CONFIG_[A-Z0-9_]+)/.exec(line) ?? [])[1] ?? '');
        }
        for (const name of [...ours.keys()].filter((n) => n.startsWith('CONFIG_ESP_TASK_WDT'))) expect(all.has(name), name).toBe(true);
      }
    } finally {
      if (temp) rmSync(temp, { recursive: true, force: true });
    }
  });
});

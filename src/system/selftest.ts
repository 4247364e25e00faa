// The device self-test behind device.selftest: one PASS, FAIL or SKIP per
// item, each with a short reason. It leaves no trace: the NVS and SD probes
// erase what they write, and the ring shows the LED state it already had.
//
// The microphone item opens and closes the input (no sound recorded).
// Audible items (today: the speaker's test tone) run only when asked
// (audible: true) and are refused while the device is silent. Silent
// (decision): the sfxVol setting is 0, or the sound-effect level of the
// current mode is 0 (sfxLvlO in Orchestrator, sfxLvlN in Notifier). An unset
// setting is not silent.
//
// The test console (SELFTEST, TEST <name>) adds two items device.selftest
// leaves out: clock (synced) and wifi (the station link).

import type { Kernel, Mode } from '../core/kernel.ts';
import type { Hal } from '../hal/index.ts';
import type { SystemOptions } from './options.ts';
import { randomId } from '../util/ids.ts';
import { errorMessage } from '../util/json.ts';
import { decode, encode } from '../util/utf8.ts';

/** What the self-test reads: the HAL, the boot mode, the settings and the LED, the music player's decoder, the speaker and the microphone. */
export interface SelftestParts extends Pick<SystemOptions, 'actions' | 'music' | 'audio'> {
  hal: Hal;
  mode: Mode;
}

/** The self-test's parts from the kernel and the system's options. */
export function selftestParts(k: Kernel, o: Pick<SystemOptions, 'actions' | 'music' | 'audio'>): SelftestParts {
  return { hal: k.hal, mode: k.mode, actions: o.actions, music: o.music, audio: o.audio };
}

// Regular expressions are module constants: XS compiles a literal each time it is evaluated.
const APP_SLOT = /^ota_[01]$/;

export type SelftestStatus = 'PASS' | 'FAIL' | 'SKIP';

export interface SelftestItem {
  item: string;
  status: SelftestStatus;
  detail: string;
}

/** The update engine's heap floor (spec Limits): the device is healthy above it. */
export const HEAP_FLOOR_FREE = 24 * 1024;
export const HEAP_FLOOR_BLOCK = 16 * 1024;
const TONE_HZ = 880;
const TONE_MS = 200;

const kb = (n: number): string => `${Math.floor(n / 1024)} KB`;
const mb = (n: number): string => `${(n / 1024 ** 2).toFixed(1)} MB`;

/** Why sound is off, or null when the device may make sound. */
export function silentReason(sys: SelftestParts): string | null {
  const vol = sys.actions.config('sfxVol');
  if (vol === 0) return 'sfxVol is 0';
  const levelKey = sys.mode === 1 ? 'sfxLvlO' : 'sfxLvlN';
  if (sys.actions.config(levelKey) === 0) return `${levelKey} is 0`;
  return null;
}

function attempt(item: string, run: () => [SelftestStatus, string]): SelftestItem {
  try {
    const [status, detail] = run();
    return { item, status, detail };
  } catch (e) {
    return { item, status: 'FAIL', detail: errorMessage(e) };
  }
}

function nvs(sys: SelftestParts): SelftestItem {
  return attempt('nvs', () => {
    const value = randomId((b) => sys.hal.system.random(b), 'st-');
    const { nvs } = sys.hal;
    nvs.set('selftest', 'probe', value);
    // get() may be served by the firmware's write-through cache; keys() always asks the store.
    const stored = nvs.keys('selftest').indexOf('probe') >= 0;
    const back = nvs.get('selftest', 'probe');
    nvs.erase('selftest');
    if (!stored) return ['FAIL', 'the written key is not in the store'];
    if (nvs.keys('selftest').length !== 0) return ['FAIL', 'the test key survived an erase'];
    return back === value ? ['PASS', 'wrote, read back and erased a test key'] : ['FAIL', 'read back a different value'];
  });
}

function sd(sys: SelftestParts): SelftestItem {
  return attempt('sd', () => {
    const info = sys.hal.sd.probe();
    if (!info.present) return ['SKIP', 'no card inserted'];
    const path = '/selftest.tmp';
    const data = encode(randomId((b) => sys.hal.system.random(b), 'st-'));
    const f = sys.hal.sd.open(path, 'w');
    try {
      f.write(data);
      f.sync();
    } finally {
      f.close();
    }
    const back = decode(sys.hal.sd.read(path, 0, data.length + 8));
    sys.hal.sd.remove(path);
    const size = info.totalBytes === null ? 'size unknown' : `${mb(info.totalBytes)}${info.totalBytes < 1024 ** 3 ? ' (under 1 GB: unsupported for files)' : ''}`;
    return back === decode(data) ? ['PASS', `card ${size}; wrote, read back and removed a test file`] : ['FAIL', 'read back different bytes'];
  });
}

function flash(sys: SelftestParts): SelftestItem {
  return attempt('flash', () => {
    const { flash } = sys.hal;
    const parts = flash.partitions();
    const apps = parts.filter((p) => p.type === 'app' && APP_SLOT.test(p.subtype));
    const otadata = parts.some((p) => p.type === 'data' && p.subtype === 'ota');
    if (apps.length !== 2 || !otadata) return ['FAIL', `expected two app slots and otadata, found ${apps.length} app slots${otadata ? '' : ' and no otadata'}`];
    if (apps[0]!.size !== apps[1]!.size) return ['FAIL', 'the two app slots differ in size'];
    const running = flash.runningSlot();
    const state = flash.slotState(running);
    if (state === 'invalid' || state === 'aborted') return ['FAIL', `running slot ${running} is marked ${state}`];
    return ['PASS', `two app slots of ${mb(apps[0]!.size)}; running slot ${running} (${state})`];
  });
}

function heap(sys: SelftestParts): SelftestItem {
  return attempt('heap', () => {
    const h = sys.hal.system.heap();
    const figures = `free ${kb(h.freeInternal)}, largest block ${kb(h.largestBlock)}, lowest ${kb(h.minFreeInternal)}`;
    const ok = h.freeInternal >= HEAP_FLOOR_FREE && h.largestBlock >= HEAP_FLOOR_BLOCK;
    return [ok ? 'PASS' : 'FAIL', `${figures}; floor ${kb(HEAP_FLOOR_FREE)} free and ${kb(HEAP_FLOOR_BLOCK)} block`];
  });
}

function display(sys: SelftestParts): SelftestItem {
  return attempt('display', () => {
    const { width, height } = sys.hal.display;
    const { controller } = sys.hal.board.display;
    if (!(width > 0 && height > 0)) return ['FAIL', `the panel reports ${width}x${height}`];
    // Nothing is drawn: the panel cannot be read back, so a drawing proves nothing here.
    return ['PASS', `${controller} ${width}x${height} reports its size (not drawn)`];
  });
}

function ring(sys: SelftestParts): SelftestItem {
  return attempt('ring', () => {
    if (sys.hal.ring.count === 0) return ['SKIP', 'this board has no LED ring'];
    sys.actions.showLed();
    return ['PASS', `${sys.hal.ring.count} LEDs took a frame (the current LED state)`];
  });
}

function touch(sys: SelftestParts): SelftestItem {
  return attempt('touch', () => {
    if (!sys.hal.touch.present) return ['SKIP', 'this board has no touch panel'];
    return ['PASS', `${sys.hal.board.touch?.controller ?? 'controller'} present`];
  });
}

function battery(sys: SelftestParts): SelftestItem {
  return attempt('battery', () => {
    const b = sys.hal.battery.read();
    if (!b.present) return ['SKIP', 'no battery gauge (or monitoring off)'];
    if (b.levelPct === null || b.millivolts === null) return ['FAIL', 'the gauge gives no reading'];
    const health = b.healthPct === null ? '' : `, health ${b.healthPct}%`;
    const power = b.external ? (b.charging ? ', charging' : ', on external power') : '';
    return ['PASS', `${b.levelPct}% at ${b.millivolts} mV${health}${power}`];
  });
}

/** The speaker, silently: an output is there, and the host's MP3 decoder turns a test frame into a frame of samples. */
function speaker(sys: SelftestParts): SelftestItem {
  return attempt('speaker', () => {
    if (!sys.hal.audio.present) return ['SKIP', 'this board has no speaker'];
    const d = sys.music.decodeCheck();
    if (!d) return ['PASS', `output present (the mixer runs at ${sys.audio.speaker.streamRate()} Hz); no MP3 decoder on this host`];
    if (d.samples !== 1152) return ['FAIL', `the MP3 decoder gave ${d.samples} samples for a 1152-sample test frame`];
    return ['PASS', `output present (the mixer runs at ${sys.audio.speaker.streamRate()} Hz); the MP3 decoder turned a test frame into 1152 samples`];
  });
}

function audio(sys: SelftestParts, audible: boolean): SelftestItem {
  return attempt('audio', () => {
    const out = sys.hal.audio;
    if (!out.present) return ['SKIP', 'this board has no speaker'];
    if (!audible) return ['SKIP', 'audible test not requested (audible: false)'];
    const silent = silentReason(sys);
    if (silent !== null) return ['SKIP', `refused: the device is silent (${silent})`];
    // Through the speaker's mixer (src/audio), at the effects' volume, over any music.
    if (!sys.audio.tone(TONE_HZ, TONE_MS)) return ['FAIL', 'the speaker is busy with other sounds'];
    return ['PASS', `played a ${TONE_MS} ms ${TONE_HZ} Hz tone`];
  });
}

/**
 * The microphone: opened and closed at 16 kHz mono through the recorder's
 * lock (so it is never taken from a recording or a voice turn). No sound is
 * recorded: the self-test is instant and silent, and MICREC records.
 */
function mic(sys: SelftestParts): SelftestItem {
  return attempt('mic', () => {
    if (!sys.hal.mic.present) return ['SKIP', 'this board has no microphone'];
    const opened = sys.audio.recorder.open(() => undefined);
    if (!opened.ok) return ['SKIP', `not tested: ${opened.reason}`];
    opened.close();
    return ['PASS', 'opened and closed the 16 kHz mono input (MICREC records a clip)'];
  });
}

function clockItem(sys: SelftestParts): SelftestItem {
  return attempt('clock', () => {
    if (sys.hal.clock.synced()) return ['PASS', `synced (${Math.floor(sys.hal.clock.wallMs() / 1000)} s since 1970)`];
    if (sys.mode === 0) return ['SKIP', 'not synced: Notifier mode has no network time'];
    return ['FAIL', 'not synced: times read from the clock are wrong until the network time arrives'];
  });
}

function wifiItem(sys: SelftestParts): SelftestItem {
  return attempt('wifi', () => {
    if (sys.mode === 0) return ['SKIP', 'Notifier mode keeps Wi-Fi off'];
    const s = sys.hal.wifi.station();
    if (s.state === 'connected') return ['PASS', `station connected to ${s.ssid ?? '?'} as ${s.ip ?? '?'}`];
    if (s.state === 'off') return ['SKIP', 'no station network joined (nothing saved yet)'];
    return ['FAIL', `station ${s.state}${s.ssid ? ` (${s.ssid})` : ''}`];
  });
}

type ItemRun = (sys: SelftestParts, audible: boolean) => SelftestItem;

/** The device.selftest items, in report order. */
const DEVICE_ITEMS: ReadonlyArray<readonly [string, ItemRun]> = [
  ['nvs', nvs],
  ['sd', sd],
  ['flash', flash],
  ['heap', heap],
  ['display', display],
  ['ring', ring],
  ['touch', touch],
  ['battery', battery],
  ['speaker', speaker],
  ['audio', audio],
  ['mic', mic],
];
/** Items the test console adds (SELFTEST, TEST): the device's links to the world. */
const CONSOLE_ITEMS: ReadonlyArray<readonly [string, ItemRun]> = [
  ['clock', clockItem],
  ['wifi', wifiItem],
];

/** Names TEST <name> accepts. */
export const TEST_NAMES: readonly string[] = [...DEVICE_ITEMS, ...CONSOLE_ITEMS].map(([name]) => name);

/** device.selftest's items; withConsoleItems adds clock and wifi (the console's SELFTEST). */
export function runSelftest(sys: SelftestParts, options: { audible: boolean; withConsoleItems?: boolean }): SelftestItem[] {
  const items = options.withConsoleItems ? [...DEVICE_ITEMS, ...CONSOLE_ITEMS] : DEVICE_ITEMS;
  return items.map(([, run]) => run(sys, options.audible));
}

/** One named item (TEST <name>), or null for an unknown name. */
export function runSelftestItem(sys: SelftestParts, name: string, options: { audible: boolean }): SelftestItem | null {
  const entry = [...DEVICE_ITEMS, ...CONSOLE_ITEMS].find(([n]) => n === name);
  return entry ? entry[1](sys, options.audible) : null;
}

export function formatSelftest(items: SelftestItem[]): string {
  const count = (s: SelftestStatus): number => items.filter((i) => i.status === s).length;
  const lines = items.map((i) => `${i.status} ${i.item}: ${i.detail}`);
  return [`selftest: ${count('PASS')} PASS, ${count('FAIL')} FAIL, ${count('SKIP')} SKIP`, ...lines].join('\n');
}

// The device-action applier: carries out one validated device action
// (src/contracts/device-actions.ts validates; this applies). Shared by device.control and
// the turn engine. What each kind does today:
//
//   config      the keys are persisted in NVS namespace 'cfg', as typed
//               (integers as numbers, booleans as 1/0, text as strings), all
//               keys of one action at once or none; sleepOvr and brightOvr
//               of -1 clear the override (the key is removed). Read them back
//               with config(key). Subsystems that use a key read it there.
//   led, lights recorded as the current LED state (ledState()) and handed to
//               the ring engine (src/device/ring-engine.ts), which animates
//               it on the ring when the board has one.
//   tts         recorded, and spoken through the speech port the audio
//               subsystem sets (src/audio: text-to-speech when ttsOn is on
//               and the volume is not 0); without the port, recorded only.
//   orch_model  persisted in NVS namespace 'orch' (provider, model) for the
//               provider layer to read.
//   reboot      refused in unattended turns; otherwise the device restarts
//               REBOOT_DELAY_MS later, so the reply can leave first.
//               (device.control refuses reboot before it gets here.)
//
// Unattended turns (scheduled and synthesis turns) may not reboot and may not
// change ttsOn (spec: unattended rails). A refusal changes nothing.

import type { Hal } from '../hal/index.ts';
import type { Log } from '../log/log.ts';
import type { Store } from '../core/store.ts';
import { capBytes } from '../util/cap.ts';
import { errorMessage } from '../util/json.ts';
import type { ConfigValues, DeviceAction } from '../contracts/index.ts';
import { CONFIG_KEYS, type ConfigKey } from '../contracts/index.ts';
import { INITIAL_LED_STATE, lightsState, ringFrame, type LedState } from './ring.ts';

export const REBOOT_DELAY_MS = 2000;
/** Config keys whose value -1 means "no override" (stored as absent). */
const CLEARED_BY_MINUS_ONE: readonly ConfigKey[] = ['sleepOvr', 'brightOvr'];

export interface ApplyOptions {
  /** A scheduled or synthesis turn: no human waiting (no reboot, no ttsOn). */
  unattended?: boolean;
}

/** unavailable: the action could not be carried out now (a tts action while voice replies are off, no speech key). */
export type ApplyResult = { ok: true; note: string } | { ok: false; reason: 'unattended' | 'storage' | 'unavailable'; note: string };

export type ConfigValue = number | string | boolean;

/** Where led and lights actions go (the ring engine): the new state, or "draw again" after a setting changed. */
export interface LedSink {
  led(state: LedState): void;
  /** force: send the frame even when the ring already shows it (a self-test). */
  refresh(force: boolean): void;
}

/** Speaks a tts action's text (the audio subsystem); the result is the action's. */
export type SpeechPort = (text: string, options: ApplyOptions) => ApplyResult;

export class DeviceActions {
  private led: LedState = INITIAL_LED_STATE;
  private spoken: string | null = null;
  private sink: LedSink | null = null;
  private speech: SpeechPort | null = null;

  constructor(
    private readonly hal: Hal,
    private readonly cfg: Store,
    private readonly orch: Store,
    private readonly log: Log,
  ) {}

  /** The LED state the last led or lights action set. */
  ledState(): LedState {
    return { ...this.led, color: { ...this.led.color } };
  }

  /** The ring engine takes led and lights actions from here on. */
  setLedSink(sink: LedSink): void {
    this.sink = sink;
    sink.led(this.ledState());
  }

  /** The audio subsystem speaks tts actions from here on. */
  setSpeech(port: SpeechPort): void {
    this.speech = port;
  }

  /** The last tts text (spoken or not). */
  lastTts(): string | null {
    return this.spoken;
  }

  /** A persisted config value, typed as CONFIG_KEYS says; undefined when unset. */
  config(key: ConfigKey): ConfigValue | undefined {
    const f = CONFIG_KEYS[key];
    if (f.type === 'boolean') {
      const v = this.cfg.int(key, -1);
      return v === -1 ? undefined : v !== 0;
    }
    if (f.type === 'integer') {
      const v = this.cfg.int(key, Number.NaN);
      return Number.isNaN(v) ? undefined : v;
    }
    return this.cfg.strOrNull(key) ?? undefined;
  }

  /** Shows the current LED state on the ring again (no-op without a ring). */
  showLed(): void {
    if (this.sink) return this.sink.refresh(true);
    if (this.hal.ring.count === 0) return;
    const setting = this.config('ledBrightness');
    this.hal.ring.show(ringFrame(this.led, this.hal.ring.count, typeof setting === 'number' ? setting : undefined));
  }

  apply(action: DeviceAction, options: ApplyOptions = {}): ApplyResult {
    switch (action.kind) {
      case 'config':
        return this.applyConfig(action.values, options);
      case 'led': {
        this.led = {
          mode: action.mode,
          color: action.color ?? this.led.color,
          brightness: action.brightness ?? this.led.brightness,
        };
        return this.shown(`led ${action.mode}`);
      }
      case 'lights':
        this.led = lightsState(action.value);
        return this.shown(`lights ${action.value}`);
      case 'tts':
        this.spoken = action.text;
        if (this.speech) return this.speech(action.text, options);
        this.log.info('tts', `not spoken (no speech output): ${capBytes(action.text, 60)}`);
        return { ok: true, note: 'tts: recorded but not spoken; this device has no speech output' };
      case 'orch_model':
        try {
          this.orch.setMany([
            ['provider', action.provider],
            ['model', action.model],
          ]);
        } catch (e) {
          return { ok: false, reason: 'storage', note: `orch_model: not saved (${errorMessage(e)})` };
        }
        return { ok: true, note: `orch_model: ${action.provider} ${action.model} saved for the next turn` };
      case 'reboot':
        if (options.unattended) return { ok: false, reason: 'unattended', note: 'reboot: refused in an unattended turn' };
        this.hal.clock.setTimeout(() => this.hal.system.reboot('device action'), REBOOT_DELAY_MS);
        return { ok: true, note: `reboot: restarting in ${REBOOT_DELAY_MS / 1000} s` };
    }
  }

  private shown(what: string): ApplyResult {
    if (this.sink) this.sink.led(this.ledState());
    if (this.hal.ring.count === 0) return { ok: true, note: `${what}: recorded; this board has no LED ring` };
    if (!this.sink) this.showLed();
    return { ok: true, note: `${what}: shown on the ring` };
  }

  private applyConfig(values: ConfigValues, options: ApplyOptions): ApplyResult {
    if (options.unattended && values.ttsOn !== undefined) {
      return { ok: false, reason: 'unattended', note: 'config: ttsOn cannot change in an unattended turn; nothing was changed' };
    }
    const entries: Array<readonly [string, ConfigValue | undefined]> = [];
    for (const key of Object.keys(values) as ConfigKey[]) {
      const v = values[key]!;
      entries.push([key, v === -1 && CLEARED_BY_MINUS_ONE.indexOf(key) >= 0 ? undefined : v]);
    }
    try {
      this.cfg.setMany(entries);
    } catch (e) {
      return { ok: false, reason: 'storage', note: `config: nothing saved (${errorMessage(e)})` };
    }
    // Settings the ring draws with (brightness, hold, power profile) take effect at once.
    if (values.ledBrightness !== undefined || values.profile !== undefined) {
      if (this.sink) this.sink.refresh(false);
      else if (this.led.brightness === null && this.led.mode !== 'off') this.showLed();
    }
    const names = entries.map(([k, v]) => (v === undefined ? `${k} cleared` : `${k}=${String(v)}`));
    return { ok: true, note: `config: saved ${names.join(', ')}` };
  }
}

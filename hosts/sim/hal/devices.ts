// Simulator HAL: console, LED ring, display, touch, battery, audio, the
// microphone and the BLE notifier link, as messages to and from the board.

import type {
  AudioOut,
  EncodedCodec,
  FrameDecoder,
  Battery,
  BatteryReading,
  Ble,
  Buttons,
  BleCentral,
  BleHandlers,
  BoardInfo,
  Display,
  GattService,
  LedRing,
  Microphone,
  PcmFormat,
  Serial,
  Touch,
  TouchEvent,
} from '../../../src/hal/index.ts';
import { encode } from '../../../src/util/utf8.ts';
import { hasNativeMp3, mp3Native } from '../../../modules/mp3/mp3.ts';
import { call, on, send } from './bridge.ts';

export function createSerial(): Serial {
  const serial: Serial = {
    onData: null,
    write(text: string) {
      send('serial.write', {}, encode(text));
    },
  };
  on('serial.data', (_e, bin) => {
    if (bin) serial.onData?.(bin);
  });
  return serial;
}

export function createRing(count: number): LedRing {
  return {
    count,
    show(rgb: Uint8Array) {
      send('ring.show', {}, rgb);
    },
  };
}

export function createDisplay(board: BoardInfo): Display {
  return {
    width: board.display.width,
    height: board.display.height,
    begin(x, y, width, height) {
      send('display.begin', { x, y, width, height });
    },
    send(pixels: Uint16Array) {
      send('display.send', {}, new Uint8Array(pixels.buffer, pixels.byteOffset, pixels.byteLength));
    },
    end() {
      send('display.end');
    },
    setBrightness(level) {
      send('display.brightness', { level });
    },
    snapshot() {
      const r = call('display.snapshot').reply;
      return { path: String(r['path']), sha256: String(r['sha256']) };
    },
  };
}

export function createButtons(names: readonly string[]): Buttons {
  const buttons: Buttons = { names, onButton: null };
  on('button', (e) => buttons.onButton?.(String(e['name']), e['down'] === true));
  return buttons;
}

export function createTouch(present: boolean): Touch {
  const touch: Touch = { present, onTouch: null };
  on('touch', (e) => touch.onTouch?.(e['event'] as TouchEvent));
  return touch;
}

export function createBattery(): Battery {
  // The reading changes only when the board says so (battery.reading), so the state snapshot asks
  // the board once per boot.
  let reading: BatteryReading | null = null;
  on('battery.reading', (e) => {
    reading = e['reading'] as BatteryReading;
  });
  return { read: () => (reading ??= call('battery.read').reply['reading'] as BatteryReading) };
}

export function createAudio(): AudioOut {
  // queued and audio.played count frames (samples per channel), as AudioOut.queued says
  let queued = 0;
  let channels = 1;
  // MP3 frames are decoded here, in the runtime, by minimp3 (modules/mp3, the device's C): the board gets PCM.
  const openMp3 = typeof __native !== 'undefined' && hasNativeMp3(__native) ? mp3Native(__native) : null;
  const audio: AudioOut = {
    present: true,
    codecs: openMp3 ? ['mp3'] : [],
    onNeed: null,
    get queued() {
      return queued;
    },
    start(format: PcmFormat) {
      queued = 0;
      channels = format.channels === 2 ? 2 : 1;
      send('audio.start', { ...format });
    },
    write(pcm: Int16Array) {
      queued += Math.floor(pcm.length / channels);
      send('audio.write', {}, new Uint8Array(pcm.buffer, pcm.byteOffset, pcm.byteLength));
    },
    stop() {
      queued = 0;
      send('audio.stop');
    },
    setVolume(level) {
      send('audio.volume', { level });
    },
  };
  if (openMp3) audio.openDecoder = (codec: EncodedCodec): FrameDecoder => {
    if (codec !== 'mp3') throw new Error(`no ${String(codec)} decoder`);
    return openMp3();
  };
  on('audio.played', (e) => {
    queued = Math.max(0, queued - (e['samples'] as number));
    audio.onNeed?.();
  });
  return audio;
}

export function createMic(present: boolean): Microphone {
  const mic: Microphone = {
    present,
    onSamples: null,
    start(format) {
      send('mic.start', { ...format });
    },
    stop() {
      send('mic.stop');
    },
  };
  on('mic.samples', (_e, bin) => {
    if (bin) mic.onSamples?.(new Int16Array(bin.buffer, bin.byteOffset, bin.byteLength >> 1));
  });
  return mic;
}

export function createBle(): Ble {
  let handlers: BleHandlers | null = null;
  const centrals = new Map<number, BleCentral>();
  const central = (e: Record<string, unknown>): BleCentral => {
    const c = e['central'] as BleCentral;
    centrals.set(c.id, c);
    return c;
  };
  on('ble.connect', (e) => handlers?.onConnect(central(e)));
  on('ble.disconnect', (e) => {
    const c = central(e);
    centrals.delete(c.id);
    handlers?.onDisconnect(c);
  });
  on('ble.bond', (e) => handlers?.onBond(central(e), e['ok'] === true));
  on('ble.read', (e) => {
    const value = handlers?.onRead(central(e), String(e['uuid'])) ?? null;
    send('ble.readReply', { req: e['req'], ok: value !== null }, value ?? undefined);
  });
  on('ble.write', (e, bin) => {
    const ok = handlers?.onWrite(central(e), String(e['uuid']), bin ?? new Uint8Array(0)) ?? false;
    send('ble.writeReply', { req: e['req'], ok });
  });
  return {
    present: true,
    start(deviceName: string, services: GattService[], h: BleHandlers) {
      handlers = h;
      call('ble.start', { name: deviceName, services });
    },
    stop() {
      handlers = null;
      call('ble.stop');
    },
    notify(c: BleCentral, uuid: string, value: Uint8Array) {
      send('ble.notify', { central: c.id, uuid }, value);
    },
    bonds: () => call('ble.bonds').reply['bonds'] as string[],
    forgetBonds: () => void call('ble.forgetBonds'),
    address: () => call('ble.bonds').reply['address'] as string,
  };
}

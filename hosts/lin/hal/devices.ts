// lin HAL: the console and the peripherals. The console is the SDK's lin
// embedded:io/serial (modules/io/serial/lin) on the pseudo-terminal the
// runner opens (DESK_CONSOLE), so scripts type at it as at the device's port.
// That module writes at most 1024 bytes at a time and refuses a write while
// one is pending ("would overflow"): the rest waits here for onWritable.
// A PC has none of the board's peripherals, and the SDK's lin platform has
// no driver for them: no LED ring, no touch, no battery gauge, no speaker or
// microphone, no Bluetooth; the display takes the frames and shows them
// nowhere (the simulator draws them).

import Serial from 'embedded:io/serial';
import type { BoardDescriptor } from '../../../boards/index.ts';
import type { AudioOut, Battery, Ble, Display, LedRing, Microphone, Serial as HalSerial, Touch } from '../../../src/hal/index.ts';
import { HalError } from '../../../src/hal/index.ts';
import { encode } from '../../../src/util/utf8.ts';

/** The lin serial module's write buffer (kWriteBufferSize in serial.c). */
const WRITE_MAX = 1024;

/**
 * What modules/io/serial/lin/serial.c reads (xs_serial_constructor): a device
 * path instead of the SDK typing's pins and port, which a UART has and a
 * terminal does not.
 */
interface LinSerialOptions {
  device: string;
  baud: number;
  format: 'buffer';
  onReadable(this: Serial, bytes: number): void;
  onWritable(this: Serial, bytes: number): void;
}

export function createSerial(device: string | undefined): HalSerial {
  const queue: Uint8Array[] = [];
  let blocked = false;
  const flush = (): void => {
    while (queue.length && !blocked) {
      const head = queue[0]!;
      const n = Math.min(WRITE_MAX, head.length);
      try {
        io?.write(head.slice(0, n).buffer as ArrayBuffer);
      } catch {
        blocked = true; // a write is pending: onWritable resumes
        return;
      }
      if (n === head.length) queue.shift();
      else queue[0] = head.subarray(n);
    }
  };
  const serial: HalSerial = {
    onData: null,
    write(text: string) {
      if (!io) {
        trace(text);
        return;
      }
      queue.push(encode(text));
      flush();
    },
  };
  const options: LinSerialOptions | null = device
    ? {
        device,
        baud: 115200,
        format: 'buffer',
        onReadable(count) {
          const bytes = this.read(count);
          if (bytes) serial.onData?.(new Uint8Array(bytes));
        },
        onWritable() {
          blocked = false;
          flush();
        },
      }
    : null;
  const io = options ? new Serial(options as unknown as ConstructorParameters<typeof Serial>[0]) : null;
  return serial;
}

export function createRing(): LedRing {
  return { count: 0, show: () => undefined };
}

export function createDisplay(d: BoardDescriptor): Display {
  return { width: d.display.width, height: d.display.height, begin: () => undefined, send: () => undefined, end: () => undefined, setBrightness: () => undefined };
}

export function createTouch(): Touch {
  return { present: false, onTouch: null };
}

export function createBattery(): Battery {
  return { read: () => ({ present: false, levelPct: null, healthPct: null, millivolts: null, external: true, charging: false }) };
}

export function createAudio(): AudioOut {
  return { present: false, codecs: [], queued: 0, onNeed: null, start: () => undefined, write: () => undefined, stop: () => undefined, setVolume: () => undefined };
}

export function createMic(): Microphone {
  return { present: false, onSamples: null, start: () => undefined, stop: () => undefined };
}

export function createBle(): Ble {
  const none = (): never => {
    throw new HalError('ENOTSUP', 'no Bluetooth in the SDK desktop runtime');
  };
  return { present: false, start: none, stop: () => undefined, notify: () => undefined, bonds: () => [], forgetBonds: () => undefined, address: () => '' };
}

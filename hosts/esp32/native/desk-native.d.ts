// Types of desk-native.js (the device build's host functions). Every glue
// function throws an Error whose message starts with a HAL error code
// ("ENOENT: no such file"); hosts/esp32/hal/errors.ts turns it into HalError.

import type { NativeSha256 } from '../../../modules/sha256/sha256.ts';
import type { NativeUtf8 } from '../../../modules/utf8/utf8.ts';
import type { NativeEc } from '../../../modules/p256/p256.ts';
import type { NativeMp3 } from '../../../modules/mp3/mp3.ts';
import type { NativeVecdot } from '../../../modules/vecdot/vecdot.ts';
import type { NativeLexical } from '../../../modules/lexical/lexical.ts';
import type { SlotState } from '../../../src/hal/index.ts';

export declare const vecdotDot: NativeVecdot['vecdotDot'];
export declare const vecdotTopk: NativeVecdot['vecdotTopk'];
export declare const lexicalBm25: NativeLexical['lexicalBm25'];
export declare const sha256Init: NativeSha256['sha256Init'];
export declare const sha256Update: NativeSha256['sha256Update'];
export declare const sha256Final: NativeSha256['sha256Final'];
export declare const utf8Encode: NativeUtf8['utf8Encode'];
export declare const utf8Decode: NativeUtf8['utf8Decode'];
export declare const utf8Length: NativeUtf8['utf8Length'];
export declare const ecMul2: NativeEc['ecMul2'];
export declare const mp3Open: NativeMp3['mp3Open'];
export declare const mp3Decode: NativeMp3['mp3Decode'];
export declare const mp3Close: NativeMp3['mp3Close'];

export type SdBusConfig =
  | { bus: 'sdspi'; sclk: number; mosi: number; miso: number; cs: number }
  | { bus: 'sdmmc'; clk: number; cmd: number; d0: number };
/** Mounts the card's FAT filesystem; false when no card answers. */
export declare function sdMount(config: SdBusConfig): boolean;
export declare function sdUnmount(): void;
/** [capacity bytes, free bytes], or undefined without a card. */
export declare function sdInfo(): [number, number] | undefined;
/** [size, isDir, mtime in seconds], or undefined when missing. */
export declare function sdStat(path: string): [number, boolean, number] | undefined;
export declare function sdList(path: string): Array<[string, boolean, number]>;
export declare function sdMkdir(path: string): void;
export declare function sdRead(path: string, offset: number, length: number): ArrayBuffer;
/** [file descriptor, current size]. */
export declare function sdOpen(path: string, mode: 'w' | 'a'): [number, number];
/** The file's size after the write. */
export declare function sdWrite(fd: number, bytes: Uint8Array): number;
export declare function sdSync(fd: number): void;
export declare function sdClose(fd: number): void;
export declare function sdRename(from: string, to: string): void;
export declare function sdRemove(path: string): void;

/** [label, isApp, subtype, offset, size] per partition. */
export declare function otaPartitions(): Array<[string, boolean, number, number, number]>;
/** 0 or 1, -1 when not running from an OTA slot. */
export declare function otaRunning(): number;
export declare function otaBoot(): number;
export declare function otaState(slot: 0 | 1): SlotState;
export declare function otaBegin(slot: 0 | 1): void;
export declare function otaWrite(bytes: Uint8Array): void;
export declare function otaEnd(): void;
export declare function otaAbort(): void;
export declare function otaRead(slot: 0 | 1, offset: number, length: number): ArrayBuffer;
export declare function otaSetBoot(slot: 0 | 1): void;
export declare function otaMarkValid(): void;

export declare function sysResetReason(): string;
/** [free internal, largest internal block, minimum free internal, free PSRAM]. */
export declare function sysHeap(): [number, number, number, number];
/** [XS bytes in use, high-water, reserved from the system, keys]. */
export declare function sysXsHeap(): [number, number, number, number];
export declare function sysXsResetPeak(): void;
export declare function sysRandom(bytes: Uint8Array): void;
export declare function sysFeedWatchdog(): void;
export declare function sysRestart(): never;
export declare function sysDeepSleep(ms: number): never;

export declare function keepGet(key: string): number | string | ArrayBuffer | undefined;
export declare function keepSet(key: string, value: number | string | Uint8Array): void;
export declare function keepDelete(key: string): void;
export declare function keepKeys(): string[];
export declare function keepErase(): void;
export declare function nvsEraseMain(): void;

/** Installs the USB Serial/JTAG driver (once). */
export declare function consoleOpen(): void;
/** The bytes received since the last call, or undefined. */
export declare function consoleRead(): ArrayBuffer | undefined;
/** Queues bytes; returns how many fit (the rest waits for the next call). */
export declare function consoleWrite(bytes: Uint8Array): number;

export interface PanelConfig {
  controller: 'st7796s' | 'st7701s';
  width: number;
  height: number;
  rotation: number;
  [pin: string]: number | string;
}
export declare function panelOpen(config: PanelConfig): void;
export declare function panelBegin(x: number, y: number, width: number, height: number): void;
export declare function panelSend(pixels: Uint16Array): void;
export declare function panelEnd(): void;

/** Colour order on the wire: 0 GRB (the WS2812B), 1 RGB. */
export type RingOrder = 0 | 1;
/** Opens the LED ring on an RMT channel at the pin (once). */
export declare function ringOpen(pin: number, count: number, order: RingOrder): void;
/** Shows a frame (red, green, blue per LED; a short frame darkens the rest); returns once it has played. */
export declare function ringShow(rgb: Uint8Array): void;

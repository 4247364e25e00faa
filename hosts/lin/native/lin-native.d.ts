// Types of lin-native.js (the SDK desktop runtime's host functions).

import type { NativeSha256 } from '../../../modules/sha256/sha256.ts';
import type { NativeUtf8 } from '../../../modules/utf8/utf8.ts';
import type { NativeEc } from '../../../modules/p256/p256.ts';
import type { NativeVecdot } from '../../../modules/vecdot/vecdot.ts';
import type { NativeLexical } from '../../../modules/lexical/lexical.ts';

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

/** An environment variable of the process (set by the runner's caller), or undefined. */
export declare function linEnv(name: string): string | undefined;
/** Ends the process with this status (64: reboot, 65: deep sleep, as on the simulator). */
export declare function linExit(code: number): never;
/** [XS bytes in use, high-water, reserved from the system, keys created at run time, stack high-water in slots or -1]. */
export declare function linXsHeap(): [number, number, number, number, number];
export declare function linXsResetPeak(): void;
/** Fills the buffer from the kernel's random source (getrandom). */
export declare function linRandom(bytes: Uint8Array): void;

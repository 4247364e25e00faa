// The MP3 decoder: minimp3 (CC0 1.0, vendored in ./minimp3) behind
// mp3mono.c, bound by xs_mp3.c. The same C on both hosts: the device binds
// it in hosts/esp32/native/desk-native.js, the simulator runtime installs it
// on __native (on either of its XS engines). No TypeScript fallback: decoding
// MP3 in TypeScript would not keep up on XS, so a host without the native
// decodes no MP3 and the player skips MP3 files, saying why.
//
// Runs on XS: ES2022 only, no host globals; the host passes the natives in.

/** The native functions (on __native in the simulator, docs/sim-protocol.md; desk-native.js on the device). */
export interface NativeMp3 {
  /** A decoder (an opaque host object). */
  mp3Open(): object;
  /** Decodes the frame at the start of input (frame + guard bytes, ignored) into out (>= 1152); samples written, 0 (nothing decoded) or -1 (no whole frame). */
  mp3Decode(decoder: object, input: Uint8Array, out: Int16Array): number;
  mp3Close(decoder: object): void;
}

/** One stream's decoder, as the HAL's FrameDecoder (src/hal/devices.ts) has it. */
export interface Mp3Decoder {
  decode(input: Uint8Array, out: Int16Array): number;
  close(): void;
}

export function hasNativeMp3(obj: unknown): obj is NativeMp3 {
  const n = obj as Partial<NativeMp3> | null | undefined;
  return !!n && typeof n.mp3Open === 'function' && typeof n.mp3Decode === 'function' && typeof n.mp3Close === 'function';
}

/** Opens decoders on the native functions. */
export function mp3Native(n: NativeMp3): () => Mp3Decoder {
  return () => {
    let d: object | null = n.mp3Open();
    return {
      decode(input, out) {
        if (!d) throw new Error('mp3: the decoder is closed');
        const r = n.mp3Decode(d, input, out);
        return r > 0 ? r : 0;
      },
      close() {
        if (d) n.mp3Close(d);
        d = null;
      },
    };
  };
}

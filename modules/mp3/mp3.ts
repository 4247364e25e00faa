// The MP3 decoder the simulator runtime links: the Moddable SDK's libmad
// (the C the device runs, through the SDK's mp3/decode), bound by xs_mp3.c
// onto __native. No TypeScript fallback: decoding MP3 in TypeScript would
// not keep up on XS, so without the native the simulator decodes no MP3 and
// the player skips MP3 files, as a device without a decoder would.
//
// Runs on XS: ES2022 only, no host globals; the host passes __native in.

/** The functions the runtime puts on `__native` when libmad is built in (docs/sim-protocol.md). */
export interface NativeMp3 {
  /** A decoder (an opaque host object). */
  mp3Open(): object;
  /** Decodes the frame at the start of input (frame + 8 guard bytes) into out (>= 1152); samples written or -1. */
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

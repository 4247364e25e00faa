// Types for bench/voice.mjs.
export function speechWav(path: string, parts?: Array<[ms: number, amplitude: number]>): void;
export function voiceBench(turns?: number): Promise<{ turns: number; firstAudioMs: number; transcriptMs: number; replyMs: number; xsPeak: number; xsStatic: number }>;
export function control(deviceDir: string, op: string, args: Record<string, unknown>): Promise<Record<string, unknown>>;

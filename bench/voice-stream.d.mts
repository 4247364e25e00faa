// Types for bench/voice-stream.mjs.
export const PROFILE: { transcriptionMs: number; model: { firstMs: number; tokensPerS: number }; speechFirstByteMs: number };
export const REPLY: string;
export function firstSentenceTokens(turn: unknown): { first: number; all: number };
export function voiceStreamBench(rounds?: number): Promise<Record<string, unknown>>;
export function voiceStreamRows(row: (work: string, figure: string, target?: string, verdict?: string) => void, ok: (pass: boolean) => string): Promise<void>;

// Types for tools/embedding-fake.mjs.

import type { EmbeddingFamily } from './provider-rules.mjs';

export interface EmbeddingModelFacts {
  /** Numbers per vector by default. */
  width: number;
  /** The most numbers dimensions (OpenAI) or output_dimension (Mistral) may ask for; 0: the model cannot be asked. */
  askMax: number;
}
export const EMBEDDING_MODELS: { openai: Record<string, EmbeddingModelFacts>; mistral: Record<string, EmbeddingModelFacts> };
export const CUSTOM_WIDTH: number;
export function embeddingModel(family: EmbeddingFamily, model: unknown): EmbeddingModelFacts | null;
export function inputTokens(input: string | number[]): number;
export function inputList(input: unknown): Array<string | number[]>;
export function emulatedVector(input: string | number[], width: number, model: string): number[];
export function base64Vector(vector: number[]): string;
export function embeddingAnswer(family: EmbeddingFamily, body: Record<string, unknown>, width: number, options?: { vectors?: number[][] }): Record<string, unknown>;

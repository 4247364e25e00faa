// Types for tools/provider-rules.mjs.
export const MANAGED_AGENTS_BETA: string;
export const MCP_CLIENT_BETA: string;
export const ANTHROPIC_VERSION: string;
export const REASONING_MODEL: RegExp;
export const MISTRAL_TOOL_ID: RegExp;
export function mistralToolIdRefusal(id: unknown): Refusal;
export const MESSAGE_STOP_REASONS: string[];
export const SESSION_STOP_REASONS: string[];
export interface Refusal {
  status: number;
  message: string;
  code?: string;
  type?: string;
}
export interface RuleRequest {
  host: string;
  query?: string;
  headers: Record<string, string | string[] | undefined>;
  body?: unknown;
}
export function strictSchemaProblem(schema: unknown): string | null;
export function betasOf(rec: RuleRequest): string[];
export function checkHeaders(rec: RuleRequest, options?: { managed?: boolean }): Refusal | null;
export function checkRound(dialect: 'responses' | 'messages' | 'chat' | 'conversations', rec: RuleRequest, ctx: { family: string; followers?: Map<string, string> }): Refusal | null;
export const VAULT_CREDENTIALS_MAX: number;
export function mcpServersProblem(servers: unknown, tools: unknown, options?: { exactlyOne?: boolean; max?: number; fields?: string[] }): string | null;
export function responsesMcpProblem(tools: unknown): string | null;
export function checkManaged(kind: string, rec: RuleRequest): Refusal | null;
export function checkOther(dialect: 'moderations' | 'speech' | 'models', rec: RuleRequest, family: string): Refusal | null;
export const TRANSCRIPTION_FIELDS: { openai: string[]; mistral: string[] };
export const TRANSCRIPTION_FORMATS: string[];
export const TRANSCRIPTION_MAX_BYTES: number;
export interface TranscriptionForm {
  fields: Record<string, string>;
  file: { name: string; type: string; size: number; bytes: Uint8Array } | null;
}
export function wavProblem(bytes: Uint8Array): string | null;
export function checkTranscription(rec: { headers: Record<string, string | string[] | undefined> }, raw: Buffer, family: string): Promise<{ refused: Refusal; form?: undefined } | { form: TranscriptionForm; refused?: undefined }>;
export type EmbeddingFamily = 'openai' | 'mistral' | 'custom';
export const EMBEDDING_FIELDS: { openai: string[]; mistral: string[] };
export const EMBEDDING_LIMITS: Record<EmbeddingFamily, { inputs: number; perInput: number; tokens: number }>;
/** A refused embeddings request; a Mistral validation failure (422) carries pydantic's detail. */
export interface EmbeddingRefusal extends Refusal {
  detail?: Array<{ type: string; loc: Array<string | number>; msg: string; input?: unknown }>;
}
export function checkEmbeddings(rec: RuleRequest, family: EmbeddingFamily, embeddingModel: (family: EmbeddingFamily, model: unknown) => { width: number; askMax: number } | null): EmbeddingRefusal | null;

// What /mcp serves besides tools, as contracts: the subsystem that owns the
// data (docs, files, skills) writes a resource or prompt provider against
// these types and hands it over through its face; src/mcp takes the
// providers in its options and serves them (MCP "Resources" and "Prompts").
// Neither side imports the other. Types only, and the one error a read throws.

import type { McpContent, ToolCaller } from '../core/tools/types.ts';

export interface ResourceInfo {
  uri: string;
  name: string;
  title?: string;
  description?: string;
  mimeType?: string;
  /** Bytes of the raw content, when known. */
  size?: number;
}

export interface ResourceTemplateInfo {
  uriTemplate: string;
  name: string;
  title?: string;
  description?: string;
  mimeType?: string;
}

export type ResourceContents = { uri: string; mimeType?: string; text: string } | { uri: string; mimeType?: string; blob: string };

export interface ResourceRead {
  contents: ResourceContents[];
  /** How long a 2026-07-28 client may keep it (ms): long for the firmware's docs, 0 for files. */
  ttlMs: number;
}

/** A read that cannot be answered: the resource does not exist for this caller, or cannot be read now (the reason says which). */
export class ResourceError extends Error {}

export interface ResourceProvider {
  /** The URI scheme this provider answers (docs, artifact, test). */
  scheme: string;
  /** What this caller may read now; [] when nothing (no card). */
  list(caller: ToolCaller): ResourceInfo[];
  templates(): ResourceTemplateInfo[];
  /** One resource; throws ResourceError when there is none for this caller. */
  read(uri: string, caller: ToolCaller): ResourceRead;
}

export interface PromptArgument {
  name: string;
  description?: string;
  required?: boolean;
}

export interface PromptInfo {
  name: string;
  title?: string;
  description?: string;
  arguments?: PromptArgument[];
}

export interface PromptMessage {
  role: 'user' | 'assistant';
  content: McpContent;
}

export interface PromptResult {
  description?: string;
  messages: PromptMessage[];
}

export interface PromptProvider {
  list(caller: ToolCaller): PromptInfo[];
  /** The prompt filled with its arguments (validated against its declaration already); throws an Error whose message says why it cannot be had. */
  get(name: string, args: Record<string, string>, caller: ToolCaller): PromptResult;
}

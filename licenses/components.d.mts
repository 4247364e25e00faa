// Types for licenses/components.mjs.
import type { Component } from '../tools/licenses.mjs';
export const COMPONENTS: Component[];
export const RELEASE_BLOCKERS: Array<{ id: string; why: string }>;
export const EXTRACTED: Record<string, { name: string; file?: [string, string]; text?: string }>;
